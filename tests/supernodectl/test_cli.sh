#!/usr/bin/env bash
# supernodectl against record fixtures (tests/unit/fixtures/records) and a
# fake sysfs tree: exact report tables and JSON values, worst-first order,
# exit codes, usage errors; health without any slurmctld.
#   bash tests/supernodectl/test_cli.sh BUILD/contrib/supernodectl/supernodectl
set -uo pipefail
CTL=${1:?path of supernodectl}
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
REC=$SRC/tests/unit/fixtures/records
export TZ=UTC
unset SLURMD_NODENAME
FAILS=0
CHECKS=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL - $*"; }
assert_eq() {
	if [[ $2 == "$3" ]]; then pass "$1"; else
		fail "$1"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/       /'; fi
}
# run ARGS...: sets OUT, ERR, RC
run() {
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}
json() { python3 -c "import json,sys; d=json.load(open('$T/out')); print($1)"; }

cat >"$T/sn.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-3]
  - name: sn02
    nodes: snb[1-3]
placement:
  method: feature
epilog:
  record_dir: $REC
YAML
C=(--config "$T/sn.yaml")

# ---- report JOBID: 4 readable records, snb2 corrupt, snb3 has none ----
run "${C[@]}" report 1001
assert_eq "report 1001 exit" 0 "$RC"
REPORT_1001=$OUT
assert_eq "report 1001 table" "$(cat <<'TXT'
job 1001  user alice  start 2025-11-29T15:26:40+0000  end 2025-11-29T15:28:20+0000  duration 1m40s  exit 0  nodes 4 of 6  worst CRIT
NODE  SUPERNODE  DEVICE             ERRORS                                                  TRAFFIC                                  VERDICT
sna2  sn01       mlx5_0/1           symbol_error=1500 link_error_recovery=2                 tx 800.0 GB rx 790.0 GB, 64.0/63.2 Gb/s  CRIT symbol_error>=1000
sna2  sn01       gpu1 0000:43:00.0  ecc_corrected=4 xid79(drain)                            -                                        CRIT xid79
snb1  sn02       mlx5_0/1           symbol_error=40 link_downed=?(reset)                    tx ? rx ?, ?/? Gb/s                      WARN symbol_error>=10
sna2  sn01       mlx5_1/1           symbol_error=12                                         tx 1.0 kB rx 999 B, 0.0/0.0 Gb/s         WARN symbol_error>=10
sna3  sn01       mlx5_0/1           symbol_error=?(no baseline) link_downed=?(no baseline)  tx ? rx ?, ?/? Gb/s                      OK
sna3  sn01       gpu0 0000:1b:00.0  ecc_uncorrected=?(no baseline)                          -                                        OK
sna1  sn01       gpu0 0000:1b:00.0  -                                                       -                                        OK
sna1  sn01       mlx5_0/1           port_xmit_wait=5000                                     tx 1.2 TB rx 1.2 TB, 96.0/95.2 Gb/s      OK
sna2  sn01       gpu0 0000:1b:00.0  -                                                       -                                        OK
drained: sna2: supernode: symbol_error mlx5_0/1 delta=1500 >= crit 1000
missing: snb2: no readable record
missing: snb3: no readable record
TXT
)" "$OUT"
assert_eq "report 1001: the corrupt file is named, temporaries ignored" \
	"supernodectl: $REC/1001/snb2.json: corrupt JSON: truncated" "$ERR"

run "${C[@]}" report 1001 --json
assert_eq "report --json exit" 0 "$RC"
assert_eq "json job_id, worst" "1001 CRIT" "$(json 'd["job_id"], d["worst"]')"
assert_eq "json nodes worst first" "['sna2', 'snb1', 'sna1', 'sna3']" "$(json '[n["node"] for n in d["nodes"]]')"
assert_eq "json records kept as written" "1500 None reset" \
	"$(json 'd["nodes"][0]["ports"][0]["deltas"]["symbol_error"], d["nodes"][1]["ports"][0]["deltas"]["link_downed"], d["nodes"][1]["ports"][0]["unknown"]["link_downed"]')"
assert_eq "json missing" "['snb2', 'snb3']" "$(json 'd["missing"]')"
assert_eq "json unreadable" "snb2.json corrupt JSON: truncated" \
	"$(json 'd["unreadable"][0]["path"].rsplit("/",1)[1], d["unreadable"][0]["error"]')"

# job 1002: sna2 has schema 2, sna3's file holds another job
run "${C[@]}" report 1002
assert_eq "report 1002 exit" 0 "$RC"
assert_eq "report 1002 table" "$(cat <<'TXT'
job 1002  user carol  start 2025-11-29T17:56:40+0000  end 2025-11-29T18:13:20+0000  duration 16m40s  exit 0  nodes 1 of 3  worst WARN
NODE  SUPERNODE  DEVICE    ERRORS           TRAFFIC                      VERDICT
sna1  sn01       mlx5_0/1  symbol_error=11  tx 5 B rx 5 B, 0.0/0.0 Gb/s  WARN symbol_error>=10
missing: sna2: no readable record
missing: sna3: no readable record
TXT
)" "$OUT"
assert_eq "report 1002 problems" "supernodectl: $REC/1002/sna2.json: node sna2: written by a newer supernode-epilog (format 2): upgrade supernodectl
supernodectl: $REC/1002/sna3.json: holds job 1003 node sna3, not what its path says" "$(sort <<<"$ERR")"

# ---- mixed versions (etc/README.md, "Upgrading: mixed versions") ----
# records without "schema" (format 1 by rule) and with fields this
# supernodectl does not know: the same table as the records as written
mkdir -p "$T/mixed/1001"
for f in "$REC"/1001/*.json; do
	python3 - "$f" "$T/mixed/1001/${f##*/}" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    open(sys.argv[2], "w").write(open(sys.argv[1]).read())
    sys.exit(0)
del d["schema"]
d["future_field"] = {"x": [1, 2]}
json.dump(d, open(sys.argv[2], "w"))
PY
done
sed "s|record_dir: .*|record_dir: $T/mixed|" "$T/sn.yaml" >"$T/mixed.yaml"
run --config "$T/mixed.yaml" report 1001
assert_eq "record without schema, unknown fields: exit" 0 "$RC"
assert_eq "record without schema, unknown fields: same table" "$REPORT_1001" "$OUT"
# a newer epilog's record is named, with what to do; alone it is no record
mkdir -p "$T/newer/1002"
cp "$REC/1002/sna2.json" "$T/newer/1002/"
sed "s|record_dir: .*|record_dir: $T/newer|" "$T/sn.yaml" >"$T/newer.yaml"
run --config "$T/newer.yaml" report 1002
assert_eq "newer record alone: exit 1" 1 "$RC"
assert_eq "newer record alone: message" "supernodectl: $T/newer/1002/sna2.json: node sna2: written by a newer supernode-epilog (format 2): upgrade supernodectl
supernodectl: no record of job 1002 in $T/newer" "$ERR"
run --config "$T/newer.yaml" report --node sna2
assert_eq "newer record, --node: exit 1" 1 "$RC"
assert_eq "newer record, --node: message" "supernodectl: $T/newer/1002/sna2.json: node sna2: written by a newer supernode-epilog (format 2): upgrade supernodectl
supernodectl: no record of node sna2 in $T/newer" "$ERR"

run "${C[@]}" report 4242
assert_eq "no record: exit 1" 1 "$RC"
assert_eq "no record: message" "supernodectl: no record of job 4242 in $REC" "$ERR"

# ---- report JOBID of a requeued job: the header is the last attempt's ----
# 1003: attempt 1 on sna3 (exit 1, OK), attempt 2 on snb3 (exit 0, WARN),
# made from 1001's records.  Taken across attempts, the header said
# "exit mixed", attempt 1's start and "nodes 2 of 6".
run "${C[@]}" report 1003
assert_eq "report 1003 exit" 0 "$RC"
assert_eq "report 1003: the header is attempt 2's" \
	"job 1003  user alice  start 2025-11-29T18:16:40+0000  end 2025-11-29T18:21:40+0000  duration 5m00s  exit 0  nodes 1  worst WARN  attempt 2 of 2" \
	"$(head -n 1 <<<"$OUT")"
assert_eq "report 1003: both attempts' rows and lines" "snb3 sna3 sna3
attempt 1 (restart 0): nodes sna[1-3], ended 2025-11-29T18:14:20+0000, exit 1:0, derived ?, worst OK, 1 records
attempt 2 (restart 1): nodes snb[1-3], ended 2025-11-29T18:21:40+0000, exit 0:0, derived ?, worst WARN, 1 records" \
	"$(sed -n '3,5p' <<<"$OUT" | cut -d' ' -f1 | paste -sd' ')
$(grep '^attempt' <<<"$OUT")"
run "${C[@]}" report 1003 --json
assert_eq "report 1003 --json: worst over every attempt, attempts" "WARN [1, 2]" \
	"$(json 'd["worst"] + " " + str([a["attempt"] for a in d["attempts"]])')"

# ---- report --node: most recent by end, not by job id ----
run "${C[@]}" report --node sna1 --last 2
assert_eq "--last 2 exit" 0 "$RC"
assert_eq "--last 2 lines" "$(cat <<'TXT'
JOB   USER   END                       WORST  DRAIN_REASON
1002  carol  2025-11-29T18:13:20+0000  WARN   -
990   bob    2025-11-29T16:50:00+0000  OK     -
TXT
)" "$OUT"
run "${C[@]}" report --node sna2
assert_eq "--node sna2 (default --last)" "$(cat <<'TXT'
JOB   USER   END                       WORST  DRAIN_REASON
1001  alice  2025-11-29T15:28:20+0000  CRIT   supernode: symbol_error mlx5_0/1 delta=1500 >= crit 1000
TXT
)" "$OUT"
run "${C[@]}" report --node sna1 --json --last 5
assert_eq "--node --json" "sna1 [1002, 990, 1001]" "$(json 'd["node"], [j["job_id"] for j in d["jobs"]]')"
run "${C[@]}" report --node snz9
assert_eq "--node without records: exit 1" 1 "$RC"

# ---- bounds: a record over 1 MiB is refused, not read ----
mkdir -p "$T/big/7"
python3 -c "print('{\"schema\":1,\"job_id\":7,\"node\":\"sna1\",\"pad\":\"' + 'x'*(1<<20) + '\"}')" >"$T/big/7/sna1.json"
sed "s|record_dir: .*|record_dir: $T/big|" "$T/sn.yaml" >"$T/big.yaml"
run --config "$T/big.yaml" report 7
assert_eq "oversized record: exit 1" 1 "$RC"
assert_eq "oversized record: named" "supernodectl: $T/big/7/sna1.json: larger than 1048576 bytes: not read" "$(head -n1 <<<"$ERR")"

# ---- traffic is not summed as errors: the counter table's kinds ----
# mlx5_0/1 moved 10^12 words through counters_ext/ and had no error,
# mlx5_1/1 had 5 symbol errors: the port with errors is listed first.
mkdir -p "$T/kinds/8"
cat >"$T/kinds/8/sna1.json" <<'JSON'
{"schema": 1, "job_id": 8, "node": "sna1", "supernode": "sn01", "worst": "OK",
 "ports": [
  {"device": "mlx5_0", "port": 1,
   "deltas": {"port_xmit_data_64": 1000000000000, "port_unicast_xmit_packets": 7}},
  {"device": "mlx5_1", "port": 1, "deltas": {"symbol_error": 5}}]}
JSON
sed "s|record_dir: .*|record_dir: $T/kinds|" "$T/sn.yaml" >"$T/kinds.yaml"
run --config "$T/kinds.yaml" report 8
assert_eq "traffic not an error: order" "mlx5_1/1 mlx5_0/1" "$(awk 'NR > 2 && $1 == "sna1" { printf "%s%s", sep, $3; sep = " " }' <<<"$OUT")"
# a job "folder" that is a file: said with its path, never fatal (sn_store_scan_job)
touch "$T/kinds/9"
run --config "$T/kinds.yaml" report 9
assert_eq "job folder not a folder: exit 1" 1 "$RC"
assert_eq "job folder not a folder: said" "supernodectl: $T/kinds/9: cannot list: Not a directory" "$(head -n1 <<<"$ERR")"

# ---- issue 12: a rate verdict shows its unit, a recovery action its name ----
mkdir -p "$T/rates/10"
cat >"$T/rates/10/sna1.json" <<'JSON'
{"schema": 1, "job_id": 10, "node": "sna1", "supernode": "sn01", "worst": "CRIT",
 "start": 1764420000, "end": 1764420040,
 "ports": [{"device": "mlx5_0", "port": 1, "deltas": {"symbol_error": 500}}],
 "accelerators": [{"bus_id": "0000:00:06.0", "index": 0,
   "deltas": {"nvlink_crc_data": 27, "nvlink_dl_crc": 0},
   "information": {"nvlink_crc_data": "legacy NVLink counter on NVLink version 6 (4.0 or later, Hopper on): counts corrected events, not judged"}}],
 "verdicts": [
  {"counter": "symbol_error", "device": "mlx5_0/1", "delta": 500, "unit": "/h",
   "rate": 500.0, "over": 1.0, "actual": 0.011, "warn": 10, "crit": 120, "grade": "CRIT"},
  {"counter": "recovery_action", "device": "0000:00:06.0", "delta": 2, "unit": "state",
   "warn": null, "crit": null, "grade": "CRIT", "action": "node reboot"}],
 "drain_reason": "supernode: GPU_RECOVERY_ACTION 0000:00:06.0 node reboot"}
JSON
sed "s|record_dir: .*|record_dir: $T/rates|" "$T/sn.yaml" >"$T/rates.yaml"
run --config "$T/rates.yaml" report 10
assert_eq "rate verdict: unit after the limit" "CRIT symbol_error>=120/h" "$(awk '$3 == "mlx5_0/1" { print $(NF - 1), $NF }' <<<"$OUT")"
assert_eq "recovery action: named" "recovery_action=node reboot" "$(grep -o 'recovery_action=node reboot' <<<"$OUT")"
assert_eq "information: shown as such" "nvlink_crc_data=27(info)" "$(grep -o 'nvlink_crc_data=[0-9]*([a-z]*)' <<<"$OUT")"

# ---- usage errors: exit 2, message prefixed ----
for args in "report" "report abc" "report 0" "report -1" "report 1 2" "report --last 3 1001" \
	"report --node ../x" "report --node sna1 --last 0" "report --node sna1 --last" \
	"report --node sna1 1001" "report --bogus 1" "bogus" "" "config" "config frobnicate" \
	"config validate a b" "--config"; do
	# shellcheck disable=SC2086
	run "${C[@]}" $args
	assert_eq "usage error '$args': exit 2" 2 "$RC"
	[[ $ERR == supernodectl:* ]] && pass "'$args': message prefixed" || fail "'$args': message '$ERR'"
done

# ---- config validate ----
run config validate "$T/sn.yaml"
assert_eq "validate ok" "0 ok: 2 supernodes of 3 nodes, method feature" "$RC $OUT"
run --config "$T/sn.yaml" config validate
assert_eq "validate --config" "0 ok: 2 supernodes of 3 nodes, method feature" "$RC $OUT"
printf 'supernodes:\n  - name: a\n    nodes: x[1-2]\n    bogus: 1\n' >"$T/bad.yaml"
run config validate "$T/bad.yaml"
assert_eq "validate error" "1 supernodectl: $T/bad.yaml:4:5: supernodes[0].bogus: unknown key (allowed here: name, nodes, identity)" "$RC $ERR"
run config validate "$T/none.yaml"
assert_eq "validate missing file" 1 "$RC"
mkdir -p "$T/etc" && cp "$T/sn.yaml" "$T/etc/supernode.yaml"
SLURM_CONF=$T/etc/slurm.conf run config validate
assert_eq "validate default path next to \$SLURM_CONF" "0 ok: 2 supernodes of 3 nodes, method feature" "$RC $OUT"

# ---- health without slurmctld: checks on a fixture sysfs tree ----
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
ib_port "$T/fx/sna1/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
ib_port "$T/fx/sna2/sys" mlx5_0 1 "1: DOWN" "5: LinkUp" "400 Gb/sec (4X NDR)"
: >"$T/fx/kmsg"
cat >"$T/h.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
placement:
  method: feature
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
prolog:
  timeout: 20
  check_timeout: 10
paths:
  sysfs: $T/fx/%n/sys
  state_dir: $T/fx/%n/state
  kmsg: $T/fx/kmsg
YAML
H=(--config "$T/h.yaml")
SLURM_CONF=$T/nothing/slurm.conf run "${H[@]}" health --node sna1
assert_eq "health pass, SLURM_CONF missing: exit 0" 0 "$RC"
assert_eq "health pass: stdout" "supernodectl: sna1: 1 checks, worst OK" "$OUT"
assert_eq "health pass: nothing resumed" "supernodectl: sna1: SLURM_CONF=$T/nothing/slurm.conf does not exist: nothing resumed" "$ERR"
SLURMD_NODENAME=sna2 SLURM_CONF=$T/nothing/slurm.conf run "${H[@]}" health
assert_eq "health CRIT (node from \$SLURMD_NODENAME): exit 2" 2 "$RC"
assert_eq "health CRIT: stdout" "$(cat <<'TXT'
GRADE    CHECK    CODE          DEVICE    EXPECTED  FOUND
CRIT     ib_port  IB_PORT_DOWN  mlx5_0/1  ACTIVE    state=DOWN
supernodectl: sna2: 1 checks, worst CRIT
TXT
)" "$OUT"
assert_eq "health CRIT: nothing drained" "supernodectl: sna2: SLURM_CONF=$T/nothing/slurm.conf does not exist: nothing drained" "$ERR"
# slurm.conf absent and no DNS SRV: libslurm's slurm_init() exit()s; only
# the child that talks to Slurm dies, our verdict and exit code stand.
if [[ ! -e /etc/slurm/slurm.conf ]]; then
	# (glibc's resolver leaks 28 bytes on that libslurm path: not ours)
	env -u SLURM_CONF ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		"$CTL" "${H[@]}" health --node sna2 >"$T/out" 2>"$T/err"
	RC=$?
	assert_eq "health, libslurm without any config: exit 2" 2 "$RC"
	assert_eq "health, libslurm without any config: logged" \
		"supernodectl: sna2: cannot talk to slurmctld (libslurm gave up, see above): nothing drained" "$(tail -n1 "$T/err")"
fi
run "${H[@]}" health --node snx1
assert_eq "health on a node in no supernode" "0 supernodectl: snx1 is in no supernode of $T/h.yaml: nothing to do" "$RC $OUT"
run --config "$T/bad.yaml" health --node sna1
assert_eq "health, config that does not load: exit 4" 4 "$RC"
assert_eq "health, config that does not load: said" "supernodectl: sna1: config not loaded: nothing checked, drained or resumed" "$(tail -n1 <<<"$ERR")"
for args in "health extra" "health --bogus" "health --node" "health --node a/b"; do
	# shellcheck disable=SC2086
	run "${H[@]}" $args
	assert_eq "health usage '$args': exit 4" 4 "$RC"
done

# ---- discover --input (issue 12 item 3) ----
A=nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766
B=nvlink:b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766
{
	for n in sna1 sna2 sna3; do printf '{"node":"%s","kind":"nvlink","identity":"%s","why":null}\n' $n $A; done
	echo 'srun: error: a line that is not an answer'
	for n in snb1 snb2; do printf '{"node":"%s","kind":"nvlink","identity":"%s","why":null}\n' $n $B; done
	printf '{"node":"snb3","kind":"none","identity":null,"why":"cluster UUID is zero on every GPU: no multi-node NVLink domain"}\n'
} >"$T/ids.txt"
run "${C[@]}" discover --input "$T/ids.txt"
assert_eq "discover: exit 1 (snb3 not placed)" 1 "$RC"
assert_eq "discover: sn01 from the config's hostlist" "  - name: sn01|    nodes: \"sna[1-3]\"|    identity: $A" \
	"$(grep -A2 'name: sn01' <<<"$OUT" | paste -sd'|')"
assert_eq "discover: sn02" "  - name: sn02|    nodes: \"snb[1-2]\"|    identity: $B" \
	"$(grep -A2 'name: sn02' <<<"$OUT" | paste -sd'|')"
assert_eq "discover: snb3 not placed, with the reason" \
	"#   snb3: none: cluster UUID is zero on every GPU: no multi-node NVLink domain" "$(tail -n1 <<<"$OUT")"
assert_eq "discover: sizes differ" "# note: the supernodes differ in size (supernode.yaml needs them equal): sn01 3 sn02 2" \
	"$(grep '^# note' <<<"$OUT")"
assert_eq "discover: a line that is no JSON object is skipped quietly" "" "$ERR"
{
	echo 'srun: a line that is not an answer'
	printf '{"node":"x1","identity":"nvlink:bad/1"}\n'
	printf '{"node":"x2",%5000s"identity":null}\n' ''
} >"$T/bad-ids.txt"
run "${C[@]}" discover --input "$T/bad-ids.txt"
assert_eq "discover: a bad identity and a long line named by FILE:LINE, no answers: exit 2" \
	"2 supernodectl: $T/bad-ids.txt:2: ignored: x1: 'nvlink:bad/1' is not an identity
supernodectl: $T/bad-ids.txt:3: ignored: line longer than 4096 bytes" "$RC $ERR"
run "${C[@]}" discover --input - <"$T/bad-ids.txt"
assert_eq "discover --input -: the line named on <stdin>" \
	"supernodectl: <stdin>:2: ignored: x1: 'nvlink:bad/1' is not an identity" "$(head -n1 <<<"$ERR")"
run "${C[@]}" discover --timeout 0
assert_eq "discover --timeout 0: usage" 2 "$RC"

echo "$CHECKS checks, $FAILS failed"
((FAILS == 0))
