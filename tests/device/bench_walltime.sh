#!/usr/bin/env bash
# On a GPU machine (the `run` tool; NVLink multicast stays off): supernode-bench
# against nccl-tests end to end, in one run.
#
#   NCCL_TESTS_SRC=.nccl-tests tests/device/bench_walltime.sh
#
# nccl-tests' source is fetched separately (github:NVIDIA/nccl-tests into
# .nccl-tests, ignored by git, carried); NCCL comes from NCCL_DIR (include/
# and lib/libnccl.so.2) or else the nvidia-nccl Python wheel's folder.
# SB_SRC=DIR builds supernode-bench from a copy (a commit's export) instead
# of contrib/supernode-bench.
#
# 1. Builds nccl-tests (the six *_perf programs, sm_90 unless NVCC_GENCODE
#    says otherwise) and supernode-bench with its test build
#    supernode-bench-test (no CUDA toolkit involved).
# 2. The data check itself: SUPERNODE_BENCH_TEST_CORRUPT=3 (read by the test
#    build only) spoils 3 floats of every result; with the GPU check and
#    with the host check (SUPERNODE_BENCH_HOST_CHECK=1) every #wrong must
#    read 3 per GPU.
# 3. For each of the six operations, 256 MiB to 4 GiB by 2 with -g N (N:
#    the machine's GPUs): each tool's sweep wall time (process start to
#    exit) and bus bandwidth, in two rounds (either tool first once); one
#    GPU gives one rank, where busbw is 0 for allreduce, allgather,
#    reducescatter and alltoall, so algbw is compared.
# 4. The old host path (SUPERNODE_BENCH_HOST_CHECK=1) once, allreduce, for
#    the before figure.
#
# Writes $OUT/walltime.md (the table; target: wall time <= 1.2 x
# nccl-tests', busbw within 2 %) and $OUT/walltime.tar.gz (every log).
# WALLTIME_LOGS=DIR (the tarball unpacked) only writes the table again.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-out}
LOGS=${WALLTIME_LOGS:-/tmp/walltime}
OPS="allreduce allgather reducescatter alltoall broadcast sendrecv"
B=${WALLTIME_MIN:-256M} E=${WALLTIME_MAX:-4G}
mkdir -p "$OUT" "$LOGS" /tmp/ncclh/lib
[ -n "${WALLTIME_LOGS:-}" ] && { NGPU=$(cat "$LOGS/ngpu"); skip=1; } || skip=
# wall NAME SECONDS CMD...: run CMD (at most SECONDS), log to $LOGS/NAME.txt,
# its wall time in seconds and exit status to $LOGS/NAME.wall
wall() {
	local name=$1 limit=$2 s e rc
	shift 2
	echo "$(date +%T) $name" >&2
	s=$EPOCHREALTIME
	timeout "$limit" "$@" >"$LOGS/$name.txt" 2>&1
	rc=$?
	e=$EPOCHREALTIME
	echo "$(awk "BEGIN{print $e - $s}") $rc" >"$LOGS/$name.wall"
}

# NCCL for nccl-tests' build (nccl.h, libnccl.so) and for both tools: NCCL_DIR,
# else the nvidia-nccl wheel's folder, else the first nccl.h and
# libnccl.so.2 under /usr and /opt.
find_nccl() {
	local inc lib

	if [ -z "${NCCL_DIR:-}" ]; then
		NCCL_DIR=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
	fi
	inc=$NCCL_DIR/include lib=$NCCL_DIR/lib
	[ -e "$inc/nccl.h" ] || inc=$(dirname "$(find /usr /opt -name nccl.h 2>/dev/null | head -1)")
	[ -e "$lib/libnccl.so.2" ] ||
		lib=$(dirname "$(find /usr /opt -name libnccl.so.2 2>/dev/null | head -1)")
	if [ ! -e "$inc/nccl.h" ] || [ ! -e "$lib/libnccl.so.2" ]; then
		echo "no NCCL: nccl.h in '$inc', libnccl.so.2 in '$lib'" >&2
		exit 3
	fi
	ln -sfn "$inc" /tmp/ncclh/include
	ln -sf "$lib/libnccl.so.2" /tmp/ncclh/lib/libnccl.so
	export LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-}
	export SUPERNODE_BENCH_NCCL=$lib/libnccl.so.2
	NCCL_DIR="$inc $lib"
}

# 1. both tools, built side by side
build() {
	local t0=$EPOCHREALTIME
	make -C "$NCCL_TESTS_SRC/src" -j"$(nproc)" NCCL_HOME=/tmp/ncclh BUILDDIR=/tmp/nt \
		BIN_FILES_LIST="all_reduce all_gather reduce_scatter alltoall broadcast sendrecv" \
		NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" \
		>"$LOGS/build-nccl-tests.log" 2>&1 &
	if ! { cmake -S "${SB_SRC:-contrib/supernode-bench}" -B /tmp/sb -DCMAKE_BUILD_TYPE=Release &&
		cmake --build /tmp/sb -j8; } >"$LOGS/build-sb.log" 2>&1; then
		tail -30 "$LOGS/build-sb.log" >&2
		exit 3
	fi
	wait
	if [ ! -x /tmp/nt/sendrecv_perf ]; then
		tail -30 "$LOGS/build-nccl-tests.log" >&2
		exit 3
	fi
	echo "builds: $(awk "BEGIN{print $EPOCHREALTIME - $t0}") s" >>"$LOGS/machine.txt"
}

measure() {
	local sb=/tmp/sb/supernode-bench one=() op
	# the test build: only it reads SUPERNODE_BENCH_TEST_CORRUPT
	local sbt=/tmp/sb/supernode-bench-test
	local -A perf=([allreduce]=all_reduce [allgather]=all_gather
		[reducescatter]=reduce_scatter [alltoall]=alltoall
		[broadcast]=broadcast [sendrecv]=sendrecv)

	[ "$NGPU" -eq 1 ] && one=(--one-rank)
	# 2. the check counts exactly, on the GPU and on the host
	wall corrupt-gpu 120 env SUPERNODE_BENCH_TEST_CORRUPT=3 \
		$sbt --backend nccl -o all -b 1M -e 4M -f 2 -g "$NGPU" "${one[@]}"
	wall corrupt-host 120 env SUPERNODE_BENCH_TEST_CORRUPT=3 SUPERNODE_BENCH_HOST_CHECK=1 \
		$sbt --backend nccl -o all -b 1M -e 4M -f 2 -g "$NGPU" "${one[@]}"
	# 3. the sweeps, each tool in turn per operation, twice: nccl-tests
	#    first in round 1, supernode-bench first in round 2
	for r in 1 2; do
		for op in $OPS; do
			[ $r = 2 ] && wall "sb-$op-$r" 120 $sb --backend nccl -o "$op" \
				-b "$B" -e "$E" -f 2 -g "$NGPU" "${one[@]}"
			wall "nt-$op-$r" 120 /tmp/nt/"${perf[$op]}"_perf -b "$B" -e "$E" -f 2 \
				-g "$NGPU"
			[ $r = 1 ] && wall "sb-$op-$r" 120 $sb --backend nccl -o "$op" \
				-b "$B" -e "$E" -f 2 -g "$NGPU" "${one[@]}"
		done
	done
	# 4. the host path, once
	wall sb-host-allreduce 120 env SUPERNODE_BENCH_HOST_CHECK=1 \
		$sb --backend nccl -o allreduce -b "$B" -e "$E" -f 2 -g "$NGPU" "${one[@]}"
}

if [ -z "$skip" ]; then
	: "${NCCL_TESTS_SRC:?give the nccl-tests source folder}"
	NGPU=$(nvidia-smi -L | grep -c '^GPU')
	echo "$NGPU" >"$LOGS/ngpu"
	find_nccl
	{
		nvidia-smi -L
		echo "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
		echo "NCCL $NCCL_DIR"
		echo "nccl-tests $(grep -ho 'NCCL_TESTS_VERSION.*' "$NCCL_TESTS_SRC"/src/*.h | head -1)"
	} >"$LOGS/machine.txt"
	build
	measure
fi

python3 - "$LOGS" "$NGPU" "$OPS" >"$OUT/walltime.md" <<'EOF'
import sys
logs, ngpu, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
ROUNDS = (1, 2)
def rows(name):
    r = []
    for l in open(f"{logs}/{name}.txt"):
        f = l.split()
        if len(f) >= 13 and f[0].isdigit() and f[2] == "float":
            r.append(f)
    return r
def wall(name):
    w, rc = open(f"{logs}/{name}.wall").read().split()
    return float(w), int(rc)
def num(x):
    try: return float(x)
    except ValueError: return None
def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None
def wrongs(r):
    return [f[i] for f in r for i in (8, 12)]
def text(name):
    return open(f"{logs}/{name}.txt").read()
col = 6 if ngpu == 1 else 7
bw = "algbw" if ngpu == 1 else "busbw"
def sweep(tool, op):
    """per size: mean over the rounds of the out-of-place bandwidth"""
    per = {}
    for r in ROUNDS:
        for f in rows(f"{tool}-{op}-{r}"):
            per.setdefault(int(f[0]), []).append(num(f[col]))
    return {k: mean(v) for k, v in sorted(per.items())}
machine = text("machine").strip()
gpu = "on the host" if "on the host" in text("sb-allreduce-1") else "on the GPU"
print("# supernode-bench against nccl-tests: sweep wall time and bandwidth\n")
print("```\n" + machine + "\n```\n")
print(f"`tests/device/bench_walltime.sh`: -g {ngpu}, 256 MiB to 4 GiB by 2, float, sum, "
      f"-w 1 -n 20 (both tools' defaults), NCCL_NVLS_ENABLE=0, two rounds (nccl-tests "
      f"first, then supernode-bench first); supernode-bench fills and checks the data {gpu}. "
      f"Wall time: process start to exit, mean of the rounds. Bandwidth: out-of-place {bw} "
      f"in GB/s, mean of the rounds; difference = supernode-bench / nccl-tests - 1.")
if ngpu == 1:
    print("\nOne GPU is one rank: busbw is 0 for allreduce, allgather, reducescatter "
          "and alltoall (factor (n-1)/n), so the bandwidth compared is **algbw** "
          "(busbw = algbw for broadcast and sendrecv).")
print(f"\nTarget: wall time at most 1.2 x nccl-tests', {bw} within 2 % at the largest size "
      "(the size supernode-bench judges).\n")
print(f"| op | wall nccl-tests (s) | wall supernode-bench (s) | ratio | {bw} nccl-tests, 4 GiB | "
      f"{bw} supernode-bench, 4 GiB | difference, 4 GiB | mean difference, 5 sizes | #wrong | target |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
allok = True
detail = []
for op in ops:
    wn = mean(wall(f"nt-{op}-{r}")[0] for r in ROUNDS)
    ws = mean(wall(f"sb-{op}-{r}")[0] for r in ROUNDS)
    rcs = [wall(f"{t}-{op}-{r}")[1] for t in ("nt", "sb") for r in ROUNDS]
    nt, sb = sweep("nt", op), sweep("sb", op)
    diffs = {k: (sb[k] / nt[k] - 1) * 100 for k in nt if k in sb and nt[k] and sb[k]}
    big = max(nt) if nt else None
    dbig = diffs.get(big)
    wr = sorted(set(w for r in ROUNDS for w in wrongs(rows(f"sb-{op}-{r}"))) - {"N/A"})
    ok = (not any(rcs) and len(diffs) == 5 and ws <= 1.2 * wn and dbig is not None
          and abs(dbig) <= 2 and wr == ["0"])
    allok &= ok
    print(f"| {op} | {wn:.2f} | {ws:.2f} | {ws/wn:.2f} | {nt.get(big, 0):.1f} | {sb.get(big, 0):.1f} | "
          f"{dbig if dbig is not None else float('nan'):+.2f} % | {mean(diffs.values()) or 0:+.2f} % | "
          f"{','.join(wr)} | {'met' if ok else 'MISSED'} |")
    for k in nt:
        detail.append(f"| {op} | {k >> 20} | {nt[k]:.1f} | {sb.get(k, 0):.1f} | {diffs.get(k, float('nan')):+.2f} % |")
print(f"\nBy size ({bw}, GB/s, mean of the rounds):\n")
print("| op | size (MiB) | nccl-tests | supernode-bench | difference |")
print("|---|---:|---:|---:|---:|")
print("\n".join(detail))
wh, rh = wall("sb-host-allreduce")
print(f"\nBefore (the host path, SUPERNODE_BENCH_HOST_CHECK=1), allreduce: {wh:.2f} s "
      f"(exit {rh}) against {wall('sb-allreduce-1')[0]:.2f} s with the check on the GPU.")
print("\nThe check itself (SUPERNODE_BENCH_TEST_CORRUPT=3: 3 floats of every result spoiled, "
      "NaN, -1, 0, +inf; all six operations, 1-4 MiB):\n")
for where in ("gpu", "host"):
    r = rows(f"corrupt-{where}")
    vals = sorted(set(wrongs(r)) - {"N/A"})
    path = "GPU" if "on the GPU" in text(f"corrupt-{where}") else "host"
    good = vals == [str(3 * ngpu)] and len(r) == 18
    allok &= good
    print(f"- check {where} (ran on the {path}): {len(r)} rows, #wrong values {vals}, "
          f"exit {wall(f'corrupt-{where}')[1]} (1 = FAIL, expected): {'exact' if good else 'WRONG'}")
print(f"\nAll targets met: {'yes' if allok else 'no'}")
EOF
cat "$OUT/walltime.md"
[ -z "$skip" ] && tar -czf "$OUT/walltime.tar.gz" -C "$LOGS" .
exit 0
