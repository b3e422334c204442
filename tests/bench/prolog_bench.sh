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
SHARED=$SRC/../shared/fixtures
PROLOG=$BUILD/prolog/supernode-prolog
FAKE=$(ls "$BUILD"/tests/fake_nvml/libnvidia-ml.so.1 2>/dev/null || find "$BUILD/tests/fake_nvml" -name 'libnvidia-ml*.so*' | head -n 1)
[[ -x $PROLOG && -n $FAKE ]] || { echo "build first: $PROLOG, fake NVML" >&2; exit 1; }
[[ -d $SHARED/sysfs-infiniband/gpud-h100 ]] || { echo "needs $SHARED (real sysfs tree)" >&2; exit 77; }

fx=$(mktemp -d)
trap 'rm -rf "$fx"' EXIT
buses=(1b 43 52 61 9d c3 d1 df)
python3 - "$SRC/tests/unit/fixtures/accel/nvml-4xh100-sxm.json" "$fx/nvml8.json" "${buses[@]}" <<'PY'
import json, sys, copy
src, dst, buses = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(src))
g0 = d["gpus"][0]
d["gpus"] = []
for i, b in enumerate(buses):
    g = copy.deepcopy(g0)
    g["index"] = i
    g["pci_bus_id"] = "00000000:%s:00.0" % b.upper()
    g["uuid"] = "GPU-bench-%d" % i
    d["gpus"].append(g)
json.dump(d, open(dst, "w"))
PY
mkdir -p "$fx/sys/bus/pci/devices" "$fx/dev"
cp -r "$SHARED/sysfs-infiniband/gpud-h100/sys/class" "$fx/sys/"
for i in "${!buses[@]}"; do
	d=$fx/sys/bus/pci/devices/0000:${buses[$i]}:00.0
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2330 >"$d/device"; echo 0x030200 >"$d/class"
	: >"$fx/dev/nvidia$i"
done
ports=""
for dev in mlx5_0 mlx5_1 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_8 mlx5_9; do
	ports+="    - {device: $dev, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}"$'\n'
done
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "gpu[01-18]"}
node:
  accelerators: {vendor: nvidia, count: 8, pcie_min_gen: 5, pcie_min_width: 16, nvlinks: 18}
  ports:
$ports
paths:
  sysfs: $fx/sys
  dev: $fx/dev
  nvml: $FAKE
  state_dir: $fx/state
  kmsg: $fx/kmsg
YAML
printf '6,1,100,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n' >"$fx/kmsg"
export SN_FAKE_NVML_FIXTURE=$fx/nvml8.json

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
