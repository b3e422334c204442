#!/usr/bin/env bash
# supernode-prolog (Prolog=) and supernode-epilog end to end on the 2x H200
# capture before and after 12 s of all-reduce (issue 12), through the fake
# libnvidia-ml, no Slurm daemons (a drain is attempted against no
# slurm.conf and fails, logged; the epilog still exits 0):
#   - the capture: the record's worst is OK, 10 verdicts all OK, Hopper's
#     legacy crc_data/ecc_data deltas kept as information, NVLink 4.0;
#   - the same after-state with 50 DL replays on GPU 0: CRIT, the reason
#     names the counter, the GPU and the rate per hour;
#   - a GPU whose NVML recovery action is "node reboot": CRIT, named;
#   - a config with the per-job thresholds of before issue 12: the epilog
#     keeps their old meaning (a count per job), records the job, and says
#     how to write each limit now (issue 19: old configs keep loading).
# Environment (from CMake): PROLOG, EPILOG, FAKE_NVML, FIXTURES.
set -u

[[ -x ${PROLOG:-} && -x ${EPILOG:-} ]] || { echo "SKIP: supernode-prolog/epilog not built"; exit 77; }
TRAFFIC=${FIXTURES:-/nonexistent}/nvidia/traffic-h200x2
[[ -r $TRAFFIC/nvml-h200x2-before-traffic.json && -r ${FAKE_NVML:-} ]] || {
	echo "FAIL: no fake libnvidia-ml (${FAKE_NVML:-}) or no $TRAFFIC"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 (json) missing"; exit 77; }

W=$(mktemp -d /tmp/sn-epilog-traffic-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
# rec JOB EXPR: EXPR of the record of JOB (python, the record is d)
rec() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$W/records/$1/h200-1.json" "$2"; }

# ---- the node: two H200s (PCI functions, device nodes), no ports ----
for b in 0000:00:06.0 0000:00:07.0; do
	d=$W/sys/bus/pci/devices/$b
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"; echo 0x030200 >"$d/class"
done
mkdir -p "$W/dev" "$W/state" "$W/records"
chmod 755 "$W/state" "$W/records"
: >"$W/dev/nvidia0"; : >"$W/dev/nvidia1"
printf '6,100,5000000,-;Linux version 6.1.0\n' >"$W/kmsg"
config() { # config NAME [threshold lines]
	cat >"$W/$1.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
node:
  accelerators: {vendor: nvidia, count: 2}
epilog:
  record_dir: $W/records
${2:-}
paths:
  sysfs: $W/sys
  dev: $W/dev
  kmsg: $W/kmsg
  nvml: $FAKE_NVML
  state_dir: $W/state
YAML
}
config sn
config old "  thresholds:
    symbol_error: {warn: 10, crit: 10000}"

export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=h200-1 SPANK_SUPERNODE=1
export SN_FAKE_NVML_FIXTURE=$W/nvml.json
# job JOB CONFIG AFTER: the prolog on the capture's before, the epilog on AFTER
job() {
	cp "$TRAFFIC/nvml-h200x2-before-traffic.json" "$W/nvml.json"
	SLURM_JOB_ID=$1 "$PROLOG" --config "$W/$2.yaml" >"$W/prolog-$1.out" 2>&1
	echo "prolog exit $?" >>"$W/prolog-$1.out"
	cp "$3" "$W/nvml.json"
	SLURM_JOB_ID=$1 "$EPILOG" --config "$W/$2.yaml" >"$W/epilog-$1.out" 2>&1
	EPILOG_RC=$?
}
# after FILE PYTHON: the capture's after-state, edited (g: its gpus list)
after() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); g = d["gpus"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$TRAFFIC/nvml-h200x2-after-traffic.json" "$1" "$2"; }

# ---- the capture: nothing to judge ----
job 4243 sn "$TRAFFIC/nvml-h200x2-after-traffic.json"
assert_contains "prolog exit 0" "prolog exit 0" "$(cat "$W/prolog-4243.out")"
assert_eq "epilog exit 0" 0 "$EPILOG_RC"
assert_eq "capture: worst" OK "$(rec 4243 'd["worst"]')"
assert_eq "capture: no drain" None "$(rec 4243 'd["drain_reason"]')"
assert_eq "capture: verdicts, all OK" "10 OK" "$(rec 4243 'str(len(d["verdicts"])) + " " + ",".join(sorted(set(v["grade"] for v in d["verdicts"])))')"
assert_eq "capture: NVLink 4.0" "6 6" "$(rec 4243 '" ".join(str(a["nvlink_version"]) for a in d["accelerators"])')"
assert_eq "capture: crc_data and ecc_data of GPU 1 recorded" "61 5246" "$(rec 4243 '"%d %d" % (d["accelerators"][1]["deltas"]["nvlink_crc_data"], d["accelerators"][1]["deltas"]["nvlink_ecc_data"])')"
assert_eq "capture: legacy counters are information" "nvlink_crc_data nvlink_crc_flit nvlink_ecc_data nvlink_recovery nvlink_replay" "$(rec 4243 '" ".join(sorted(d["accelerators"][0]["information"]))')"
assert_eq "capture: NVLink bytes" 6949471438848 "$(rec 4243 'd["accelerators"][0]["nvlink_bytes"]')"

# ---- 50 DL replays on GPU 0 ----
after "$W/replay.json" 'g[0]["nvml_field_values"]["NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY@all_links"] = 50'
job 4244 sn "$W/replay.json"
assert_eq "replays: worst" CRIT "$(rec 4244 'd["worst"]')"
assert_contains "replays: reason" "supernode: EPILOG_NVLINK_DL_REPLAY 0000:00:06.0 +50 in " "$(rec 4244 'd["drain_reason"]')"
assert_contains "replays: per hour" " = 50/h (crit 10/h)" "$(rec 4244 'd["drain_reason"]')"
assert_contains "replays: drain attempted, logged" "could not drain h200-1" "$(cat "$W/epilog-4244.out")"

# ---- the GPU asks for a node reboot ----
after "$W/reboot.json" 'g[1]["nvml_field_values"]["NVML_FI_DEV_GET_GPU_RECOVERY_ACTION"] = 2'
job 4245 sn "$W/reboot.json"
assert_eq "recovery action: reason" "supernode: GPU_RECOVERY_ACTION 0000:00:07.0 node reboot" "$(rec 4245 'd["drain_reason"]')"

# ---- a config with the per-job thresholds of before: kept, said ----
job 4246 old "$TRAFFIC/nvml-h200x2-after-traffic.json"
assert_eq "old config: epilog exit 0" 0 "$EPILOG_RC"
assert_eq "old config: the job recorded" "h200-1.json" "$(ls "$W/records/4246" 2>/dev/null)"
assert_eq "old config: worst OK, no drain" "OK None" "$(rec 4246 'd["worst"] + " " + str(d["drain_reason"])')"
assert_contains "old config: said how to write it now" "old.yaml:8:26: epilog.thresholds.symbol_error.warn: deprecated (changed in 9ecc6b1): a bare number is a count per job, and symbol_error's limits are rates now; kept as a count per job: write 10/job to keep it, or a rate such as 10/h (per hour of the job)" "$(cat "$W/epilog-4246.out")"

# ---- %h in record_dir: the epilog writes where supernodectl report reads ----
# (issue 17 item 13: the epilog took %h as the Slurm node name, supernodectl
# as the short host name; both are the short host name now, as slurmd's %h)
host=$(hostname); host=${host%%.*}
mkdir -p "$W/rec-$host"; chmod 755 "$W/rec-$host"
sed "s|record_dir: .*|record_dir: $W/rec-%h|" "$W/sn.yaml" >"$W/host.yaml"
job 4247 host "$TRAFFIC/nvml-h200x2-after-traffic.json"
assert_eq "%h: the record under the short host name" "h200-1.json" "$(ls "$W/rec-$host/4247" 2>/dev/null)"
if [[ -x ${SNCTL:-} ]]; then
	out=$("$SNCTL" --config "$W/host.yaml" report 4247 --json 2>&1)
	assert_contains "%h: supernodectl report finds it" '"node":"h200-1"' "$out"
else
	fail "%h: no supernodectl (SNCTL) to read the record back"
fi

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
