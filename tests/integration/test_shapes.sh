#!/usr/bin/env bash
# Issue 9, item 1: no task/node/CPU shape of a --supernode job may crash
# slurmctld.  `srun --supernode=1 -n1 hostname` as any user killed
# slurmctld 22.05 with SIGFPE in step_create (a job step with fewer tasks
# than nodes).  Every shape below runs as an unprivileged user (nobody)
# against the real cluster; after each one slurmctld must answer
# `scontrol ping`, and the job either ran on one whole supernode with
# exactly the tasks expected, or was refused at submission with a message
# that names the conflicting option.
#
#   SHAPES_METHOD=switch runs the srun shapes on a topology/tree cluster.
source "$(dirname "$0")/lib.sh"
if [[ ${SHAPES_METHOD:-feature} == switch ]]; then
	cluster_up "it-shp-sw-$$" --topology tree
else
	cluster_up "it-shp-$$"
fi
chmod 0777 "$WORK"
USER_RUN=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
SHAPES=0

# Each task prints its allocation and node: "JOB_NODELIST NODENAME".
TASK='echo "T $SLURM_JOB_NODELIST $SLURMD_NODENAME"'

alive() {
	if scontrol ping 2>&1 | grep -q 'is UP'; then
		pass "slurmctld alive after: $*"
	else
		fail "slurmctld DOWN after: $*"
		"$CLUSTER_TOOL" start "$CLUSTER" --build "$BUILD" "${SLURM_OPT[@]}" >/dev/null 2>&1
	fi
}

# judge WHAT EXPECT OUTPUT RC: EXPECT is "ran:T" (T task lines, all on one
# whole supernode) or "refused:TEXT" (non-zero exit, TEXT in the message).
judge() {
	local what=$1 expect=$2 out=$3 rc=$4 tasks lists
	SHAPES=$((SHAPES + 1))
	case $expect in
	ran:*)
		tasks=$(grep -c '^T ' <<<"$out" || true)
		lists=$(sed -n 's/^T \([^ ]*\) .*/\1/p' <<<"$out" | sort -u | tr '\n' ' ')
		# arrays: each element on a whole supernode of its own
		if ((rc == 0)) && [[ $tasks == "${expect#ran:}" ]] &&
			[[ $lists =~ ^((sna|snb)\[1-2\]\ )+$ ]]; then
			pass "$what: ran $tasks task(s) on $lists"
		else
			fail "$what: expected ${expect#ran:} task(s) on one whole supernode, got rc=$rc tasks=$tasks lists='$lists': $(head -c 600 <<<"$out")"
		fi
		;;
	refused:*)
		if ((rc != 0)) && [[ $out == *"${expect#refused:}"* ]]; then
			pass "$what: refused ('${expect#refused:}')"
		else
			fail "$what: expected refusal with '${expect#refused:}', got rc=$rc: $(head -c 600 <<<"$out")"
		fi
		;;
	esac
	alive "$what"
}

# srun_shape EXPECT ARGS...: srun --supernode=1 ARGS... (creates the allocation)
srun_shape() {
	local expect=$1 out rc
	shift
	set +e
	out=$(timeout 90 "${USER_RUN[@]}" srun --supernode=1 "$@" bash -c "$TASK" 2>&1 </dev/null)
	rc=$?
	set -e
	judge "srun --supernode=1 $*" "$expect" "$out" "$rc"
}

# salloc_shape EXPECT "SALLOC ARGS" "SRUN ARGS": salloc --supernode=1 ... srun ...
salloc_shape() {
	local expect=$1 out rc
	local -a a=() s=()
	read -r -a a <<<"$2"
	read -r -a s <<<"$3"
	set +e
	out=$(timeout 90 "${USER_RUN[@]}" salloc --supernode=1 "${a[@]}" srun "${s[@]}" bash -c "$TASK" 2>&1 </dev/null)
	rc=$?
	set -e
	judge "salloc --supernode=1 $2 srun $3" "$expect" "$out" "$rc"
}

# sbatch_shape EXPECT "SBATCH ARGS" "SRUN ARGS": the batch script runs one srun.
sbatch_shape() {
	local expect=$1 out rc id f
	local -a a=()
	read -r -a a <<<"$2"
	f=$WORK/out.$SHAPES
	set +e
	out=$(timeout 90 "${USER_RUN[@]}" sbatch --wait -o "$f.%a" --supernode=1 "${a[@]}" \
		--wrap "srun $3 bash -c '$TASK'" 2>&1 </dev/null)
	rc=$?
	set -e
	if ((rc == 0)); then
		out=$(cat "$f".* 2>/dev/null)
	fi
	judge "sbatch --supernode=1 $2 (srun $3)" "$expect" "$out" "$rc"
}

# all_idle: wait (at most 60 s) until every node is idle: the nodes of a job
# that just ended may still be completing, and a job waiting for them says
# Resources too.
all_idle() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -n $(sinfo -h -N -o '%t' | grep -vx idle) ]] || return 0
		sleep 0.2
	done
	echo "nodes not idle after 60 s: $(sinfo -h -N -o '%N %t' | paste -sd' ')" >&2
}

# settled JOBID: "ran" once it completed, else its "STATE REASON" once the
# scheduler has decided it waits (a reason other than None or the passing
# Prolog of a job being launched), at most 60 s.
settled() {
	local i state reason
	for ((i = 0; i < 300; i++)); do
		state=$(job_field "$1" JobState)
		reason=$(job_field "$1" Reason)
		[[ $state == COMPLETED ]] && { echo ran; return; }
		# Prolog: 22.05 shows it while a job is being launched
		[[ $state == PENDING && $reason != None && $reason != Prolog ]] && break
		sleep 0.2
	done
	echo "$state $reason"
}

# sbatch_pends "SBATCH ARGS" "STATE REASON": a --supernode=1 batch job with
# those options waits as its plain equivalent does; cancelled after.
sbatch_pends() {
	local -a a=()
	local j
	read -r -a a <<<"$1"
	SHAPES=$((SHAPES + 1))
	all_idle
	j=$("${USER_RUN[@]}" sbatch --parsable --supernode=1 "${a[@]}" -o /dev/null --wrap true </dev/null)
	assert_eq "sbatch --supernode=1 $1, as its plain equivalent" "$2" "$(settled "$j")"
	scancel "$j"
	alive "sbatch --supernode=1 $1"
}

# ---- srun creates the allocation: its first job step follows at once ----
srun_shape ran:2
# srun counts --ntasks-per-node against its own node count (1 without -N)
# before the allocation becomes the whole supernode: refused, naming -N.
srun_shape "refused:--ntasks-per-node=1 cannot be combined with --supernode=1 here: srun counted 1 task(s) for 1 node(s) before the allocation became 2 nodes (give --nodes=2)" --ntasks-per-node=1
srun_shape "refused:--ntasks-per-node=2 cannot be combined with --supernode=1 here" --ntasks-per-node=2
srun_shape ran:4 -N 2 --ntasks-per-node=2
srun_shape ran:2 -N 2 --ntasks-per-node=1
srun_shape ran:2 -n 2
srun_shape ran:3 -n 3
srun_shape ran:4 -n 4
srun_shape ran:2 -n 2 -c 2
srun_shape ran:2 -c 2
srun_shape ran:4 -n 4 --ntasks-per-node=2
srun_shape ran:2 -n 2 --exact
srun_shape ran:2 -n 2 --overcommit
# 8 tasks on the 4 CPUs of one supernode: 22.05 runs it, but 24.11 and 26.05
# never start even a plain job of that shape (-N 2 --exclusive -n 8
# --overcommit pends for Resources on an idle cluster).  --supernode=1 must do
# what Slurm does with its plain equivalent.
all_idle
plain=$(sbatch --parsable -N 2 --exclusive -n 8 --overcommit -o /dev/null --wrap true)
plain_verdict=$(settled "$plain")
scancel "$plain"
if [[ $plain_verdict == ran ]]; then
	srun_shape ran:8 -n 8 --overcommit
else
	sbatch_pends "-n 8 --overcommit" "$plain_verdict"
fi
srun_shape ran:2 -n 2 --spread-job
srun_shape ran:4 -n 4 -m cyclic
srun_shape ran:4 -n 4 -m block
srun_shape ran:4 -n 4 -m plane=2
srun_shape ran:2 -n 2 --mem-per-cpu=10
srun_shape ran:2 -w sna1
srun_shape ran:2 -x sna1
srun_shape ran:2 -n 2 -w snb1
srun_shape ran:2 -n 2 -x snb2
for opts in "-n 1" "-n 1 -c 2" "-n 1 --exact" "-n 1 -x snb1" "-n 1 -w sna1" \
	"-n 1 --mem-per-cpu=10" "-n 1 --overcommit" "-n 1 --spread-job" \
	"-n 1 -N 2"; do
	read -r -a o <<<"$opts"
	srun_shape "refused:--ntasks=1 cannot be combined with --supernode=1" "${o[@]}"
done
srun_shape "refused:cannot be combined with --supernode=1" -n 1 --ntasks-per-node=1
srun_shape "refused:--nodes=1 cannot be combined with --supernode=1" -N 1
srun_shape "refused:--nodes=3 cannot be combined with --supernode=1" -N 3
srun_shape "refused:spans 2 supernodes" -w sna1,snb1
srun_shape "refused:--oversubscribe cannot be combined" -n 2 --oversubscribe
srun_shape "refused:cannot be used in a heterogeneous job" -n 2 : -n 1

if [[ ${SHAPES_METHOD:-feature} == switch ]]; then
	echo "$SHAPES shapes (switch method)"
	finish
	exit
fi

# ---- salloc: the allocation is whole; the srun steps inside lay out ----
# salloc: Slurm raises the job's task count to its node count (2 tasks
# where the user asked for 1), so fewer tasks than nodes is refused.
salloc_shape "refused:--ntasks=1 cannot be combined with --supernode=1: that is 2 nodes, and Slurm raises the job's task count to its node count" "-n 1" ""
salloc_shape "refused:--ntasks=1 cannot be combined with --supernode=1" "-n 1 -c 2" ""
salloc_shape ran:2 "--ntasks-per-node=1" ""
salloc_shape ran:4 "--ntasks-per-node=2" ""
salloc_shape ran:2 "" ""
salloc_shape ran:1 "" "-n 1"
salloc_shape ran:1 "" "-n 1 --exact"
salloc_shape ran:3 "" "-n 3 -m cyclic"
salloc_shape ran:1 "" "--supernode=1 -n 1"
salloc_shape ran:2 "-n 2 --overcommit" ""
salloc_shape ran:2 "-w snb1" ""
salloc_shape "refused:--nodes=1 cannot be combined with --supernode=1" "-N 1" ""

# ---- sbatch: the batch script's srun inside the whole allocation ----
# Fewer tasks than nodes: sbatch's steps run the user's count, but from
# 26.05 slurmctld refuses such a job ("Task count specification invalid"),
# so job_submit refuses it first, by name.
read -r _ slurm_ver < <(sinfo --version)
if [[ $(printf '%s\n' 26.05 "$slurm_ver" | sort -V | head -n1) == 26.05 ]]; then
	few="refused:--ntasks=1 cannot be combined with --supernode=1: that is 2 nodes, and this Slurm refuses a job with fewer tasks than nodes (give --ntasks=2 or more)"
else
	few=ran:1
fi
sbatch_shape "$few" "-n 1" ""
sbatch_shape "$few" "-n 1 -c 2" ""
sbatch_shape "$few" "-n 1 --mem-per-cpu=10" ""
sbatch_shape ran:2 "--ntasks-per-node=1" ""
sbatch_shape ran:4 "--ntasks-per-node=2" ""
sbatch_shape ran:2 "" ""
sbatch_shape ran:1 "" "-n 1"
sbatch_shape ran:2 "" "--ntasks-per-node=1"
sbatch_shape ran:2 "-n 2 --spread-job" ""
sbatch_shape ran:2 "-x sna2" ""
sbatch_shape ran:4 "--array=0-1 -n 2" ""
sbatch_shape "refused:cannot be used in a heterogeneous job" "-n 1 : -n 1" ""
sbatch_shape "refused:--nodes=3 cannot be combined with --supernode=1" "-N 3" ""

echo "$SHAPES shapes"
finish
