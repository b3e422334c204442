#!/usr/bin/env bash
# Issue 17 items 6 and 7: what root trusts, end to end with the real
# supernode-prolog, supernode-epilog and supernodectl (fake libnvidia-ml,
# the 2x H200 capture, no Slurm daemons).  Root only: it makes files of
# other owners and a system account.
#   - a symbolic link made by root in a folder only root may write is
#     followed (a stateless node's /var/spool -> /local/spool): the prolog's
#     lock and baseline and the epilog's baseline all land behind it, and
#     the epilog judges the job;
#   - a folder owned by a service account (Debian's /var/lib/prometheus,
#     owned by prometheus) is written into when paths.trusted_owners names
#     the account, and refused with the owner's name when it does not;
#   - a user's link in a sticky folder and a user's folder are refused with
#     the exact message, by the prolog's lock as by the epilog, and nothing
#     is written behind them;
#   - a library named by paths.nvml that is owned by nobody, group-writable
#     or in a user's folder is never loaded: the message names why, and its
#     constructor did not run (the fake's SN_FAKE_NVML_CTOR_MARK);
#   - supernodectl config validate prints every refusal and exits 1.
# Environment (from CMake): PROLOG, EPILOG, SNCTL, FAKE_NVML, FIXTURES.
set -u

[[ -x ${PROLOG:-} && -x ${EPILOG:-} && -x ${SNCTL:-} ]] || {
	echo "FAIL: supernode-prolog/epilog/supernodectl not built"; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "FAIL: run as root (files of other owners)"; exit 1; }
TRAFFIC=${FIXTURES:-/nonexistent}/nvidia/traffic-h200x2
[[ -r $TRAFFIC/nvml-h200x2-before-traffic.json && -r ${FAKE_NVML:-} ]] || {
	echo "FAIL: no fake libnvidia-ml (${FAKE_NVML:-}) or no $TRAFFIC"; exit 1; }

SVC=sn-trust-exporter # a system account, as Debian's prometheus
W=$(mktemp -d /tmp/sn-trust-XXXXXX)
made_user=0
cleanup() {
	rm -rf "$W"
	if ((made_user)); then userdel "$SVC" 2>/dev/null; fi
}
trap cleanup EXIT
chmod 755 "$W"
source "$(dirname "$0")/lib.sh"
rec() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$W/records/$1/h200-1.json" "$2"; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

if ! getent passwd "$SVC" >/dev/null; then
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$SVC" || {
		echo "FAIL: useradd -r $SVC"; exit 1; }
	made_user=1
fi
SVC_UID=$(id -u "$SVC")

# ---- the node: two H200s, no ports ----
for b in 0000:00:06.0 0000:00:07.0; do
	d=$W/sys/bus/pci/devices/$b
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x2335 >"$d/device"; echo 0x030200 >"$d/class"
done
mkdir -p "$W/dev" "$W/records"
: >"$W/dev/nvidia0"; : >"$W/dev/nvidia1"
printf '6,100,5000000,-;Linux version 6.1.0\n' >"$W/kmsg"
# config NAME STATE_DIR RECORD_DIR NVML [more lines under paths:] [epilog: lines]
config() {
	cat >"$W/$1.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "h200-[1-2]"}
node:
  accelerators: {vendor: nvidia, count: 2}
epilog:
  record_dir: $3
${6:-}
paths:
  sysfs: $W/sys
  dev: $W/dev
  kmsg: $W/kmsg
  nvml: $4
  state_dir: $2
${5:-}
YAML
}
export SLURM_CONF=$W/no-slurm.conf SLURMD_NODENAME=h200-1 SPANK_SUPERNODE=1
export SN_FAKE_NVML_FIXTURE=$W/nvml.json
cp "$TRAFFIC/nvml-h200x2-before-traffic.json" "$W/nvml.json"
# job JOB CONFIG: the prolog, then the epilog (same counters: nothing moved)
prolog() {
	SLURM_JOB_ID=$1 "$PROLOG" --config "$W/$2.yaml" >"$W/prolog-$1.out" 2>&1
	echo "prolog exit $?" >>"$W/prolog-$1.out"
}
epilog() {
	SLURM_JOB_ID=$1 "$EPILOG" --config "$W/$2.yaml" >"$W/epilog-$1.out" 2>&1
	echo "epilog exit $?" >>"$W/epilog-$1.out"
}
job() { prolog "$@"; epilog "$@"; }
validate() { "$SNCTL" --config "$W/$1.yaml" config validate 2>&1; echo "exit $?"; }

# ---- item 7: a symlinked spool made by root (a stateless node) ----
mkdir -p "$W/local/spool" "$W/var"
ln -s "$W/local/spool" "$W/var/spool"
config spool "$W/var/spool/supernode" "$W/records" "$FAKE_NVML"
prolog 201 spool
assert_eq "symlinked spool: the prolog said nothing" "prolog exit 0" "$(cat "$W/prolog-201.out")"
assert_eq "symlinked spool: lock and baseline behind the link" "baseline prolog.lock taskenv 201.json" \
	"$(ls "$W/local/spool/supernode" | tr '\n' ' ')$(ls "$W/local/spool/supernode/baseline" 2>/dev/null)"
epilog 201 spool
assert_eq "symlinked spool: the epilog said nothing" "epilog exit 0" "$(cat "$W/epilog-201.out")"
assert_eq "symlinked spool: the epilog judged against the baseline" ok "$(rec 201 'd["baseline"]')"
assert_eq "symlinked spool: validate" "ok: 1 supernodes of 2 nodes, method feature
exit 0" "$(validate spool)"

# ---- item 7: a folder of a service account (Debian's prometheus) ----
mkdir -p "$W/varlib/prometheus"
chown "$SVC:" "$W/varlib/prometheus"
config svc "$W/state" "$W/records" "$FAKE_NVML" "  trusted_owners: [$SVC]" \
	"  textfile_dir: $W/varlib/prometheus/node-exporter"
job 202 svc
assert_eq "service account named: epilog exit 0, nothing said" "epilog exit 0" "$(cat "$W/epilog-202.out")"
assert_eq "service account named: supernode.prom written" yes \
	"$([[ -s $W/varlib/prometheus/node-exporter/supernode.prom ]] && echo yes)"
config svc-unnamed "$W/state" "$W/records" "$FAKE_NVML" "" \
	"  textfile_dir: $W/varlib/prometheus/other"
job 203 svc-unnamed
assert_contains "service account not named: refused, owner named" \
	"job 203: Prometheus textfile not updated: folder owned by uid $SVC_UID ($SVC), not by root: $W/varlib/prometheus" \
	"$(cat "$W/epilog-203.out")"
assert_eq "service account not named: nothing written" no "$([[ -e $W/varlib/prometheus/other ]] && echo yes || echo no)"
assert_eq "service account not named: validate prints it" \
	"supernodectl: epilog.textfile_dir: folder owned by uid $SVC_UID ($SVC), not by root: $W/varlib/prometheus
exit 1" "$(validate svc-unnamed)"
# a person's account is never trusted, even when named
config svc-person "$W/state" "$W/records" "$FAKE_NVML" "  trusted_owners: [nobody]" \
	"  textfile_dir: $W/shared/evil/prom"

# ---- item 7: user-writable components stay refused ----
mkdir -p "$W/shared" "$W/local/spool2"
chmod 1777 "$W/shared"
as_nobody ln -s "$W/local/spool2" "$W/shared/spool"
as_nobody mkdir "$W/shared/evil"
config user "$W/shared/spool/supernode" "$W/shared/evil/records" "$FAKE_NVML"
job 204 user
assert_contains "user's link: the prolog's lock refuses it" \
	"job 204: prolog lock not taken, checking anyway: a symbolic link, not followed: $W/shared/spool" \
	"$(cat "$W/prolog-204.out")"
assert_contains "user's link: no baseline, said" \
	"job 204: no baseline for the epilog: a symbolic link, not followed: $W/shared/spool" \
	"$(cat "$W/prolog-204.out")"
assert_eq "user's link: nothing written behind it" "" "$(ls -A "$W/local/spool2")"
assert_contains "user's folder: record refused" \
	"job 204: record not written (the node is not drained for it): folder owned by uid 65534 (nobody), not by root: $W/shared/evil" \
	"$(cat "$W/epilog-204.out")"
assert_eq "user's folder: nothing written in it" "" "$(ls -A "$W/shared/evil")"
assert_eq "user's layout: validate prints both" \
	"supernodectl: paths.state_dir: a symbolic link, not followed: $W/shared/spool
supernodectl: epilog.record_dir: folder owned by uid 65534 (nobody), not by root: $W/shared/evil
exit 1" "$(validate user)"
assert_eq "nobody in trusted_owners: still refused (not a system account)" \
	"supernodectl: epilog.textfile_dir: folder owned by uid 65534 (nobody), not by root: $W/shared/evil
exit 1" "$(validate svc-person)"

# ---- item 6: the library of paths.nvml ----
# check CONFIG MARK: the prolog's --check, the fake's constructor marking MARK
check() { SN_FAKE_NVML_CTOR_MARK=$W/$2 "$PROLOG" --config "$W/$1.yaml" --node h200-1 --check 2>&1; }
mkdir -p "$W/lib" "$W/evil" "$W/gw" "$W/userdir"
ln -s "$FAKE_NVML" "$W/lib/libnvidia-ml.so.1"
config lib-ok "$W/state" "$W/records" "$W/lib/libnvidia-ml.so.1"
out=$(check lib-ok mark-ok)
assert_eq "root's library through root's link: loaded, constructor ran" "yes" \
	"$([[ -e $W/mark-ok && $out != *NVML_UNAVAILABLE* ]] && echo yes || echo "no: $out")"
cp "$FAKE_NVML" "$W/evil/libnvidia-ml.so.1"
chown 65534:65534 "$W/evil/libnvidia-ml.so.1"
config lib-nobody "$W/state" "$W/records" "$W/evil/libnvidia-ml.so.1" \
	"  dcmi: $W/evil/libnvidia-ml.so.1"
out=$(check lib-nobody mark-nobody)
assert_contains "library owned by nobody: refused, owner named" \
	"library owned by uid 65534 (nobody), not by root: $W/evil/libnvidia-ml.so.1" "$out"
assert_eq "library owned by nobody: its constructor did not run" no \
	"$([[ -e $W/mark-nobody ]] && echo yes || echo no)"
cp "$FAKE_NVML" "$W/gw/libnvidia-ml.so.1"
chmod 0775 "$W/gw/libnvidia-ml.so.1"
config lib-gw "$W/state" "$W/records" "$W/gw/libnvidia-ml.so.1"
out=$(check lib-gw mark-gw)
assert_contains "group-writable library: refused" \
	"library writable by group or others: $W/gw/libnvidia-ml.so.1" "$out"
assert_eq "group-writable library: its constructor did not run" no \
	"$([[ -e $W/mark-gw ]] && echo yes || echo no)"
cp "$FAKE_NVML" "$W/userdir/libnvidia-ml.so.1"
chown 65534:65534 "$W/userdir"
config lib-dir "$W/state" "$W/records" "$W/userdir/libnvidia-ml.so.1"
out=$(check lib-dir mark-dir)
assert_contains "library in a user's folder: refused" \
	"folder owned by uid 65534 (nobody), not by root: $W/userdir" "$out"
assert_eq "library in a user's folder: its constructor did not run" no \
	"$([[ -e $W/mark-dir ]] && echo yes || echo no)"
assert_eq "libraries: validate prints paths.nvml and paths.dcmi" \
	"supernodectl: paths.nvml: library owned by uid 65534 (nobody), not by root: $W/evil/libnvidia-ml.so.1
supernodectl: paths.dcmi: library owned by uid 65534 (nobody), not by root: $W/evil/libnvidia-ml.so.1
exit 1" "$(validate lib-nobody)"
SLURM_JOB_ID=205 SN_FAKE_NVML_CTOR_MARK=$W/mark-epilog "$EPILOG" --config "$W/lib-nobody.yaml" >"$W/epilog-205.out" 2>&1
assert_eq "library owned by nobody: the epilog did not run it either" no \
	"$([[ -e $W/mark-epilog ]] && echo yes || echo no)"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
