#!/usr/bin/env bash
# Issue 13 items 2-4 on a GPU machine (the `device` tool), one call:
#   1. ddp-smoke: contrib/examples/ddp-smoke/ddp_smoke.py as two processes
#      with exactly the variables the plugin set in the two tasks of a
#      one-node supernode job (tests/device/ddp-env/), sna1 resolving to
#      127.0.0.1; with one GPU both ranks share it, so the script's own
#      choice is Gloo; NCCL is tried too (80 steps) to record what it says;
#   2. the soak: supernode-bench --backend nccl --duration 5m --interval 30s
#      on what the machine has (-g = the GPUs seen; one GPU: broadcast only,
#      the one operation a single rank runs), JSON lines, summary, SVG;
#   3. --diagnose where an MPI launcher exists (it needs MPI), else the
#      reason it did not run.
# Everything goes to $OUT/h13b.tar.gz, the key files beside it.
#   tests/device/issue13_h13b.sh
# PARTS (default "ddp soak diagnose") picks the parts to run.
set -u
PARTS=" ${PARTS:-ddp soak diagnose} "
part() { [[ $PARTS == *" $1 "* ]]; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-out}
R=/tmp/h13b-out
mkdir -p "$OUT" "$R"
exec > >(tee "$R/run.log") 2>&1
SRC=$PWD
date -u
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
NGPU=$(nvidia-smi -L | grep -c '^GPU')
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.device_count())'

# --- 1. ddp-smoke with the plugin's values
getent hosts sna1 >/dev/null || echo "127.0.0.1 sna1" >>/etc/hosts
getent hosts sna1
ddp() { # NAME LIMIT ARGS...: both tasks, each with only its task's variables
	local name=$1 limit=$2 t
	shift 2
	for t in 0 1; do
		env -i PATH="$PATH" HOME="$HOME" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" \
			PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
			NVSHMEM_DISABLE_NVLS=1 $(grep -v '^#' "tests/device/ddp-env/task$t.env") \
			timeout "$limit" python3 contrib/examples/ddp-smoke/ddp_smoke.py "$@" \
			>"$R/$name.task$t.txt" 2>&1 &
	done
	wait -n; local a=$?; wait -n; local b=$?
	echo "$name: exit codes $a $b" | tee "$R/$name.rc"
}
if part ddp; then
s=$SECONDS
ddp ddp_auto 100 --steps 300
echo "ddp_auto: $((SECONDS - s)) s"
cat "$R/ddp_auto.task0.txt"
tail -3 "$R/ddp_auto.task1.txt"
s=$SECONDS
ddp ddp_nccl 40 --steps 80 --backend nccl
echo "ddp_nccl: $((SECONDS - s)) s"
tail -5 "$R/ddp_nccl.task0.txt" "$R/ddp_nccl.task1.txt"
fi

# --- 2. the soak
lib=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
rt=$(python3 -c 'import nvidia.cuda_runtime as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
export LD_LIBRARY_PATH=$lib:$rt:${LD_LIBRARY_PATH:-}
export SUPERNODE_BENCH_NCCL=$lib/libnccl.so.2
ls "$lib" "$rt" | head
cmake -S contrib/supernode-bench -B /tmp/sb >/dev/null && cmake --build /tmp/sb -j16 >/dev/null || echo "bench build failed"
SB=/tmp/sb/supernode-bench
if ((NGPU >= 2)); then ops=(-o allreduce,sendrecv -g "$NGPU"); else ops=(-o broadcast -g 1); fi
if part soak; then
s=$SECONDS
$SB --backend nccl "${ops[@]}" -b 256M -e 256M -w 5 -n 50 --duration 5m --interval 30s \
	--json "$R/soak.jsonl" --plot "$R/soak.svg" >"$R/soak.txt" 2>&1
echo "soak: exit $? in $((SECONDS - s)) s" | tee -a "$R/soak.txt"
cat "$R/soak.txt"
fi

# --- 3. --diagnose
if ! part diagnose; then
	:
elif command -v mpirun >/dev/null; then
	cmake -S contrib/supernode-bench -B /tmp/sbm >/dev/null && cmake --build /tmp/sbm -j16 >/dev/null
	mpirun --allow-run-as-root --oversubscribe -np 4 -x SUPERNODE_BENCH_TEST_SLOW=2:50000 \
		/tmp/sbm/supernode-bench-test --backend mpi -e 1M --diagnose >"$R/diagnose.txt" 2>&1
	echo "diagnose (MPI, 4 CPU ranks, rank 2 slowed): exit $?" | tee -a "$R/diagnose.txt"
else
	$SB --backend nccl -g 1 --diagnose >"$R/diagnose.txt" 2>&1
	echo "diagnose: exit $? (no mpirun on this machine; $NGPU GPU(s))" | tee -a "$R/diagnose.txt"
fi
cat "$R/diagnose.txt"
cp "$R/ddp_auto.task0.txt" "$R/soak.txt" "$R/soak.jsonl" "$R/soak.svg" "$R/diagnose.txt" "$OUT/" 2>/dev/null
tar -C /tmp -czf "$OUT/h13b.tar.gz" h13b-out
