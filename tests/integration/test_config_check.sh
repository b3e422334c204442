#!/usr/bin/env bash
# supernodectl config check against a real local Slurm (three supernodes of
# two nodes, features sn01..sn03, topology/tree with one leaf switch per
# supernode): matching configs pass for both methods; a config whose
# supernodes do not match the features or the switches fails, naming each
# node or supernode with expected and found; an unknown node is named; a
# slurmctld that cannot be reached is an error, not a pass.
source "$(dirname "$0")/lib.sh"
CTL=$BUILD/contrib/supernodectl/supernodectl
[[ -x $CTL ]] || { echo "SKIP: $CTL not built"; exit 77; }
cluster_up "it-ccheck-$$" --supernodes 3 --topology tree

# check YAML-BODY METHOD: run config check on a config; sets OUT, RC.
check() {
	printf 'supernodes:\n%s\nplacement:\n  method: %s\n' "$1" "$2" >"$WORK/sn.yaml"
	RC=0
	OUT=$("$CTL" --config "$WORK/sn.yaml" config check 2>&1) || RC=$?
}
sns() { # sns "sna[1-2]" "snb[1-2]" ...: the supernodes: list, sn01..
	local i=1 n
	for n in "$@"; do printf '  - {name: sn%02d, nodes: "%s"}\n' "$i" "$n"; i=$((i + 1)); done
}

# ---- the cluster's own (generated, method switch) config passes ----
rc=0
out=$("$CTL" --config "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml" config check 2>&1) || rc=$?
assert_eq "generated config: exit" 0 "$rc"
assert_eq "generated config: output" \
	"config check: $SUPERNODE_CLUSTER_DIR/etc/supernode.yaml: 6 nodes in 3 supernodes, method switch: matches the running cluster" "$out"

check "$(sns 'sna[1-2]' 'snb[1-2]' 'snc[1-2]')" feature
assert_eq "method feature, matching: exit" 0 "$RC"

# ---- features: sna2 and snb2 swapped between sn01 and sn02 ----
check "$(sns 'sna1,snb2' 'snb1,sna2' 'snc[1-2]')" feature
assert_eq "swapped nodes, method feature: exit" 1 "$RC"
assert_eq "swapped nodes, method feature: output" "$(cat <<TXT
sna2: feature: expected sn02, found 'sn01'
snb2: feature: expected sn01, found 'sn02'
config check: $WORK/sn.yaml: 6 nodes in 3 supernodes, method feature: 2 mismatches
TXT
)" "$OUT"

# ---- switches: the same swap, then supernodes smaller than the leaves ----
check "$(sns 'sna1,snb2' 'snb1,sna2' 'snc[1-2]')" switch
assert_eq "swapped nodes, method switch: exit" 1 "$RC"
assert_eq "swapped nodes, method switch: output" "$(cat <<TXT
sn01: switch: expected all of sna1,snb2 under one leaf switch, found sna1 under sn01 and snb2 under sn02
sn02: switch: expected all of snb1,sna2 under one leaf switch, found snb1 under sn02 and sna2 under sn01
config check: $WORK/sn.yaml: 6 nodes in 3 supernodes, method switch: 2 mismatches
TXT
)" "$OUT"
check "$(sns sna1 snb1)" switch
assert_eq "one-node supernodes vs two-node leaves: output" "$(cat <<TXT
sn01: switch: expected leaf switch sn01 to hold exactly sna1 (1 node), found Nodes=sna[1-2] (2 nodes)
sn02: switch: expected leaf switch sn02 to hold exactly snb1 (1 node), found Nodes=snb[1-2] (2 nodes)
config check: $WORK/sn.yaml: 2 nodes in 2 supernodes, method switch: 2 mismatches
TXT
)" "$OUT"

# ---- a node Slurm does not know; a node outside the config with a feature ----
check "$(sns 'sna[1-2]' 'snd[1-2]')" feature
assert_eq "unknown nodes: exit" 1 "$RC"
assert_eq "unknown nodes, and snb/snc carrying no configured supernode: output" "$(cat <<TXT
snd1: not a Slurm node (expected: a node of supernode sn02)
snd2: not a Slurm node (expected: a node of supernode sn02)
snb1: feature: expected no supernode feature (in no supernode of the config), found sn02
snb2: feature: expected no supernode feature (in no supernode of the config), found sn02
config check: $WORK/sn.yaml: 4 nodes in 2 supernodes, method feature: 4 mismatches
TXT
)" "$OUT"

# ---- a node carrying two supernodes' features ----
scontrol update NodeName=sna1 AvailableFeatures=sn01,sn02 ActiveFeatures=sn01,sn02
check "$(sns 'sna[1-2]' 'snb[1-2]' 'snc[1-2]')" feature
assert_eq "sna1 with two supernode features: output" "$(cat <<TXT
sna1: feature: expected only supernode sn01, found supernode features sn01,sn02
config check: $WORK/sn.yaml: 6 nodes in 3 supernodes, method feature: 1 mismatch
TXT
)" "$OUT"

# ---- slurmctld not reachable: an error, exit 1, never "matches" ----
rc=0
out=$(SLURM_CONF=$WORK/none.conf "$CTL" --config "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml" config check 2>&1) || rc=$?
assert_eq "missing SLURM_CONF: exit" 1 "$rc"
assert_eq "missing SLURM_CONF: message" "supernodectl: config check: SLURM_CONF=$WORK/none.conf does not exist" "$out"
finish
