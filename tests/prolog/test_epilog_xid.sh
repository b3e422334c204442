#!/usr/bin/env bash
# supernode-prolog and supernode-epilog end to end on a /dev/kmsg record
# file (issue 17, items 1 and 2), through the fake libnvidia-ml, no Slurm
# daemons (a drain is attempted against no slurm.conf: "could not drain"):
#   - a user-space fault whose library is named after an Xid, SXid or the
#     fallen-off-the-bus text (the kernel logs the file name: facility 0,
#     "traps: ... in NVRM: Xid (...)"), for a GPU of this node and for one
#     it does not have: OK, no drain, counted as not_driver;
#   - the same lines as user-space records (facility 1, prio 12): OK;
#   - a real driver Xid 48 for a bus that is no GPU of this node: OK;
#   - 300 real Xid 13 then a real Xid 79: CRIT, drained as XID79, the 13s
#     bounded (256 kept, 44 dropped);
#   - records lost before the epilog read them: UNKNOWN with the reason,
#     and supernodectl report shows it.
# Environment (from CMake): PROLOG, EPILOG, CTL, FAKE_NVML, FIXTURES.
set -u

[[ -x ${PROLOG:-} && -x ${EPILOG:-} && -x ${CTL:-} ]] || { echo "SKIP: supernode-prolog/epilog/supernodectl not built"; exit 77; }
TRAFFIC=${FIXTURES:-/nonexistent}/nvidia/traffic-h200x2
[[ -r $TRAFFIC/nvml-h200x2-before-traffic.json && -r ${FAKE_NVML:-} ]] || {
	echo "FAIL: no fake libnvidia-ml (${FAKE_NVML:-}) or no $TRAFFIC"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 (json) missing"; exit 77; }

W=$(mktemp -d /tmp/sn-epilog-xid-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
# rec JOB EXPR: EXPR of the record of JOB (python, the record is d)
rec() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$W/records/$1/h200-1.json" "$2" 2>&1; }

# ---- the node: two H200s 0000:00:06.0 and 0000:00:07.0, no ports ----
for b in 0000:00:06.0 0000:00:07.0; do
	d=$W/sys/bus/pci/devices/$b
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"; echo 0x030200 >"$d/class"
done
mkdir -p "$W/dev" "$W/state" "$W/records"
chmod 755 "$W/state" "$W/records"
: >"$W/dev/nvidia0"; : >"$W/dev/nvidia1"
cat >"$W/sn.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
node:
  accelerators: {vendor: nvidia, count: 2}
epilog:
  record_dir: $W/records
paths:
  sysfs: $W/sys
  dev: $W/dev
  kmsg: $W/kmsg
  nvml: $FAKE_NVML
  state_dir: $W/state
YAML

export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=h200-1 SPANK_SUPERNODE=1
export SN_FAKE_NVML_FIXTURE=$W/nvml.json
cp "$TRAFFIC/nvml-h200x2-before-traffic.json" "$W/nvml.json"
SEQ=100
# kmsg PRIO MSG: append one /dev/kmsg record (PRIO = facility * 8 + level)
kmsg() { SEQ=$((SEQ + 1)); printf '%s,%s,%s,-;%s\n' "$1" "$SEQ" "$((SEQ * 1000))" "$2" >>"$W/kmsg"; }
# job JOB WRITE: the prolog, then WRITE (a function that logs), the epilog
job() {
	SLURM_JOB_ID=$1 "$PROLOG" --config "$W/sn.yaml" >"$W/prolog-$1.out" 2>&1
	"$2"
	SLURM_JOB_ID=$1 "$EPILOG" --config "$W/sn.yaml" >"$W/epilog-$1.out" 2>&1
	EPILOG_RC=$?
}
printf '6,100,100000,-;Linux version 6.1.0\n' >"$W/kmsg"

# ---- item 1: a user's program faults in a library named like an Xid ----
TRAP='traps: main[26332] trap invalid opcode ip:7fcc4d94b0fd sp:7ffc0d80dd70 error:0 in'
forged() {
	kmsg 6 "$TRAP NVRM: Xid (PCI:0000:c1:00): 48, An uncorrectable double bit error[10fd,7fcc4d94b000+1000]"
	kmsg 6 "$TRAP NVRM: Xid (PCI:0000:00:06): 79, GPU has fallen off the bus.[10fd,7fcc4d94b000+1000]"
	kmsg 6 "$TRAP nvidia-nvswitch0: SXid (PCI:0000:00:07.0): 20034, Fatal, Link 48 LTSSM Fault Up[10fd,7fcc4d94b000+1000]"
	kmsg 6 "$TRAP NVRM: GPU 0000:00:06.0: GPU has fallen off the bus.[10fd,7fcc4d94b000+1000]"
}
job 5001 forged
assert_eq "user fault: epilog exit 0" 0 "$EPILOG_RC"
assert_eq "user fault: worst" OK "$(rec 5001 'd["worst"]')"
assert_eq "user fault: no drain" None "$(rec 5001 'd["drain_reason"]')"
assert_eq "user fault: no Xid event" 0 "$(rec 5001 'len(d["xid_events"])')"
assert_eq "user fault: counted as not the driver's" "{'not_kernel': 0, 'not_driver': 4, 'unknown_device': 0}" "$(rec 5001 'd["xid_ignored"]')"

# ---- the driver's own lines, written from user space (facility 1) ----
userspace() {
	kmsg 12 "NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
	kmsg 14 "nvidia-nvswitch0: SXid (PCI:0000:00:07.0): 20034, Fatal, Link 48 LTSSM Fault Up"
	kmsg 11 "NVRM: GPU 0000:00:06.0: GPU has fallen off the bus."
}
job 5002 userspace
assert_eq "user-space records: worst" OK "$(rec 5002 'd["worst"]')"
assert_eq "user-space records: counted as not the kernel's" "{'not_kernel': 3, 'not_driver': 0, 'unknown_device': 0}" "$(rec 5002 'd["xid_ignored"]')"

# ---- a real driver line for a GPU this node does not have ----
elsewhere() { kmsg 3 "NVRM: Xid (PCI:0000:c1:00): 48, pid=1234, name=python3, An uncorrectable double bit error"; }
job 5003 elsewhere
assert_eq "other bus: worst" OK "$(rec 5003 'd["worst"]')"
assert_eq "other bus: counted as an unknown device" 1 "$(rec 5003 'd["xid_ignored"]["unknown_device"]')"

# ---- item 2: 300 harmless Xid 13, then a real Xid 79 ----
storm() {
	for _ in $(seq 300); do
		kmsg 4 "NVRM: Xid (PCI:0000:00:06): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter"
	done
	kmsg 3 "NVRM: Xid (PCI:0000:00:07): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
}
job 5004 storm
assert_eq "storm: worst" CRIT "$(rec 5004 'd["worst"]')"
assert_eq "storm: drain reason" "supernode: XID79 0000:00:07.0 GPU has fallen off the bus" "$(rec 5004 'd["drain_reason"]')"
assert_contains "storm: drain attempted, logged" "could not drain h200-1" "$(cat "$W/epilog-5004.out")"
assert_eq "storm: 13s kept, dropped" "256 44" "$(rec 5004 '"%d %d" % (sum(1 for e in d["xid_events"] if e["xid"] == 13), d["xid_events_dropped"])')"

# ---- records lost before the epilog read them (ring buffer overran) ----
# (the oldest record left is newer than the prolog's position + 1)
overrun() { SEQ=$((SEQ + 500)); : >"$W/kmsg"; kmsg 6 "NVRM: loading NVIDIA UNIX x86_64 Kernel Module"; }
job 5005 overrun
assert_eq "lost: worst" UNKNOWN "$(rec 5005 'd["worst"]')"
assert_eq "lost: the reason" "xid_scan UNKNOWN records lost before they were read" "$(rec 5005 '" ".join(v[k] for v in d["verdicts"] if v["grade"] != "OK" for k in ("counter", "grade", "reason"))')"
assert_eq "lost: no drain" None "$(rec 5005 'd["drain_reason"]')"
"$CTL" --config "$W/sn.yaml" report 5005 >"$W/report.out" 2>&1
assert_contains "lost: report's worst" "worst UNKNOWN" "$(cat "$W/report.out")"
assert_contains "lost: report's row" "kmsg               xid_scan=?  -        UNKNOWN xid_scan: records lost before they were read" "$(cat "$W/report.out")"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
