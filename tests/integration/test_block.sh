#!/usr/bin/env bash
# placement.method: block on a real Slurm >= 24.05 (registered only when the
# build targets one): three supernodes of two nodes (2 CPUs each), each one
# base block of topology/block (BlockSizes=2), supernode-prolog as
# PrologSlurmctld.  The job_submit plugin turns --supernode=N into
# --nodes=2N --segment=2 --exclusive:
#  - N=1 and N=2 run on whole blocks, with every CPU of their nodes;
#  - a plain job never shares a supernode job's nodes: one that names such
#    a node waits until the supernode job ends;
#  - with one node of every block busy, --supernode=1 waits, and runs on
#    the block freed first;
#  - the refusals (--nodelist with N=2, --oversubscribe, --nodes, N=4);
#  - the controller check refuses an allocation that is not whole blocks,
#    by hand and, on >= 25.05, on a Slurm whose block placement a re-applied
#    Topology= silently turned off (the scheduler is not trusted).
source "$(dirname "$0")/lib.sh"
PROLOG=$BUILD/prolog/supernode-prolog
[[ -x $PROLOG ]] || { echo "SKIP: $PROLOG not built"; exit 77; }

name="it-block-$$"
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
  method: block
  max_supernodes: 3
paths:
  state_dir: $fx/state
YAML
printf '#!/bin/sh\nexec %s --config %s 2>>%s\n' "$PROLOG" "$root/$name/etc/supernode.yaml" \
	"$fx/prolog-slurmctld.log" >"$fx/prolog-slurmctld"
chmod 0755 "$fx" "$fx/prolog-slurmctld"
cat >"$fx/extra.conf" <<CONF
PrologSlurmctld=$fx/prolog-slurmctld
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
cluster_up "$name" --supernodes 3 --topology block --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

assert_contains "scontrol show topology" "BlockName=sn02" "$(scontrol show topology)"

# ---- 1. N=1 and N=2: whole blocks, whole nodes ----
for n in 1 2; do
	j=$(sbatch --parsable --supernode=$n -o /dev/null --wrap 'sleep 1')
	wait_state "$j" COMPLETED 60
	list=$(job_field "$j" NodeList)
	assert_eq "--supernode=$n: job $j nodes" $((2 * n)) "$(job_field "$j" NumNodes)"
	assert_eq "--supernode=$n: job $j CPUs (whole nodes)" $((4 * n)) "$(job_field "$j" NumCPUs)"
	assert_eq "--supernode=$n: job $j not requeued" 0 "$(job_field "$j" Restarts)"
	whole=$(whole_supernodes "$list")
	if [[ $n == 1 && $whole =~ ^sn0[1-3]$ || $n == 2 && $whole =~ ^sn0[1-3]\ sn0[1-3]$ ]]; then
		pass "--supernode=$n: job $j on $n whole block(s): $list ($whole)"
	else
		fail "--supernode=$n: job $j on $list: not $n whole block(s) ($whole)"
	fi
done

# ---- 2. a plain job never shares a supernode job's nodes ----
j=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 300')
wait_state "$j" RUNNING 60
list=$(job_field "$j" NodeList)
first=$(scontrol show hostnames "$list" | head -n 1)
p=$(sbatch --parsable -n1 -w "$first" -o /dev/null --wrap true)
p2=$(sbatch --parsable -N4 -o /dev/null --wrap true)
wait_state "$p2" COMPLETED 60
p2list=$(scontrol show hostnames "$(job_field "$p2" NodeList)" | paste -sd' ')
shared=$(comm -12 <(scontrol show hostnames "$list" | sort) <(tr ' ' '\n' <<<"$p2list" | sort))
assert_eq "a 4-node plain job beside job $j ($list) took none of its nodes ($p2list)" "" "$shared"
v=$(pending_verdict "$p")
assert_eq "plain job $p on $first (held by job $j), once the scheduler looked ($v)" PENDING "${v%% *}"
scancel "$j"
wait_state "$p" COMPLETED 60
assert_eq "plain job $p ran on $first once job $j ended" "$first" "$(job_field "$p" NodeList)"

# ---- 3. no whole block free: --supernode=1 waits ----
b1=$(sbatch --parsable -n1 -w sna1 -o /dev/null --wrap 'sleep 300')
b2=$(sbatch --parsable -n1 -w snb2 -o /dev/null --wrap 'sleep 300')
b3=$(sbatch --parsable -n1 -w snc1 -o /dev/null --wrap 'sleep 300')
for b in "$b1" "$b2" "$b3"; do wait_state "$b" RUNNING 60; done
w=$(sbatch --parsable --supernode=1 -o /dev/null --wrap 'sleep 1')
v=$(pending_verdict "$w")
assert_eq "job $w with one node of every block busy, once the scheduler looked ($v)" PENDING "${v%% *}"
assert_eq "job $w not started (not requeued)" 0 "$(job_field "$w" Restarts)"
scancel "$b2"
wait_state "$w" COMPLETED 60
assert_eq "job $w ran on the block freed first" "snb[1-2]" "$(job_field "$w" NodeList)"
scancel "$b1" "$b3"

# ---- 4. refusals ----
refused() { # refused CASE ARGS...
	local want=$1 msg rc
	shift
	set +e
	msg=$(sbatch "$@" --wrap true 2>&1)
	rc=$?
	set -e
	if ((rc != 0)); then pass "sbatch $* refused"; else fail "sbatch $* accepted"; fi
	assert_contains "sbatch $* message" "$want" "$msg"
}
refused "--nodelist cannot be combined with --supernode=2 under placement.method 'block': Slurm's topology/block places no segments around required nodes (give --supernode=1, or leave out --nodelist)" \
	--supernode=2 -w 'sna[1-2],snb[1-2]'
refused "--nodelist=sna1,snb1 spans 2 supernodes, but --supernode=1 gets exactly 1" --supernode=1 -w sna1,snb1
refused "--oversubscribe cannot be combined with --supernode=1" --supernode=1 --oversubscribe
refused "--nodes=3 cannot be combined with --supernode=1: that is 1 whole supernode(s) of 2 nodes = 2 nodes (leave out --nodes, or give --nodes=2)" \
	--supernode=1 -N 3
refused "--supernode=4" --supernode=4

# ---- 5. the controller check: not whole blocks is refused, whatever placed it ----
set +e
out=$(env -i PATH="$PATH" SLURM_SCRIPT_CONTEXT=prolog_slurmctld SLURM_JOB_ID=77 \
	SPANK_SUPERNODE=1 SLURM_JOB_NODELIST=sna2,snb1 \
	"$PROLOG" --config "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml" 2>&1)
rc=$?
set -e
assert_eq "controller check, sna2,snb1 for --supernode=1: exit" 2 "$rc"
assert_contains "controller check, sna2,snb1 for --supernode=1" \
	"supernode-prolog: job 77: allocation sna2,snb1 is not 1 whole supernode: sn01 partial: 1 of 2 nodes (missing sna1); sn02 partial: 1 of 2 nodes (missing snb2); 2 nodes touch 2 supernodes, 0 of them whole; the job asked for 1 whole: requeued (no node drained)" "$out"
assert_eq "verdicts of the real jobs: none refused" 0 \
	"$(grep -c 'requeued (no node drained)' "$fx/prolog-slurmctld.log" || true)"
assert_eq "verdicts of the real jobs: whole supernodes" 4 \
	"$(grep -c ': exactly [12] whole supernode' "$fx/prolog-slurmctld.log" || true)"
# ---- 6. Slurm >= 25.05: block scheduling silently off, the check holds ----
# Re-applying each node's unchanged Topology= turns block placement off
# while `scontrol show topology` looks the same (SchedMD/slurm PR #225,
# reproduced on 26.05.3): raw -N2 --segment=2 then runs on sna2,snb1.
ver=$(scontrol --version | sed -n 's/^slurm \([0-9]*\)\.\([0-9]*\).*/\1\2/p')
if ((10#$ver >= 2505)); then
	for b in sn01:sna sn02:snb sn03:snc; do
		scontrol update NodeName="${b#*:}[1-2]" Topology="default:${b%:*}"
	done
	b1=$(sbatch --parsable -n1 -w sna1 -o /dev/null --wrap 'sleep 300')
	b2=$(sbatch --parsable -n1 -w snb2 -o /dev/null --wrap 'sleep 300')
	b3=$(sbatch --parsable -n1 -w snc1 -o /dev/null --wrap 'sleep 300')
	for b in "$b1" "$b2" "$b3"; do wait_state "$b" RUNNING 60; done
	j6=$(sbatch --parsable --supernode=1 -o /dev/null --wrap "touch $WORK/j6.ran")
	for ((t = 0; t < 300; t++)); do
		[[ $(job_field "$j6" Restarts) -ge 1 ]] && break
		sleep 0.2
	done
	assert_eq "job $j6 on a Slurm that lost its blocks: requeued by the controller check" 1 \
		"$(($(job_field "$j6" Restarts) >= 1))"
	if [[ -e $WORK/j6.ran ]]; then fail "job $j6 ran on partial supernodes"; else pass "job $j6 did not run on partial supernodes"; fi
	assert_contains "the controller check's verdict on job $j6" \
		"supernode-prolog: job $j6: allocation sna2,snb1 is not 1 whole supernode" \
		"$(grep -a "job $j6: allocation" "$fx/prolog-slurmctld.log" | head -n 1)"
	scancel "$j6" "$b1" "$b2" "$b3"
fi
finish
