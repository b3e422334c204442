#!/usr/bin/env bash
# placement.method: switch on a real local Slurm with three supernodes of
# two nodes under topology/tree (one leaf switch per supernode, a top
# switch), and supernode-prolog as PrologSlurmctld.  slurmctld gives
# PrologSlurmctld no SLURM_CONF, so the program looks for the default
# /etc/slurm/supernode.yaml: a two-line wrapper passes --config (and no
# mode: the program picks --controller from SLURM_SCRIPT_CONTEXT):
#  - --supernode=2 lands on exactly two whole supernodes, and every node
#    gets its supernode's SUPERNODE_INDEX and its SUPERNODE_NODE_RANK;
#  - with one node of sn01 and one of sn02 busy, --switches=2 waits
#    switch_wait (5 s), then Slurm places the job across three supernodes:
#    the controller prolog refuses it, Slurm requeues it, the script never
#    runs and no node is drained; once the nodes are free it runs whole;
#  - a job without --supernode is not touched.
source "$(dirname "$0")/lib.sh"
PROLOG=$BUILD/prolog/supernode-prolog
[[ -x $PROLOG ]] || { echo "SKIP: $PROLOG not built"; exit 77; }

name="it-switch-$$"
root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
  - name: sn03
    nodes: snc[1-2]
placement:
  method: switch
  max_supernodes: 3
  switch_wait: 5
paths:
  state_dir: $fx/state
YAML
# Its stderr (syslog's copy is not readable here) goes to a file we read.
printf '#!/bin/sh\nexec %s --config %s 2>>%s\n' "$PROLOG" "$root/$name/etc/supernode.yaml" \
	"$fx/prolog-slurmctld.log" >"$fx/prolog-slurmctld"
chmod 0755 "$fx" "$fx/prolog-slurmctld"
cat >"$fx/extra.conf" <<CONF
PrologSlurmctld=$fx/prolog-slurmctld
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
cluster_up "$name" --supernodes 3 --topology tree --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

# ---- 1. --supernode=2: two whole supernodes, per-node index and rank ----
probe='echo $SLURMD_NODENAME $SUPERNODE_NAME $SUPERNODE_INDEX $SUPERNODE_NODE_RANK $SUPERNODE_COUNT $SUPERNODE_NAMES'
j1=$(sbatch --parsable --supernode=2 -o "$WORK/j1.out" --wrap "srun bash -c '$probe'")
wait_state "$j1" COMPLETED 60
list=$(job_field "$j1" NodeList)
assert_eq "job $j1 nodes" 4 "$(job_field "$j1" NumNodes)"
# Exclusive by what the scheduler does, not by OverSubscribe= (26.05 shows
# NO for every job): with no other job pending, a 1-CPU job naming a node of
# a running --supernode=1 job (2 CPUs, it uses one) does not start beside it.
jw=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 60')
wait_state "$jw" RUNNING
jx=$(sbatch --parsable -N1 -n1 -w "$(scontrol show hostnames "$(job_field "$jw" NodeList)" | head -n1)" -o /dev/null --wrap true)
assert_eq "1-CPU job on a node of switch-placed job $jw" "PENDING Resources" "$(pending_verdict "$jx")"
scancel "$jx" "$jw"
wait_state "$jw" CANCELLED
assert_eq "job $j1 switches" "2@00:00:05" "$(job_field "$j1" Switches)"
assert_eq "job $j1 not requeued" 0 "$(job_field "$j1" Restarts)"
whole=$(whole_supernodes "$list")
if [[ $whole =~ ^sn0[1-3]\ sn0[1-3]$ ]]; then
	pass "job $j1 on two whole supernodes: $list ($whole)"
else
	fail "job $j1 on $list: not two whole supernodes ($whole)"
fi
# Expected per node: allocation order of supernodes, order inside each.
read -r sa sb <<<"$whole"
expect=''
i=0
for sn in $sa $sb; do
	r=0
	for h in $(scontrol show hostnames "$list"); do
		[[ $(sn_of "$h") == "$sn" ]] || continue
		expect+="$h $sn $i $r 2 $sa,$sb"$'\n'
		r=$((r + 1))
	done
	i=$((i + 1))
done
assert_eq "job $j1: NAME INDEX NODE_RANK COUNT NAMES on every node" \
	"$(printf '%s' "$expect" | sort)" "$(sort "$WORK/j1.out")"

# ---- 2. switch_wait expires with sna1 and snb1 busy: requeued, not run ----
b1=$(sbatch --parsable -w sna1 -o /dev/null --wrap 'sleep 300')
b2=$(sbatch --parsable -w snb1 -o /dev/null --wrap 'sleep 300')
wait_state "$b1" RUNNING
wait_state "$b2" RUNNING
j2=$(sbatch --parsable --supernode=2 -o "$WORK/j2.out" --wrap "touch $WORK/j2.ran")
for ((t = 0; t < 300; t++)); do
	[[ $(job_field "$j2" Restarts) -ge 1 ]] && break
	sleep 0.2
done
assert_eq "job $j2 requeued by the controller prolog" 1 "$(job_field "$j2" Restarts)"
if [[ -e $WORK/j2.ran ]]; then fail "job $j2 ran on partial supernodes"; else pass "job $j2 did not run on partial supernodes"; fi
assert_eq "drained nodes" "" "$(drained_nodes | paste -sd' ')"
log=$(grep -a "job $j2: allocation" "$fx/prolog-slurmctld.log" || true)
assert_eq "the controller prolog's verdict on job $j2" \
	"supernode-prolog: job $j2: allocation sna2,snb2,snc[1-2] is not 2 whole supernodes: sn01 partial: 1 of 2 nodes (missing sna1); sn02 partial: 1 of 2 nodes (missing snb1); 4 nodes touch 3 supernodes, 1 of them whole; the job asked for 2 whole: requeued (no node drained)" \
	"$log"
assert_contains "slurmctld.log on job $j2" "prolog_slurmctld JobId=$j2 prolog exit status 2:0" \
	"$(grep -a "JobId=$j2" "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log")"
scancel "$b1" "$b2"
wait_state "$j2" COMPLETED 90
list=$(job_field "$j2" NodeList)
whole=$(whole_supernodes "$list")
if [[ $whole =~ ^sn0[1-3]\ sn0[1-3]$ ]]; then
	pass "job $j2 ran on two whole supernodes once free: $list"
else
	fail "job $j2 ran on $list: not two whole supernodes ($whole)"
fi
[[ -e $WORK/j2.ran ]] && pass "job $j2 ran after the requeue" || fail "job $j2 never ran"

# ---- 3. a job without --supernode passes the controller prolog ----
j3=$(sbatch --parsable -N3 -o /dev/null --wrap true)
wait_state "$j3" COMPLETED 60
assert_eq "plain job restarts" 0 "$(job_field "$j3" Restarts)"
assert_eq "plain job switches" "" "$(job_field "$j3" Switches | sed 's/^0@.*//')"
assert_eq "verdicts logged: one refusal, two passes" "1 2" \
	"$(grep -c 'requeued (no node drained)' "$fx/prolog-slurmctld.log") $(grep -c ': exactly 2 whole supernodes' "$fx/prolog-slurmctld.log")"
finish
