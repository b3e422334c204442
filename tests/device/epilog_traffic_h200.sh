#!/bin/bash
# On the 2x H200 machine (the `device` tool; issue 12): the prolog's
# --check (no NVLink domain asked for, then one asked for), the prolog as
# Prolog= for a job (checks and the counter baseline), about 60 s of
# all-reduce traffic over NVLink, then the epilog, which writes the job's
# record judged with the default rate thresholds.  Everything goes under
# $OUT: the configs, the --check output, nvidia-smi's NVLink counters
# before and after, the traffic's output, the baseline, the record
# (records/4243/h200-1.json), supernode.prom and a summary.
#
# Traffic: nccl-tests' all_reduce_perf (from $NCCL_TESTS, the folder of its
# binaries, or PATH) repeated for TRAFFIC_S seconds (default 60), else a
# torch.distributed all-reduce of 1 GiB on every GPU for as long.
# NCCL_NVLS_ENABLE=0 always.  Expects a bundle built on Debian 12 with
# supernode-prolog, supernode-epilog and their libraries (lib/, with
# ld-linux):
#   tests/device/make-bundle build devbundle && <device> bash devbundle/epilog_traffic_h200.sh
# NVML, SYSFS and DEVDIR may be set for a dry run elsewhere: with the fake
# NVML (build/tests/fake_nvml/libnvidia-ml.so.1), SN_FAKE_NVML_FIXTURE a
# copy of tests/unit/fixtures/nvidia/traffic-h200x2's before file that a
# stub all_reduce_perf in $NCCL_TESTS overwrites with the after file, a
# stub nvidia-smi in PATH and a fake sysfs/dev tree of the two GPUs, it
# gives the record of the capture (worst OK, 10 verdicts).  Nothing here
# drains for real: no slurmctld answers on that machine, so a
# CRIT's drain is attempted, logged and fails within its time budget.
set -u
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$B/out}
TRAFFIC_S=${TRAFFIC_S:-60}
JOB=4243
NODE=h200-1
export NCCL_NVLS_ENABLE=0
mkdir -p "$OUT"
chmod 755 "$OUT"
run() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/$@"; }
P() { run supernode-prolog "$@"; }
E() { run supernode-epilog "$@"; }
NVML=${NVML:-$(ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 /usr/lib/libnvidia-ml.so.1 2>/dev/null | head -1)}
[ -z "$NVML" ] && NVML=$(find / -name 'libnvidia-ml.so.1' 2>/dev/null | head -1)
NGPU=$(nvidia-smi -L | wc -l)
NVL=$(nvidia-smi nvlink -s -i 0 2>/dev/null | grep -c 'GB/s')
{
	echo "nvml: $NVML"
	uname -r
	nvidia-smi -L
	nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
	echo "gpus=$NGPU nvlinks(gpu0)=$NVL traffic=${TRAFFIC_S}s"
} | tee "$OUT/machine.txt"

mkdir -p "$OUT/state" "$OUT/records" "$OUT/prom"
chmod 755 "$OUT/state" "$OUT/records" "$OUT/prom"
# $1: file name, $2: the accelerators' extra lines
mk() {
	cat >"$OUT/$1" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
node:
  accelerators:
    vendor: nvidia
    count: $NGPU
    pcie_min_gen: 5
    pcie_min_width: 16
    nvlinks: $NVL
$2
prolog:
  timeout: 60
  check_timeout: 30
epilog:
  timeout: 60
  record_dir: $OUT/records
  textfile_dir: $OUT/prom
paths:
  nvml: $NVML
  sysfs: ${SYSFS:-/sys}
  dev: ${DEVDIR:-/dev}
  state_dir: $OUT/state
  kmsg: /dev/kmsg
YAML
}
mk sn.yaml ""
mk sn-domain.yaml "    nvlink_domain: true"
# Vendor and count only: the fallback when the prolog's checks fail (no
# baseline), e.g. on an NVLink or PCIe manifest this machine does not meet.
sed '/^    pcie_min/d; /^    nvlinks:/d' "$OUT/sn.yaml" >"$OUT/sn-min.yaml"
CFG=$OUT/sn.yaml

echo "== prolog --check, no NVLink domain asked for" >"$OUT/check.txt"
P --config "$OUT/sn.yaml" --check --node $NODE >>"$OUT/check.txt" 2>&1
echo "exit=$?" >>"$OUT/check.txt"
P --config "$OUT/sn.yaml" --check --json --node $NODE >"$OUT/check.json" 2>"$OUT/check.json.err"
echo "== prolog --check, nvlink_domain: true" >>"$OUT/check.txt"
P --config "$OUT/sn-domain.yaml" --check --node $NODE >>"$OUT/check.txt" 2>&1
echo "exit=$?" >>"$OUT/check.txt"
cat "$OUT/check.txt"

nvidia-smi nvlink -e >"$OUT/nvidia-smi-nvlink-e.before.txt" 2>&1
nvidia-smi nvlink -ec >"$OUT/nvidia-smi-nvlink-ec.before.txt" 2>&1

echo "== prolog as Prolog= for job $JOB"
export SLURM_JOB_ID=$JOB SLURMD_NODENAME=$NODE SPANK_SUPERNODE=1 SLURM_JOB_USER=root
P --config "$CFG" >"$OUT/prolog.txt" 2>&1
echo "prolog exit=$?" | tee -a "$OUT/prolog.txt"
if [ ! -f "$OUT/state/baseline/$JOB.json" ]; then
	CFG=$OUT/sn-min.yaml
	echo "no baseline written: again with $CFG (vendor only)" | tee -a "$OUT/prolog.txt"
	P --config "$CFG" >>"$OUT/prolog.txt" 2>&1
	echo "prolog exit=$?" | tee -a "$OUT/prolog.txt"
fi
cp "$OUT/state/baseline/$JOB.json" "$OUT/baseline.json" 2>/dev/null ||
	echo "no baseline written" | tee -a "$OUT/prolog.txt"

# ---- traffic ----------------------------------------------------------------
ARP=""
[ -n "${NCCL_TESTS:-}" ] && [ -x "$NCCL_TESTS/all_reduce_perf" ] && ARP=$NCCL_TESTS/all_reduce_perf
[ -z "$ARP" ] && ARP=$(command -v all_reduce_perf 2>/dev/null || true)
start=$(date +%s)
if [ -n "$ARP" ]; then
	echo "== traffic: $ARP -b 4G -e 4G -g $NGPU, repeated for ${TRAFFIC_S}s"
	while [ $(($(date +%s) - start)) -lt "$TRAFFIC_S" ]; do
		"$ARP" -b 4G -e 4G -g "$NGPU" -n 200 -w 5 || break
	done >"$OUT/traffic.txt" 2>&1
else
	echo "== traffic: torch.distributed all_reduce of 1 GiB per GPU for ${TRAFFIC_S}s"
	cat >"$OUT/allreduce.py" <<'PY'
import os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp

def work(rank, world, seconds):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29551"
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    x = torch.ones(256 * 1024 * 1024, device="cuda")  # 1 GiB of float32
    end, n = time.time() + seconds, 0
    t0 = time.time()
    while time.time() < end:
        dist.all_reduce(x)
        n += 1
        if n % 20 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    dt = time.time() - t0
    if rank == 0:
        gb = n * x.numel() * 4 / 1e9
        busbw = gb * 2 * (world - 1) / world / dt
        print(f"all_reduce 1 GiB x {n} in {dt:.1f} s: algbw {gb / dt:.1f} GB/s, busbw {busbw:.1f} GB/s")
    dist.destroy_process_group()

if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(work, args=(world, float(sys.argv[1])), nprocs=world)
PY
	python3 "$OUT/allreduce.py" "$TRAFFIC_S" >"$OUT/traffic.txt" 2>&1
fi
echo "traffic exit=$? after $(($(date +%s) - start)) s" >>"$OUT/traffic.txt"
tail -5 "$OUT/traffic.txt"

nvidia-smi nvlink -e >"$OUT/nvidia-smi-nvlink-e.after.txt" 2>&1
nvidia-smi nvlink -ec >"$OUT/nvidia-smi-nvlink-ec.after.txt" 2>&1

echo "== epilog for job $JOB"
E --config "$CFG" >"$OUT/epilog.txt" 2>&1
echo "epilog exit=$?" | tee -a "$OUT/epilog.txt"
REC=$OUT/records/$JOB/$NODE.json
if [ -f "$REC" ]; then
	python3 - "$REC" <<'PY' | tee "$OUT/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
print("job", r["job_id"], "start", r["start"], "end", r["end"],
      "seconds", (r["end"] or 0) - (r["start"] or 0))
for a in r["accelerators"]:
    print(a["bus_id"], "nvlink_version", a.get("nvlink_version"),
          "nvlink_bytes", a.get("nvlink_bytes"))
    print("  deltas", json.dumps(a["deltas"], sort_keys=True))
    print("  information", sorted(a.get("information", {})))
    print("  unknown", json.dumps(a["unknown"]))
for v in r["verdicts"]:
    print("verdict", v["counter"], v["device"], "delta", v["delta"],
          "unit", v.get("unit"), "rate", v.get("rate"), "warn", v["warn"],
          "crit", v["crit"], v["grade"])
print("worst", r["worst"], "drain_reason", r["drain_reason"])
PY
else
	echo "no record at $REC" | tee "$OUT/summary.txt"
fi
