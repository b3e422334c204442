#!/usr/bin/env bash
# supernodectl health on a real local Slurm (field case 15): a failing
# check drains the node with our reason; once the fixture is healthy again
# health resumes it; a node drained by an admin, or DOWN, is never resumed
# nor re-drained; a config that does not load changes nothing.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
CTL=$BUILD/contrib/supernodectl/supernodectl
[[ -x $CTL ]] || { echo "SKIP: $CTL not built"; exit 77; }

name="it-health-$$"
cluster_with_ports "$name"

# health NODE: run it as HealthCheckProgram would (SLURMD_NODENAME set);
# sets RC and OUT (stdout and stderr).
health() {
	set +e
	OUT=$(SLURMD_NODENAME=$1 "$CTL" health 2>&1)
	RC=$?
	set -e
}
state() { local s; s=$(sinfo -h -n "$1" -o '%t'); echo "${s%\*}"; }
reason() { sinfo -h -n "$1" -o '%E'; }

health sna1
assert_eq "healthy node: exit" 0 "$RC"
assert_contains "healthy node: said" "sna1: checks pass; IDLE: nothing to do" "$OUT"
assert_eq "healthy node: state" idle "$(state sna1)"

# A port goes down: CRIT drains with the prolog's reason.
ib_port "$fx/sna1/sys" mlx5_0 1 "1: DOWN" "5: LinkUp" "400 Gb/sec (4X NDR)"
health sna1
assert_eq "failing node: exit" 2 "$RC"
assert_eq "failing node: our reason" "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE" "$(reason sna1)"
assert_contains "failing node: state" drain "$(state sna1)"
health sna1
assert_contains "failing again: our drain kept" "already drained by us" "$OUT"

# Healthy again: our own drain is resumed.
ib_port "$fx/sna1/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
health sna1
assert_eq "recovered node: exit" 0 "$RC"
assert_contains "recovered node: said" "sna1: checks pass: resumed" "$OUT"
assert_eq "recovered node: state" idle "$(state sna1)"

# An admin's drain is never resumed, even though our checks pass...
scontrol update nodename=sna2 state=drain reason="bad dimm, ticket 4711"
health sna2
assert_eq "admin-drained node: exit" 0 "$RC"
assert_contains "admin-drained node: said" "not ours: left as it is" "$OUT"
assert_eq "admin-drained node: reason kept" "bad dimm, ticket 4711" "$(reason sna2)"
assert_contains "admin-drained node: still drained" drain "$(state sna2)"
# ...nor overwritten when our checks fail there.
ib_port "$fx/sna2/sys" mlx5_0 1 "1: DOWN" "5: LinkUp" "400 Gb/sec (4X NDR)"
health sna2
assert_eq "admin-drained failing node: exit" 2 "$RC"
assert_eq "admin-drained failing node: reason kept" "bad dimm, ticket 4711" "$(reason sna2)"

# DOWN with a foreign reason stays DOWN.
scontrol update nodename=snb1 state=down reason="Not responding"
health snb1
assert_eq "down node: reason kept" "Not responding" "$(reason snb1)"
assert_contains "down node: still down" down "$(state snb1)"

# A config that does not load drains and resumes nothing.
ib_port "$fx/snb2/sys" mlx5_0 1 "1: DOWN" "5: LinkUp" "400 Gb/sec (4X NDR)"
cp "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml" "$fx/good.yaml"
printf 'supernodes:\n\t- bad\n' >"$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
health snb2
assert_eq "broken config: exit" 4 "$RC"
assert_eq "broken config: node not drained" idle "$(state snb2)"
cp "$fx/good.yaml" "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
finish
