#!/usr/bin/env bash
# Benchmark: the prolog's wall time on a node of 8 GPUs and 8 HCAs, on
# fixtures (fake NVML serving 8 H100-class GPUs, the real sysfs InfiniBand
# tree of an 8-port NDR node, a fake PCI tree and /dev nodes).  Prints the
# median of RUNS runs of the prolog (as slurmd runs it: checks + baseline)
# and of --check, beside two baselines measured in the same run: spawning
# /bin/true, and the floor: spawning nvml_floor (tests/bench), which loads
# the same NVML and does its init/count/shutdown, what no check of an
# NVIDIA node can avoid.  Targets: prolog median under 50 ms; --check at
# most 3 ms above the floor (issue 20).
#
#   tests/bench/prolog_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RUNS=${2:-51}
SHARED=$SRC/tests/unit/fixtures
PROLOG=$BUILD/prolog/supernode-prolog
FLOOR=$BUILD/tests/bench/nvml_floor
FAKE=$(ls "$BUILD"/tests/fake_nvml/libnvidia-ml.so.1 2>/dev/null || find "$BUILD/tests/fake_nvml" -name 'libnvidia-ml*.so*' | head -n 1)
[[ -x $PROLOG && -x $FLOOR && -n $FAKE ]] || { echo "build first: $PROLOG, $FLOOR, fake NVML" >&2; exit 1; }
[[ -d $SHARED/sysfs-infiniband/gpud-h100 ]] || { echo "needs $SHARED (real sysfs tree)" >&2; exit 77; }

source "$SRC/tests/bench/node8.sh"
node8_fixture

# Sanity: everything OK, 8 GPUs and 8 ports judged.
out=$("$PROLOG" --config "$fx/supernode.yaml" --check --node gpu01) || { echo "$out"; exit 1; }
echo "checked: $(grep -c '^OK.*gpu ' <<<"$out") GPUs, $(grep -c '^OK.*ib_port' <<<"$out") ports OK"

us() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$fx/t.prolog"; : >"$fx/t.check"; : >"$fx/t.true"; : >"$fx/t.floor"
[[ $("$FLOOR" "$FAKE") == 8 ]] || { echo "nvml_floor: not 8 GPUs" >&2; exit 1; }
for ((i = 1; i <= RUNS; i++)); do
	SLURM_JOB_ID=$((1000 + i)) SPANK_SUPERNODE=1 SLURMD_NODENAME=gpu01 \
		us "$PROLOG" --config "$fx/supernode.yaml" >>"$fx/t.prolog"
	us "$PROLOG" --config "$fx/supernode.yaml" --check --node gpu01 >>"$fx/t.check"
	us /bin/true >>"$fx/t.true"
	us "$FLOOR" "$FAKE" >>"$fx/t.floor"
done
p=$(median <"$fx/t.prolog"); c=$(median <"$fx/t.check"); t=$(median <"$fx/t.true")
f=$(median <"$fx/t.floor")
n=$(ls "$fx/state/baseline" | wc -l)
printf 'runs %d (interleaved); baselines written %d\n' "$RUNS" "$n"
row() { printf '%-29s median %7.2f ms  = %5.1f x /bin/true  %5.2f x floor  %+7.2f ms above floor\n' \
	"$1" "$(bc -l <<<"$2/1000")" "$(bc -l <<<"$2/$t")" "$(bc -l <<<"$2/$f")" "$(bc -l <<<"($2-$f)/1000")"; }
row 'prolog (checks + baseline)' "$p"
row 'prolog --check' "$c"
row 'floor (NVML init+count+fini)' "$f"
printf '/bin/true (baseline)          median %7.2f ms\n' "$(bc -l <<<"$t/1000")"
printf 'target: prolog under 50 ms: %s\n' "$( ((p < 50000)) && echo met || echo MISSED)"
printf 'target: --check at most 3 ms above the floor: %s\n' "$( ((c - f <= 3000)) && echo met || echo MISSED)"
