#!/usr/bin/env bash
# The busy cluster, short (issue 20 item 3): 8 supernodes of 4 nodes, 50
# jobs (--supernode=1, --supernode=2 on block, plain), 2 dead nodes and 2
# nodes the prolog drains while they run; the asserts of
# tests/bench/busy_cluster.sh without its timing.  Feature method on
# 22.05, block from 24.05 (picked by the release, as test_block.sh).
set -euo pipefail
: "${SRC:?}" "${BUILD:?}"
opt=()
[[ -z ${SN_SLURM_PREFIX:-} ]] || opt=(--slurm "$SN_SLURM_PREFIX")
exec bash "$SRC/tests/bench/busy_cluster.sh" --short --build "$BUILD" "${opt[@]}"
