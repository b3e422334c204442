# shellcheck shell=bash
# Shared by the program-level tests in tests/prolog/: the counters and the
# asserts (the integration tests have their own in tests/integration/lib.sh,
# with a cluster around them).  Each script ends with
#   echo "$CHECKS checks, $FAILS failed"; [[ $FAILS -eq 0 ]]
CHECKS=0
FAILS=0
pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL - $*"; }
assert_eq() {
	if [[ $2 == "$3" ]]; then pass "$1"; else
		fail "$1"; printf '  want: %s\n  got:  %s\n' "$2" "$3"; fi
}
assert_contains() {
	if [[ $3 == *"$2"* ]]; then pass "$1"; else
		fail "$1"; printf '  want to contain: %s\n  got: %s\n' "$2" "$3"; fi
}
