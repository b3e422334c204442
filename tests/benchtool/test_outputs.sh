#!/usr/bin/env bash
# supernode-bench's output files (issue 17, item 13), the program end to
# end with --one-rank (MPI backend, no cluster):
#   - a symbolic link at the --json path is replaced, never written
#     through (the file it names keeps its content); --plot alike;
#   - --prom reads the old file whole: with read() returning at most 1000
#     bytes per call (short_read.so), the 300 samples of other supernodes
#     in a 20 KB file are all kept;
#   - --json into a folder that others may write (no sticky bit) is
#     refused before the run.
# Usage: test_outputs.sh PATH/TO/supernode-bench PATH/TO/short_read.so
set -u
BENCH=$1 SHORT=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
# verify_asan_link_order=0: short_read.so is preloaded before the ASan
# runtime in the sanitizer build (ASan would refuse to start, exit 1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
unset SUPERNODE_NAMES SUPERNODE_NAME
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
chmod 700 "$tmp"
failed=0
check() {	# NAME CONDITION...
	local name=$1
	shift
	if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failed=1; fi
}
run() { "$BENCH" --backend mpi -b 1K -e 2K -o allreduce -w 0 -n 1 --one-rank "$@" 2>&1; }

# ---- a link at --json and --plot ----
echo precious >"$tmp/target"
ln -s "$tmp/target" "$tmp/out.json"
ln -s "$tmp/target" "$tmp/out.svg"
out=$(run --json "$tmp/out.json" --plot "$tmp/out.svg")
rc=$?
if [[ $rc == 3 && $out == *"built without MPI"* ]]; then echo "SKIP: no MPI backend"; exit 77; fi
check "a run with --json on a link (exit $rc)" [ "$rc" = 0 ]
check "the link's target is untouched ($(head -c 40 "$tmp/target"))" \
	[ "$(cat "$tmp/target")" = precious ]
regular() { [ -f "$1" ] && [ ! -L "$1" ]; }
check "--json is now a regular file" regular "$tmp/out.json"
check "--json holds the run" grep -q '"tool": "supernode-bench"' "$tmp/out.json"
check "--plot is now a regular file" regular "$tmp/out.svg"

# ---- --prom: an old file of 20 KB read with short reads ----
prom=$tmp/bench.prom
{
	echo '# HELP supernode_bench_pass 1 if the run passed, 0 if not.'
	echo '# TYPE supernode_bench_pass gauge'
	for i in $(seq 1 300); do
		printf 'supernode_bench_pass{supernode="old%03d",op="allreduce"} 1\n' "$i"
	done
} >"$prom"
out=$(LD_PRELOAD=$SHORT run --prom "$prom")
rc=$?
check "--prom with short reads (exit $rc)" [ "$rc" = 0 ]
kept=$(grep -c '^supernode_bench_pass{supernode="old' "$prom")
check "all 300 old samples kept ($kept)" [ "$kept" = 300 ]
check "the last old sample kept" grep -qxF 'supernode_bench_pass{supernode="old300",op="allreduce"} 1' "$prom"

# ---- a folder others may write ----
mkdir "$tmp/open" && chmod 777 "$tmp/open"
out=$(run --json "$tmp/open/out.json")
rc=$?
refused() { [ "$rc" = 2 ] && [[ $out == *"folder writable by group or others without the sticky bit"* && $out != *"Collective test"* ]]; }
check "--json in a world-writable folder refused before the run (exit $rc)" refused
exit $failed
