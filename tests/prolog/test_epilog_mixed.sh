#!/usr/bin/env bash
# Mixed versions (issue 19 item 2; etc/README.md, "Upgrading: mixed
# versions"): supernode-epilog on baselines of other prolog versions, on
# the 2x H200 capture with 50 DL replays on GPU 0 (a CRIT and a drain when
# judged), through the fake libnvidia-ml, no Slurm daemons:
#   - the baseline as this prolog writes it ("schema": 1, as every prolog
#     since 6de1aec): the reference record;
#   - the same without "schema" (read as format 1): the same deltas,
#     verdicts and worst;
#   - format 1 with fields this epilog does not know: the same;
#   - format 2 (a newer prolog): baseline "newer", worst UNKNOWN with the
#     upgrade message, no drain, exit 0.
# Environment (from CMake): PROLOG, EPILOG, FAKE_NVML, FIXTURES.
set -u

[[ -x ${PROLOG:-} && -x ${EPILOG:-} ]] || { echo "SKIP: supernode-prolog/epilog not built"; exit 77; }
TRAFFIC=${FIXTURES:-/nonexistent}/nvidia/traffic-h200x2
[[ -r $TRAFFIC/nvml-h200x2-before-traffic.json && -r ${FAKE_NVML:-} ]] || {
	echo "FAIL: no fake libnvidia-ml (${FAKE_NVML:-}) or no $TRAFFIC"; exit 1; }

W=$(mktemp -d /tmp/sn-epilog-mixed-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
# rec JOB EXPR: EXPR of the record of JOB (python, the record is d)
rec() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$W/records/$1/h200-1.json" "$2"; }
# judged JOB: what the record judged, without the job id and times
judged() { rec "$1" 'json.dumps([d["baseline"], d["ports"], d["accelerators"], [(v["counter"], v["device"], v["delta"], v["grade"]) for v in d["verdicts"]], d["worst"], d["xid_scan"]], sort_keys=True)'; }

for b in 0000:00:06.0 0000:00:07.0; do
	d=$W/sys/bus/pci/devices/$b
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"; echo 0x030200 >"$d/class"
done
mkdir -p "$W/dev" "$W/state" "$W/records"
chmod 755 "$W/state" "$W/records"
: >"$W/dev/nvidia0"; : >"$W/dev/nvidia1"
printf '6,100,5000000,-;Linux version 6.1.0\n' >"$W/kmsg"
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
python3 - "$TRAFFIC/nvml-h200x2-after-traffic.json" "$W/replay.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["gpus"][0]["nvml_field_values"]["NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY@all_links"] = 50
json.dump(d, open(sys.argv[2], "w"))
PY

# The prolog writes the baseline once; each job gets an edited copy of it.
cp "$TRAFFIC/nvml-h200x2-before-traffic.json" "$W/nvml.json"
SLURM_JOB_ID=5000 "$PROLOG" --config "$W/sn.yaml" >"$W/prolog.out" 2>&1
assert_eq "prolog exit 0" 0 "$?"
cp "$W/state/baseline/5000.json" "$W/written.json"
assert_eq "the prolog writes schema 1" 1 "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schema"])' "$W/written.json")"

# epilog JOB PYTHON: the written baseline edited by PYTHON (d), then the epilog
epilog() {
	python3 - "$W/written.json" "$W/state/baseline/$1.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["job_id"] = int(sys.argv[3])
exec(sys.argv[4])
json.dump(d, open(sys.argv[2], "w"))
PY
	chmod 600 "$W/state/baseline/$1.json"
	cp "$W/replay.json" "$W/nvml.json"
	SLURM_JOB_ID=$1 "$EPILOG" --config "$W/sn.yaml" >"$W/epilog-$1.out" 2>&1
	EPILOG_RC=$?
}

epilog 5001 'pass'
assert_eq "as written: epilog exit 0" 0 "$EPILOG_RC"
assert_eq "as written: worst, drain" "CRIT supernode: EPILOG_NVLINK_DL_REPLAY" "$(rec 5001 'd["worst"] + " " + " ".join(d["drain_reason"].split()[:2])')"
REF=$(judged 5001)

epilog 5002 'del d["schema"]'
assert_eq "no schema (format 1): epilog exit 0" 0 "$EPILOG_RC"
assert_eq "no schema (format 1): judged the same" "$REF" "$(judged 5002)"

epilog 5003 'd["future_field"] = {"x": [1, 2]}; d["accelerators"]["future_accel_field"] = "x"'
assert_eq "unknown fields: epilog exit 0" 0 "$EPILOG_RC"
assert_eq "unknown fields: judged the same" "$REF" "$(judged 5003)"

epilog 5004 'd["schema"] = 2; d["future_field"] = 1'
assert_eq "format 2: epilog exit 0" 0 "$EPILOG_RC"
assert_eq "format 2: baseline, worst, drain" "newer UNKNOWN None" "$(rec 5004 'd["baseline"] + " " + d["worst"] + " " + str(d["drain_reason"])')"
assert_eq "format 2: the verdict" "baseline_format baseline UNKNOWN baseline written by a newer supernode-prolog (format 2), this epilog reads format 1: upgrade the epilog" \
	"$(rec 5004 '" ".join(d["verdicts"][0][k] for k in ("counter", "device", "grade", "reason")) if len(d["verdicts"]) == 1 else d["verdicts"]')"
assert_eq "format 2: deltas unknown, why" "None baseline of a newer format" "$(rec 5004 'str(d["accelerators"][0]["deltas"]["nvlink_replay"]) + " " + d["accelerators"][0]["unknown"]["nvlink_replay"]')"
assert_contains "format 2: logged" "job 5004: baseline written by a newer supernode-prolog (format 2), this epilog reads format 1: upgrade the epilog: $W/state/baseline/5004.json: deltas unknown, UNKNOWN, no drain" "$(cat "$W/epilog-5004.out")"
assert_eq "format 2: no drain attempted" "" "$(grep -i 'drain h200-1' "$W/epilog-5004.out")"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
