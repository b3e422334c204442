#!/usr/bin/env bash
# Issue 17, items 5, 12 and 14 (refusal), against a real local Slurm:
#   - a partition with OverSubscribe=FORCE refuses --supernode at
#     submission, naming the partition and its setting (job_submit reads
#     the partition record: needs the configured Slurm headers), and
#     config check warns about it;
#   - an --exclude of 0.5 MB is refused at submission with its message;
#   - config check says so when the job_submit plugin on disk is not of
#     the running slurmctld's exact release (a patch upgrade), before
#     anyone restarts slurmctld: the plugin is restamped 22.05.9-style
#     (micro + 1) in a copy of the build's spank/ that the cluster loads.
source "$(dirname "$0")/lib.sh"
CTL=$BUILD/contrib/supernodectl/supernodectl
[[ -x $CTL ]] || { echo "SKIP: $CTL not built"; exit 77; }

# The cluster loads its plugins from a copy of the build tree's spank/.
REAL_BUILD=$BUILD
FAKE=$(mktemp -d)
for f in "$REAL_BUILD"/*; do ln -s "$f" "$FAKE/"; done
rm "$FAKE/spank"
cp -r "$REAL_BUILD/spank" "$FAKE/spank"
BUILD=$FAKE
printf 'PartitionName=shared Nodes=ALL OverSubscribe=FORCE:2 State=UP MaxTime=INFINITE\n' >"$FAKE/extra.conf"
cluster_up "it-release-$$" --supernodes 3 --extra "$FAKE/extra.conf"
CONF=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml

# ---- OverSubscribe=FORCE ----
if [[ ${SN_JOB_MODIFY:-0} == 1 ]]; then
	rc=0
	out=$(sbatch --parsable --supernode=1 -p shared -o /dev/null --wrap true 2>&1) || rc=$?
	assert_eq "sbatch -p shared: exit" 1 "$rc"
	assert_contains "sbatch -p shared: message" \
		"supernode: --supernode cannot run in partition shared: it has OverSubscribe=FORCE:2, so Slurm would share its nodes with other jobs whatever the job asks for; submit to a partition with OverSubscribe=NO or EXCLUSIVE" "$out"
	rc=0
	out=$(sbatch --parsable --supernode=1 -p main,shared -o /dev/null --wrap true 2>&1) || rc=$?
	assert_eq "sbatch -p main,shared: exit" 1 "$rc"
	assert_contains "sbatch -p main,shared: message" "partition shared: it has OverSubscribe=FORCE:2" "$out"
fi
rc=0
j=$(sbatch --parsable --supernode=1 -o /dev/null --wrap true 2>&1) || rc=$?
assert_eq "sbatch in the default partition: exit" 0 "$rc"
scancel "$j" 2>/dev/null || true

rc=0
out=$("$CTL" --config "$CONF" config check 2>&1) || rc=$?
assert_eq "config check, same release: exit" 0 "$rc"
assert_eq "config check, same release: output" "$(cat <<TXT
warning: partition shared has OverSubscribe=FORCE:2: Slurm shares its nodes whatever a job asks for, so job_submit refuses --supernode jobs there
config check: $CONF: 6 nodes in 3 supernodes, method feature: matches the running cluster
TXT
)" "$out"

# ---- a 0.5 MB --exclude (65536 names of a node in no supernode) ----
list=$(python3 -c 'print(",".join(["cpu00001"] * 65536), end="")')
printf '#!/bin/bash\n#SBATCH --exclude=%s\ntrue\n' "$list" >"$WORK/big.sh"
rc=0
out=$(sbatch --parsable --supernode=1 -o /dev/null "$WORK/big.sh" 2>&1) || rc=$?
assert_eq "sbatch, 0.5 MB --exclude: exit" 1 "$rc"
assert_contains "sbatch, 0.5 MB --exclude: message" \
	"supernode: --exclude names 65536 hosts, more than the 6 nodes of all supernodes in the config: a --supernode job runs only on those, so list only them" "$out"

# ---- a 0.5 MB --nodelist (65536 names; sbatch may compress it) ----
list=$(python3 -c 'print(",".join("sn%06d" % i for i in range(65536)), end="")')
printf '#!/bin/bash\n#SBATCH --nodelist=%s\ntrue\n' "$list" >"$WORK/big.sh"
rc=0
out=$(sbatch --parsable --supernode=1 -o /dev/null "$WORK/big.sh" 2>&1) || rc=$?
assert_eq "sbatch, 0.5 MB --nodelist: exit" 1 "$rc"
assert_contains "sbatch, 0.5 MB --nodelist: message" \
	"supernode: --nodelist names 65536 hosts, more than the 6 nodes of all supernodes in the config" "$out"

# ---- the job_submit plugin on disk of another patch release ----
want=$(python3 - "$FAKE/spank/job_submit_supernode.so" <<'PY'
import struct, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["slurmctld", "-V"], capture_output=True, text=True).stdout
major, minor, micro = (int(x) for x in out.split()[1].split(".")[:3])
old = struct.pack("<I", major << 16 | minor << 8 | micro)
new = struct.pack("<I", major << 16 | minor << 8 | (micro + 1))
data = bytearray(open(path, "rb").read())
hits = [i for i in range(0, len(data) - 3, 4) if data[i:i + 4] == old]
for i in hits:
    data[i:i + 4] = new
tmp = path + ".new"
open(tmp, "wb").write(data)
import os
os.rename(tmp, path)
print(f"{major}.{minor:02d}.{micro + 1} {major}.{minor:02d}.{micro}")
PY
)
read -r stamped running <<<"$want"
rc=0
out=$("$CTL" --config "$CONF" config check 2>&1) || rc=$?
assert_eq "config check, plugin of $stamped: exit" 1 "$rc"
assert_contains "config check, plugin of $stamped: line" \
	"job_submit_supernode.so $FAKE/spank/job_submit_supernode.so is built for Slurm $stamped, but slurmctld runs $running: slurmctld refuses it at its next start (it loads only a plugin of its exact release); rebuild it for $running before restarting slurmctld" "$out"
assert_contains "config check, plugin of $stamped: summary" "method feature: 1 mismatch" "$out"
rm -rf "$FAKE"
finish
