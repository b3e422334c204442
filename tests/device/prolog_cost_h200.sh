#!/bin/bash
# On a GPU machine (the `device` tool): where the prolog's --check spends
# its time above the NVML floor (issue 20: aim at the floor plus 3 ms).
#  1. nvml_calls: each NVML call of the accelerator check on GPU 0, median
#     of 31 calls (the NVLink ones for links 0..17);
#  2. 21 interleaved spawns of: nvml_floor (init, count, shutdown),
#     supernode-prolog --check with this machine's manifest, the same with
#     no accelerators section (no NVML at all), and --help (the spawn).
# Expects the bundle of make-bundle plus nvml_floor and nvml_calls
# (tests/bench) next to supernode-prolog.
set -u
B=$(cd "$(dirname "$0")" && pwd)
P() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog" "$@"; }
NVML=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 /usr/lib/libnvidia-ml.so.1 2>/dev/null | head -1)
echo "nvml: $NVML"; nvidia-smi -L; nproc
nvidia-smi -q | grep -i -m1 'persistence mode'
NGPU=$(nvidia-smi -L | wc -l)
mk() { cat >"$OUT/$1.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
$2
prolog:
  timeout: 30
  check_timeout: 20
paths:
  nvml: $NVML
  state_dir: $OUT/state
  kmsg: /dev/kmsg
YAML
}
mk ok "node:
  accelerators:
    vendor: nvidia
    count: $NGPU
    pcie_min_gen: 5
    pcie_min_width: 16
    nvlinks: 0"
mk none ""
echo "== nvml_calls"; "$B/nvml_calls" "$NVML" 31
echo "== check"; P --config "$OUT/ok.yaml" --check --node h200-1; echo "exit=$?"
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
for i in $(seq 1 21); do
	echo "floor $(t "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/nvml_floor" "$NVML")"
	echo "floor_attach $(t "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/nvml_floor" "$NVML" --attach)"
	echo "check $(t P --config "$OUT/ok.yaml" --check --node h200-1)"
	echo "noaccel $(t P --config "$OUT/none.yaml" --check --node h200-1)"
	[ -x "$B/supernode-prolog-old" ] && echo "check_old $(t "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog-old" --config "$OUT/ok.yaml" --check --node h200-1)"
	echo "help $(t P --help)"
done >"$OUT/t.txt"
for k in floor floor_attach check check_old noaccel help; do
	printf '%-12s median %6d us\n' "$k" "$(awk -v k=$k '$1==k {print $2}' "$OUT/t.txt" | sort -n | sed -n 11p)"
done
which strace perf ltrace 2>/dev/null
if command -v strace >/dev/null; then
	strace -f -tt -o "$OUT/strace.txt" "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog" --config "$OUT/ok.yaml" --check --node h200-1 >/dev/null 2>&1
	strace -c -f -o "$OUT/strace-c.txt" "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog" --config "$OUT/ok.yaml" --check --node h200-1 >/dev/null 2>&1
	head -40 "$OUT/strace-c.txt"
fi
