#!/usr/bin/env bash
# contrib/examples/batch-retry on the local cluster (issue 20 item 2): a
# --supernode --requeue job whose first attempt writes checkpoints and is
# requeued after step 2 (a forced failure); the second attempt sees
# SUPERNODE_ATTEMPT=2 (its steps too), logs into its own folder and, being
# RESUMABLE=1, resumes after step 2.  The same job without RESUMABLE starts
# again from step 1.  The epilog keeps a record per attempt and
# `supernodectl report JOBID` lists both attempts.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
EX=$SRC/contrib/examples/batch-retry
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
CTL=$BUILD/contrib/supernodectl/supernodectl

fx=$(mktemp -d)
chmod 0755 "$fx"
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
done
: >"$fx/kmsg"
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
epilog:
  record_dir: $fx/records
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
YAML
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$EPILOG
PrologFlags=Alloc
CONF
cluster_up "it-retry-$$" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT
cp "$EX/batch-retry.sbatch" "$EX/toy-train.sh" .

jr=$(RUNS=$PWD/runs STEPS=4 FAIL_AT_STEP=2 RESUMABLE=1 EXPERIMENT=res sbatch --parsable batch-retry.sbatch)
jn=$(RUNS=$PWD/runs STEPS=4 FAIL_AT_STEP=2 RESUMABLE=0 EXPERIMENT=plain sbatch --parsable batch-retry.sbatch)
wait_state "$jr" COMPLETED 40
wait_state "$jn" COMPLETED 40
assert_eq "resumable job: Slurm's restart count" 1 "$(job_field "$jr" Restarts)"
assert_eq "plain job: Slurm's restart count" 1 "$(job_field "$jn" Restarts)"

r=runs/res-$jr p=runs/plain-$jn
assert_eq "resumable: a log folder per attempt" "attempt-1 attempt-2 checkpoints" "$(ls "$r" | xargs)"
assert_eq "resumable: attempt 1's log" "batch-retry: attempt 1: no checkpoint yet: starting from step 1
batch-retry: attempt 1: logs in $PWD/$r/attempt-1" "$(cat "$r/attempt-1/batch.log")"
assert_eq "resumable: attempt 2's log" "batch-retry: attempt 2: resuming from $PWD/$r/checkpoints/step-2.ckpt
batch-retry: attempt 2: logs in $PWD/$r/attempt-2
batch-retry: attempt 2: done" "$(cat "$r/attempt-2/batch.log")"
assert_eq "resumable: the step sees SUPERNODE_ATTEMPT=1, then 2; attempt 2 starts at step 3" \
	"toy-train: attempt 1: first step 1 of 4|toy-train: attempt 2: first step 3 of 4" \
	"$(grep -h 'first step' "$r"/attempt-*/train.log | paste -sd'|')"
assert_eq "resumable: steps of attempt 2" "toy-train: step 3 done toy-train: step 4 done" \
	"$(grep -h 'done$' "$r/attempt-2/train.log" | xargs)"
assert_eq "plain: attempt 2 does not resume" "batch-retry: attempt 2: not resumable (RESUMABLE is not 1): starting from step 1" \
	"$(sed -n 1p "$p/attempt-2/batch.log")"
assert_eq "plain: attempt 2 starts at step 1" "toy-train: attempt 2: first step 1 of 4" \
	"$(grep -h 'first step' "$p/attempt-2/train.log")"

# The epilog's records: one per node and attempt, the first never replaced.
for _ in $(seq 1 100); do
	[[ $(find "$fx/records/$jr" -name '*.json' 2>/dev/null | wc -l) -ge 4 ]] && break
	sleep 0.2
done
echo "records: $(cd "$fx" && find records 2>&1 | xargs)"
jqs() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
n1=$(ls "$fx/records/$jr" 2>/dev/null | grep json | head -n 1 || true)
assert_eq "record of attempt 1: attempt, restart_count" "1 0" \
	"$(jqs "$fx/records/$jr/$n1" 'd["attempt"], d["restart_count"]' | tr -d '(),')"
n2=$(ls "$fx/records/$jr/attempt-2" 2>/dev/null | head -n 1 || true)
assert_eq "record of attempt 2: attempt, restart_count" "2 1" \
	"$(jqs "$fx/records/$jr/attempt-2/$n2" 'd["attempt"], d["restart_count"]' | tr -d '(),')"
out=$("$CTL" report "$jr" 2>&1)
assert_eq "report: one line per attempt" 2 "$(grep -c '^attempt [12] (restart [01]): nodes sn' <<<"$out")"
out=$("$CTL" report "$jr" --json)
assert_eq "report --json: the attempts" "[1, 2] [0, 1]" \
	"$(python3 -c 'import json,sys; d=json.load(sys.stdin); print([a["attempt"] for a in d["attempts"]], [a["restart_count"] for a in d["attempts"]])' <<<"$out")"
finish
