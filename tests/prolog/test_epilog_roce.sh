#!/usr/bin/env bash
# supernode-prolog (Prolog=) and supernode-epilog end to end on a RoCE port
# (issue 17 item 4): the real mlx5_bond_0 of fixtures/sysfs-infiniband/
# gpud-h100 (Ethernet, 200 Gb/s, counters/ and hw_counters/) in a fake
# sysfs, beside the 2x H200 capture through the fake libnvidia-ml, no
# Slurm daemons (a drain is attempted against no slurm.conf and fails,
# logged; the epilog still exits 0).  Between the prolog and the epilog
# the test raises the port's counters as a user's verbs program could:
#   - the three transport counters of every QP on the port
#     (local_ack_timeout_err +300000, rnr_nak_retry_err +200000,
#     packet_seq_err +150000 in under an hour: 2 to 3 x their crit
#     100000/h) alone: WARN, never a drain (before: CRIT, drained);
#   - the same with one symbol error on the port (a physical-layer
#     counter): CRIT, drained, the verdict naming symbol_error;
#   - port_xmit_discards +5000 alone (congestion, a job's own doing) over
#     an admin's crit 1000/h (the 16-bit counter never reaches the default
#     100000/h within an hour): WARN, no setting lifts it; with
#     link_downed +1: CRIT (link_downed's own crit 1 too).
# Environment (from CMake): PROLOG, EPILOG, FAKE_NVML, FIXTURES.
set -u

[[ -x ${PROLOG:-} && -x ${EPILOG:-} ]] || { echo "SKIP: supernode-prolog/epilog not built"; exit 77; }
TRAFFIC=${FIXTURES:-/nonexistent}/nvidia/traffic-h200x2
PORT_SRC=${FIXTURES:-/nonexistent}/sysfs-infiniband/gpud-h100/sys/class/infiniband/mlx5_bond_0
[[ -r $TRAFFIC/nvml-h200x2-before-traffic.json && -r ${FAKE_NVML:-} && -d $PORT_SRC ]] || {
	echo "FAIL: no fake libnvidia-ml (${FAKE_NVML:-}), $TRAFFIC or $PORT_SRC"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 (json) missing"; exit 77; }

W=$(mktemp -d /tmp/sn-epilog-roce-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
assert_not_contains() {
	if [[ $3 != *"$2"* ]]; then pass "$1"; else
		fail "$1"; printf '  not wanted: %s\n  got: %s\n' "$2" "$3"; fi
}
# recs JOB EXPR...: each EXPR of the record of JOB, one per line, into R
# (python, started once per job: the record is d; v(name) the verdict of
# counter name on the RoCE port)
recs() { mapfile -t R < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
def v(name):
    return [x for x in d["verdicts"] if x["counter"] == name and x["device"] == "mlx5_bond_0/1"][0]
for e in sys.argv[2:]:
    try:
        print(eval(e))
    except Exception as x:
        print("error: %r" % x)' "$W/records/$1/h200-1.json" "${@:2}"); }
# the RoCE port's three transport counters' EXPR (n the name), space-separated
three() { echo "\" \".join($1 for n in (\"local_ack_timeout_err\", \"rnr_nak_retry_err\", \"packet_seq_err\"))"; }

# ---- the node: two H200s and the RoCE port ----
for b in 0000:00:06.0 0000:00:07.0; do
	d=$W/sys/bus/pci/devices/$b
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"; echo 0x030200 >"$d/class"
done
mkdir -p "$W/sys/class/infiniband" "$W/dev" "$W/state" "$W/records"
PORT=$W/sys/class/infiniband/mlx5_bond_0/ports/1
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
  timeout: 6
  thresholds:
    port_xmit_discards: {warn: 100/h, crit: 1000/h}
paths:
  sysfs: $W/sys
  dev: $W/dev
  kmsg: $W/kmsg
  nvml: $FAKE_NVML
  state_dir: $W/state
YAML

export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=h200-1 SPANK_SUPERNODE=1
export SN_FAKE_NVML_FIXTURE=$W/nvml.json
# raise FILE N: the port's counter FILE (counters/x, hw_counters/x) + N
raise() { echo $(($(cat "$PORT/$1") + $2)) >"$PORT/$1"; }
# job JOB RAISES...: the prolog on a fresh copy of the port, the RAISES
# ("counters/symbol_error=1"), the epilog
job() {
	local id=$1 r
	shift
	rm -rf "$W/sys/class/infiniband/mlx5_bond_0"
	cp -r "$PORT_SRC" "$W/sys/class/infiniband/"
	cp "$TRAFFIC/nvml-h200x2-before-traffic.json" "$W/nvml.json"
	SLURM_JOB_ID=$id "$PROLOG" --config "$W/sn.yaml" >"$W/prolog-$id.out" 2>&1
	echo "prolog exit $?" >>"$W/prolog-$id.out"
	for r in "$@"; do raise "${r%=*}" "${r#*=}"; done
	SLURM_JOB_ID=$id "$EPILOG" --config "$W/sn.yaml" >"$W/epilog-$id.out" 2>&1
	EPILOG_RC=$?
}
TRANSPORT="hw_counters/local_ack_timeout_err=300000 hw_counters/rnr_nak_retry_err=200000 hw_counters/packet_seq_err=150000"

# ---- the transport counters alone: a user's program, never a drain ----
# shellcheck disable=SC2086 # TRANSPORT: one word per counter
job 4301 $TRANSPORT
recs 4301 "$(three 'str(d["ports"][0]["deltas"][n])')" "$(three 'v(n)["grade"]')" \
	"$(three 'str(v(n)["rate"])')" 'v("rnr_nak_retry_err")["crit"]' \
	'v("rnr_nak_retry_err")["raised_by"]' 'v("rnr_nak_retry_err")["physical"]' \
	'v("rnr_nak_retry_err")["capped"]' 'd["worst"]' 'd["drain_reason"]'
assert_contains "prolog exit 0" "prolog exit 0" "$(cat "$W/prolog-4301.out")"
assert_eq "epilog exit 0" 0 "$EPILOG_RC"
assert_eq "transport alone: deltas" "300000 200000 150000" "${R[0]}"
assert_eq "transport alone: grades" "WARN WARN WARN" "${R[1]}"
assert_eq "transport alone: rates, crit" "300000.0 200000.0 150000.0 100000" "${R[2]} ${R[3]}"
assert_eq "transport alone: raised by users, no physical counter" "user None" "${R[4]} ${R[5]}"
assert_eq "transport alone: why" "over crit, but any user's traffic can raise rnr_nak_retry_err and no physical-layer counter of mlx5_bond_0/1 moved" "${R[6]}"
assert_eq "transport alone: worst" WARN "${R[7]}"
assert_eq "transport alone: no drain" None "${R[8]}"
assert_not_contains "transport alone: no drain attempted" "could not drain" "$(cat "$W/epilog-4301.out")"

# ---- the same with one symbol error: the port is at fault, drained ----
# shellcheck disable=SC2086
job 4302 $TRANSPORT counters/symbol_error=1
recs 4302 "$(three 'v(n)["grade"]')" 'v("symbol_error")["grade"]' \
	'v("rnr_nak_retry_err")["physical"]' 'v("symbol_error")["raised_by"]' \
	'd["worst"]' 'd["drain_reason"]'
assert_eq "with symbol_error: grades" "CRIT CRIT CRIT OK" "${R[0]} ${R[1]}"
assert_eq "with symbol_error: physical" "symbol_error" "${R[2]}"
assert_eq "with symbol_error: symbol_error raised by hardware" "hardware" "${R[3]}"
assert_eq "with symbol_error: worst" CRIT "${R[4]}"
assert_contains "with symbol_error: reason" "supernode: EPILOG_LOCAL_ACK_TIMEOUT_ERR mlx5_bond_0/1 +300000 in " "${R[5]}"
assert_contains "with symbol_error: reason's rate, 2 more" " = 3e+05/h (crit 100000/h) (+2 more)" "${R[5]}"
assert_contains "with symbol_error: drain attempted, logged" "could not drain h200-1" "$(cat "$W/epilog-4302.out")"

# ---- port_xmit_discards: congestion alone warns; with link_downed drains ----
job 4303 counters/port_xmit_discards=5000
recs 4303 'v("port_xmit_discards")["grade"] + " " + d["worst"] + " " + str(d["drain_reason"])'
assert_eq "discards alone: grade, worst, reason" "WARN WARN None" "${R[0]}"
job 4304 counters/port_xmit_discards=5000 counters/link_downed=1
recs 4304 'v("port_xmit_discards")["grade"] + " " + v("link_downed")["grade"] + " " + v("port_xmit_discards")["physical"]'
assert_eq "discards with link_downed: grades, physical" "CRIT CRIT link_downed" "${R[0]}"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
