#!/usr/bin/env bash
# supernode-bench on the local cluster, MPI backend over loopback.
#
# How MPI starts here: srun --mpi=pmix fails when several slurmd share one
# host (each step's slurmstepd makes the same /tmp/spmix_appdir_<uid>_<step>
# and the second gets EEXIST), so the tool runs under `mpirun` inside the
# allocation (Open MPI's plm/slurm starts its daemons with srun).  Open
# MPI takes the per-"node" ranks for separate hosts: its shared-memory
# transport (vader) crashes across them, so btl is self,tcp on lo.
source "$(dirname "$0")/lib.sh"
BENCH=$BUILD/contrib/supernode-bench/supernode-bench
[[ -x $BENCH ]] || { echo "SKIP: $BENCH not built"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
cluster_up "it-bench-$$"
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_plm_slurm_args=--mpi=none
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)

rc=0
out=$(salloc --supernode=1 "${MPIRUN[@]}" "$BENCH" --backend mpi -b 1K -e 1M \
	--json bench.json --plot bench.svg 2>&1) || rc=$?
assert_eq "bench -b 1K -e 1M: exit code" 0 "$rc"
for op in allreduce allgather reducescatter alltoall broadcast sendrecv; do
	assert_contains "table" "Collective test starting: $op" "$out"
done
rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +float ' <<<"$out" || true)
assert_eq "table rows (6 ops x 11 sizes)" 66 "$rows"
assert_eq "footers saying OK" 6 "$(grep -c '^# Out of bounds values : 0 OK' <<<"$out" || true)"
wrong=$(awk '/^ +[0-9]+ +[0-9]+ +float / { for (i = 9; i <= 13; i += 4) if ($i != "N/A" && $i != 0) n++ } END { print n + 0 }' <<<"$out")
assert_eq "rows with wrong elements" 0 "$wrong"
assert_contains "summary" "supernode-bench: PASS" "$out"
if python3 -c 'import json,sys; d=json.load(open("bench.json")); sys.exit(not (d["pass"] and len(d["results"]) == 6))'; then
	pass "bench.json parses, pass=true, 6 results"
else
	fail "bench.json: $(head -c 300 bench.json)"
fi
if grep -q '</svg>' bench.svg && grep -q 'polyline' bench.svg; then pass "bench.svg written"; else fail "bench.svg"; fi

rc=0
out=$(salloc --supernode=1 "${MPIRUN[@]}" "$BENCH" --backend mpi -b 1K -e 64K \
	-o allreduce --min-busbw 100000 2>&1) || rc=$?
if ((rc != 0)); then pass "--min-busbw 100000: exit code $rc"; else fail "--min-busbw 100000 exited 0"; fi
assert_contains "--min-busbw: the line" "GB/s at 64 KiB < --min-busbw 100000 GB/s: FAIL" "$out"

# The threshold from supernode.yaml's bench: section (issue 6).
for r in impossible:100000 low:0.001; do
	printf 'supernodes:\n  - name: sn01\n    nodes: n[1-2]\nbench:\n  rated_busbw_gbps: %s\n' \
		"${r#*:}" >"bench-${r%%:*}.yaml"
done
rc=0
out=$(salloc --supernode=1 "${MPIRUN[@]}" "$BENCH" --backend mpi -b 1K -e 64K \
	-o allreduce --config "$PWD/bench-impossible.yaml" 2>&1) || rc=$?
assert_eq "impossible bench.rated_busbw_gbps: exit code" 1 "$rc"
assert_contains "impossible bench.rated_busbw_gbps: the line" \
	"< 0.80 x rated 100000 GB/s (bench: in $PWD/bench-impossible.yaml): FAIL" "$out"
rc=0
out=$(salloc --supernode=1 "${MPIRUN[@]}" "$BENCH" --backend mpi -b 1K -e 64K \
	-o allreduce --config "$PWD/bench-low.yaml" 2>&1) || rc=$?
assert_eq "low bench.rated_busbw_gbps: exit code" 0 "$rc"
assert_contains "low bench.rated_busbw_gbps: the line" \
	">= 0.80 x rated 0.001 GB/s (bench: in $PWD/bench-low.yaml): PASS" "$out"

rc=0
out=$("$BENCH" --backend mpi -b 1Q 2>&1) || rc=$?
assert_eq "bad -b: exit code" 2 "$rc"
assert_contains "bad -b: message" "supernode-bench: invalid -b '1Q'" "$out"
finish
