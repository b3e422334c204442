#!/usr/bin/env bash
# Two --supernode=1 jobs land on the two supernodes, whole and exclusive; a
# third waits until one ends; a job without the option is untouched.
source "$(dirname "$0")/lib.sh"
cluster_up "it-place-$$"

j1=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 6')
j2=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 6')
wait_state "$j1" RUNNING
wait_state "$j2" RUNNING
j3=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'true')

n1=$(job_field "$j1" NodeList)
n2=$(job_field "$j2" NodeList)
assert_eq "the two jobs' supernodes" "sna[1-2] snb[1-2]" "$(printf '%s\n' "$n1" "$n2" | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "job 1 node count" 2 "$(job_field "$j1" NumNodes)"
assert_eq "job 1 exclusive" NO "$(job_field "$j1" OverSubscribe)"
assert_eq "job 1 constraint" "[sn01|sn02]" "$(job_field "$j1" Features)"
sleep 1
assert_eq "third job state while both supernodes are busy" PENDING "$(job_field "$j3" JobState)"
assert_eq "third job reason" Resources "$(job_field "$j3" Reason)"
wait_state "$j3" COMPLETED 60
assert_contains "third job's nodes (one of the freed supernodes)" "[1-2]" "$(job_field "$j3" NodeList)"

# A job without --supernode: not rewritten.
j4=$(sbatch --parsable -N1 -o /dev/null --wrap 'true')
wait_state "$j4" COMPLETED
assert_eq "plain job node count" 1 "$(job_field "$j4" NumNodes)"
assert_eq "plain job features" "(null)" "$(job_field "$j4" Features)"
assert_eq "plain job oversubscribe" OK "$(job_field "$j4" OverSubscribe)"

# Env-variable equivalents, and the command line winning over them.
j5=$(SBATCH_SUPERNODE=1 sbatch --parsable -o /dev/null --wrap 'true')
assert_eq "SBATCH_SUPERNODE=1 job features" "[sn01|sn02]" "$(job_field "$j5" Features)"
j6=$(SBATCH_SUPERNODE=7 sbatch --parsable --supernode=1 -o /dev/null --wrap 'true')
wait_state "$j6" COMPLETED
assert_eq "--supernode=1 wins over SBATCH_SUPERNODE=7" 2 "$(job_field "$j6" NumNodes)"
out=$(SALLOC_SUPERNODE=1 salloc printenv SLURM_JOB_NUM_NODES 2>/dev/null)
assert_eq "SALLOC_SUPERNODE=1 allocation size" 2 "$out"
finish
