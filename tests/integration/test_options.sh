#!/usr/bin/env bash
# Every bad --supernode value is refused, by sbatch, salloc and srun, with a
# message naming --supernode and the allowed range (a malformed one before
# submission, a whole number out of range by slurmctld: spank/local.c);
# requests that cannot be whole supernodes are refused by slurmctld with the
# reason; what can coexist is combined.
source "$(dirname "$0")/lib.sh"
cluster_up "it-opt-$$"

assert_contains "sbatch --help" "--supernode=N" "$(sbatch --help)"
assert_contains "srun --help" "--supernode=N" "$(srun --help)"
assert_contains "salloc --help" "--supernode=N" "$(salloc --help)"

for v in '' 0 -1 abc 2x 1.5 99999999999999999999 3 ' 2' +2 0x2; do
	for prog in sbatch salloc srun; do
		rest=(true)
		[[ $prog == sbatch ]] && rest=(--wrap true)
		set +e
		msg=$($prog --supernode="$v" "${rest[@]}" 2>&1 </dev/null)
		rc=$?
		set -e
		if ((rc != 0)); then pass "$prog --supernode='$v' exits $rc"; else fail "$prog --supernode='$v' was accepted"; fi
		assert_contains "$prog --supernode='$v' message" "--supernode" "$msg"
		assert_contains "$prog --supernode='$v' message" "1 to 2" "$msg"
	done
done
set +e
msg=$(SBATCH_SUPERNODE=abc sbatch --wrap true 2>&1); rc=$?
set -e
assert_contains "SBATCH_SUPERNODE=abc message" "SBATCH_SUPERNODE: --supernode=abc is not a whole number (allowed: 1 to 2)" "$msg"
assert_eq "SBATCH_SUPERNODE=abc exit" 1 "$((rc != 0))"
assert_eq "no job was created by any refused submission" "" "$(queued_jobs)"

# refused CASE ARGS... : slurmctld refuses with a message containing CASE.
refused() {
	local want=$1 msg rc
	shift
	set +e
	msg=$(sbatch --supernode=1 "$@" --wrap true 2>&1)
	rc=$?
	set -e
	if ((rc != 0)); then pass "sbatch --supernode=1 $* refused"; else fail "sbatch --supernode=1 $* accepted"; fi
	assert_contains "sbatch --supernode=1 $* message" "$want" "$msg"
}
refused "--nodes=3 cannot be combined with --supernode=1" -N 3
refused "--oversubscribe cannot be combined" --oversubscribe
refused "uses brackets or counts" -C '[sn01|sn02]'
refused "spans 2 supernodes" -w sna1,snb1
refused "leave no whole supernode" -x sna1,snb1
refused "node bogus1 is in no supernode" -w bogus1
refused "cannot be used in a heterogeneous job" : -N1
refused "parentheses and a top-level '|'" -C '(sn01)|sn02'

# N > 1 with the feature method: refused by slurmctld, naming 'switch'.
set +e
msg=$(sbatch --supernode=2 --wrap true 2>&1); rc=$?
set -e
assert_eq "sbatch --supernode=2 (feature method) refused" 1 "$((rc != 0))"
assert_contains "sbatch --supernode=2 message" "placement.method 'switch'" "$msg"

# Precedence: command line > SBATCH_SUPERNODE > #SBATCH.
printf '#!/bin/bash\n#SBATCH --supernode=1\ntrue\n' >directive.sh
set +e
msg=$(SBATCH_SUPERNODE=abc sbatch --hold -o /dev/null directive.sh 2>&1); rc=$?
set -e
assert_eq "SBATCH_SUPERNODE=abc over '#SBATCH --supernode=1': refused" 1 "$((rc != 0))"
assert_contains "SBATCH_SUPERNODE=abc over '#SBATCH --supernode=1': message" "SBATCH_SUPERNODE: --supernode=abc is not a whole number" "$msg"
set +e
msg=$(SBATCH_SUPERNODE=abc sbatch --supernode=1 --hold --parsable -o /dev/null --wrap true 2>&1); rc=$?
set -e
assert_eq "--supernode=1 on the command line wins over SBATCH_SUPERNODE=abc" 0 "$rc"
[[ $rc == 0 ]] && scancel "$msg"

# However long the command line (issue 9 item 13): --supernode=1 after
# 7000 x --export=ALL (91 KiB) still wins over the environment (=2 would be
# refused by the feature method), and without it the environment applies.
long=()
for ((i = 0; i < 7000; i++)); do long+=(--export=ALL); done
set +e
j=$(SBATCH_SUPERNODE=2 sbatch "${long[@]}" --supernode=1 --hold --parsable -o /dev/null --wrap true 2>&1); rc=$?
set -e
assert_eq "91 KiB of arguments, then --supernode=1, SBATCH_SUPERNODE=2: exit" 0 "$rc"
if ((rc == 0)); then
	assert_eq "91 KiB of arguments, then --supernode=1: NumNodes" 2-2 "$(job_field "$j" NumNodes)"
	assert_eq "91 KiB of arguments, then --supernode=1: Features" "[sn01|sn02]" "$(job_field "$j" Features)"
	scancel "$j"
fi
set +e
out=$(SLURM_SUPERNODE=2 srun "${long[@]}" --supernode=1 -l printenv SUPERNODE_COUNT 2>&1 | sort)
set -e
assert_eq "srun, 91 KiB of arguments, then --supernode=1, SLURM_SUPERNODE=2" "0: 1
1: 1" "$out"
set +e
msg=$(SBATCH_SUPERNODE=abc sbatch "${long[@]}" --hold -o /dev/null --wrap true 2>&1); rc=$?
set -e
assert_eq "91 KiB of arguments, no --supernode, SBATCH_SUPERNODE=abc: refused" 1 "$((rc != 0))"
assert_contains "91 KiB of arguments, SBATCH_SUPERNODE=abc: message" "SBATCH_SUPERNODE: --supernode=abc is not a whole number" "$msg"

# srun inside a --supernode allocation: the allocation's own N (which
# slurmctld checked) is taken on its form, without the config; any other N
# is checked against the config, since no job_submit sees a step.
set +e
out=$(salloc --supernode=1 bash -c 'srun -l printenv SUPERNODE_COUNT | sort
	srun --supernode=3 true 2>&1; echo "rc=$?"' 2>/dev/null)
set -e
assert_contains "srun in a --supernode=1 allocation: its steps are supernode steps" "0: 1
1: 1" "$out"
assert_contains "srun --supernode=3 in a --supernode=1 allocation: refused" "--supernode=3 is out of range (allowed: 1 to 2)" "$out"
rc=$(sed -n 's/^rc=//p' <<<"$out")
assert_eq "srun --supernode=3 in a --supernode=1 allocation: exits non-zero" 1 "$((${rc:-0} != 0))"

# accepted ARGS... FIELD=VALUE...: held job, check fields, cancel.
accepted() {
	local args=() j kv
	while [[ $1 != *=* || $1 == -* ]]; do args+=("$1"); shift; done
	j=$(sbatch --parsable --hold --supernode=1 "${args[@]}" -o /dev/null --wrap true)
	for kv in "$@"; do
		assert_eq "sbatch --supernode=1 ${args[*]}: ${kv%%=*}" "${kv#*=}" "$(job_field "$j" "${kv%%=*}")"
	done
	scancel "$j"
}
accepted -N 2 NumNodes=2-2 Features="[sn01|sn02]"
accepted -w snb1 NumNodes=2-2 Features=sn02 ReqNodeList=snb1
accepted -x sna2 Features=sn02 ExcNodeList=sna2
accepted -C 'sn01|sn02' Features="(sn01|sn02)&[sn01|sn02]"
accepted --exclusive=user OverSubscribe=NO NumNodes=2-2
accepted -C '(sn01|sn02)&sn02' Features="(sn01|sn02)&sn02&[sn01|sn02]"
finish
