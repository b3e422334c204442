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

# Without our tag: it is put first, and health knows the drain for ours.
OUT=$("$DRAIN" sna2 supernode: $'bad "dimm"\r' 2>&1)
assert_eq "untagged reason: sinfo %E" "supernode: bad 'dimm' " "$(reason sna2)"
set +e
OUT=$(SLURMD_NODENAME=sna2 "$CTL" health 2>&1)
set -e
assert_contains "untagged reason: ours, resumed" "sna2: checks pass: resumed" "$OUT"

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
