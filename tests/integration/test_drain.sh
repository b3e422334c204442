#!/usr/bin/env bash
# Drain reasons as slurmctld stores them (issue 9 item 14): every reason we
# write has '"' as "'", control characters as spaces, a cut marked with
# "..." at 200 bytes, and our tag first.  Read back exactly with sinfo %E
# and scontrol show node, through the library's drain path (prolog and
# epilog) with any text, and through supernodectl health's own reason.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
CTL=$BUILD/contrib/supernodectl/supernodectl
DRAIN=$BUILD/tests/integration/sn-drain-reason
for p in "$CTL" "$DRAIN"; do
	[[ -x $p ]] || { echo "SKIP: $p not built"; exit 77; }
done

name="it-drain-$$"
cluster_with_ports "$name"

reason() { sinfo -h -n "$1" -o '%E'; }
# The Reason= line of scontrol show node, without its " [user@time]".
ctl_reason() {
	scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p'
}

# A '"', a newline, a tab and a 300-byte tail, through the drain path.
long=$(printf 'x%.0s' {1..300})
OUT=$("$DRAIN" sna1 supernode: "supernode: TEST_REASON \"quoted\""$'\n'"next"$'\t'"col $long" 2>&1)
assert_contains "long reason: drained" "drained" "$OUT"
head="supernode: TEST_REASON 'quoted' next col "
want="$head$(printf 'x%.0s' $(seq 1 $((197 - ${#head}))))..."
assert_eq "long reason: 200 bytes" 200 "${#want}"
assert_eq "long reason: sinfo %E" "$want" "$(reason sna1)"
assert_eq "long reason: scontrol" "$want" "$(ctl_reason sna1)"
assert_contains "long reason: the log line shows it cleaned" "drained sna1: $want" "$OUT"

# health NODE: as HealthCheckProgram runs it; sets OUT.
health() {
	set +e
	OUT=$(SLURMD_NODENAME=$1 "$CTL" health 2>&1)
	set -e
}

# Without our tag: it is put first.  It is ours, but "bad" is no code of a
# check health runs again: it waits for a person (issue 17 item 9).
OUT=$("$DRAIN" sna2 supernode: $'bad "dimm"\r' 2>&1)
assert_eq "untagged reason: sinfo %E" "supernode: bad 'dimm' " "$(reason sna2)"
health sna2
assert_contains "untagged reason: ours, left for a person" \
	"sna2: checks pass; drained by us, reason \"supernode: bad 'dimm' \": not a condition health can check again, left for a person" "$OUT"
assert_eq "untagged reason: still drained" "supernode: bad 'dimm' " "$(reason sna2)"

# Who resumes (issue 17 item 9): health lifts a prolog check's drain once
# the check passes, never the bench's or the epilog's (before: both were
# resumed, so a node the bench had drained came back at once).
for r in "supernode: BENCH_SLOW rank 3: 5/7 sendrecv pairs < 0.50 x median 40 GB/s" \
	"supernode: EPILOG_SYMBOL_ERROR mlx5_0/1 +5000 in 40 s = 5000/h (crit 1000/h)"; do
	scontrol update nodename=sna2 state=resume
	"$DRAIN" sna2 supernode: "$r" >/dev/null 2>&1 || true
	health sna2
	assert_eq "${r:11:12}: health leaves it drained" "$r" "$(reason sna2)"
	assert_contains "${r:11:12}: said" "left for a person" "$OUT"
done
scontrol update nodename=sna2 state=resume
"$DRAIN" sna2 supernode: "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE" >/dev/null 2>&1
health sna2
assert_contains "IB_PORT_DOWN, check passes: resumed" "sna2: checks pass: resumed" "$OUT"
# Resumed means idle: Slurm 24.11 keeps the old reason text on a resumed
# node (22.05 and 26.05 clear it), so the state is what is asserted.
assert_eq "IB_PORT_DOWN: sna2 idle again" idle "$(sinfo -h -n sna2 -o %t | tr -d '*')"

# The drain race (issue 17 item 8): the admin drains snb2 ("bad DIMM, RMA
# 1234") after our read and before our first write (race_shim.so runs
# scontrol there).  Their reason stays and we say so; health never resumes
# it (before: our reason replaced theirs, and health resumed the node).
OUT=$(LD_PRELOAD=$BUILD/tests/integration/race_shim.so SN_TEST_RACE_AT=1 \
	SN_TEST_RACE_NODE=snb2 SN_TEST_RACE_REASON="bad DIMM, RMA 1234" \
	"$DRAIN" snb2 supernode: "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE" 2>&1) || true
assert_eq "race: the admin's reason kept" "bad DIMM, RMA 1234" "$(reason snb2)"
assert_contains "race: said" \
	'snb2 was drained by someone else at the same time ("bad DIMM, RMA 1234"): their reason kept, ours not written' "$OUT"
assert_contains "race: outcome" "not drained: drained by someone else at the same time" "$OUT"
health snb2
assert_eq "race: health leaves the admin's drain" "bad DIMM, RMA 1234" "$(reason snb2)"
assert_contains "race: health said" 'reason "bad DIMM, RMA 1234", not ours: left as it is' "$OUT"
# Without the race, the same path drains with our reason (and re-reads it).
scontrol update nodename=snb2 state=resume
OUT=$("$DRAIN" snb2 supernode: "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE" 2>&1)
assert_eq "no race: our reason" "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE" "$(reason snb2)"
assert_contains "no race: outcome" "drained snb2: supernode: IB_PORT_DOWN" "$OUT"

# supernodectl health's own reason: a state file holding '"', a tab, DEL.
ib_port "$fx/snb1/sys" mlx5_0 1 $'1: DO"WN\tx\x7fy' "5: LinkUp" "400 Gb/sec (4X NDR)"
set +e
OUT=$(SLURMD_NODENAME=snb1 "$CTL" health 2>&1)
RC=$?
set -e
assert_eq "health reason: exit" 2 "$RC"
assert_eq "health reason: sinfo %E" \
	"supernode: IB_PORT_DOWN mlx5_0/1 state=1: DO'WN x y expected ACTIVE" "$(reason snb1)"
assert_eq "health reason: scontrol" \
	"supernode: IB_PORT_DOWN mlx5_0/1 state=1: DO'WN x y expected ACTIVE" "$(ctl_reason snb1)"
finish
