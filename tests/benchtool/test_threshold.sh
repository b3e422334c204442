#!/usr/bin/env bash
# supernode-bench's pass threshold from the bench: section of supernode.yaml
# (--config, --min-fraction), two MPI ranks on this host under mpirun
# (broadcast), no cluster needed.
# Usage: test_threshold.sh PATH/TO/supernode-bench
set -u
BENCH=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
# Under AddressSanitizer, LeakSanitizer reports Open MPI's own allocations at
# exit (its components are dlclose()d, so no suppression can name them) and
# the ranks exit 1: leaks are not checked under mpirun (unit_benchtool checks
# the bench's own code with them), every other ASan error still is.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=1; }
bench() { out=$(mpirun --oversubscribe -np 2 "$BENCH" --backend mpi -b 1K -e 64K -o broadcast -w 0 -n 2 "$@" 2>&1); rc=$?; }
expect() {	# NAME RC STRING: last run exited RC and printed STRING
	if [[ $rc == "$2" && $out == *"$3"* ]]; then ok "$1"; else
		bad "$1: want rc $2 and '$3', got rc $rc:"; printf '%s\n' "$out" | grep -v '^[ #]'; fi
}

bench --min-busbw 0.000001
if [[ $rc == 3 && $out == *"built without MPI"* ]]; then echo "SKIP: no MPI backend"; exit 77; fi
[[ $rc == 0 ]] || { echo "SKIP: a two-rank mpirun does not work here (rc $rc): $out"; exit 77; }

# A bare run without a launcher has one rank and must not pass.
out=$("$BENCH" --backend mpi -b 1K -e 2K 2>&1); rc=$?
if [[ $rc == 3 && $out == *"1 rank only"* ]]; then echo "ok: one rank: could not run (exit 3)"; else
	echo "FAIL: one rank: want exit 3 and '1 rank only', got rc $rc"; exit 1; fi
# Unwritable outputs are refused before anything runs.
for arg in "--json /proc/sn-x.json" "--plot /tmp"; do
	out=$("$BENCH" --backend mpi -b 1K -e 2K $arg 2>&1); rc=$?
	if [[ $rc == 2 && $out == *"cannot write"* && $out != *"Collective test"* ]]; then
		echo "ok: $arg: refused up front (exit 2)"
	else
		echo "FAIL: $arg: want exit 2 before running, got rc $rc"; exit 1
	fi
done
head='supernodes:
  - name: sn01
    nodes: n[1-2]
'
printf '%sbench:\n  rated_busbw_gbps: 100000\n' "$head" >"$tmp/impossible.yaml"
printf '%sbench:\n  rated_busbw_gbps: 0.001\n  min_fraction: 0.5\n' "$head" >"$tmp/low.yaml"
printf '%s' "$head" >"$tmp/none.yaml"
printf '%sbench:\n  rated: 50\n' "$head" >"$tmp/typo.yaml"

bench --config "$tmp/impossible.yaml"
expect "impossible rated value: exit 1 and the line" 1 \
	"GB/s at 64 KiB < 0.80 x rated 100000 GB/s (bench: in $tmp/impossible.yaml): FAIL"
bench --config "$tmp/low.yaml"
expect "low rated value: exit 0 and the line" 0 \
	"GB/s at 64 KiB >= 0.50 x rated 0.001 GB/s (bench: in $tmp/low.yaml): PASS"
bench --config "$tmp/low.yaml" --min-fraction 0.825
expect "--min-fraction overrides bench.min_fraction" 0 \
	">= 0.825 x rated 0.001 GB/s (--min-fraction, rated from bench: in $tmp/low.yaml): PASS"
bench --config "$tmp/impossible.yaml" --min-busbw 0.000001
expect "--min-busbw wins over the config" 0 ">= --min-busbw 1e-06 GB/s: PASS"
bench --config "$tmp/none.yaml"
expect "no bench: section: no threshold, a note" 0 \
	"note: no busbw threshold ($tmp/none.yaml has no bench.rated_busbw_gbps)"
bench --config "$tmp/none.yaml" --min-fraction 0.5
expect "--min-fraction without a rated value" 2 \
	"--min-fraction needs bench.rated_busbw_gbps in $tmp/none.yaml"
bench --config "$tmp/typo.yaml"
expect "--config that does not load: exit 3" 3 \
	"$tmp/typo.yaml:5:3: bench.rated: unknown key (allowed here: rated_busbw_gbps, min_fraction)"
bench --config "$tmp/missing.yaml"
expect "--config missing: exit 3" 3 "$tmp/missing.yaml: cannot open: No such file or directory"
# The default path (next to $SLURM_CONF) that does not load is only a note.
cp "$tmp/typo.yaml" "$tmp/supernode.yaml"
SLURM_CONF=$tmp/slurm.conf bench
expect "default config that does not load: a note" 0 \
	"note: no busbw threshold ($tmp/supernode.yaml:5:3: bench.rated: unknown key"
cp "$tmp/impossible.yaml" "$tmp/supernode.yaml"
SLURM_CONF=$tmp/slurm.conf bench
expect "default config next to \$SLURM_CONF" 1 \
	"< 0.80 x rated 100000 GB/s (bench: in $tmp/supernode.yaml): FAIL"
bench --min-busbw 1 --min-fraction 0.5
expect "--min-busbw with --min-fraction" 2 "--min-busbw and --min-fraction exclude each other"
bench --min-fraction 0
expect "--min-fraction 0" 2 "invalid --min-fraction (0 < F <= 1) '0'"
exit $failed
