#!/usr/bin/env bash
# Issue 20 item 1: a user's error fails no node, on the release under test.
#  1. A bad value of ours in the remote context (--supernode-env past the
#     client's check, through the job's environment): Slurm hands remote
#     options to the callbacks only after slurm_spank_init, and a failing
#     remote option callback is only logged (26.05 src/common/spank.c,
#     _spank_stack_get_remote_options), so no release lets a plugin fail the
#     job on it.  The step runs with auto, task 0 of each node says why on
#     the job's stderr (spank/task.c), slurmd's log too; nothing is drained.
#  2. What a failing slurm_spank_init does; ours fails only on its
#     plugstack line, the site's error.  slurmd's plugstack.conf gets an
#     argument we refuse, while the clients read a good copy through their
#     own slurm.conf, as a login node with another copy would.  From 25.05
#     (slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE) the step and the
#     batch job fail and no node is drained; before, the batch job's node is
#     drained ("batch job complete failure"): why, there, nothing a user sets
#     makes our init fail.
source "$(dirname "$0")/lib.sh"
cluster_up "it-spankfail-$$"
D=$SUPERNODE_CLUSTER_DIR
read -r _ ver < <(sinfo --version)
at_least() { [[ $(printf '%s\n' "$1" "$ver" | sort -V | head -n1) == "$1" ]]; }
why="supernode: --supernode-env=bogus: expected auto, none or show; using auto"

# 1. -n 3 on the allocation's 2 nodes: tasks 0 and 1 on the first, 2 on the second.
out=$(env '_SLURM_SPANK_OPTION_supernode_supernode_env=bogus' \
	srun --supernode=1 -n 3 -l printenv SUPERNODE_COUNT 2>&1 | sort)
assert_eq "Slurm $ver: a bad remote --supernode-env: the step runs, task 0 of each node says why" "0: 1
0: $why
1: 1
2: 1
2: $why" "$out"
assert_contains "Slurm $ver: slurmd's log" "error: $why" "$(cat "$D"/log/slurmd-*.log)"
assert_eq "Slurm $ver: a bad remote --supernode-env drains nothing" "" "$(drained_nodes)"

# 2. The clients' good copy, then slurmd's plugstack.conf made bad.
cp "$D/etc/plugstack.conf" "$WORK/plugstack-client.conf"
sed "s#^PlugStackConfig=.*#PlugStackConfig=$WORK/plugstack-client.conf#" \
	"$D/etc/slurm.conf" >"$WORK/slurm-client.conf"
sed -i 's#config=#bogus=1 config=#' "$D/etc/plugstack.conf"
set +e
msg=$(SLURM_CONF=$WORK/slurm-client.conf srun --supernode=1 true 2>&1)
rc=$?
set -e
# --no-requeue: before 25.05 a requeued job drains a node of the next
# supernode too (24.11), one per retry.
j=$(SLURM_CONF=$WORK/slurm-client.conf sbatch --parsable --no-requeue --supernode=1 -o /dev/null --wrap true)
for _ in $(seq 1 150); do
	[[ $(job_field "$j" JobState) == @(PENDING|CONFIGURING|RUNNING|COMPLETING) ]] || break
	sleep 0.2
done
assert_contains "Slurm $ver: slurmd's log names the bad argument" \
	"plugstack.conf: unknown argument 'bogus=1' (allowed: config=PATH, state_dir=PATH)" "$(cat "$D"/log/slurmd-*.log)"
if at_least 25.05; then
	assert_contains "Slurm $ver: srun under a failing init" "Spank plugin failure, job failed" "$msg"
	assert_eq "Slurm $ver: srun's exit under a failing init" 1 "$((rc != 0))"
	assert_eq "Slurm $ver: the batch job under a failing init" FAILED "$(job_field "$j" JobState)"
	assert_eq "Slurm $ver: a failing init drains nothing" "" "$(drained_nodes)"
else
	assert_contains "Slurm $ver: srun under a failing init" "launch failed" "$msg"
	node=$(drained_nodes)
	assert_eq "Slurm $ver: a failing init drains one node" 1 "$(grep -c . <<<"$node")"
	assert_contains "Slurm $ver: its reason" "batch job complete failure" \
		"$(sinfo -h -n "${node:-none}" -o %E)"
fi
finish
