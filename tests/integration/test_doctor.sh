#!/usr/bin/env bash
# supernodectl doctor (issue 19 item 3) on a real local Slurm: a good node
# (every check OK, exit 0, the exact lines), then one node broken in each
# way doctor checks, each with the exact line it must print, and --json's
# shape.  Slurm's settings are changed in the cluster's slurm.conf and
# applied with scontrol reconfigure; files (plugins, plugstack.conf, the
# config, folders, libraries, the fake sysfs) are changed in place.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
CTL=$BUILD/contrib/supernodectl/supernodectl
NVML=$BUILD/tests/fake_nvml/libnvidia-ml.so.1
for f in "$CTL" "$NVML"; do [[ -e $f ]] || { echo "SKIP: $f not built"; exit 77; }; done

# The cluster loads its plugins from a copy of the build tree's spank/
# (restamped below), as test_release.sh.
REAL_BUILD=$BUILD
COPY=$(mktemp -d)
for f in "$REAL_BUILD"/*; do ln -s "$f" "$COPY/"; done
rm "$COPY/spank"
cp -r "$REAL_BUILD/spank" "$COPY/spank"
BUILD=$COPY

fx=$(mktemp -d)
chmod 755 "$fx" "$COPY"
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
done
: >"$fx/kmsg"
mkdir -p "$fx/nvml"
cp "$NVML" "$fx/nvml/libnvidia-ml.so.1"
cp "$SRC/tests/unit/fixtures/nvidia/fabric-h200x2.json" "$fx/nvml/nvml.json"
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
placement:
  method: feature
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
prolog:
  timeout: 20
  check_timeout: 10
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
  nvml: $fx/nvml/libnvidia-ml.so.1
YAML
cat >"$fx/extra.conf" <<EOF2
Prolog=$REAL_BUILD/prolog/supernode-prolog
Epilog=$REAL_BUILD/epilog/supernode-epilog
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=40
EOF2
cluster_up "it-doctor-$$" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx" "$COPY"' EXIT
CONF=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml
SCONF=$SUPERNODE_CLUSTER_DIR/etc/slurm.conf
PSTACK=$SUPERNODE_CLUSTER_DIR/etc/plugstack.conf
cp "$SCONF" "$fx/slurm.conf.good"
cp "$PSTACK" "$fx/plugstack.conf.good"
V=$(slurmctld -V | cut -d' ' -f2)
CTLD=$(scontrol show config | sed -n 's/^SlurmctldHost\[0\] *= *\([^(]*\).*/\1/p')
PLUGDIR=$("$CTL" --config "$CONF" config slurm --section plugstack | sed -n '1s#^required \(.*\)/supernode.so .*#\1#p')
SBIN=$("$CTL" --config "$CONF" config slurm --section plugstack | sed -n 's|^PrologSlurmctld=\(.*\)/supernode-prolog$|\1|p')

# doctor [ARGS...]: sets RC and OUT (stdout and stderr).
doctor() {
	set +e
	OUT=$("$CTL" --config "$CONF" doctor "$@" 2>&1)
	RC=$?
	set -e
}
# reconf: apply the edited slurm.conf, and wait until slurmctld answers
# again (on a loaded machine a doctor run in the middle of a reconfigure
# found slurmctld silent: exit 2 and no line of the check under test).
reconf() {
	local i
	scontrol reconfigure
	sleep 1
	for ((i = 0; i < 30; i++)); do
		scontrol show config >/dev/null 2>&1 && return 0
		sleep 1
	done
}
restore() {
	cp "$fx/slurm.conf.good" "$SCONF"
	reconf
}

doctor --node sna1
assert_eq "good node: exit" 0 "$RC"
GOOD=$OUT
echo "$GOOD"
assert_eq "good node: output" "OK slurmctld: $CTLD answers: Slurm $V
OK config: $CONF: 4 nodes in 2 supernodes, method feature
OK version-job-submit: $COPY/spank/job_submit_supernode.so is built for Slurm $V; slurmctld runs $V (same release)
OK plugstack: $PSTACK:2 names $COPY/spank/supernode.so
OK version-spank: $COPY/spank/supernode.so is built for Slurm $V; slurmd runs $V (same major.minor)
OK slurm-prolog: Prolog=$REAL_BUILD/prolog/supernode-prolog runs supernode-prolog
OK slurm-epilog: Epilog=$REAL_BUILD/epilog/supernode-epilog runs supernode-epilog
OK slurm-job-submit: JobSubmitPlugins=supernode has supernode
OK slurm-prolog-flags: PrologFlags=Alloc,DeferBatch has Alloc and DeferBatch
OK slurm-requeue: JobRequeue=1 and nohold_on_prolog_fail: a job whose node fails the prolog's check is requeued pending onto other nodes
OK slurm-timeout: PrologEpilogTimeout=40 s holds prolog.timeout 20 s and epilog.timeout 30 s with 5 s to spare
OK node: sna1 is in supernode sn01
OK folders: paths.state_dir, epilog.record_dir and epilog.textfile_dir pass the trusted-folder walk on sna1
OK library-nvml: $fx/nvml/libnvidia-ml.so.1 loads: driver 580.159.04
OK node-hardware: sna1 (sn01): all 1 checks pass" "$OUT"

# --json: one object, each check's level, name, finding, fix.
doctor --node sna1 --json
assert_eq "json: exit" 0 "$RC"
assert_eq "json: shape" "OK 0 15 level,name,finding,fix None" "$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
c = d["checks"]
print(d["level"], d["exit"], len(c), ",".join(c[0]), c[0]["fix"])' <<<"$OUT")"

# expect WHAT EXIT NAME "LEVEL NAME: ..." "  fix: ...": the exit and the two lines.
expect() {
	grep -q -E "^(OK|WARN|CRIT) $3: " <<<"$OUT" || echo "$OUT" | sed 's/^/    doctor: /'
	assert_eq "$1: exit" "$2" "$RC"
	assert_eq "$1: line" "$4
$5" "$(grep -E -A1 "^(OK|WARN|CRIT) $3: " <<<"$OUT" | head -n 2)"
}

# ---- versions: supernode.so restamped as the next minor release ----
cp "$COPY/spank/supernode.so" "$fx/supernode.so.good"
next=$(python3 - "$COPY/spank/supernode.so" <<'PY'
import struct, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["slurmd", "-V"], capture_output=True, text=True).stdout
major, minor, micro = (int(x) for x in out.split()[1].split(".")[:3])
old = struct.pack("<I", major << 16 | minor << 8 | micro)
new = struct.pack("<I", major << 16 | (minor + 1) << 8 | micro)
data = bytearray(open(path, "rb").read())
for i in [i for i in range(0, len(data) - 3, 4) if data[i:i + 4] == old]:
    data[i:i + 4] = new
open(path + ".new", "wb").write(data)
import os
os.rename(path + ".new", path)
print(f"{major}.{minor + 1:02d}.{micro}")
PY
)
doctor --node sna1
expect "spank plugin of $next" 2 version-spank \
	"CRIT version-spank: supernode.so $COPY/spank/supernode.so is built for Slurm $next, but slurmd runs $V: slurmd refuses it at its next start (a SPANK plugin loads only into its major.minor); rebuild it for $V before restarting slurmd" \
	"  fix: install supernode.so built for Slurm $V (the package for it, or rebuild against its headers), then restart slurmd"
cp "$fx/supernode.so.good" "$COPY/spank/supernode.so"

# ---- plugstack without our line ----
echo "# nothing of ours" >"$PSTACK"
doctor --node sna1
expect "plugstack without our line" 2 plugstack \
	"CRIT plugstack: no line of $PSTACK or its includes names supernode.so: srun, sbatch and salloc have no --supernode option" \
	"  fix: add the line \"required $PLUGDIR/supernode.so config=$CONF state_dir=$fx/%n/state\" to $PSTACK (or a file it includes, such as plugstack.conf.d/supernode.conf), then restart slurmd"
# ... and our line in an included plugstack.conf.d/*.conf is found.
mkdir -p "$SUPERNODE_CLUSTER_DIR/etc/plugstack.conf.d"
grep supernode.so "$fx/plugstack.conf.good" >"$SUPERNODE_CLUSTER_DIR/etc/plugstack.conf.d/supernode.conf"
echo "include plugstack.conf.d/*.conf" >>"$PSTACK"
doctor --node sna1
assert_contains "plugstack include: line" "OK plugstack: $SUPERNODE_CLUSTER_DIR/etc/plugstack.conf.d/supernode.conf:1 names $COPY/spank/supernode.so" "$OUT"
cp "$fx/plugstack.conf.good" "$PSTACK"

# ---- our line's arguments: state_dir= not the config's, one slurmd refuses ----
sed -i 's# state_dir=[^ ]*##' "$PSTACK"
doctor --node sna1
expect "plugstack without state_dir=" 1 plugstack-args \
	"WARN plugstack-args: $PSTACK:2: state_dir /var/spool/supernode is not paths.state_dir $fx/%n/state: every step reads the whole config, none the job's" \
	"  fix: give the line state_dir= as paths.state_dir (supernodectl config slurm --section plugstack prints it), then restart slurmd"
sed -i 's#config=#bogus=1 config=#' "$PSTACK"
doctor --node sna1
expect "plugstack with an argument slurmd refuses" 2 plugstack-args \
	"CRIT plugstack-args: $PSTACK:2: plugstack.conf: unknown argument 'bogus=1' (allowed: config=PATH, state_dir=PATH): supernode.so's init fails in every step" \
	"  fix: write the line as supernodectl config slurm --section plugstack prints it, then restart slurmd"
cp "$fx/plugstack.conf.good" "$PSTACK"

# ---- slurm.conf without Prolog, Epilog, JobSubmitPlugins, PrologFlags=Alloc ----
sed -i '/^Prolog=/d' "$SCONF"; reconf
doctor --node sna1
expect "no Prolog" 2 slurm-prolog \
	"CRIT slurm-prolog: slurm.conf has no Prolog: no node is checked before a job" \
	"  fix: set Prolog=$SBIN/supernode-prolog in slurm.conf (or exec it from your Prolog script), then scontrol reconfigure"
restore
sed -i '/^Epilog=/d' "$SCONF"; reconf
doctor --node sna1
expect "no Epilog" 1 slurm-epilog \
	"WARN slurm-epilog: slurm.conf has no Epilog: no per-job record, no drain after a job's Xid errors" \
	"  fix: set Epilog=$SBIN/supernode-epilog in slurm.conf (or exec it from your Epilog script), then scontrol reconfigure"
restore
sed -i 's/^JobSubmitPlugins=.*/JobSubmitPlugins=lua/' "$SCONF"; sed -i '/^JobSubmitPlugins=/d' "$SCONF"; reconf
doctor --node sna1
expect "no JobSubmitPlugins" 2 slurm-job-submit \
	"CRIT slurm-job-submit: JobSubmitPlugins= has no supernode: --supernode jobs are not placed on whole supernodes" \
	"  fix: add supernode to JobSubmitPlugins= in slurm.conf (JobSubmitPlugins=supernode), then restart slurmctld"
restore
sed -i 's/^PrologFlags=Alloc,DeferBatch/PrologFlags=Serial/; /^PrologFlags=Alloc$/d' "$SCONF"; reconf
doctor --node sna1
expect "PrologFlags without Alloc" 2 slurm-prolog-flags \
	"CRIT slurm-prolog-flags: PrologFlags=Serial has no Alloc: the prolog runs only where a step starts, so a job's other nodes are not checked before it runs" \
	"  fix: set PrologFlags=Alloc,DeferBatch in slurm.conf, then restart slurmctld and slurmd"
restore
sed -i 's/nohold_on_prolog_fail,//' "$SCONF"; reconf
doctor --node sna1
expect "no nohold_on_prolog_fail" 1 slurm-requeue \
	"WARN slurm-requeue: SchedulerParameters=sched_interval=2,bf_interval=1 has no nohold_on_prolog_fail: a job whose node fails the prolog's check is requeued held (launch failed requeued held) and waits for scontrol release" \
	"  fix: add nohold_on_prolog_fail to SchedulerParameters= in slurm.conf, then scontrol reconfigure"
restore

# ---- our timeout above PrologEpilogTimeout ----
sed -i 's/^PrologEpilogTimeout=40/PrologEpilogTimeout=30/' "$SCONF"; reconf
doctor --node sna1
expect "PrologEpilogTimeout 30" 2 slurm-timeout \
	"CRIT slurm-timeout: PrologEpilogTimeout=30 s is below epilog.timeout 30 s + 5 s: Slurm kills supernode-epilog before it ends and drains the node with its own reason" \
	"  fix: set PrologEpilogTimeout=35 (or more) in slurm.conf and scontrol reconfigure, or lower epilog.timeout in $CONF"
restore

# ---- an invalid config ----
printf 'supernodes:\n\t- bad\n' >"$fx/bad.yaml"
set +e; OUT=$("$CTL" --config "$fx/bad.yaml" doctor --node sna1 2>&1); RC=$?; set -e
assert_eq "invalid config: exit" 2 "$RC"
assert_contains "invalid config: line" "CRIT config: $fx/bad.yaml" "$OUT"
assert_contains "invalid config: fix" "  fix: correct $fx/bad.yaml as the message says (supernodectl config validate $fx/bad.yaml shows it too); until then every --supernode job is refused" "$OUT"

# ---- a folder owned by a user ----
mkdir -p "$fx/sna2/state"
chown nobody "$fx/sna2/state"
doctor --node sna2
expect "state_dir owned by nobody" 2 folders \
	"CRIT folders: paths.state_dir: $(grep -o "paths.state_dir: .*" <<<"$OUT" | head -n1 | cut -d' ' -f2-)" \
	"  fix: make every folder of paths.state_dir root's and writable by no one else (chown root:root; chmod go-w), or point it at such a folder"
assert_contains "state_dir owned by nobody: names the owner" "$fx/sna2/state" "$OUT"
chown root "$fx/sna2/state"

# ---- a library owned by nobody ----
chown nobody "$fx/nvml/libnvidia-ml.so.1"
doctor --node sna1
assert_eq "library owned by nobody: exit" 2 "$RC"
assert_contains "library owned by nobody: line" "CRIT library-nvml: paths.nvml: " "$OUT"
assert_contains "library owned by nobody: fix" "  fix: make $fx/nvml/libnvidia-ml.so.1 and every folder above it root's and writable by no one else (chown root:root; chmod go-w), or set paths.nvml to such a copy" "$OUT"
chown root "$fx/nvml/libnvidia-ml.so.1"

# ---- a hung library (the fake NVML's knob) ----
SN_FAKE_NVML_HANG=nvmlInit_v2 doctor --node sna1
expect "hung NVML" 2 library-nvml \
	"CRIT library-nvml: $fx/nvml/libnvidia-ml.so.1 did not answer within 10000 ms: the prolog's checks that use it time out" \
	"  fix: install the vendor's driver and library, or set paths.nvml to the library's path; check the driver (dmesg) when it hangs"

# ---- a node not in the config ----
doctor --node cpu9
expect "node not in the config" 1 node \
	"WARN node: cpu9 is in no supernode of $CONF: folders, libraries and hardware not checked" \
	"  fix: add cpu9 to a supernode's nodes: in $CONF if it runs supernode jobs; else run doctor there with --node NAME of a node of the config"
# ... but on the controller (a SlurmctldHost) that is only a note.
doctor --node "$CTLD"
assert_eq "controller: exit" 0 "$RC"
assert_contains "controller: line" "OK node: $CTLD is in no supernode of $CONF (it is a SlurmctldHost): folders, libraries and hardware not checked" "$OUT"

# ---- hardware that does not match the manifest ----
ib_port "$fx/snb1/sys" mlx5_0 1 "1: DOWN" "5: LinkUp" "400 Gb/sec (4X NDR)"
doctor --node snb1
expect "port down" 2 node-hardware \
	"CRIT node-hardware: snb1 (sn02): 1 of 1 checks not OK, first CRIT ib_port IB_PORT_DOWN mlx5_0/1: expected ACTIVE, found state=DOWN" \
	"  fix: repair snb1's hardware, or correct the node: manifest in $CONF if it is wrong; the prolog drains snb1 until then (supernodectl health --node snb1 resumes it once it passes)"
assert_eq "port down: nothing drained" "" "$(drained_nodes)"
finish
