#!/usr/bin/env bash
# placement.max_requeues on a real Slurm (issue 20 item 1): sna1 fails
# every prolog (its fabric port DOWN in the fake sysfs) and comes back at
# once, as a flapping node would (a loop resumes it); sn02 is busy, so a
# --supernode=1 job can only start on sn01.  The job is held at exactly
# the max_requeues-th failed start caused by us, with Slurm's restart count,
# Reason= and our AdminComment asserted exactly, for each method:
#  - feature (cap 2): a requeue that is not ours (scontrol requeue, as a
#    preemption) is not counted, and an admin's AdminComment text is kept:
#    held after 2 failed starts, Restarts=3;
#  - switch (cap 2): the node prolog's drain, and the controller check's
#    "no whole supernode" (one node of each supernode busy, switch_wait 1);
#  - block (cap 2, Slurm >= 24.05).
# Before the cap (e17e586+): the job was never held; it came back every
# cred_expire + 1 s for ever (Restarts grew, AdminComment empty).
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
PROLOG=$BUILD/prolog/supernode-prolog
[[ -x $PROLOG ]] || { echo "SKIP: $PROLOG not built"; exit 77; }

root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
chmod 0755 "$fx"
good() { ib_port "$fx/$1/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"; }
bad() { ib_port "$fx/$1/sys" mlx5_0 1 "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)"; }
for n in sna1 sna2 snb1 snb2; do good "$n"; done
: >"$fx/kmsg"
DOWN="sna1: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE (+1 more)"

# yaml METHOD MAX [SWITCH_WAIT]: the config, where the cluster reads it.
yaml() {
	cat <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
placement:
  method: $1
  max_requeues: $2
  switch_wait: ${3:-1}
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
prolog:
  timeout: 20
  check_timeout: 10
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
YAML
}
set_yaml() { yaml "$@" >"$root/$name/etc/supernode.yaml"; }

# start NAME TOPOLOGY METHOD MAX: a cluster with both prologs; slurmctld
# gives PrologSlurmctld no SLURM_CONF, so its wrapper passes this one's.
start() {
	name=$1
	yaml "$3" "$4" >"$fx/supernode.yaml"
	printf '#!/bin/sh\nexport SLURM_CONF=%s\nexec %s --config %s 2>>%s\n' \
		"$root/$name/etc/slurm.conf" "$PROLOG" "$root/$name/etc/supernode.yaml" \
		"$fx/prolog-slurmctld.log" >"$fx/prolog-slurmctld"
	chmod 0755 "$fx/prolog-slurmctld"
	cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
PrologSlurmctld=$fx/prolog-slurmctld
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
	cluster_up "$name" --supernodes 2 --topology "$2" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
	trap 'stop' EXIT
	# The flapping node: back in service as soon as it is drained.
	(while :; do scontrol update nodename=sna1 state=resume 2>/dev/null || true; sleep 0.5; done) &
	resumer=$!
}
stop() {
	local rc=$?
	[[ -n ${resumer:-} ]] && kill "$resumer" 2>/dev/null
	resumer=
	scancel --state=running,pending -u root 2>/dev/null || true
	if ((rc)); then
		echo "--- slurmctld.log (tail)"; tail -n 20 "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log" || true
	fi
	"$CLUSTER_TOOL" stop "$CLUSTER" >/dev/null 2>&1 || true
	cd /
	rm -rf "$WORK"
	[[ ${1:-} == keep ]] || rm -rf "$fx"
	return $rc
}

admin_comment() { scontrol show job "$1" | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//'; }

# held JOBID: wait until it is held (at most 90 s), then print
# "Restarts=R Reason=X" and the AdminComment on a second line.  Held means
# Priority=0 and a Reason set: slurmctld may show Reason=None for a moment
# after the hold (seen once in CI on the switch case, the job completing
# its requeue), until its next scheduling pass sets JobHeldAdmin for every
# pending job at priority 0 (job_scheduler.c, _job_runnable_test1).
held() {
	local t
	for ((t = 0; t < 450; t++)); do
		[[ $(job_field "$1" Priority) == 0 &&
			$(job_field "$1" Reason) != None ]] && break
		[[ $(job_field "$1" JobState) == COMPLETED ]] && break
		sleep 0.2
	done
	echo "Restarts=$(job_field "$1" Restarts) Reason=$(job_field "$1" Reason) $(job_field "$1" JobState)"
	admin_comment "$1"
}

REASON=JobHeldAdmin
t0=$SECONDS
start "it-requeue-tree-$$" tree feature 2
blk=$(sbatch --parsable -N2 -w 'snb[1-2]' -o /dev/null --wrap 'sleep 600')
wait_state "$blk" RUNNING

# ---- feature, cap 2: a requeue not ours (scontrol requeue, as a
# preemption) does not count; an admin's text is kept ----
j=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 600')
wait_state "$j" RUNNING
scontrol update jobid="$j" admincomment="RMA 42"
bad sna1
scontrol requeue "$j"
echo "# $((SECONDS - t0)) s"
assert_eq "feature, preempted then failing: job $j held at the 2nd failed start" \
	"Restarts=3 Reason=$REASON PENDING
RMA 42 supernode: held after 2 failed starts, placement.max_requeues 2 (restart 2); last: $DOWN" "$(held "$j")"
scancel "$j"

# ---- switch, cap 2: the node prolog's drain ----
set_yaml switch 2
j=$(sbatch --parsable --supernode=1 -o /dev/null --wrap true)
echo "# $((SECONDS - t0)) s"
assert_eq "switch: job $j held at the 2nd failed start" \
	"Restarts=2 Reason=$REASON PENDING
supernode: held after 2 failed starts, placement.max_requeues 2 (restart 1); last: $DOWN" "$(held "$j")"
scancel "$j" "$blk"

# ---- switch, cap 2: no whole supernode (sna1 and snb1 busy) ----
good sna1
b1=$(sbatch --parsable -w sna1 -o /dev/null --wrap 'sleep 600')
b2=$(sbatch --parsable -w snb1 -o /dev/null --wrap 'sleep 600')
wait_state "$b1" RUNNING
wait_state "$b2" RUNNING
j=$(sbatch --parsable --supernode=1 -o "$WORK/nw.out" --wrap true)
echo "# $((SECONDS - t0)) s"
assert_eq "switch, no whole supernode: job $j held at the 2nd refusal" \
	"Restarts=2 Reason=$REASON PENDING
supernode: held after 2 failed starts, placement.max_requeues 2 (restart 1); last: allocation sna2,snb2 is not 1 whole supernode: sn01 partial: 1 of 2 nodes (missing sna1); sn02 partial: 1 of 2 nodes (missing snb1); 2 nodes touch 2 supernodes, 0 of them whole; the job asked for 1 whole" \
	"$(held "$j")"
assert_eq "switch, no whole supernode: drained nodes" "" "$(drained_nodes | grep -v sna1 | paste -sd' ')"
stop keep
echo "tree cluster: $((SECONDS - t0)) s"

# ---- block, cap 2 (topology/block: Slurm >= 24.05) ----
ver=$(scontrol --version | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\).*/\1\2/p')
if ((10#$ver >= 2405)); then
	t0=$SECONDS
	start "it-requeue-block-$$" block block 2
	blk=$(sbatch --parsable -N2 -w 'snb[1-2]' -o /dev/null --wrap 'sleep 600')
	wait_state "$blk" RUNNING
	bad sna1
	j=$(sbatch --parsable --supernode=1 -o /dev/null --wrap true)
	assert_eq "block: job $j held at the 2nd failed start" \
		"Restarts=2 Reason=$REASON PENDING
supernode: held after 2 failed starts, placement.max_requeues 2 (restart 1); last: $DOWN" "$(held "$j")"
	stop keep
	echo "block cluster: $((SECONDS - t0)) s"
fi
rm -rf "$fx"
trap - EXIT
finish
