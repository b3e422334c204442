#!/usr/bin/env bash
# supernode-bench's soak (--duration/--interval) on CPU: two MPI ranks on
# this host under mpirun, no cluster.  Without the knob no flag is raised;
# the test-only knob SUPERNODE_BENCH_TEST_SLOW raises each flag with its
# own exit code: a slowdown from 6 s (busbw drop, 4), a leak (memory
# growth, 5), an operation that sleeps past --op-timeout (hang, 6, seen by
# the watchdog while it hangs).  The knob exists only in the test build
# (SB_TEST_KNOBS): the installed program ignores it, says so, and raises
# no flag with it.
# Usage: test_soak.sh PATH/TO/supernode-bench-test PATH/TO/supernode-bench
set -u
BENCH=$(realpath "$1")
INSTALLED=$(realpath "$2")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
# As test_threshold.sh; and no quarantine: ASan's (256 MiB) keeps freed
# buffers resident, which --mem-growth 64 read as growth (exit 5, ASan build).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:quarantine_size_mb=0"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=1; }
# soak KNOB ARGS...: two ranks, allreduce 1 MiB, 5 timed operations a window.
# This host's 2 cores are shared, so a window can read well below the
# first by chance (two windows in a row at 0.3 x happened once, under
# the whole suite's load): the drop flag is set at 0.05 x the first window
# here, and the forced slowdown is 200 ms per operation (about 300 times
# the operation itself, 1.2 s of a 2 s window).
soak() {
	local knob=$1
	shift
	out=$(mpirun --oversubscribe -np 2 -x SUPERNODE_BENCH_TEST_SLOW="$knob" "$BENCH" \
		--backend mpi -b 1M -e 1M -o allreduce -w 1 -n 5 --soak-fraction 0.05 "$@" 2>&1)
	rc=$?
}
expect() { # NAME RC STRING: the last run exited RC and printed STRING
	if [[ $rc == "$2" && $out == *"$3"* ]]; then ok "$1"; else
		bad "$1: want rc $2 and '$3', got rc $rc:"; printf '%s\n' "$out" | tail -n 15; fi
}
# jsonl FILE WINDOWS FLAGS EXIT: WINDOWS lines, then the summary.
jsonl() {
	if python3 - "$@" <<'EOF'; then ok "$1: $2 windows, flags $3, exit $4"; else bad "$1: $(tail -c 400 "$1")"; fi
import json, sys
path, n, flags, code = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
lines = [json.loads(l) for l in open(path)]
win = [l for l in lines if "window" in l and "busbw_gbps" in l]
s = lines[-1]["summary"]
assert len(win) == n, len(win)
assert [w["window"] for w in win] == list(range(n))
assert all(w["busbw_gbps"]["allreduce"] > 0 and w["host_rss_mib"] > 0 for w in win)
assert s["windows"] == n and s["exit"] == code, s
assert s["flags"] == (flags.split(",") if flags else []), s["flags"]
EOF
}

soak "" --duration 20s --interval 2s --json none.jsonl --plot none.svg
if [[ $rc == 3 && $out == *"built without MPI"* ]]; then echo "SKIP: no MPI backend"; exit 77; fi
expect "no knob, 20 s every 2 s: no flag, exit 0" 0 "# no flag raised"
expect "no knob: 10 windows" 0 "# soak: 10 windows in 18 s (every 2 s), 0 wrong elements"
jsonl none.jsonl 10 "" 0
if grep -q '</svg>' none.svg && grep -q 'polyline' none.svg && grep -q 'time since start (s)' none.svg; then
	ok "none.svg: busbw over time"
else bad "none.svg"; fi

# 3 s per operation on rank 1 from 6 s, 1 timed operation a window: the
# drop flag needs a slowed window under 0.05 x the first, and a loaded
# host read a first window of 1 MiB as slow as 0.034 GB/s (30 ms an
# operation; the 400 ms knob then read 0.07 x, no flag): 3 s keeps it
# under 0.05 x up to 150 ms a normal operation.  About 40 s more.
soak 1:3000000:6 --duration 20s --interval 2s --json drop.jsonl --plot drop.svg -n 1
expect "slowdown from 6 s: busbw drop, exit 4" 4 \
	"# FLAG busbw_drop: allreduce below 0.05 x its first window from window 3"
expect "slowdown: the flag when raised" 4 "supernode-bench: FLAG busbw_drop at window 4"
jsonl drop.jsonl 10 busbw_drop 4

soak 0:0:0:100 --duration 12s --interval 2s --mem-growth 64 --json leak.jsonl
expect "100 MiB a window on rank 0: memory growth, exit 5" 5 \
	"# FLAG memory_growth: more than 64 MiB since window 1, still rising at window 3"
jsonl leak.jsonl 6 memory_growth 5

# The installed program: the same leak knob is ignored (said on stderr),
# no flag; its code is not in the program at all.
test_bench=$BENCH
BENCH=$INSTALLED
soak 0:0:0:100 --duration 12s --interval 2s --mem-growth 64 --json leak-installed.jsonl
BENCH=$test_bench
expect "installed program, same knob: ignored" 0 \
	"supernode-bench: SUPERNODE_BENCH_TEST_SLOW is set and ignored: test knobs exist only in the test build (supernode-bench-test)"
expect "installed program, same knob: no flag, exit 0" 0 "# no flag raised"
jsonl leak-installed.jsonl 6 "" 0
for k in "TEST KNOB:" "want RANK:US"; do
	if grep -q "$k" "$INSTALLED"; then bad "installed program holds the knob's text '$k'"; else
		ok "installed program: no '$k' in it"; fi
	if grep -q "$k" "$BENCH"; then ok "test build: '$k' in it"; else
		bad "test build lacks '$k'"; fi
done

start=$SECONDS
soak 1:30000000:4 --duration 20s --interval 2s --op-timeout 3s --json hang.jsonl
expect "rank 1 stuck 30 s from 4 s, --op-timeout 3s: hang, exit 6" 6 \
	"allreduce of 1048576 B has not returned after 3."
expect "hang: the summary" 6 "# FLAG hang: allreduce of 1048576 B still running after 3."
if ((SECONDS - start < 15)); then ok "hang seen while it hangs ($((SECONDS - start)) s, not 30)"; else
	bad "hang took $((SECONDS - start)) s"; fi
if python3 -c 'import json,sys; l=[json.loads(x) for x in open("hang.jsonl")]; sys.exit(not (l[-2]["flag"] == "hang" and l[-1]["summary"]["exit"] == 6))'; then
	ok "hang.jsonl: the hang line and the summary"
else bad "hang.jsonl: $(tail -c 300 hang.jsonl)"; fi

# --json -: stdout holds the JSON lines alone (the table goes to stderr).
if mpirun --oversubscribe -np 2 "$BENCH" --backend mpi -b 1K -e 1K -o allreduce \
	--duration 4s --interval 2s --json - 2>/dev/null |
	python3 -c 'import json,sys; l=[json.loads(x) for x in sys.stdin]; sys.exit(not (len(l) == 3 and l[-1]["summary"]["exit"] == 0))'; then
	ok "--json -: 2 window lines and the summary on stdout, nothing else"
else bad "--json -: stdout is not JSON lines alone"; fi

# Bad input: usage errors before anything runs.
for a in "--interval 2s" "--duration 0s" "--duration 1.5h" "--duration 10s --interval 20s" \
	"--duration 10s --diagnose" "--duration 10s --soak-fraction 1" "--duration 10s --mem-growth 0"; do
	out=$("$BENCH" --backend mpi $a 2>&1); rc=$?
	if [[ $rc == 2 && $out != *"# soak"* ]]; then ok "$a: exit 2"; else bad "$a: rc $rc: $out"; fi
done
out=$("$BENCH" --backend mpi -b 1K -e 1K --duration 2s 2>&1); rc=$?
expect "one rank: could not run, exit 3" 3 "could not run: a soak needs 2 ranks or more"
out=$(SUPERNODE_BENCH_TEST_SLOW=1:x "$BENCH" --backend mpi -b 1K -e 1K --duration 2s 2>&1); rc=$?
expect "bad knob: exit 2" 2 "SUPERNODE_BENCH_TEST_SLOW='1:x': want RANK:US[:AFTER_S[:LEAK_MIB]] (test only)"
out=$(SUPERNODE_BENCH_TEST_SLOW=1:x SUPERNODE_BENCH_TEST_CORRUPT=3 "$INSTALLED" --backend mpi \
	-b 1K -e 1K --duration 2s 2>&1); rc=$?
expect "installed program, bad knob: not read (one rank: exit 3)" 3 "could not run: a soak needs 2 ranks or more"
expect "installed program: SUPERNODE_BENCH_TEST_CORRUPT ignored too" 3 \
	"supernode-bench: SUPERNODE_BENCH_TEST_CORRUPT is set and ignored"
exit $failed
