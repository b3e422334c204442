#!/usr/bin/env bash
# Two --supernode=1 jobs land on the two supernodes, whole and exclusive; a
# third waits until one ends; a job without the option is untouched.
source "$(dirname "$0")/lib.sh"
cluster_up "it-place-$$"

j1=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 10')
wait_state "$j1" RUNNING
n1=$(job_field "$j1" NodeList)
# Exclusive by what the scheduler does, not by OverSubscribe= (26.05 shows NO
# for every job): with no other job pending, a 1-CPU job asking for a node of
# job 1 (2 CPUs, job 1 uses one) does not start beside it.
jx=$(sbatch --parsable -N1 -n1 -w "$(scontrol show hostnames "$n1" | head -n1)" -o /dev/null --wrap 'true')
assert_eq "1-CPU job on a node of job 1 while job 1 runs" "PENDING Resources" "$(pending_verdict "$jx")"
scancel "$jx"
j2=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 10')
wait_state "$j2" RUNNING
j3=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'true')

n2=$(job_field "$j2" NodeList)
assert_eq "the two jobs' supernodes" "sna[1-2] snb[1-2]" "$(printf '%s\n' "$n1" "$n2" | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "job 1 node count" 2 "$(job_field "$j1" NumNodes)"
assert_eq "job 1 constraint" "[sn01|sn02]" "$(job_field "$j1" Features)"
assert_eq "third job while both supernodes are busy" "PENDING Resources" "$(pending_verdict "$j3")"
wait_state "$j3" COMPLETED 60
assert_contains "third job's nodes (one of the freed supernodes)" "[1-2]" "$(job_field "$j3" NodeList)"

# A job without --supernode: not rewritten.
j4=$(sbatch --parsable -N1 -o /dev/null --wrap 'true')
wait_state "$j4" COMPLETED
assert_eq "plain job node count" 1 "$(job_field "$j4" NumNodes)"
assert_eq "plain job features" "(null)" "$(job_field "$j4" Features)"
# Plain jobs share nodes: a second 1-CPU job on sna1 runs to its end while
# the first still runs there.
j7=$(sbatch --parsable -N1 -n1 -w sna1 -o /dev/null --wrap 'sleep 60')
wait_state "$j7" RUNNING
j8=$(sbatch --parsable -N1 -n1 -w sna1 -o /dev/null --wrap 'true')
wait_state "$j8" COMPLETED 50
assert_eq "plain 1-CPU job on sna1 beside another: the other's state" RUNNING "$(job_field "$j7" JobState)"
scancel "$j7"

# Env-variable equivalents, and the command line winning over them.
j5=$(SBATCH_SUPERNODE=1 sbatch --parsable -o /dev/null --wrap 'true')
assert_eq "SBATCH_SUPERNODE=1 job features" "[sn01|sn02]" "$(job_field "$j5" Features)"
j6=$(SBATCH_SUPERNODE=7 sbatch --parsable --supernode=1 -o /dev/null --wrap 'true')
wait_state "$j6" COMPLETED
assert_eq "--supernode=1 wins over SBATCH_SUPERNODE=7" 2 "$(job_field "$j6" NumNodes)"
out=$(SALLOC_SUPERNODE=1 salloc printenv SLURM_JOB_NUM_NODES 2>/dev/null)
assert_eq "SALLOC_SUPERNODE=1 allocation size" 2 "$out"
finish
