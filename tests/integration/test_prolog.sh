#!/usr/bin/env bash
# The prolog on a real local Slurm: one node of supernode A has its fabric
# port DOWN; two --supernode=1 jobs are submitted; neither runs on A; that
# node is drained with our precise reason; both jobs run on B.  A node an
# admin drained keeps the admin's reason; a broken config drains nothing.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
PROLOG=$BUILD/prolog/supernode-prolog
[[ -x $PROLOG ]] || { echo "SKIP: $PROLOG not built"; exit 77; }

name="it-prolog-$$"
root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
done
ib_port "$fx/sna1/sys" mlx5_0 1 "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)"
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
YAML
: >"$fx/kmsg"
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
CONF
cluster_up "$name" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

script='echo "$SLURMD_NODENAME"; srun printenv SLURMD_NODENAME'
j1=$(sbatch --parsable --supernode=1 -o "$WORK/j1.out" --wrap "$script")
j2=$(sbatch --parsable --supernode=1 -o "$WORK/j2.out" --wrap "$script")
wait_state "$j2" COMPLETED 60
wait_state "$j1" COMPLETED 90

reason=$(sinfo -h -n sna1 -o '%E')
# The DOWN port is also Polling (IB_PORT_PHYS): the first fault, then a count.
assert_eq "sna1 drain reason" "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE (+1 more)" "$reason"
assert_contains "sna1 state" "drain" "$(sinfo -h -n sna1 -o '%t')"
assert_eq "job $j1 final nodes" "snb[1-2]" "$(job_field "$j1" NodeList)"
assert_eq "job $j2 nodes" "snb[1-2]" "$(job_field "$j2" NodeList)"
assert_eq "job $j1 was requeued once" 1 "$(job_field "$j1" Restarts)"
ran=$(cat "$WORK/j1.out" "$WORK/j2.out" | sort -u | paste -sd' ')
assert_eq "nodes the jobs' scripts and steps ran on" "snb1 snb2" "$ran"
assert_eq "healthy sna2 not drained" "idle" "$(sinfo -h -n sna2 -o '%t')"
base=$(ls "$fx/snb1/state/baseline/")
assert_contains "baseline files on snb1" "$j2.json" "$base"

# An admin's drain is left exactly as it is, even when our check fails there.
scontrol update nodename=sna1 state=resume
scontrol update nodename=sna1 state=drain reason="bad dimm, ticket 4711"
set +e
SLURM_JOB_ID=999 SLURMD_NODENAME=sna1 SPANK_SUPERNODE=1 "$PROLOG" >/dev/null 2>&1
rc=$?
set -e
assert_eq "prolog exit on the failing, admin-drained node" 2 "$rc"
assert_eq "admin's reason kept" "bad dimm, ticket 4711" "$(sinfo -h -n sna1 -o '%E')"

# A config that does not load drains nothing (and lets the job run).
scontrol update nodename=sna1 state=resume
cp "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml" "$fx/good.yaml"
printf 'supernodes:\n\t- bad\n' >"$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
set +e
SLURM_JOB_ID=998 SLURMD_NODENAME=sna1 SPANK_SUPERNODE=1 "$PROLOG" >/dev/null 2>&1
rc=$?
set -e
assert_eq "prolog exit with a broken config" 0 "$rc"
state=$(sinfo -h -n sna1 -o '%t')
assert_eq "sna1 after a broken-config prolog (not drained)" "idle" "${state%\*}"
cp "$fx/good.yaml" "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"

# Jobs without --supernode are not checked (prolog.all_jobs is false).
j3=$(sbatch --parsable -w sna1 -o /dev/null --wrap true)
wait_state "$j3" COMPLETED
assert_eq "plain job on the faulty node: node still idle" "idle" "$(sinfo -h -n sna1 -o '%t')"
finish
