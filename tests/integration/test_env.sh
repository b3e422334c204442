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
# The first node's NodeAddr (the local cluster's nodes are all 127.0.0.1;
# test_master.sh gives each its own).
assert_eq "srun: MASTER_ADDR = the first node's NodeAddr" 127.0.0.1 "$(env_of "$out" 0 MASTER_ADDR)"
assert_eq "srun: MASTER_ADDR same on task 1" 127.0.0.1 "$(env_of "$out" 1 MASTER_ADDR)"
port=$(env_of "$out" 0 MASTER_PORT)
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
if ((port >= 20000 && port <= 29999 && (port < elo || port > ehi))); then
	pass "srun: MASTER_PORT $port in [20000, 29999] and outside ephemeral [$elo, $ehi]"
else
	fail "srun: MASTER_PORT $port outside [20000, 29999] or inside [$elo, $ehi]"
fi
jobid=$(env_of "$out" 0 SLURM_JOB_ID)
# step 0 of the job: block (jobid mod 625) of 16 ports, slot 1
assert_eq "srun: MASTER_PORT from the job and step id" "$((20000 + jobid % 625 * 16 + 1))" "$port"

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
assert_eq "batch step line" "batch: $snj 0 127.0.0.1 $((20000 + j % 625 * 16))" "$(grep '^batch:' job.out)"
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
# A port range wholly inside the kernel's ephemeral range leaves MASTER_PORT
# unset, and only it (issue 17 item 3; it used to refuse the config, and
# with it every --supernode job): the job runs with the rest of its
# environment, slurmd's log says why, and no node is drained.
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
sed -i "s/master_port_range: .*/master_port_range: [$elo, $((elo + 1))]/" "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
out=$(srun --supernode=1 -l bash -c 'echo "${SUPERNODE_COUNT:-unset} ${MASTER_PORT:-unset}"' | sort)
assert_eq "srun under an unusable port range: no MASTER_PORT, the rest set" "0: 1 unset
1: 1 unset" "$out"
assert_contains "slurmd's log says why" \
	"MASTER_PORT not set: env.master_port_range [$elo, $((elo + 1))] lies inside the ephemeral port range [$elo, $ehi]" \
	"$(cat "$SUPERNODE_CLUSTER_DIR"/log/slurmd-*.log)"
assert_eq "no node drained" "" "$(drained_nodes)"
finish
