#!/usr/bin/env bash
# The job environment on every node: srun, sbatch (batch step and its
# steps), salloc; MASTER_ADDR against scontrol show hostnames; a user's own
# MASTER_PORT stays; jobs without the option get nothing.
source "$(dirname "$0")/lib.sh"
cluster_up "it-env-$$"

# env_of OUTPUT TASK VAR: VAR as task TASK of `srun -l env` printed it.
env_of() { sed -n "s/^$2: $3=//p" <<<"$1" | head -n 1; }

out=$(srun --supernode=1 -l env)
node0=$(env_of "$out" 0 SLURMD_NODENAME)
node1=$(env_of "$out" 1 SLURMD_NODENAME)
alloc=$(env_of "$out" 0 SLURM_JOB_NODELIST)
sn=$(env_of "$out" 0 SUPERNODE_NAME)
case $alloc in
sna*) want_sn=sn01 ;;
*) want_sn=sn02 ;;
esac
assert_eq "srun: SUPERNODE_COUNT" 1 "$(env_of "$out" 0 SUPERNODE_COUNT)"
assert_eq "srun: SUPERNODE_NAMES" "$want_sn" "$(env_of "$out" 1 SUPERNODE_NAMES)"
assert_eq "srun: SUPERNODE_NAME on task 0" "$want_sn" "$sn"
assert_eq "srun: SUPERNODE_NAME on task 1" "$want_sn" "$(env_of "$out" 1 SUPERNODE_NAME)"
assert_eq "srun: SUPERNODE_INDEX" 0 "$(env_of "$out" 1 SUPERNODE_INDEX)"
assert_eq "srun: SUPERNODE_SIZE" 2 "$(env_of "$out" 0 SUPERNODE_SIZE)"
assert_eq "srun: SUPERNODE_NODE_RANK on $node0" 0 "$(env_of "$out" 0 SUPERNODE_NODE_RANK)"
assert_eq "srun: SUPERNODE_NODE_RANK on $node1" 1 "$(env_of "$out" 1 SUPERNODE_NODE_RANK)"
first=$(scontrol show hostnames "$alloc" | head -n 1)
assert_eq "srun: MASTER_ADDR = first of scontrol show hostnames $alloc" "$first" "$(env_of "$out" 0 MASTER_ADDR)"
assert_eq "srun: MASTER_ADDR same on task 1" "$first" "$(env_of "$out" 1 MASTER_ADDR)"
port=$(env_of "$out" 0 MASTER_PORT)
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
if ((port >= 20000 && port <= 29999 && (port < elo || port > ehi))); then
	pass "srun: MASTER_PORT $port in [20000, 29999] and outside ephemeral [$elo, $ehi]"
else
	fail "srun: MASTER_PORT $port outside [20000, 29999] or inside [$elo, $ehi]"
fi
jobid=$(env_of "$out" 0 SLURM_JOB_ID)
assert_eq "srun: MASTER_PORT from the job id" "$((20000 + jobid % 10000))" "$port"

# Batch step, then a step inside it: per-node values are recomputed, the
# user's own MASTER_PORT (exported in the script) stays.
cat >job.sh <<'SH'
#!/bin/bash
#SBATCH --supernode=1
echo "batch: $SUPERNODE_NAME $SUPERNODE_NODE_RANK $MASTER_ADDR $MASTER_PORT"
export MASTER_PORT=29500
srun -l bash -c 'echo "step: $SLURMD_NODENAME $SUPERNODE_NODE_RANK $MASTER_PORT $SUPERNODE_NAMES"' | sort
SH
j=$(sbatch --parsable -o job.out job.sh)
wait_state "$j" COMPLETED
nodes=$(scontrol show hostnames "$(job_field "$j" NodeList)")
n0=$(sed -n 1p <<<"$nodes")
n1=$(sed -n 2p <<<"$nodes")
snj=$(sed -n 's/^batch: \([^ ]*\) .*/\1/p' job.out)
assert_eq "batch step line" "batch: $snj 0 $n0 $((20000 + j % 10000))" "$(grep '^batch:' job.out)"
assert_eq "step on $n0" "0: step: $n0 0 29500 $snj" "$(grep '^0:' job.out)"
assert_eq "step on $n1" "1: step: $n1 1 29500 $snj" "$(grep '^1:' job.out)"

# salloc, and srun inside it without repeating the option.
out=$(salloc --supernode=1 srun -l printenv SUPERNODE_NODE_RANK 2>/dev/null | sort)
assert_eq "salloc --supernode=1: ranks" "0: 0
1: 1" "$out"
out=$(SLURM_SUPERNODE=1 srun -l printenv SUPERNODE_NODE_RANK | sort)
assert_eq "SLURM_SUPERNODE=1 srun: ranks" "0: 0
1: 1" "$out"

# Different jobs, different ports.
# The whole output first: `| head -n 1` closed the pipe under srun, which
# 26.05 reported as an aborted step (exit 1) once.
p1=$(srun --supernode=1 -N2 printenv MASTER_PORT)
p1=${p1%%$'\n'*}
p2=$(srun --supernode=1 printenv MASTER_PORT)
p2=${p2%%$'\n'*}
if [[ $p1 != "$p2" ]]; then pass "two jobs got ports $p1 and $p2"; else fail "two jobs got the same port $p1"; fi

# Without the option: nothing.
out=$(srun -N2 -l env)
assert_eq "job without --supernode: SUPERNODE_*/MASTER_* variables" 0 \
	"$(grep -cE '^[0-9]+: (SUPERNODE_(COUNT|NAMES|NAME|INDEX|SIZE|NODE_RANK|ENV_SET)|MASTER_ADDR|MASTER_PORT)=' <<<"$out" || true)"
# --export=NONE (issue 11 item 4; SPANK option variables exist with it from
# 23.11): the batch job still sees --supernode and gets the supernode
# environment, and so does each task of srun --export=NONE.
j=$(sbatch --parsable --export=NONE --supernode=1 -o exp.out --wrap /usr/bin/env)
wait_state "$j" COMPLETED
assert_eq "sbatch --export=NONE --supernode=1: the option's variable" \
	"SLURM_SPANK__SLURM_SPANK_OPTION_supernode_supernode=1" \
	"$(grep '^SLURM_SPANK__SLURM_SPANK_OPTION_supernode_supernode=' exp.out)"
assert_eq "sbatch --export=NONE --supernode=1: the job's SUPERNODE_COUNT" \
	SUPERNODE_COUNT=1 "$(grep '^SUPERNODE_COUNT=' exp.out)"
assert_eq "srun --export=NONE --supernode=1 -n 2: tasks with SUPERNODE_COUNT=1" 2 \
	"$(srun --export=NONE --supernode=1 -n 2 /usr/bin/env | grep -c '^SUPERNODE_COUNT=1$')"
# A port range wholly inside the kernel's ephemeral range is refused when
# the config loads (issue 9 item 10), naming the range read, before a job
# exists; it used to fail only at job time.
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
sed -i "s/master_port_range: .*/master_port_range: [$elo, $((elo + 1))]/" "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
set +e
out=$(sbatch --parsable --supernode=1 -o bad.out --wrap true 2>&1)
rc=$?
set -e
assert_eq "sbatch under an unusable port range: refused" 1 "$((rc != 0))"
assert_contains "sbatch's message names the range read" \
	"env.master_port_range: [$elo, $((elo + 1))] lies wholly inside the kernel's ephemeral port range $elo-$ehi (/proc/sys/net/ipv4/ip_local_port_range)" "$out"
assert_eq "no node drained" "" "$(drained_nodes)"
finish
