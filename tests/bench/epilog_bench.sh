#!/usr/bin/env bash
# Benchmark: the epilog's wall time for a node of 8 GPUs and 8 HCAs on
# fixtures (tests/bench/node8.sh): for each run the prolog saves a job's
# baseline (untimed), then the epilog is timed as slurmd runs it: end
# snapshot, deltas, Xid scan, record, Prometheus textfile.  Prints the
# median beside a baseline measured in the same run (spawning /bin/true).
# Target: under 50 ms.
#
#   tests/bench/epilog_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RUNS=${2:-51}
SHARED=$SRC/tests/unit/fixtures
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
FAKE=$(find "$BUILD/tests/fake_nvml" -name 'libnvidia-ml.so.1' | head -n 1)
[[ -x $PROLOG && -x $EPILOG && -n $FAKE ]] || { echo "build first" >&2; exit 1; }
[[ -d $SHARED/sysfs-infiniband/gpud-h100 ]] || { echo "needs $SHARED" >&2; exit 77; }
source "$SRC/tests/bench/node8.sh"
node8_fixture

us() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
export SPANK_SUPERNODE=1 SLURMD_NODENAME=gpu01 SLURM_JOB_USER=bench SLURM_JOB_EXIT_CODE2=0:0
: >"$fx/t.epilog"; : >"$fx/t.true"
for ((i = 1; i <= RUNS; i++)); do
	SLURM_JOB_ID=$((2000 + i)) "$PROLOG" --config "$fx/supernode.yaml" >/dev/null 2>&1
	SLURM_JOB_ID=$((2000 + i)) us "$EPILOG" --config "$fx/supernode.yaml" >>"$fx/t.epilog"
	us /bin/true >>"$fx/t.true"
done
e=$(median <"$fx/t.epilog"); t=$(median <"$fx/t.true")
rec=$(ls "$fx"/records/*/gpu01.json | wc -l)
ports=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['ports']), len(d['accelerators']), d['baseline'])" "$fx/records/2001/gpu01.json")
printf 'runs %d; records written %d; last record: ports, GPUs, baseline = %s\n' "$RUNS" "$rec" "$ports"
printf 'epilog            median %7.2f ms  = %6.1f x spawning /bin/true\n' "$(bc -l <<<"$e/1000")" "$(bc -l <<<"$e/$t")"
printf '/bin/true         median %7.2f ms\n' "$(bc -l <<<"$t/1000")"
printf 'target: epilog under 50 ms: %s\n' "$( ((e < 50000)) && echo met || echo MISSED)"
