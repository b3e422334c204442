#!/usr/bin/env bash
# A node whose kernel hands out every port as an ephemeral one
# (net.ipv4.ip_local_port_range = "1024 65535", common on controllers and
# container hosts) covers the default env.master_port_range [20000, 29999].
# Issue 17 item 3: the port range decides MASTER_PORT only.  The whole
# cluster (slurmctld, slurmd, prolog, epilog, supernodectl) runs in its own
# network namespace, whose ip_local_port_range is set to 1024-65535 (the
# sysctl is per namespace: the machine's own stays as it is).  Then:
# --supernode jobs are accepted, the prolog checks, the epilog records and
# drains, `supernodectl health` runs, the job gets its environment
# without MASTER_PORT and slurmd's log says why, `config validate` and
# `config check` warn.
source "$(dirname "$0")/lib.sh"
if [[ -z ${SN_IN_NETNS:-} ]]; then
	skip_unless_possible
	exec env SN_IN_NETNS=1 unshare --net -- bash "$0" "$@"
fi
# Loopback, and one IPv4 address elsewhere: glibc's getaddrinfo() with
# AI_ADDRCONFIG (Slurm's) finds no IPv4 address on loopback alone.
ip link set lo up
ip tuntap add dev sn0 mode tap
ip addr add 10.254.0.1/32 dev sn0
echo "1024 65535" >/proc/sys/net/ipv4/ip_local_port_range
read -r elo ehi </proc/sys/net/ipv4/ip_local_port_range
assert_eq "this namespace's ephemeral range" "1024 65535" "$elo $ehi"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
CTL=$BUILD/contrib/supernodectl/supernodectl

fx=$(mktemp -d)
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
	ib_counter "$fx/$n/sys" mlx5_0 1 symbol_error 100
done
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
epilog:
  record_dir: $fx/records
  thresholds:
    symbol_error: {warn: 5/h, crit: 1000/h}
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
YAML
: >"$fx/kmsg"
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$EPILOG
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
CONF
cluster_up "it-eph-$$" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

# supernodectl: the config loads; validate and check warn, exit 0.
want="env.master_port_range: [20000, 29999] (the default) lies wholly inside the kernel's ephemeral port range 1024-65535 (/proc/sys/net/ipv4/ip_local_port_range): MASTER_PORT is left unset in every job on this machine"
out=$("$CTL" --config "$fx/supernode.yaml" config validate 2>&1) && rc=0 || rc=$?
assert_eq "config validate: exit" 0 "$rc"
assert_contains "config validate warns" "warning: $fx/supernode.yaml: $want" "$out"
out=$("$CTL" --config "$fx/supernode.yaml" config check 2>&1) && rc=0 || rc=$?
assert_eq "config check: exit" 0 "$rc"
assert_contains "config check warns" "warning: $fx/supernode.yaml: $want" "$out"

# The prolog by hand checks the node.
out=$(SLURMD_NODENAME=sna1 "$PROLOG" --config "$fx/supernode.yaml" --node sna1 --check 2>&1) && rc=0 || rc=$?
assert_eq "supernode-prolog --check on sna1: exit" 0 "$rc"

# A --supernode job is accepted and runs; the prolog writes each node's
# baseline, the epilog its record, and drains the node past crit.
cat >job.sh <<SH
#!/bin/bash
#SBATCH --supernode=1
ls $fx/*/state/baseline/*.json | sed "s|^$fx/||" >baseline.ls
srun -l bash -c 'echo "env: \${SUPERNODE_COUNT:-unset} \${MASTER_ADDR:+addr} \${MASTER_PORT:-unset}"' | sort >env.out
n1=\$(scontrol show hostnames "\$SLURM_JOB_NODELIST" | tail -n 1)
echo 5100 >$fx/\$n1/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error
SH
set +e
j=$(sbatch --parsable -o job.out job.sh 2>&1)
rc=$?
set -e
assert_eq "sbatch --supernode=1 accepted (exit; output: $j)" 0 "$rc"
((rc == 0)) || finish
wait_state "$j" COMPLETED
mapfile -t nodes < <(scontrol show hostnames "$(job_field "$j" NodeList)")
n0=${nodes[0]} n1=${nodes[1]}
assert_eq "the prolog's baselines" "$n0/state/baseline/$j.json
$n1/state/baseline/$j.json" "$(cat baseline.ls)"
assert_eq "the steps' environment: no MASTER_PORT, the rest set" "0: env: 1 addr unset
1: env: 1 addr unset" "$(cat env.out)"
assert_contains "slurmd's log says why" "MASTER_PORT not set: env.master_port_range [20000, 29999] lies inside the ephemeral port range [1024, 65535]" \
	"$(cat "$SUPERNODE_CLUSTER_DIR"/log/slurmd-*.log)"
for _ in $(seq 1 100); do
	[[ -f $fx/records/$j/$n0.json && -f $fx/records/$j/$n1.json ]] && break
	sleep 0.1
done
assert_eq "the epilog's records" "$n0.json $n1.json" "$(cd "$fx/records/$j" && echo *.json)"
reason=$(sinfo -h -n "$n1" -o '%E') && rc=0 || rc=$?
assert_eq "sinfo: exit" 0 "$rc"
assert_contains "$n1 drained by the epilog" "supernode: EPILOG_SYMBOL_ERROR mlx5_0/1 +5000" "$reason"
# health runs under the wide range too; an epilog drain waits for a person
# (item 9: health lifts only the prolog's codes, which it can check again).
out=$(SLURMD_NODENAME=$n1 "$CTL" --config "$fx/supernode.yaml" health 2>&1) || true
assert_contains "health ran on $n1 and left the epilog's drain for a person" \
	"not a condition health can check again, left for a person" "$out"
assert_eq "$n1 still drained" drain "$(sinfo -h -n "$n1" -o '%t' | tr -d '*')"
finish
