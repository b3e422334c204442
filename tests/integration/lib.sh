# shellcheck shell=bash
# Shared helpers for the integration tests: each test starts its own real
# local Slurm cluster (contrib/local-cluster/cluster), named after the test,
# and stops it on exit whatever happens.
#
#   SRC=<source dir> BUILD=<build dir> bash tests/integration/test_X.sh
# Exit status: 0 pass, 1 fail, 77 skip (not root, no slurmd).
set -euo pipefail

: "${SRC:?SRC (source dir) must be set}"
: "${BUILD:?BUILD (build dir) must be set}"
CLUSTER_TOOL=$SRC/contrib/local-cluster/cluster
# SN_SLURM_PREFIX (the build's -DSN_SLURM_PREFIX): the Slurm under test, whose
# daemons and commands the cluster runs; empty: the system's (Debian's 22.05).
SLURM_OPT=()
if [[ -n ${SN_SLURM_PREFIX:-} ]]; then
	SLURM_OPT=(--slurm "$SN_SLURM_PREFIX")
	PATH=$SN_SLURM_PREFIX/bin:$SN_SLURM_PREFIX/sbin:$PATH
fi
FAILS=0
CHECKS=0

skip_unless_possible() {
	if [[ $(id -u) != 0 ]]; then echo "SKIP: needs root (slurmd runs jobs)"; exit 77; fi
	for p in slurmctld slurmd munged sbatch; do
		command -v "$p" >/dev/null || { echo "SKIP: $p missing"; exit 77; }
	done
}

# cluster_up NAME [cluster start options...]: start and export SLURM_CONF.
cluster_up() {
	CLUSTER=$1
	shift
	skip_unless_possible
	trap cluster_down EXIT
	"$CLUSTER_TOOL" start "$CLUSTER" --build "$BUILD" "${SLURM_OPT[@]}" "$@" >/dev/null
	eval "$("$CLUSTER_TOOL" env "$CLUSTER")"
	WORK=$(mktemp -d)
	cd "$WORK"
}

cluster_down() {
	local rc=$?
	if ((rc != 0)) && [[ -n ${SUPERNODE_CLUSTER_DIR:-} ]]; then
		echo "--- slurmctld.log (tail)"; tail -n 20 "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log" || true
	fi
	"$CLUSTER_TOOL" stop "$CLUSTER" >/dev/null 2>&1 || true
	[[ -n ${WORK:-} ]] && rm -rf "$WORK"
	return "$rc"
}

pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL - $*"; }

# assert_eq WHAT EXPECTED FOUND
assert_eq() {
	if [[ $2 == "$3" ]]; then pass "$1 = '$3'"; else fail "$1: expected '$2', found '$3'"; fi
}

# assert_contains WHAT NEEDLE HAYSTACK
assert_contains() {
	if [[ $3 == *"$2"* ]]; then pass "$1 mentions '$2'"; else fail "$1: expected to contain '$2', found: $3"; fi
}

# job_field JOBID FIELD: one field of `scontrol show job`.
job_field() {
	scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# wait_state JOBID STATE [TIMEOUT]: wait until the job reaches STATE.
wait_state() {
	local i state
	for ((i = 0; i < ${3:-60} * 5; i++)); do
		state=$(job_field "$1" JobState)
		[[ $state == "$2" ]] && return 0
		sleep 0.2
	done
	echo "job $1: still $state after ${3:-60}s, wanted $2" >&2
	return 1
}

# pending_verdict JOBID: "STATE REASON" once the scheduler has looked at
# the job (a reason other than None, at most 15 s): a fixed sleep can read
# "PENDING None" on a loaded machine.
pending_verdict() {
	local i state reason
	for ((i = 0; i < 75; i++)); do
		state=$(job_field "$1" JobState)
		reason=$(job_field "$1" Reason)
		[[ $state != PENDING || $reason != None ]] && break
		sleep 0.2
	done
	echo "$state $reason"
}

# drained_nodes: the nodes in a drain state (drain, drained, draining), one
# per line; "sinfo failed (exit N): ..." when sinfo itself failed, so that
# an assert of "nothing drained" ("") cannot pass on a dead controller.
drained_nodes() {
	local out rc=0
	out=$(sinfo -h -N -t drain,drained,draining -o %N 2>&1) || rc=$?
	if ((rc)); then
		echo "sinfo failed (exit $rc): $out"
		return 0
	fi
	[[ -z $out ]] || sort -u <<<"$out"
}

# queued_jobs: the ids of the jobs slurmctld holds, one per line; "squeue
# failed (exit N): ..." when squeue itself failed (as drained_nodes).
queued_jobs() {
	local out rc=0
	out=$(squeue -h -o %i 2>&1) || rc=$?
	if ((rc)); then
		echo "squeue failed (exit $rc): $out"
		return 0
	fi
	printf '%s' "$out"
}

# sn_of NODE: sna1 -> sn01, snb2 -> sn02, ...
sn_of() { printf 'sn%02d' $(($(printf '%d' "'${1:2:1}") - 96)); }

# whole_supernodes LIST: "sn01 sn03" if LIST is whole supernodes of 2 nodes
# (sn01..sn03), else "partial".
whole_supernodes() {
	local -A n=()
	local h s out=''
	for h in $(scontrol show hostnames "$1"); do
		s=$(sn_of "$h")
		n[$s]=$((${n[$s]:-0} + 1))
	done
	for s in sn01 sn02 sn03; do
		case ${n[$s]:-0} in
		0) ;;
		2) out+=" $s" ;;
		*) echo partial; return ;;
		esac
	done
	echo "${out# }"
}

# cluster_with_ports NAME: two supernodes of two nodes, each node with one
# ACTIVE 400 Gb/s InfiniBand port in a fake sysfs tree under $fx (removed
# on exit), the node: section asking for it, and the cluster started.
cluster_with_ports() {
	source "$SRC/contrib/local-cluster/fake-sysfs.sh"
	fx=$(mktemp -d)
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
placement:
  method: feature
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
	cluster_up "$1" --config "$fx/supernode.yaml"
	trap 'cluster_down; rm -rf "$fx"' EXIT
}

finish() {
	echo "$CHECKS checks, $FAILS failed"
	((FAILS == 0))
}
