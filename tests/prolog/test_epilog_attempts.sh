#!/usr/bin/env bash
# A requeued job's attempts through the real supernode-prolog,
# supernode-epilog and supernodectl, no Slurm daemons (issue 20 item 2):
#   - attempt 1 (SLURM_JOB_RESTART_COUNT=0) -> records/J/NODE.json,
#     "attempt" 1;
#   - attempt 2: the prolog saw 1; its epilog runs with 2 when a requeue
#     ended it (Slurm counts first): the record is attempt 2 all the same,
#     in records/J/attempt-2/, and attempt 1's file is byte for byte kept;
#   - attempt 3: the prolog fails (port down): the record has
#     "prolog_failed" with the drain reason;
#   - supernodectl report J lists the three attempts, text and --json.
# Environment (from CMake): PROLOG, EPILOG, SNCTL, SRC.
set -u
[[ -x ${PROLOG:-} && -x ${EPILOG:-} && -x ${SNCTL:-} ]] || { echo "SKIP: programs not built"; exit 77; }
W=$(mktemp -d /tmp/sn-epilog-attempts-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
ib_port "$W/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
mkdir -p "$W/state" "$W/records"
: >"$W/kmsg"
cat >"$W/sn.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "n[1-2]"}
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
prolog:
  timeout: 10
  check_timeout: 5
epilog:
  record_dir: $W/records
paths:
  sysfs: $W/sys
  kmsg: $W/kmsg
  state_dir: $W/state
YAML
export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=n1 SPANK_SUPERNODE=1 SLURM_JOB_ID=77
export SLURM_NODELIST=n[1-2]
run() { "$@" >>"$W/out" 2>&1; echo $?; }
rec() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$W/records/77/$1" "$2"; }

# attempt 1
assert_eq "attempt 1: prolog exit" 0 "$(SLURM_JOB_RESTART_COUNT=0 run "$PROLOG" --config "$W/sn.yaml")"
assert_eq "attempt 1: the prolog leaves the count" 0 "$(cat "$W/state/attempt/77")"
assert_eq "attempt 1: epilog exit" 0 "$(SLURM_JOB_RESTART_COUNT=0 SLURM_JOB_EXIT_CODE2=0:0 SLURM_JOB_DERIVED_EC=0 run "$EPILOG" --config "$W/sn.yaml")"
assert_eq "attempt 1: attempt, restart_count, nodes, exit" "1 0 n[1-2] 0" \
	"$(rec n1.json '" ".join(str(d[k]) for k in ("attempt", "restart_count", "nodes", "exit_code"))')"
assert_eq "attempt 1: the epilog removed the count" "" "$(ls "$W/state/attempt")"
sum1=$(sha256sum <"$W/records/77/n1.json")

# attempt 2: ended by a requeue, the epilog's count is already the next one
assert_eq "attempt 2: prolog exit" 0 "$(SLURM_JOB_RESTART_COUNT=1 run "$PROLOG" --config "$W/sn.yaml")"
assert_eq "attempt 2: epilog exit" 0 "$(SLURM_JOB_RESTART_COUNT=2 SLURM_JOB_EXIT_CODE2=0:15 SLURM_JOB_DERIVED_EC=9 run "$EPILOG" --config "$W/sn.yaml")"
assert_eq "attempt 2: attempt, restart_count, signal, derived" "2 1 15 0 9" \
	"$(rec attempt-2/n1.json '" ".join(str(d[k]) for k in ("attempt", "restart_count", "signal", "derived_exit_code", "derived_signal"))')"
assert_eq "attempt 1's record kept byte for byte" "$sum1" "$(sha256sum <"$W/records/77/n1.json")"

# attempt 3: the prolog fails on a port gone down
echo "1: DOWN" >"$W/sys/class/infiniband/mlx5_0/ports/1/state"
assert_eq "attempt 3: prolog fails" 2 "$(SLURM_JOB_RESTART_COUNT=2 run "$PROLOG" --config "$W/sn.yaml")"
assert_eq "attempt 3: epilog exit" 0 "$(SLURM_JOB_RESTART_COUNT=3 SLURM_JOB_EXIT_CODE2=0:0 run "$EPILOG" --config "$W/sn.yaml")"
assert_eq "attempt 3: baseline, prolog_failed" "3 missing supernode: IB_PORT_DOWN" \
	"$(rec attempt-3/n1.json 'str(d["attempt"]) + " " + d["baseline"] + " " + " ".join(d["prolog_failed"].split()[:2])')"

out=$("$SNCTL" --config "$W/sn.yaml" report 77 2>&1)
assert_eq "report: the attempts' lines" "attempt 1 (restart 0): nodes n[1-2]|attempt 2 (restart 1): nodes n[1-2]|attempt 3 (restart 2): nodes n[1-2]" \
	"$(grep '^attempt' <<<"$out" | cut -d, -f1 | paste -sd'|')"
assert_contains "report: attempt 2 ended by a signal" "exit 0:15, derived 0:9" "$out"
assert_contains "report: attempt 3's prolog failure" "  prolog failed: n1: supernode: IB_PORT_DOWN" "$out"
out=$("$SNCTL" --config "$W/sn.yaml" report 77 --json 2>&1)
assert_eq "report --json: attempts and their prolog failures" "[1, 2, 3] [0, 0, 1]" \
	"$(python3 -c 'import json,sys; d=json.load(sys.stdin); print([a["attempt"] for a in d["attempts"]], [len(a["prolog_failed"]) for a in d["attempts"]])' <<<"$out")"
echo "$CHECKS checks, $FAILS failed"; [[ $FAILS -eq 0 ]]
