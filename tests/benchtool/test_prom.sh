#!/usr/bin/env bash
# supernode-bench --prom FILE and --one-rank, the program end to end (MPI
# backend, no cluster): one rank with --one-rank writes a textfile that
# promtool accepts; a second run, two ranks under mpirun in another
# supernode, keeps the first run's samples; a failing run reads pass 0; an
# unwritable file is refused before the run.  promtool (Debian:
# prometheus, contrib/install-deps) must be there: without it this fails.
# Usage: test_prom.sh PATH/TO/supernode-bench
set -u
BENCH=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
[ -x /usr/bin/promtool ] || { echo "FAIL: no /usr/bin/promtool (Debian: prometheus)"; exit 1; }
unset SUPERNODE_NAMES SUPERNODE_NAME
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
prom=$tmp/bench.prom host=$(hostname)
failed=0
check() {	# NAME CONDITION...
	local name=$1
	shift
	if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failed=1; fi
}
has() { grep -qxF -- "$1" "$prom"; }
promtool_ok() { out=$(/usr/bin/promtool check metrics <"$prom" 2>&1) && [ -z "$out" ]; }

out=$("$BENCH" --backend mpi -b 1K -e 4K -o allreduce,broadcast -w 0 -n 2 --one-rank \
	--prom "$prom" 2>&1)
rc=$?
if [[ $rc == 3 && $out == *"built without MPI"* ]]; then echo "SKIP: no MPI backend"; exit 77; fi
check "one rank with --one-rank runs allreduce (exit $rc)" [ "$rc" = 0 ]
check "its table has allreduce on 1 rank" grep -q "allreduce (all_reduce_perf, group all, 1 ranks)" <<<"$out"
check "promtool accepts the file" promtool_ok
check "pass 1 for the host's allreduce" has "supernode_bench_pass{supernode=\"$host\",op=\"allreduce\"} 1"
check "4096 B busbw of broadcast" grep -q "^supernode_bench_busbw_gbps{supernode=\"$host\",op=\"broadcast\",size=\"4096\"} [0-9.]*$" "$prom"

out=$(SUPERNODE_NAMES=sn01,sn02 SUPERNODE_NAME=sn02 mpirun --oversubscribe -np 2 \
	-x SUPERNODE_NAMES -x SUPERNODE_NAME "$BENCH" --backend mpi -b 1K -e 4K \
	-o allreduce -w 0 -n 2 --min-busbw 1000000 --prom "$prom" 2>&1)
rc=$?
check "two ranks below --min-busbw fail (exit $rc)" [ "$rc" = 1 ]
check "promtool accepts the merged file" promtool_ok
check "pass 0 for sn01,sn02" has 'supernode_bench_pass{supernode="sn01,sn02",op="allreduce"} 0'
check "the host's samples stay" has "supernode_bench_pass{supernode=\"$host\",op=\"allreduce\"} 1"
check "one HELP line per family" [ "$(grep -c '^# HELP supernode_bench_pass ' "$prom")" = 1 ]
check "no temporary file left" [ "$(ls "$tmp")" = bench.prom ]

out=$("$BENCH" --backend mpi -b 1K -e 2K --one-rank --prom /proc/sn-x.prom 2>&1)
rc=$?
refused() { [ "$rc" = 2 ] && [[ $out == *"cannot write"* && $out != *"Collective test"* ]]; }
check "--prom /proc/sn-x.prom refused before the run (exit $rc)" refused
exit $failed
