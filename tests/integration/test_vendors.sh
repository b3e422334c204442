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
VENDORS=(ascend hygon cambricon mthreads metax kunlunxin)
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
	python3 - "${FIXTURE[$v]}" "$d/$v.json" "$3" "$d" "${CLASS[$v]}" "${NODE[$v]}" <<'EOF'
import json, os, re, sys
src, dst, fault, d, cls, node = sys.argv[1:7]
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
vid = {'davinci': '0x19e5', 'cambri': '0xcabc', 'xpu%d': '0x1d22'}
for i, b in enumerate(sorted(set(bdfs))):
    p = os.path.join(d, 'sys/bus/pci/devices', b)
    os.makedirs(p, exist_ok=True)
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
declare -A FAULT CODE WORDS
FAULT[ascend]='fx["cards"][0]["chips"][0]["health"] = 3'
CODE[ascend]=ACCEL_HEALTH WORDS[ascend]="health 3"
FAULT[hygon]='fx["devices"][0]["xgmi_error_status"] = 0; fx["devices"][0]["ecc"]["umc"] = [0, 2]'
CODE[hygon]=ACCEL_ WORDS[hygon]="2"
FAULT[cambricon]='fx["devices"][0]["health"] = 0'
CODE[cambricon]=ACCEL_HEALTH WORDS[cambricon]="health 0"
FAULT[mthreads]='fx["devices"][0]["ecc"]["uncorrected"] = 5'
CODE[mthreads]=ACCEL_ WORDS[mthreads]="5"
FAULT[metax]='fx["devices"][0]["metaxlink"][0] = 2'
CODE[metax]=ACCEL_LINK_DOWN WORDS[metax]="MetaXLink up 5 of 6"
FAULT[kunlunxin]='fx["devices"][0]["state"] = 207'
CODE[kunlunxin]=ACCEL_HEALTH WORDS[kunlunxin]="207"
# What the epilog records for each vendor (a delta key of every device).
declare -A RECORDED
RECORDED[ascend]=hccs_crc RECORDED[hygon]=xgmi_error_status
RECORDED[cambricon]=mlulink_fec_uncorrected RECORDED[mthreads]=ecc_uncorrected
RECORDED[metax]=ecc_uncorrected RECORDED[kunlunxin]="deltas"
# What a job raises on snb2 (python on its fixture as fx), and the epilog's code.
declare -A RAISE EPICODE
RAISE[ascend]='fx[\"cards\"][0][\"chips\"][0][\"hccs\"][\"crc\"][1] += 600'
EPICODE[ascend]=EPILOG_HCCS_CRC
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
config ascend "${COUNT[ascend]}" >"$fx/supernode.yaml"
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
	for n in sna1 sna2 snb1 snb2; do scontrol update nodename=$n state=resume 2>/dev/null; done
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

	# The job's steps show and print the environment; where the vendor
	# has link counters, the job raises them on snb2 (its library's
	# fixture) so that the epilog drains snb2 with the vendor's counter.
	raise=""
	[[ -n ${RAISE[$v]:-} ]] && raise="python3 -c 'import json; p=\"$fx/$v/snb2/$v.json\"; fx=json.load(open(p)); ${RAISE[$v]}; json.dump(fx, open(p, \"w\"))'"
	j=$(sbatch --parsable --supernode=1 -o "$WORK/$v.out" \
		--wrap "srun -l --supernode-env=show true; srun -n1 env; $raise")
	wait_state "$j" COMPLETED 120
	reason=$(sinfo -h -n sna1 -o '%E')
	assert_contains "$v: sna1 drained with the vendor's code" "supernode: ${CODE[$v]}" "$reason"
	assert_contains "$v: sna1's reason holds the vendor's value" "${WORDS[$v]}" "$reason"
	assert_eq "$v: job $j ran on sn02" "snb[1-2]" "$(job_field "$j" NodeList)"
	out=$(cat "$WORK/$v.out")
	assert_contains "$v: the task environment names ${VISIBLE[$v]}" "${VISIBLE[$v]}" "$out"
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
