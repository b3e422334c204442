#!/usr/bin/env bash
# Every accelerator vendor on a real local Slurm (issue 18): for each of
# Ascend, Hygon, Cambricon, Moore Threads, MetaX and Kunlunxin the config
# names that vendor, and each node is given the vendor's fake management
# library through %n (paths.<lib>: $fx/$v/%n/<soname>; the fake answers
# <vendor>.json beside itself), its PCI functions (sysfs) and device
# nodes.  sna1's library reports a fault; a --supernode=1 job is
# submitted: the prolog drains sna1 with the vendor's reason, the job is
# requeued onto sn02 and runs there; the task environment names the
# vendor's variables; the epilog records each device with the vendor's
# counters.  One cluster for all six: the config file is rewritten
# between vendors (the plugins and programs read it per job).
source "$(dirname "$0")/lib.sh"
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
FIX=$SRC/tests/unit/fixtures/vendors
for p in "$PROLOG" "$EPILOG"; do [[ -x $p ]] || { echo "SKIP: $p not built"; exit 77; }; done

# vendor  fake library (build path)          paths key  PCI class  device node pattern
declare -A LIB KEY CLASS NODE FIXTURE
LIB[ascend]=fake_dcmi/libdcmi.so;              KEY[ascend]=dcmi
LIB[hygon]=fake_rocm_smi/librocm_smi64.so;     KEY[hygon]=rocm_smi
LIB[cambricon]=fake_cndev/libcndev.so;         KEY[cambricon]=cndev
LIB[mthreads]=fake_mtml/libmtml.so;            KEY[mthreads]=mtml
LIB[metax]=fake_mxsml/libmxsml.so;             KEY[metax]=mxsml
LIB[kunlunxin]=fake_xpuml/libxpuml.so.1;       KEY[kunlunxin]=xpuml
CLASS[ascend]=0x120000 CLASS[hygon]=0x038000 CLASS[cambricon]=0x120000
CLASS[mthreads]=0x030000 CLASS[metax]=0x038000 CLASS[kunlunxin]=0x120000
NODE[ascend]=davinci%d NODE[hygon]=dri/renderD%d NODE[cambricon]=cambricon_dev%d
NODE[mthreads]=dri/renderD%d NODE[metax]=dri/renderD%d NODE[kunlunxin]=xpu%d
declare -A PCI=([ascend]=0x19e5 [hygon]=0x1d94 [cambricon]=0xcabc [mthreads]=0x1ed5
	[metax]=0x9999 [kunlunxin]=0x1d22)
VENDORS=(ascend hygon cambricon mthreads metax kunlunxin)
# SN_TEST_VENDORS="ascend metax": only those (while debugging one vendor).
[[ -n ${SN_TEST_VENDORS:-} ]] && read -ra VENDORS <<<"$SN_TEST_VENDORS"
for v in "${VENDORS[@]}"; do
	[[ -r $BUILD/tests/${LIB[$v]} ]] || { echo "SKIP: $BUILD/tests/${LIB[$v]} not built"; exit 77; }
	FIXTURE[$v]=$(ls "$FIX/$v"/*.json | grep -v faults | head -n1)
done
unset SN_FAKE_DCMI_FIXTURE SN_FAKE_ROCM_SMI_FIXTURE SN_FAKE_CNDEV_FIXTURE \
	SN_FAKE_MTML_FIXTURE SN_FAKE_MXSML_FIXTURE SN_FAKE_XPUML_FIXTURE

name="it-vendors-$$"
root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
chmod 755 "$fx"

# node VENDOR NODE FAULT: the node's fake library, fixture (FAULT applied
# to the first device), PCI functions and device nodes; prints the count.
node() {
	local v=$1 n=$2 d=$fx/$1/$2
	mkdir -p "$d/sys/bus/pci/devices" "$d/dev"
	cp "$BUILD/tests/${LIB[$v]}" "$d/"
	python3 - "${FIXTURE[$v]}" "$d/$v.json" "$3" "$d" "${CLASS[$v]}" "${NODE[$v]}" "${PCI[$v]}" <<'EOF'
import json, os, re, sys
src, dst, fault, d, cls, node, vid = sys.argv[1:8]
fx = json.load(open(src))
bdfs = []
def walk(o):
    if isinstance(o, dict):
        for k, x in o.items():
            walk(x)
    elif isinstance(o, list):
        for x in o:
            walk(x)
    elif isinstance(o, str):
        m = re.fullmatch(r'([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])', o)
        if m:
            bdfs.append('%s:%s:%s.%s' % (m.group(1)[-4:], m.group(2), m.group(3), m.group(4)))
walk(fx)
if fault:
    exec(fault)  # edits fx: the first device's fault
json.dump(fx, open(dst, 'w'), indent=1)
for i, b in enumerate(sorted(set(bdfs))):
    p = os.path.join(d, 'sys/bus/pci/devices', b)
    os.makedirs(p, exist_ok=True)
    open(os.path.join(p, 'vendor'), 'w').write(vid + '\n')
    open(os.path.join(p, 'class'), 'w').write(cls + '\n')
    open(os.path.join(p, 'device'), 'w').write('0x0d80\n')
    n = os.path.join(d, 'dev', node % (128 + i if 'render' in node else i))
    os.makedirs(os.path.dirname(n), exist_ok=True)
    open(n, 'w').close()
print(len(set(bdfs)))
EOF
}

# The first device's fault per vendor (python, on the fixture as fx), the
# code the drain reason starts with, and the words the reason must hold.
declare -A FAULT CODE REASON
FAULT[ascend]='fx["cards"][0]["chips"][0]["health"] = 3'
CODE[ascend]=ACCEL_HEALTH
REASON[ascend]="supernode: ACCEL_HEALTH npu0 0000:c1:00.0 health 3 (critical alarm) expected healthy (DCMI)"
FAULT[hygon]='fx["devices"][0]["ecc"]["umc"] = [0, 2]'
CODE[hygon]=ACCEL_HEALTH
REASON[hygon]="supernode: ACCEL_HEALTH dcu0 0000:07:00.0 UMC uncorrectable ECC 2 expected healthy (ROCm SMI) (+1 more)"
FAULT[cambricon]='fx["devices"][0]["health"] = 0'
CODE[cambricon]=ACCEL_HEALTH
REASON[cambricon]="supernode: ACCEL_HEALTH mlu0 0000:4f:00.0 health 0 deviceState 1 driverState 4 overall 0 expected healthy (CNDev)"
FAULT[mthreads]='fx["devices"][0]["ecc"]["uncorrected"] = 5'
CODE[mthreads]=ACCEL_HEALTH
REASON[mthreads]="supernode: ACCEL_HEALTH gpu0 0000:0f:00.0 ECC uncorrected 5 (volatile, DRAM) expected healthy (MTML) (+1 more)"
FAULT[metax]='fx["devices"][0]["metaxlink"][0] = 2'
CODE[metax]=ACCEL_LINK_DOWN
REASON[metax]="supernode: ACCEL_LINK_DOWN gpu0 0000:0e:00.0 MetaXLink up 5 of 6, 1 unused: link 0 Down_Optical_InPlace"
FAULT[kunlunxin]='fx["devices"][0]["state"] = 207'
CODE[kunlunxin]=ACCEL_HEALTH
REASON[kunlunxin]="supernode: ACCEL_HEALTH xpu0 0000:1a:00.0 xpumlDeviceGetState 207 (ERROR) expected healthy (XPUML)"
# What the epilog records for each vendor (a delta key of every device).
declare -A RECORDED
RECORDED[ascend]=hccs_crc RECORDED[hygon]=xgmi_error_status
RECORDED[cambricon]=mlulink_fec_uncorrected RECORDED[mthreads]=ecc_uncorrected
RECORDED[metax]=ecc_uncorrected RECORDED[kunlunxin]="deltas"
# What a job raises on snb2 (python on its fixture as fx), and the epilog's code.
declare -A RAISE EPICODE
RAISE[ascend]='fx["cards"][0]["chips"][0]["hccs"]["crc"][1] += 600'
EPICODE[ascend]=EPILOG_HCCS_CRC
RAISE[cambricon]='fx["devices"][1]["links"] = [{"mac": 1, "serdes": 1, "presence": 1, "fec_uncorrected": 900}] + [{"mac": 1, "serdes": 1, "presence": 1}] * 5'
EPICODE[cambricon]=EPILOG_MLULINK_FEC_UNCORRECTED
RAISE[hygon]='fx["devices"][2]["xgmi_error_status"] = 2'
EPICODE[hygon]=EPILOG_XGMI_ERROR_STATUS
# What --supernode-env=show says the vendor's library does not document.
declare -A NOTE
NOTE[ascend]="HCCL: HCCL takes its RDMA NICs from each NPU's own ports (hccn.conf): no HCA, GID or topology variable"
NOTE[cambricon]="CNCL: CNCL's interface and HCA variables are not published: none set"
NOTE[metax]="MCCL: MetaX's MCCL documents no interface or HCA variable: none set"
NOTE[kunlunxin]="BKCL: BKCL documents no interface or HCA variable: none set"
# The links --learn finds up on a healthy device (none: the library has none).
declare -A LEARNED=([ascend]=7 [cambricon]=6 [mthreads]=14 [metax]=6)
declare -A LINKS VISIBLE
LINKS[metax]=6
VISIBLE[ascend]=ASCEND_RT_VISIBLE_DEVICES VISIBLE[hygon]=HIP_VISIBLE_DEVICES
VISIBLE[cambricon]=MLU_VISIBLE_DEVICES VISIBLE[mthreads]=MUSA_VISIBLE_DEVICES
VISIBLE[metax]=CUDA_VISIBLE_DEVICES VISIBLE[kunlunxin]=XPU_VISIBLE_DEVICES

# config VENDOR COUNT: supernode.yaml for that vendor.
config() {
	cat <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
placement:
  method: feature
node:
  accelerators:
    vendor: $1
    count: $2
${LINKS[$1]:+    links: ${LINKS[$1]}}
prolog:
  timeout: 20
  check_timeout: 10
epilog:
  record_dir: $fx/records/$1
paths:
  ${KEY[$1]}: $fx/$1/%n/$(basename "${LIB[$1]}")
  sysfs: $fx/$1/%n/sys
  dev: $fx/$1/%n/dev
  state_dir: $fx/state/%n
  kmsg: $fx/kmsg
YAML
}

declare -A COUNT
for v in "${VENDORS[@]}"; do
	for n in sna1 sna2 snb1 snb2; do
		f=""
		[[ $n == sna1 ]] && f=${FAULT[$v]}
		COUNT[$v]=$(node "$v" "$n" "$f")
	done
	chmod -R a+rX "$fx/$v"
done
: >"$fx/kmsg"
config "${VENDORS[0]}" "${COUNT[${VENDORS[0]}]}" >"$fx/supernode.yaml"
printf '#!/bin/sh\nexec %s "$@" 2>>%s\n' "$EPILOG" "$fx/epilog.log" >"$fx/epilog"
chmod 0755 "$fx/epilog"
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$fx/epilog
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
cluster_up "$name" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT
ETC=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml

for v in "${VENDORS[@]}"; do
	config "$v" "${COUNT[$v]}" >"$ETC"
	for n in sna1 sna2 snb1 snb2; do scontrol update nodename=$n state=resume 2>/dev/null || :; done
	# The prolog's verdicts, run by hand on the faulty node and a healthy one.
	set +e
	out=$("$PROLOG" --config "$ETC" --node sna1 --check 2>&1)
	rc=$?
	set -e
	assert_eq "$v: prolog --check on sna1 exits 2 (CRIT)" 2 "$rc"
	assert_contains "$v: prolog --check on sna1: ${CODE[$v]}" "${CODE[$v]}" "$out"
	set +e
	out=$("$PROLOG" --config "$ETC" --node snb1 --check 2>&1)
	rc=$?
	set -e
	assert_eq "$v: prolog --check on snb1 exits 0 (${COUNT[$v]} devices healthy)" 0 "$rc"
	((rc == 0)) || printf '%s\n' "$out" | grep -v '^OK' | sed 's/^/       /' 

	# The job's steps show and print the environment; where the vendor
	# has link counters, the job raises them on snb2 (its library's
	# fixture) so that the epilog drains snb2 with the vendor's counter.
	raise=""
	[[ -n ${RAISE[$v]:-} ]] && raise="$fx/raise-$v"
	[[ -n $raise ]] && printf '#!/usr/bin/env python3\nimport json\np = "%s"\nfx = json.load(open(p))\n%s\njson.dump(fx, open(p, "w"))\n' \
		"$fx/$v/snb2/$v.json" "${RAISE[$v]}" >"$raise" && chmod 755 "$raise"
	# --learn on a healthy node: the vendor, the count, the links up.
	# (The whole output is kept: a --learn that fails or prints none of
	# these lines is a failed assertion with its output, not an abort.)
	set +e
	out=$("$PROLOG" --config "$ETC" --node snb1 --learn 2>&1)
	rc=$?
	set -e
	learned=$(grep -E '^    (vendor|count|links):' <<<"$out" || :)
	want="    vendor: $v
    count: ${COUNT[$v]}${LEARNED[$v]:+
    links: ${LEARNED[$v]}}"
	assert_eq "$v: --learn on snb1" "$want" "$learned"
	[[ $learned == "$want" ]] || printf '       exit %s:\n%s\n' "$rc" "$out" | sed 's/^/       /'

	# The prolog as slurmd runs it, on the faulty node: drained with the
	# vendor's reason (a job placed there would be requeued: integration.
	# prolog shows that path; here the placement order is Slurm's).
	set +e
	SLURM_JOB_ID=$((9000 + ${#v})) SLURMD_NODENAME=sna1 SPANK_SUPERNODE=1 \
		"$PROLOG" >/dev/null 2>&1
	rc=$?
	set -e
	assert_eq "$v: the prolog on sna1 exits 2 (drained)" 2 "$rc"
	reason=$(sinfo -h -n sna1 -o '%E')
	assert_eq "$v: sna1 drained with the vendor's reason" "${REASON[$v]}" "$reason"
	j=$(sbatch --parsable --supernode=1 -o "$WORK/$v.out" \
		--wrap "srun -l --supernode-env=show true; srun -n1 env; $raise")
	if ! wait_state "$j" COMPLETED 120; then
		squeue; sinfo -N -o '%N %t %E'; cat "$WORK/$v.out"
		fail "$v: job $j did not complete"; scancel "$j"; continue
	fi
	assert_eq "$v: job $j ran on sn02" "snb[1-2]" "$(job_field "$j" NodeList)"
	out=$(cat "$WORK/$v.out")
	assert_eq "$v: the task's ${VISIBLE[$v]}" "${VISIBLE[$v]}=0,1,2,3,4,5,6,7" \
		"$(grep "^${VISIBLE[$v]}=" "$WORK/$v.out")"
	assert_contains "$v: --supernode-env=show on snb1" \
		"0: supernode: --supernode-env=show: snb1: task 0: ${VISIBLE[$v]}=0,1,2,3,4,5,6,7 (all 8 accelerators of the node)" "$out"
	if [[ -n ${NOTE[$v]:-} ]]; then
		assert_contains "$v: show says what is not set" \
			"snb1: task 0: note: ${NOTE[$v]}" "$out"
	fi
	for bad in NCCL_SOCKET_IFNAME NCCL_IB_HCA; do
		[[ $v == hygon ]] && continue # RCCL reads NCCL's names
		if grep -q "^$bad=" "$WORK/$v.out"; then fail "$v: $bad set"; else pass "$v: no $bad"; fi
	done
	for _ in $(seq 1 100); do [[ -f $fx/records/$v/$j/snb1.json ]] && break; sleep 0.1; done
	python3 - "$fx/records/$v/$j/snb1.json" >"$WORK/rec" 2>&1 <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
acc = rec["accelerators"]
keys = sorted(set(k for a in acc for k in a["deltas"]))
print("devices %d deltas %s" % (len(acc), " ".join(keys)))
EOF
	assert_contains "$v: epilog record of snb1 lists the ${COUNT[$v]} devices" \
		"devices ${COUNT[$v]} deltas" "$(cat "$WORK/rec")"
	assert_contains "$v: epilog record of snb1 holds ${RECORDED[$v]}" \
		"${RECORDED[$v]}" "$(cat "$WORK/rec")"
	if [[ -n ${RAISE[$v]:-} ]]; then
		for _ in $(seq 1 100); do [[ $(sinfo -h -n snb2 -o '%t') == drain* ]] && break; sleep 0.1; done
		assert_contains "$v: the epilog drained snb2 with ${EPICODE[$v]}" \
			"supernode: ${EPICODE[$v]}" "$(sinfo -h -n snb2 -o '%E')"
	fi
done
finish
