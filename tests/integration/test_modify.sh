#!/usr/bin/env bash
# Issue 11 item 5: job_modify refuses an update that would reshape a
# --supernode job (node count, constraint, node list, exclusivity), names
# the field, and leaves the job as it was; other updates, updates to the
# value the job already has, and plain jobs pass.  On the real slurmctld of
# the release under test (scontrol update goes through job_modify).
source "$(dirname "$0")/lib.sh"
if [[ ${SN_JOB_MODIFY:-0} != 1 ]]; then
	echo "SKIP: this build's job_modify cannot read the job record: no Slurm source headers (contrib/slurm-source TARBALL /opt/slurm-supernode/VERSION/src, or --debian)"
	exit 77
fi
cluster_up "it-modify-$$"
read -r _ ver < <(sinfo --version)

# update JOB KEY=VALUE: scontrol's exit status and what it printed.
update() {
	local out rc=0
	out=$(scontrol update jobid="$1" "$2" 2>&1) || rc=$?
	echo "$rc $out"
}

j=$(sbatch --parsable --hold --supernode=1 -o /dev/null --wrap 'true')
assert_eq "held --supernode=1 job" "PENDING" "$(job_field "$j" JobState)"
features=$(job_field "$j" Features)

out=$(update "$j" NumNodes=1)
assert_eq "NumNodes=1: scontrol's exit" 1 "${out%% *}"
if [[ $ver == 22.05* ]]; then
	# 22.05's job_modify has no err_msg: the error code's text is all.
	assert_contains "NumNodes=1: scontrol's message" "Node count specification invalid" "$out"
else
	assert_contains "NumNodes=1: scontrol's message" "NumNodes cannot change on a --supernode=1 job" "$out"
fi
# A pending job shows NumNodes=MIN-MAX on some releases.
nodes=$(job_field "$j" NumNodes)
assert_eq "node count after NumNodes=1" 2 "${nodes%%-*}"

out=$(update "$j" Features=sn01)
assert_eq "Features=sn01: scontrol's exit" 1 "${out%% *}"
[[ $ver == 22.05* ]] || assert_contains "Features=sn01: message" "Features cannot change" "$out"
assert_eq "constraint after Features=sn01" "$features" "$(job_field "$j" Features)"

out=$(update "$j" ReqNodeList=sna1)
assert_eq "ReqNodeList=sna1: scontrol's exit" 1 "${out%% *}"
[[ $ver == 22.05* ]] || assert_contains "ReqNodeList=sna1: message" "ReqNodeList cannot change" "$out"
assert_eq "node list after ReqNodeList=sna1" "(null)" "$(job_field "$j" ReqNodeList)"

out=$(update "$j" OverSubscribe=yes)
assert_eq "OverSubscribe=yes: scontrol's exit" 1 "${out%% *}"
[[ $ver == 22.05* ]] || assert_contains "OverSubscribe=yes: message" "OverSubscribe cannot change" "$out"

out=$(update "$j" Switches=1)
assert_eq "Switches=1: scontrol's exit" 1 "${out%% *}"

# No reshaping: the same node count, another time limit.
assert_eq "NumNodes=2 (the job's own): scontrol's exit" 0 "$(update "$j" NumNodes=2 | cut -d' ' -f1)"
assert_eq "TimeLimit=5: scontrol's exit" 0 "$(update "$j" TimeLimit=5 | cut -d' ' -f1)"
assert_eq "time limit after TimeLimit=5" "00:05:00" "$(job_field "$j" TimeLimit)"

# The refused updates changed nothing: released, it runs on one whole supernode.
scontrol release "$j"
wait_state "$j" COMPLETED 60
ws=$(whole_supernodes "$(job_field "$j" NodeList)")
[[ $ws == sn01 || $ws == sn02 ]] && pass "released job ran on one whole supernode ($ws)" ||
	fail "released job's nodes: expected one whole supernode, found '$ws'"

# A plain job: reshaped as ever.
p=$(sbatch --parsable --hold -N1 -o /dev/null --wrap 'true')
assert_eq "plain job NumNodes=2-2: scontrol's exit" 0 "$(update "$p" NumNodes=2-2 | cut -d' ' -f1)"
nodes=$(job_field "$p" NumNodes)
assert_eq "plain job node count after NumNodes=2-2" 2 "${nodes%%-*}"
assert_eq "plain job Features=sn01: scontrol's exit" 0 "$(update "$p" Features=sn01 | cut -d' ' -f1)"
scancel "$p"

grep -q "refused the update of NumNodes of a --supernode=1 job" "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log" &&
	pass "slurmctld.log names the refused field" || fail "slurmctld.log: no line naming NumNodes"
finish
