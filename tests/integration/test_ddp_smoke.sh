#!/usr/bin/env bash
# contrib/examples/ddp-smoke on the local cluster (issue 13 item 4): its
# sbatch script as written (#SBATCH --supernode=1, srun python3), only the
# task count fitted to these 2-CPU nodes.  Every task must find the five
# variables the plugin sets (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
# LOCAL_RANK): with PyTorch installed it trains (gloo on CPU, a short run)
# and passes; without it, each task gets past the variables and stops at
# "PyTorch is not installed".  A job without --supernode gets none of
# them: the script names all five and exits 2.
source "$(dirname "$0")/lib.sh"
EX=$SRC/contrib/examples/ddp-smoke
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
cluster_up "it-ddp-$$"
cp "$EX/ddp_smoke.py" "$EX/ddp-smoke.sbatch" .

if python3 -c 'import torch' 2>/dev/null; then
	rc=0
	sbatch --wait --ntasks-per-node=2 ddp-smoke.sbatch --steps 80 --batch 2 --seq 32 >/dev/null 2>&1 || rc=$?
	out=$(cat ddp-smoke-*.out)
	assert_eq "sbatch ddp-smoke.sbatch: exit code" 0 "$rc"
	assert_contains "the run" "ddp-smoke: world 4, backend gloo" "$out"
	assert_contains "the verdict" "ddp-smoke: PASS" "$out"
else
	rc=0
	sbatch --wait --ntasks-per-node=2 ddp-smoke.sbatch >/dev/null 2>&1 || rc=$?
	out=$(cat ddp-smoke-*.out)
	assert_eq "sbatch ddp-smoke.sbatch without PyTorch: exit code" 2 "$rc"
	assert_eq "tasks past the variables" 4 "$(grep -c '^ddp-smoke: PyTorch is not installed' <<<"$out" || true)"
	assert_eq "tasks missing a variable" 0 "$(grep -c 'ddp-smoke: missing' <<<"$out" || true)"
fi

rc=0
out=$(srun -N 1 -n 1 python3 ddp_smoke.py 2>&1) || rc=$?
assert_eq "without --supernode: exit code" 2 "$rc"
assert_contains "without --supernode: message" \
	"ddp-smoke: missing MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK: the supernode plugin sets" "$out"
finish
