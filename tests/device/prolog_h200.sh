#!/bin/bash
# On a GPU machine (the `device` tool): supernode-prolog --check against the
# real NVML, with a manifest of this machine (all OK) and one asking for one
# GPU more (CRIT GPU_COUNT); then its wall time beside `nvidia-smi -q`, 15
# interleaved runs.  Expects a bundle folder holding supernode-prolog and the
# shared libraries it needs (lib/, with ld-linux), built on Debian 12:
#   tests/device/make-bundle build devbundle && <device> bash devbundle/prolog_h200.sh
set -u
B=$(cd "$(dirname "$0")" && pwd)
P() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog" "$@"; }
NVML=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 /usr/lib/libnvidia-ml.so.1 2>/dev/null | head -1)
[ -z "$NVML" ] && NVML=$(find / -name 'libnvidia-ml.so.1' 2>/dev/null | head -1)
echo "nvml: $NVML"; uname -r; nvidia-smi -L
NGPU=$(nvidia-smi -L | wc -l)
mk() { cat >"$OUT/$1.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
node:
  accelerators:
    vendor: nvidia
    count: $2
    pcie_min_gen: 5
    pcie_min_width: 16
    nvlinks: $3
prolog:
  timeout: 30
  check_timeout: 20
paths:
  nvml: $NVML
  state_dir: $OUT/state
  kmsg: /dev/kmsg
YAML
}
NVL=$(nvidia-smi nvlink -s -i 0 2>/dev/null | grep -c 'GB/s')
echo "gpus=$NGPU nvlinks(gpu0)=$NVL"
mk ok "$NGPU" "$NVL"; mk more $((NGPU + 1)) "$NVL"
echo "== learn"; P --config "$OUT/ok.yaml" --learn --node h200-1
echo "== check (manifest = this machine)"; P --config "$OUT/ok.yaml" --check --node h200-1; echo "exit=$?"
echo "== check --json"; P --config "$OUT/ok.yaml" --check --json --node h200-1 >"$OUT/check.json"; echo "exit=$?"; head -c 600 "$OUT/check.json"; echo
echo "== check (manifest asks one GPU more)"; P --config "$OUT/more.yaml" --check --node h200-1; echo "exit=$?"
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
echo "== timing (microseconds), 15 runs each, interleaved"
for i in $(seq 1 15); do
  a=$(t P --config "$OUT/ok.yaml" --check --node h200-1)
  b=$(t nvidia-smi -q)
  echo "run $i prolog_check_us=$a nvidia_smi_q_us=$b"
done | tee "$OUT/timing.txt"
med() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$OUT/timing.txt" | sort -n | sed -n 8p; }
a=$(med prolog_check_us); b=$(med nvidia_smi_q_us)
echo "median prolog --check $((a / 1000)) ms, nvidia-smi -q $((b / 1000)) ms, ratio $(echo "scale=2; $a / $b" | bc 2>/dev/null || echo "$a/$b")"
