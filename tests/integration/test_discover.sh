#!/usr/bin/env bash
# supernodectl discover and the drift guard on a real local Slurm (issue 12
# item 3).  Each node gets its own fake NVML through a %n path
# (paths.nvml: $fx/%n/libnvidia-ml.so.1; the fake reads nvml.json beside
# itself): sna1-2 are one NVL72 domain, snb1-2 another with the same
# sentinel clique 32766.  Two partitions: side (the default) holds
# sna1-2, main all four, so snb1-2 are outside the default partition.
# discover (one srun step of supernode-prolog --identity --json per
# partition: sna1-2 in side, snb1-2 in main) must print both supernodes
# with their identities; a node whose GPUs report a zero cluster UUID is
# listed as not placed, never guessed; one without NVML is named with what
# to install.  A node that hangs: its step times
# out, the answers of the others are kept, it alone is listed.  A
# partition that is down: its nodes are not asked.  Right after a
# discover its nodes are completing (a slow epilog): the next one waits
# for them, up to --timeout, and says so.  With the identities recorded in supernode.yaml, a --supernode=1
# job runs; when the config records another domain for sn02, the prolog
# drains its nodes with SUPERNODE_MISMATCH.
source "$(dirname "$0")/lib.sh"
PROLOG=$BUILD/prolog/supernode-prolog
CTL=$BUILD/contrib/supernodectl/supernodectl
FAKE=$BUILD/tests/fake_nvml/libnvidia-ml.so.1
FIX=$SRC/tests/unit/fixtures
for f in "$PROLOG" "$CTL" "$FAKE"; do
	[[ -x $f || -r $f ]] || { echo "SKIP: $f not built"; exit 77; }
done
unset SN_FAKE_NVML_FIXTURE
A=nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766
B=nvlink:b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766

name="it-discover-$$"
root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
chmod 755 "$fx"
# gpus NODE FIXTURE: NODE's fake NVML answers FIXTURE.
gpus() {
	mkdir -p "$fx/$1"
	cp "$FAKE" "$fx/$1/libnvidia-ml.so.1"
	cp "$2" "$fx/$1/nvml.json"
	chmod -R a+rX "$fx/$1"
}
for n in sna1 sna2; do gpus $n "$FIX/accel/fabric-nvl72-domain-a.json"; done
for n in snb1 snb2; do gpus $n "$FIX/accel/fabric-nvl72-domain-b.json"; done
# config [SN01_IDENTITY SN02_IDENTITY]: supernode.yaml to stdout.
config() {
	cat <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
${1:+    identity: $1}
  - name: sn02
    nodes: snb[1-2]
${2:+    identity: $2}
placement:
  method: feature
prolog:
  timeout: 20
  check_timeout: 10
paths:
  nvml: $fx/%n/libnvidia-ml.so.1
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
YAML
}
config >"$fx/supernode.yaml"
: >"$fx/kmsg"
# The epilog keeps a node COMPLETING for 8 s while $fx/slow-epilog exists.
cat >"$fx/epilog" <<SH
#!/bin/bash
[[ -e $fx/slow-epilog ]] && sleep 8
exit 0
SH
chmod 755 "$fx/epilog"
cat >"$fx/extra.conf" <<CONF
PartitionName=side Nodes=sna[1-2] Default=YES State=UP MaxTime=INFINITE
Prolog=$PROLOG
Epilog=$fx/epilog
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
cluster_up "$name" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT
CFG=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml

# discover [PROLOG [TIMEOUT]]: OUT (stdout), ERR (stderr), RC.
discover() {
	set +e
	OUT=$("$CTL" --config "$CFG" discover --prolog "${1:-$PROLOG}" --timeout "${2:-60}" 2>"$WORK/discover.err")
	RC=$?
	set -e
	ERR=$(<"$WORK/discover.err")
}

# ---- every node in a domain, two partitions -------------------------------
assert_eq "the default partition is side" "side*" "$(sinfo -h -n snb1,sna1 -o '%P' | grep '\*$')"
discover
assert_eq "discover: exit (all placed)" 0 "$RC"
assert_contains "discover: a step in side" "partition side: 2 node(s) asked, 2 answer(s)" "$ERR"
assert_contains "discover: a step in main" "partition main: 2 node(s) asked, 2 answer(s)" "$ERR"
assert_eq "discover: the supernodes: section" "supernodes:
  - name: sn01
    nodes: \"sna[1-2]\"
    identity: $A
  - name: sn02
    nodes: \"snb[1-2]\"
    identity: $B" "$(sed -n '/^supernodes:/,/^#/p' <<<"$OUT" | grep -v '^#')"
assert_eq "discover: block topology" "#   BlockName=sn01 Nodes=sna[1-2]
#   BlockName=sn02 Nodes=snb[1-2]
#   BlockSizes=2" "$(grep '^#   Block' <<<"$OUT")"
out=$(srun -w sna2 -N1 "$PROLOG" --config "$CFG" --identity)
assert_eq "--identity on sna2 through its %n fake NVML" "identity   $A (4 GPUs)" "$(sed -n 2p <<<"$out")"

# ---- right after a discover, its nodes are completing: waited for -------
# Each step's job leaves its nodes COMPLETING while the epilog runs (8 s
# here): a discover right after waits for them, up to --timeout.
touch "$fx/slow-epilog"
discover
discover "" 2
assert_eq "discover right after, --timeout 2: exit 1 (none asked)" 1 "$RC"
assert_eq "discover right after, --timeout 2: sna1 not asked, completing" \
	"#   sna1: not idle (completing): not asked" "$(grep '^#   sna1' <<<"$OUT")"
assert_contains "discover right after, --timeout 2: said on stderr" \
	"supernodectl: 4 node(s) still completing after 2 s, not asked: sna[1-2],snb[1-2]" "$ERR"
discover
assert_eq "discover right after, --timeout 60: exit 0 (waited)" 0 "$RC"
assert_contains "discover right after: the wait said" \
	"supernodectl: 4 node(s) completing a job (sna[1-2],snb[1-2]): waiting up to 60 s" "$ERR"
assert_contains "discover right after: sn02 placed" "nodes: \"snb[1-2]\"" "$OUT"
rm -f "$fx/slow-epilog"
for ((i = 0; i < 100; i++)); do
	[[ $(sinfo -h -t completing -o '%n' | wc -l) == 0 ]] && break
	sleep 0.2
done

# ---- a node in no domain is not placed, with the reason -----------------
cp "$FIX/nvidia/fabric-h200x2.json" "$fx/snb2/nvml.json"
discover
assert_eq "discover with snb2 in no domain: exit 1" 1 "$RC"
assert_eq "discover: snb2 listed with the reason" \
	"#   snb2: none: cluster UUID is zero on every GPU: no multi-node NVLink domain" \
	"$(grep '^#   snb2' <<<"$OUT")"
assert_contains "discover: sn02 is snb1 alone" "nodes: \"snb1\"" "$OUT"
cp "$FIX/accel/fabric-nvl72-domain-b.json" "$fx/snb2/nvml.json"

# ---- a node without NVML: what is missing and what to install (issue 19) --
mv "$fx/snb2/libnvidia-ml.so.1" "$fx/snb2/away.so"
discover
mv "$fx/snb2/away.so" "$fx/snb2/libnvidia-ml.so.1"
assert_eq "discover: snb2 without NVML, what to install" \
	"#   snb2: config: NVIDIA's NVML library not found where paths.nvml points: install the NVIDIA driver's libnvidia-ml package, or correct paths.nvml: $fx/snb2/libnvidia-ml.so.1" \
	"$(grep '^#   snb2' <<<"$OUT")"

# ---- a node that hangs: its step times out, the others' answers are kept --
cat >"$fx/hang-prolog" <<SH
#!/bin/bash
[[ \$SLURMD_NODENAME == snb2 ]] && exec sleep 300
exec "$PROLOG" "\$@"
SH
chmod 755 "$fx/hang-prolog"
start=$SECONDS
discover "$fx/hang-prolog" 15
assert_eq "discover with snb2 hung: exit 1" 1 "$RC"
if ((SECONDS - start < 45)); then pass "hung step stopped at its time limit ($((SECONDS - start)) s)"; else
	fail "discover took $((SECONDS - start)) s with a 15 s limit"; fi
assert_eq "discover: snb2 listed, the step's timeout named" \
	"#   snb2: no answer: the step in partition main did not finish in 15 s" \
	"$(grep '^#   snb2' <<<"$OUT")"
assert_contains "discover: snb1's answer kept" "nodes: \"snb1\"" "$OUT"
assert_contains "discover: sna1-2 placed (their step in side)" "nodes: \"sna[1-2]\"" "$OUT"
assert_contains "discover: the timeout on stderr" \
	"partition main: 2 node(s) asked, 1 answer(s); the step in partition main did not finish in 15 s" "$ERR"
# The step's job was cancelled: snb2 comes back idle without waiting for -t1.
for ((i = 0; i < 100; i++)); do
	[[ $(sinfo -h -n snb2 -o '%T') == idle ]] && break
	sleep 0.2
done
assert_eq "snb2 idle again after the cancel" idle "$(sinfo -h -n snb2 -o '%T')"

# ---- a partition that is down: its nodes are not asked -------------------
scontrol update partitionname=main state=down
discover
scontrol update partitionname=main state=up
assert_eq "discover with main down: exit 1" 1 "$RC"
assert_eq "discover: snb1 not asked, main down" \
	"#   snb1: idle, in no partition that is up (main (down)): not asked" \
	"$(grep '^#   snb1' <<<"$OUT")"
assert_contains "discover with main down: sna1-2 placed" "nodes: \"sna[1-2]\"" "$OUT"

# ---- a node that is not idle is not asked --------------------------------
scontrol update nodename=snb1 state=drain reason="bench"
discover
assert_eq "discover with snb1 drained: snb1 not asked" "#   snb1: not idle (drained): not asked" \
	"$(grep '^#   snb1' <<<"$OUT")"
scontrol update nodename=snb1 state=resume

# ---- the drift guard ------------------------------------------------------
config "$A" "$B" >"$CFG"
j1=$(sbatch --parsable -p main --supernode=1 -o "$WORK/j1.out" --wrap 'srun hostname')
wait_state "$j1" COMPLETED 60
assert_eq "identities as recorded: nothing drained" "" "$(drained_nodes)"

# sn02 recorded in domain A: its nodes report B.  sn01 is held by an admin,
# so the job goes to sn02; the prolog drains both with SUPERNODE_MISMATCH.
config "$A" "$A" >"$CFG"
scontrol update nodename=sna[1-2] state=drain reason="admin: held"
j2=$(sbatch --parsable -p main --supernode=1 -o "$WORK/j2.out" --wrap 'srun hostname')
for ((i = 0; i < 150; i++)); do
	[[ $(sinfo -h -n snb1,snb2 -t drain -o '%n' | wc -l) == 2 ]] && break
	sleep 0.2
done
r1=$(sinfo -h -n snb1 -o '%E')
assert_contains "snb1 drained with SUPERNODE_MISMATCH" "supernode: SUPERNODE_MISMATCH" "$r1"
assert_contains "snb1's reason names what the GPUs report" "${B#nvlink:}" "$r1"
assert_contains "snb2 drained with SUPERNODE_MISMATCH" "SUPERNODE_MISMATCH" "$(sinfo -h -n snb2 -o '%E')"
assert_eq "the admin's reason on sna1 kept" "admin: held" "$(sinfo -h -n sna1 -o '%E')"
scancel "$j2" || true
finish
