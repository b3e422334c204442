#!/usr/bin/env bash
# On a GPU machine (the `device` tool; keep NVLink multicast off): build
# nccl-tests from a copy the caller provides (NCCL_TESTS_SRC, fetched, never
# committed) and supernode-bench, then run both with the same shape (one
# process driving 2 GPUs, nccl-tests' -g 2):
#   1. all_reduce 1 MiB .. 8 GiB, factor 2: bus bandwidth side by side;
#   2. all_reduce 8 B .. 1 MiB, 6 alternating passes of 2000 iterations,
#      both pinned to one CPU core (unpinned, this machine is bimodal:
#      about 14 or 20 us for either tool).
# Tables go to $OUT (or ./out).
#   NCCL_TESTS_SRC=.nccl-tests NCCL_DIR=<dir with include/ and lib/libnccl.so.2> tests/device/bench_h200.sh
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-out}
mkdir -p "$OUT" /tmp/ncclh/lib
: "${NCCL_TESTS_SRC:?}" "${NCCL_DIR:?}"
ln -sf "$NCCL_DIR/include" /tmp/ncclh/include
ln -sf "$NCCL_DIR/lib/libnccl.so.2" /tmp/ncclh/lib/libnccl.so
make -C "$NCCL_TESTS_SRC/src" -j32 BIN_FILES_LIST=all_reduce NCCL_HOME=/tmp/ncclh \
	NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 BUILDDIR=/tmp/nt >/tmp/ntbuild.log 2>&1 &
cmake -S contrib/supernode-bench -B /tmp/sb >/tmp/sbcmake.log 2>&1 && cmake --build /tmp/sb -j8 >/dev/null
wait
export LD_LIBRARY_PATH=$NCCL_DIR/lib:${LD_LIBRARY_PATH:-} SUPERNODE_BENCH_NCCL=$NCCL_DIR/lib/libnccl.so.2
NT=/tmp/nt/all_reduce_perf SB=/tmp/sb/supernode-bench
$NT -b 1M -e 8G -f 2 -g 2 | tee "$OUT/nccltests_1M_8G.txt"
$SB --backend nccl -o allreduce -b 1M -e 8G -f 2 -g 2 --json "$OUT/sb_1M_8G.json" \
	--plot "$OUT/sb_1M_8G.svg" | tee "$OUT/sb_1M_8G.txt"
for k in 1 2 3 4 5 6; do
	taskset -c 2 $NT -b 8 -e 1M -f 4 -g 2 -w 50 -n 2000 | grep -E '^ +[0-9]' | sed "s/^/nt$k /" >>"$OUT/nt_small.txt"
	taskset -c 2 $SB --backend nccl -o allreduce -b 8 -e 1M -f 4 -g 2 -w 50 -n 2000 |
		grep -E '^ +[0-9]' | sed "s/^/sb$k /" >>"$OUT/sb_small.txt"
done
cat "$OUT/nt_small.txt" "$OUT/sb_small.txt"
