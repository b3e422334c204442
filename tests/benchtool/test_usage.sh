#!/usr/bin/env bash
# supernode-bench's messages to a fresh user (issue 19 item 5), the program
# end to end, no GPU, no MPI launcher:
#   - -e below -b names both values, as typed, or -b's default;
#   - a CUDA runtime newer than the node's driver (fake_cudart.so as both
#     libcudart and libnccl) is named with both versions and the way out,
#     never as a line of our source code or NCCL's "unhandled cuda error".
# Usage: test_usage.sh PATH/TO/supernode-bench PATH/TO/fake_cudart.so
set -u
BENCH=$1 FAKE=$2
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
failed=0
expect() {	# NAME RC STDERR: the last run exited RC and printed exactly STDERR
	if [[ $rc == "$2" && $err == "$3" ]]; then echo "ok: $1"; else
		echo "FAIL: $1: want rc $2 and:"; printf '  %s\n' "$3"
		echo "got rc $rc and:"; printf '  %s\n' "$err"; failed=1; fi
}
run() { err=$("$BENCH" "$@" 2>&1 >/dev/null); rc=$?; }

# ---- -e below -b ----
run --backend nccl -b 8M -e 1M
expect "-e below -b: both values" 2 "supernode-bench: -e 1M is below -b 8M"
run --backend nccl -e 1M
expect "-e below the default -b" 2 "supernode-bench: -e 1M is below -b 32M (the default; give -b too)"
run --backend nccl -b 1536K -e 1048577
expect "-e in bytes below -b" 2 "supernode-bench: -e 1048577 is below -b 1536K"

# ---- the CUDA runtime needs a newer driver ----
export SUPERNODE_BENCH_CUDART=$FAKE SUPERNODE_BENCH_NCCL=$FAKE
run --backend nccl --one-rank -b 1K -e 1K -o allreduce
expect "CUDA runtime 12.4 on a 12.2 driver" 3 \
	"supernode-bench: cudaGetDeviceCount: the CUDA runtime is CUDA 12.4, this node's NVIDIA driver supports CUDA 12.2: install a driver for CUDA 12.4 or newer, or set SUPERNODE_BENCH_CUDART to a libcudart of CUDA 12.2 or older"
FAKE_CUDART_DRIVER=0 run --backend nccl --one-rank -b 1K -e 1K -o allreduce
expect "CUDA runtime 12.4 and no driver" 3 \
	"supernode-bench: cudaGetDeviceCount: the CUDA runtime is CUDA 12.4 and no NVIDIA driver is loaded on this node: install one for CUDA 12.4 or newer"
exit $failed
