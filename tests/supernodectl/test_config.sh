#!/usr/bin/env bash
# supernodectl config slurm: exact output for a small config (every section,
# each section alone, tree and block, non-numeric names, the PrologSlurmctld
# note for a non-default config path), usage errors; config check without a
# reachable slurmctld.  No Slurm needed.
#   bash tests/supernodectl/test_config.sh SUPERNODECTL PLUGIN_DIR SBIN_DIR [SLURM_VERSION]
# SLURM_VERSION (X.Y.Z, the Slurm it was built for; default 22.05.0): from
# 25.05, --topology block also prints topology.yaml.
set -uo pipefail
CTL=${1:?path of supernodectl}
PLUGDIR=${2:?installed plugin folder}
SBIN=${3:?installed sbin folder}
SLURM_VERSION=${4:-22.05.0}
# The retry advice of config slurm: --requeue=expedite from Slurm 25.11.
REQUEUE="# SchedulerParameters: add nohold_on_prolog_fail (a job whose node fails
# supernode-prolog comes back pending, at most placement.max_requeues times)"
IFS=. read -r rmaj rmin _ <<<"$SLURM_VERSION"
if ((10#$rmaj * 100 + 10#$rmin >= 2511)); then
	REQUEUE+="
# SlurmctldParameters: add enable_expedited_requeue; a job submitted with
# sbatch --requeue=expedite then comes back at once, first in line, and its
# old nodes are kept out of other work until it has started again"
fi
FAILS=0
CHECKS=0
T=$(mktemp -d)
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT

pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL - $*"; }
assert_eq() {
	if [[ $2 == "$3" ]]; then pass "$1"; else
		fail "$1"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/       /'; fi
}
run() {
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# Written uncompressed and out of order on purpose: the output compresses.
cat >"$T/sn.yaml" <<'YAML'
supernodes:
  - name: sn01
    nodes: gpu-a002,gpu-a001,gpu-a003
  - name: sn02
    nodes: gpu-b[001-003]
placement:
  method: switch
YAML
C=(--config "$T/sn.yaml")

run "${C[@]}" config slurm
assert_eq "config slurm exit" 0 "$RC"
assert_eq "config slurm (switch: tree)" "$(cat <<TXT
# slurm.conf: add Feature=<supernode> to these nodes' NodeName lines
NodeName=gpu-a[001-003] Feature=sn01
NodeName=gpu-b[001-003] Feature=sn02
# topology.conf
SwitchName=sn01 Nodes=gpu-a[001-003]
SwitchName=sn02 Nodes=gpu-b[001-003]
SwitchName=top Switches=sn[01-02]
# plugstack.conf
required $PLUGDIR/supernode.so config=$T/sn.yaml
# slurm.conf
JobSubmitPlugins=supernode
# PrologSlurmctld gets no SLURM_CONF: supernode-prolog reads /etc/slurm/supernode.yaml;
# for $T/sn.yaml, name a script: exec supernode-prolog --config $T/sn.yaml
PrologSlurmctld=$SBIN/supernode-prolog
$REQUEUE
TopologyPlugin=topology/tree
TXT
)" "$OUT"
assert_eq "config slurm stderr" "" "$ERR"

run "${C[@]}" config slurm --section nodes
assert_eq "--section nodes" "$(printf '%s\n' 'NodeName=gpu-a[001-003] Feature=sn01' 'NodeName=gpu-b[001-003] Feature=sn02')" "$OUT"
run config slurm --config "$T/sn.yaml" --section topology --topology block
want="$(cat <<'TXT'
BlockName=sn01 Nodes=gpu-a[001-003]
BlockName=sn02 Nodes=gpu-b[001-003]
BlockSizes=3
TXT
)"
IFS=. read -r vmaj vmin _ <<<"$SLURM_VERSION"
if ((10#$vmaj * 100 + 10#$vmin >= 2505)); then
	want+=$'\n'"$(cat <<'TXT'
# topology.yaml (Slurm >= 25.05 reads it instead of topology.conf); a partition picks one with Topology=<name>
---
- topology: supernode
  cluster_default: true
  block:
    block_sizes:
      - 3
    blocks:
      - block: "sn01"
        nodes: "gpu-a[001-003]"
      - block: "sn02"
        nodes: "gpu-b[001-003]"
- topology: flat
  cluster_default: false
  flat: true
TXT
)"
fi
assert_eq "--section topology --topology block (Slurm $SLURM_VERSION)" "$want" "$OUT"

# method feature: no topology by default; --topology tree adds it.
cat >"$T/f.yaml" <<'YAML'
supernodes:
  - {name: rack-east, nodes: "e[1-2]"}
  - {name: rack-west, nodes: "w[1-2]"}
YAML
run --config "$T/f.yaml" config slurm --section topology
assert_eq "feature method: no topology" "0:" "$RC:$OUT"
run --config "$T/f.yaml" config slurm --section topology --topology tree
assert_eq "feature method, --topology tree, names without numbers" "$(cat <<'TXT'
SwitchName=rack-east Nodes=e[1-2]
SwitchName=rack-west Nodes=w[1-2]
SwitchName=top Switches=rack-east,rack-west
TXT
)" "$OUT"
run --config "$T/f.yaml" config slurm --section plugstack
assert_eq "feature method: plugstack, no TopologyPlugin" "$(cat <<TXT
required $PLUGDIR/supernode.so config=$T/f.yaml
# slurm.conf
JobSubmitPlugins=supernode
# PrologSlurmctld gets no SLURM_CONF: supernode-prolog reads /etc/slurm/supernode.yaml;
# for $T/f.yaml, name a script: exec supernode-prolog --config $T/f.yaml
PrologSlurmctld=$SBIN/supernode-prolog
$REQUEUE
TXT
)" "$OUT"

# ---- usage errors: exit 2, one line naming the problem ----
run "${C[@]}" config slurm --section all
assert_eq "--section all: exit" 2 "$RC"
assert_eq "--section all: message" "supernodectl: config slurm: --section is one of nodes, topology, plugstack (once)" "$(head -n 1 <<<"$ERR")"
run "${C[@]}" config slurm --topology ring
assert_eq "--topology ring" "2:supernodectl: config slurm: --topology is one of none, tree, block (once)" "$RC:$(head -n 1 <<<"$ERR")"
run "${C[@]}" config slurm extra
assert_eq "config slurm extra" "2:supernodectl: config slurm: unexpected argument 'extra'" "$RC:$(head -n 1 <<<"$ERR")"
run "${C[@]}" config slurm --bogus
assert_eq "config slurm --bogus" "2:supernodectl: unrecognized option '--bogus'" "$RC:$(head -n 1 <<<"$ERR")"
run "${C[@]}" config frobnicate
assert_eq "config frobnicate" "2:supernodectl: config: unknown subcommand 'frobnicate'" "$RC:$(head -n 1 <<<"$ERR")"
run "${C[@]}" config check extra
assert_eq "config check extra" "2:supernodectl: config check: unexpected argument 'extra'" "$RC:$(head -n 1 <<<"$ERR")"
run --config "$T/missing.yaml" config slurm
assert_eq "config slurm, config missing: exit" 1 "$RC"

# ---- validate keeps its option order ----
run config validate "$T/sn.yaml"
assert_eq "config validate FILE" "0:ok: 2 supernodes of 3 nodes, method switch" "$RC:$OUT"
run config validate "$T/f.yaml" --config "$T/sn.yaml"
assert_eq "config validate FILE --config PATH (FILE wins)" "0:ok: 2 supernodes of 2 nodes, method feature" "$RC:$OUT"

# ---- check: no slurmctld to ask is an error (1), never a pass ----
SLURM_CONF=$T/none.conf run "${C[@]}" config check
assert_eq "config check, no slurm.conf" "1:supernodectl: config check: SLURM_CONF=$T/none.conf does not exist" "$RC:$ERR"

# Every shipped example passes config validate (issue 18: one per vendor
# shape), and the six vendors each have theirs.
EX=$(cd "$(dirname "$0")/../../etc/examples" && pwd)
for f in "$EX"/*.yaml; do
	run config validate "$f"
	assert_eq "config validate $(basename "$f")" "0:ok:" "$RC:${OUT:0:3}"
done
for v in ascend hygon cambricon mthreads metax kunlunxin; do
	n=$(grep -l "^    vendor: $v " "$EX"/*.yaml | wc -l)
	if ((n >= 1)); then pass "an example for vendor $v"; else fail "no example for vendor $v"; fi
done

echo "$CHECKS checks, $FAILS failed"
((FAILS == 0))
