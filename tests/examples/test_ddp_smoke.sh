#!/usr/bin/env bash
# contrib/examples/ddp-smoke without a GPU or a cluster: the script
# compiles (python3 -m py_compile; PyTorch is not needed for that), the
# sbatch script asks for --supernode=1 and runs the script with srun, and
# every missing or wrong variable gives exit 2 and a message naming it,
# before PyTorch is imported.
# Usage: test_ddp_smoke.sh SRC_DIR
set -u
dir=$1/contrib/examples/ddp-smoke
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

if python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
	"$dir/ddp_smoke.py" "$tmp/ddp_smoke.pyc"; then ok "ddp_smoke.py compiles"; else bad "ddp_smoke.py does not compile"; fi
if bash -n "$dir/ddp-smoke.sbatch"; then ok "ddp-smoke.sbatch parses"; else bad "ddp-smoke.sbatch"; fi
grep -qx '#SBATCH --supernode=1' "$dir/ddp-smoke.sbatch" && ok "sbatch: #SBATCH --supernode=1" || bad "sbatch: no --supernode=1"
grep -q '^srun python3 ' "$dir/ddp-smoke.sbatch" && ok "sbatch: srun python3" || bad "sbatch: no srun line"
grep -qE 'torchrun|torch\.distributed\.(run|launch)' "$dir/ddp-smoke.sbatch" && bad "sbatch: torchrun used" || ok "sbatch: no torchrun"
grep -qE 'import .*torch\.distributed\.(run|launch)|elastic' "$dir/ddp_smoke.py" && bad "script: a launcher" || ok "script: no launcher"

# run EXPECTED_RC NEEDLE VAR=VALUE...: the script under exactly these variables.
run() {
	local want=$1 needle=$2 out rc
	shift 2
	out=$(env -i PATH="$PATH" HOME="$HOME" "$@" python3 "$dir/ddp_smoke.py" --steps 80 2>&1); rc=$?
	if [[ $rc == "$want" && $out == *"$needle"* ]]; then ok "${*:-no variables}: exit $rc"; else
		bad "${*:-no variables}: want exit $want and '$needle', got $rc: $out"; fi
}
all=(MASTER_ADDR=sna1 MASTER_PORT=20001 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0)
run 2 "ddp-smoke: missing MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK: the supernode plugin sets"
for i in 0 1 2 3 4; do
	v=(); for j in 0 1 2 3 4; do ((i == j)) || v+=("${all[j]}"); done
	run 2 "ddp-smoke: missing ${all[i]%%=*}: " "${v[@]}"
done
run 2 "ddp-smoke: missing MASTER_PORT" MASTER_ADDR=sna1 MASTER_PORT= RANK=0 WORLD_SIZE=2 LOCAL_RANK=0
run 2 "ddp-smoke: RANK='x' is not a number" MASTER_ADDR=sna1 MASTER_PORT=20001 RANK=x WORLD_SIZE=2 LOCAL_RANK=0
run 2 "RANK=2, WORLD_SIZE=2, LOCAL_RANK=0, MASTER_PORT=20001 do not fit together" \
	MASTER_ADDR=sna1 MASTER_PORT=20001 RANK=2 WORLD_SIZE=2 LOCAL_RANK=0
run 2 "MASTER_PORT=70000 do not fit together" MASTER_ADDR=sna1 MASTER_PORT=70000 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0
if ! python3 -c 'import torch' 2>/dev/null; then
	run 2 "ddp-smoke: PyTorch is not installed" "${all[@]}"
fi
exit $failed
