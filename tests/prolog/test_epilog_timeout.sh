#!/usr/bin/env bash
# supernode-epilog overrunning epilog.timeout (issue 17 item 13a): its
# last-resort alarm must end it cleanly, exit 0 with one log line, never by
# SIGALRM (Slurm drains a node whose Epilog is killed, "Epilog error").
# The real epilog, with fsync() slowed by the LD_PRELOAD shim slow_fsync.so
# (SN_TEST_SLOW_FSYNC_S), so the record write outlasts epilog.timeout 1 s
# (alarm at 2 s).  No Slurm daemons.
# Environment (from CMake): EPILOG, SLOW_FSYNC.
set -u

[[ -x ${EPILOG:-} && -r ${SLOW_FSYNC:-} ]] || { echo "FAIL: EPILOG or SLOW_FSYNC not built"; exit 1; }
W=$(mktemp -d /tmp/sn-epilog-timeout-XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"

mkdir -p "$W/sys" "$W/dev" "$W/state" "$W/records"
chmod 755 "$W/state" "$W/records"
printf '6,100,5000000,-;Linux version 6.1.0\n' >"$W/kmsg"
cat >"$W/sn.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "n-[1-2]"}
epilog:
  timeout: 1
  record_dir: $W/records
paths:
  sysfs: $W/sys
  dev: $W/dev
  kmsg: $W/kmsg
  state_dir: $W/state
YAML

export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=n-1 SPANK_SUPERNODE=1
# The sanitizer build's runtime need not come first for a test shim.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# Control: without the shim the epilog finishes in time and writes the record.
SLURM_JOB_ID=7001 "$EPILOG" --config "$W/sn.yaml" >"$W/fast.out" 2>&1
assert_eq "in time: exit 0" 0 "$?"
assert_eq "in time: record written" yes "$([[ -f $W/records/7001/n-1.json ]] && echo yes || echo no)"

start=$(date +%s%N)
SLURM_JOB_ID=7002 LD_PRELOAD=$SLOW_FSYNC SN_TEST_SLOW_FSYNC_S=30 \
	"$EPILOG" --config "$W/sn.yaml" >"$W/slow.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
assert_eq "overrun: exit status (not killed by SIGALRM, 142)" 0 "$rc"
assert_eq "overrun: the log line" \
	"supernode-epilog: job 7002: epilog.timeout (1 s) overrun: stopped, exit 0 (the node is not drained for it)" \
	"$(grep 'overrun' "$W/slow.out")"
assert_eq "overrun: stopped by the alarm within 2-4 s" yes \
	"$( ((ms >= 1900 && ms < 4000)) && echo yes || echo "no ($ms ms)")"
assert_eq "overrun: no record left behind" no \
	"$([[ -f $W/records/7002/n-1.json ]] && echo yes || echo no)"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
