#!/bin/bash
# On a GPU machine (the `device` tool; issue 12 items 2-3): the NVLink fabric
# gate and the identity against the real NVML of an HGX H200 board (fabric
# State Completed, Status Success, CliqueId 0, ClusterUUID all zeros: in no
# multi-node NVLink domain).
#   1. --check with no domain asked for: expect exit 0, no nvlink_fabric result
#   2. --check with node.accelerators.nvlink_domain: true: expect exit 2 and
#      CRIT FABRIC_NO_DOMAIN for every GPU
#   3. --check with an NVL72 identity recorded for its supernode: expect exit 2
#      and CRIT SUPERNODE_MISMATCH ("in no domain")
#   4. --identity --json: expect kind "none", identity null
# Results (outputs, JSON, nvidia-smi's Fabric section, a summary) go under
# $OUT.  Expects a bundle folder (tests/device/make-bundle build devbundle):
#   <device> bash devbundle/fabric_h200.sh
set -u
B=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?OUT must be set}"
P() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/supernode-prolog" "$@"; }
# SN_NVML: another library (a dry run here with tests/fake_nvml).
NVML=${SN_NVML:-$(ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 /usr/lib/libnvidia-ml.so.1 2>/dev/null | head -1)}
[ -z "$NVML" ] && NVML=$(find / -xdev -name 'libnvidia-ml.so.1' 2>/dev/null | head -1)
NGPU=$(nvidia-smi -L | wc -l)
{ echo "nvml: $NVML"; uname -r; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1; } >"$OUT/machine.txt"
nvidia-smi -q | sed -n '/^    Fabric/,/Partition Assigned/p' >"$OUT/nvidia-smi-fabric.txt"
# mk NAME EXTRA_ACCEL_LINES IDENTITY_LINE
mk() { cat >"$OUT/$1.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: "h200-[1-2]"
$3
node:
  accelerators:
    vendor: nvidia
    count: $NGPU
$2
prolog:
  timeout: 30
  check_timeout: 20
paths:
  nvml: $NVML
  state_dir: $OUT/state
  kmsg: /dev/kmsg
YAML
}
mk none "" ""
mk domain "    nvlink_domain: true" ""
mk identity "" "    identity: nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766"
S=$OUT/summary.txt
: >"$S"
# run NAME EXPECTED_EXIT ARGS...: one prolog run, its output and exit.
run() {
	local name=$1 want=$2 rc
	shift 2
	P "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
	echo "$name: exit $rc (expected $want) $([ "$rc" = "$want" ] && echo PASS || echo FAIL)" | tee -a "$S"
}
run check-none 0 --config "$OUT/none.yaml" --check --json --node h200-1
run check-domain 2 --config "$OUT/domain.yaml" --check --json --node h200-1
run check-identity 2 --config "$OUT/identity.yaml" --check --json --node h200-1
run identity-json 0 --config "$OUT/none.yaml" --identity --json --node h200-1
run identity-text 0 --config "$OUT/identity.yaml" --identity --node h200-1
run check-domain-table 2 --config "$OUT/domain.yaml" --check --node h200-1
# A board whose NVML answers fabric info (the 2x H200 HGX capture: State
# Completed, zero ClusterUUID) is FABRIC_NO_DOMAIN; one whose nvidia-smi shows
# the Fabric section N/A (the 1x H200 VM of 2026-12-01) is FABRIC_UNSUPPORTED.
want=FABRIC_NO_DOMAIN
grep -q 'State *: N/A' "$OUT/nvidia-smi-fabric.txt" && want=FABRIC_UNSUPPORTED
n=$(grep -o "\"code\": *\"$want\"" "$OUT/check-domain.out" | wc -l)
echo "$want results: $n (expected $NGPU) $([ "$n" = "$NGPU" ] && echo PASS || echo FAIL)" | tee -a "$S"
n=$(grep -c 'nvlink_fabric' "$OUT/check-none.out")
echo "nvlink_fabric results without a domain: $n (expected 0) $([ "$n" = 0 ] && echo PASS || echo FAIL)" | tee -a "$S"
grep -q '"code": *"SUPERNODE_MISMATCH"' "$OUT/check-identity.out" && r=PASS || r=FAIL
echo "SUPERNODE_MISMATCH with an NVL72 identity recorded: $r" | tee -a "$S"
grep -q '"kind":"none","identity":null' "$OUT/identity-json.out" && r=PASS || r=FAIL
echo "--identity --json kind none: $r" | tee -a "$S"
cat "$OUT/check-domain-table.out" "$OUT/identity-json.out" "$OUT/identity-text.out"
tar -C "$OUT" -czf /tmp/fabric_h200.tar.gz . && mv /tmp/fabric_h200.tar.gz "$OUT/"
! grep -q FAIL "$S"
