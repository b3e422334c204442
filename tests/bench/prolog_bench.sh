#!/usr/bin/env bash
# Benchmark: the prolog's wall time on a node of 8 GPUs and 8 HCAs, on
# fixtures (fake NVML serving 8 H100-class GPUs, the real sysfs InfiniBand
# tree of an 8-port NDR node, a fake PCI tree and /dev nodes).  Prints the
# median of RUNS runs of the prolog (as slurmd runs it: checks + baseline)
# and of --check, beside a baseline measured in the same run: spawning
# /bin/true.  Target: prolog median under 50 ms.
#
#   tests/bench/prolog_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RUNS=${2:-51}
SHARED=$SRC/tests/unit/fixtures
PROLOG=$BUILD/prolog/supernode-prolog
FAKE=$(ls "$BUILD"/tests/fake_nvml/libnvidia-ml.so.1 2>/dev/null || find "$BUILD/tests/fake_nvml" -name 'libnvidia-ml*.so*' | head -n 1)
[[ -x $PROLOG && -n $FAKE ]] || { echo "build first: $PROLOG, fake NVML" >&2; exit 1; }
[[ -d $SHARED/sysfs-infiniband/gpud-h100 ]] || { echo "needs $SHARED (real sysfs tree)" >&2; exit 77; }

source "$SRC/tests/bench/node8.sh"
node8_fixture

# Sanity: everything OK, 8 GPUs and 8 ports judged.
out=$("$PROLOG" --config "$fx/supernode.yaml" --check --node gpu01) || { echo "$out"; exit 1; }
echo "checked: $(grep -c '^OK.*gpu ' <<<"$out") GPUs, $(grep -c '^OK.*ib_port' <<<"$out") ports OK"

us() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$fx/t.prolog"; : >"$fx/t.check"; : >"$fx/t.true"
for ((i = 1; i <= RUNS; i++)); do
	SLURM_JOB_ID=$((1000 + i)) SPANK_SUPERNODE=1 SLURMD_NODENAME=gpu01 \
		us "$PROLOG" --config "$fx/supernode.yaml" >>"$fx/t.prolog"
	us "$PROLOG" --config "$fx/supernode.yaml" --check --node gpu01 >>"$fx/t.check"
	us /bin/true >>"$fx/t.true"
done
p=$(median <"$fx/t.prolog"); c=$(median <"$fx/t.check"); t=$(median <"$fx/t.true")
n=$(ls "$fx/state/baseline" | wc -l)
printf 'runs %d (interleaved); baselines written %d\n' "$RUNS" "$n"
printf 'prolog (checks + baseline)  median %7.2f ms  = %6.1f x spawning /bin/true\n' "$(bc -l <<<"$p/1000")" "$(bc -l <<<"$p/$t")"
printf 'prolog --check              median %7.2f ms  = %6.1f x spawning /bin/true\n' "$(bc -l <<<"$c/1000")" "$(bc -l <<<"$c/$t")"
printf '/bin/true (baseline)        median %7.2f ms\n' "$(bc -l <<<"$t/1000")"
printf 'target: prolog under 50 ms: %s\n' "$( ((p < 50000)) && echo met || echo MISSED)"
