#!/usr/bin/env bash
# MASTER_ADDR and MASTER_PORT per step (issue 17 items 11 and 14a), on a
# cluster whose nodes each have their own NodeAddr (127.0.1.n, cluster
# --node-addrs): MASTER_ADDR is the address of the step's first node (the
# job's first for the batch step), never a NodeName or a node outside the
# step; MASTER_PORT differs between the concurrent steps of one job:
# 20000 + (jobid mod 625) * 16 + slot, slot 0 for the batch step and
# step + 1 for the others (lib/env/jobenv.c, sn_master_port).
source "$(dirname "$0")/lib.sh"
cluster_up "it-master-$$" --node-addrs --supernodes 1 --size 4

# addr NODE: its NodeAddr as the cluster wrote it (one supernode sn01 of
# four nodes: sna1 -> 127.0.1.1 ... sna4 -> 127.0.1.4).
addr() { echo "127.0.1.${1:3}"; }
assert_eq "slurm.conf: sna3's NodeAddr" "$(addr sna3)" \
	"$(scontrol show node sna3 | tr ' ' '\n' | sed -n 's/^NodeAddr=//p')"

cat >job.sh <<'SH'
#!/bin/bash
#SBATCH --supernode=1
nodes=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))
echo "batch: $MASTER_ADDR $MASTER_PORT"
srun -l -N2 -n2 -w "${nodes[2]},${nodes[3]}" bash -c 'echo "$SLURM_STEP_ID $MASTER_ADDR $MASTER_PORT"' | sort >last2.out
srun -l -N4 -n4 bash -c 'echo "$SLURM_STEP_ID $MASTER_ADDR $MASTER_PORT"' | sort >all.out
# Two steps at once on the first node.
srun -N1 -n1 --overlap -w "${nodes[0]}" bash -c 'echo "$SLURM_STEP_ID $MASTER_PORT"; sleep 3' >c1.out &
srun -N1 -n1 --overlap -w "${nodes[0]}" bash -c 'echo "$SLURM_STEP_ID $MASTER_PORT"; sleep 3' >c2.out &
wait
SH
j=$(sbatch --parsable -o job.out job.sh)
wait_state "$j" COMPLETED
mapfile -t nodes < <(scontrol show hostnames "$(job_field "$j" NodeList)")
base=$((20000 + (j % 625) * 16))
assert_eq "batch step: the job's first node's address, slot 0" \
	"batch: $(addr "${nodes[0]}") $base" "$(grep '^batch:' job.out)"
a2=$(addr "${nodes[2]}")
assert_eq "srun -w ${nodes[2]},${nodes[3]}: the step's first node, by its address" \
	"0: 0 $a2 $((base + 1))
1: 0 $a2 $((base + 1))" "$(cat last2.out)"
a0=$(addr "${nodes[0]}")
assert_eq "srun -N4: the first node's address, step 1's port" \
	"0: 1 $a0 $((base + 2))
1: 1 $a0 $((base + 2))
2: 1 $a0 $((base + 2))
3: 1 $a0 $((base + 2))" "$(cat all.out)"
c1=$(cat c1.out) c2=$(cat c2.out)
if [[ ${c1#* } != "${c2#* }" && -n ${c1#* } ]]; then
	pass "two steps at once on ${nodes[0]}: ports ${c1#* } and ${c2#* }"
else
	fail "two steps at once on ${nodes[0]}: '$c1' and '$c2'"
fi
for c in "$c1" "$c2"; do
	assert_eq "step ${c%% *}'s port" "$((base + ${c%% *} + 1))" "${c#* }"
done
finish
