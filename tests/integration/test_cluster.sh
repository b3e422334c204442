#!/usr/bin/env bash
# Smoke test of contrib/local-cluster/cluster (without our plugins): start a
# cluster with a unique name, start it again (idempotent), run sbatch, srun and
# salloc jobs on it, stop it (twice) and check that none of its processes is left.
# Exit status: 0 pass, 1 fail, 77 skip (not root, or a Slurm/munge program missing).
set -euo pipefail

SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
TOOL=$SRC/contrib/local-cluster/cluster
NAME=smoke-$$
FAILS=0
# SN_SLURM_PREFIX (from the build's -DSN_SLURM_PREFIX): the Slurm under test.
SLURM_OPT=()
if [[ -n ${SN_SLURM_PREFIX:-} ]]; then
	SLURM_OPT=(--slurm "$SN_SLURM_PREFIX")
	PATH=$SN_SLURM_PREFIX/bin:$SN_SLURM_PREFIX/sbin:$PATH
fi

if [[ $(id -u) != 0 ]]; then echo "SKIP: needs root"; exit 77; fi
for p in munged slurmctld slurmd sbatch srun salloc sinfo; do
	command -v "$p" >/dev/null || { echo "SKIP: $p missing"; exit 77; }
done

# Processes whose command line, working folder or open files are in folder $1.
leftovers() {
	pgrep -af -- "$1/" || true
	find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 -lname "$1/*" 2>/dev/null || true
}

check() { # check WHAT COMMAND...: run it, report ok/FAIL
	local what=$1
	shift
	if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; FAILS=$((FAILS + 1)); fi
}

cleanup() {
	local rc=$?
	"$TOOL" stop "$NAME" >/dev/null 2>&1 || true
	"$TOOL" stop "$NAME-b" >/dev/null 2>&1 || true
	if ((rc == 0)) && [[ -n ${SUPERNODE_CLUSTER_DIR:-} ]]; then
		rm -rf "$SUPERNODE_CLUSTER_DIR"
	fi
	[[ -n ${WORK:-} ]] && rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT

t0=$EPOCHREALTIME
"$TOOL" start "$NAME" "${SLURM_OPT[@]}" >/dev/null
echo "start took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s"
eval "$("$TOOL" env "$NAME")"
WORK=$(mktemp -d)
cd "$WORK"

status() { "$TOOL" status "$NAME" >/dev/null; }
check "status reports all daemons alive" status
out=$("$TOOL" start "$NAME" "${SLURM_OPT[@]}" 2>&1)
check "second start is a no-op" grep -q "already running" <<<"$out"

job=$(sbatch --parsable -N2 -o job.out --wrap 'srun printenv SLURMD_NODENAME')
state=''
for _ in $(seq 1 150); do
	state=$(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*' || true)
	case ${state#JobState=} in PENDING | CONFIGURING | RUNNING | COMPLETING | '') ;; *) break ;; esac
	sleep 0.2
done
check "sbatch -N2 job $job completed ($state)" test "$state" = JobState=COMPLETED
check "sbatch job ran on 2 nodes" test "$(sort -u job.out | wc -l)" = 2

out=$(srun -N4 -l printenv SLURMD_NODENAME | sort)
check "srun -N4 ran on sna1 sna2 snb1 snb2" \
	test "$(cut -d' ' -f2 <<<"$out" | sort | paste -sd' ')" = "sna1 sna2 snb1 snb2"

out=$(salloc -N2 srun printenv SLURMD_NODENAME 2>/dev/null | sort -u | wc -l)
check "salloc -N2 srun ran on 2 nodes" test "$out" = 2

# A second cluster side by side: both run jobs at the same time.
"$TOOL" start "$NAME-b" --supernodes 3 "${SLURM_OPT[@]}" >/dev/null
conf_b=$(sed -n 's/^export SLURM_CONF=//p' <<<"$("$TOOL" env "$NAME-b")")
check "second cluster has its own slurm.conf" test "$conf_b" != "$SLURM_CONF"
srun -N4 true &
pid_a=$!
SLURM_CONF=$conf_b srun -N6 true &
pid_b=$!
check "cluster $NAME ran a job while $NAME-b did" wait "$pid_a"
check "cluster $NAME-b ran a 6-node job at the same time" wait "$pid_b"
dir_b=$(dirname "$(dirname "$conf_b")")
check "stop $NAME-b" "$TOOL" stop "$NAME-b"
left=$(leftovers "$dir_b")
check "no process of $NAME-b left${left:+: $left}" test -z "$left"
check "$NAME still alive after $NAME-b stopped" status
rm -rf "$dir_b"

dir=$SUPERNODE_CLUSTER_DIR
t0=$EPOCHREALTIME
check "stop" "$TOOL" stop "$NAME"
echo "stop took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s"
left=$(leftovers "$dir")
check "no process of the cluster left${left:+: $left}" test -z "$left"
check "second stop succeeds" "$TOOL" stop "$NAME"

echo "$FAILS failed"
((FAILS == 0))
