#!/usr/bin/env bash
# The per-task environment on a real local Slurm: each task gets its own
# RANK/LOCAL_RANK and UCX_NET_DEVICES (nearest NICs of its GPU, from an
# hwloc XML fixture: the nodes have no GPUs), every task of a node the
# node's NCCL_IB_HCA (exact form, DOWN ports left out) and
# NCCL_SOCKET_IFNAME=bond0; --supernode-env=none sets nothing,
# --supernode-env=show prints the table from task 0 of each node, a bad
# value is refused at submission, a user's own NCCL_IB_HCA or MASTER_PORT
# stays unless env.force names it; where Slurm bound no GPU and a node runs
# one task per GPU, CUDA_VISIBLE_DEVICES by PCI order with
# CUDA_DEVICE_ORDER=PCI_BUS_ID, unless the user set either.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"

# Topology (tests/unit/fixtures/topo/README.md): gpu0, gpu1 near mlx5_0;
# gpu2, gpu3 near mlx5_1.  Node *1 of each supernode: both ports ACTIVE;
# node *2: mlx5_1 DOWN.
fx=$(mktemp -d)
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "200 Gb/sec (4X HDR)"
	if [[ $n == *2 ]]; then
		ib_port "$fx/$n/sys" mlx5_1 1 "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)"
	else
		ib_port "$fx/$n/sys" mlx5_1 1 "4: ACTIVE" "5: LinkUp" "200 Gb/sec (4X HDR)"
	fi
	for i in bond0 bond0.2973 lo; do
		mkdir -p "$fx/$n/sys/class/net/$i"
		echo up >"$fx/$n/sys/class/net/$i/operstate"
	done
	# bond0's address, as getifaddrs() gives it on a live node (the
	# prolog's socket interface check, prolog/README.md)
	mkdir -p "$fx/$n/sys/supernode-live/ifaddrs"
	echo 10.0.0.7/24 >"$fx/$n/sys/supernode-live/ifaddrs/bond0"
done
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
placement:
  method: feature
env:
  master_port_range: [20000, 29999]
  socket_ifname: bond0
paths:
  sysfs: $fx/%n/sys
  hwloc_xml: $SRC/tests/unit/fixtures/topo/small-4gpu-2nic.xml
  state_dir: $fx/%n/state
YAML
chmod -R a+rX "$fx"
cluster_up "it-taskenv-$$" --config "$fx/supernode.yaml"
trap 'cluster_down; rm -rf "$fx"' EXIT

# env_of OUTPUT TASK VAR: VAR as task TASK of `srun -l env` printed it.
env_of() { sed -n "s/^$2: $3=//p" <<<"$1" | head -n 1; }
# has_var OUTPUT TASK VAR: 1 when task TASK printed VAR at all.
has_var() { grep -c "^$2: $3=" <<<"$1" || true; }

out=$(srun --supernode=1 -n4 --ntasks-per-node=2 -l env)
for t in 0 1 2 3; do
	node=$(env_of "$out" "$t" SLURMD_NODENAME)
	assert_eq "task $t: RANK" "$t" "$(env_of "$out" "$t" RANK)"
	assert_eq "task $t: LOCAL_RANK" "$((t % 2))" "$(env_of "$out" "$t" LOCAL_RANK)"
	assert_eq "task $t: WORLD_SIZE" 4 "$(env_of "$out" "$t" WORLD_SIZE)"
	assert_eq "task $t: LOCAL_WORLD_SIZE" 2 "$(env_of "$out" "$t" LOCAL_WORLD_SIZE)"
	assert_eq "task $t: NCCL_SOCKET_IFNAME" "=bond0" "$(env_of "$out" "$t" NCCL_SOCKET_IFNAME)"
	assert_eq "task $t: GLOO_SOCKET_IFNAME" "bond0" "$(env_of "$out" "$t" GLOO_SOCKET_IFNAME)"
	assert_eq "task $t: no NCCL_TOPO_FILE" 0 "$(has_var "$out" "$t" NCCL_TOPO_FILE)"
	assert_eq "task $t: no NCCL_IB_GID_INDEX (InfiniBand)" 0 "$(has_var "$out" "$t" NCCL_IB_GID_INDEX)"
	# two tasks on four GPUs: each task uses all four, so all usable NICs
	if [[ $node == *1 ]]; then
		assert_eq "task $t on $node: NCCL_IB_HCA" "=mlx5_0:1,mlx5_1:1" "$(env_of "$out" "$t" NCCL_IB_HCA)"
		assert_eq "task $t on $node: UCX_NET_DEVICES" "mlx5_0:1,mlx5_1:1" "$(env_of "$out" "$t" UCX_NET_DEVICES)"
	else
		assert_eq "task $t on $node (mlx5_1 DOWN): NCCL_IB_HCA" "=mlx5_0:1" "$(env_of "$out" "$t" NCCL_IB_HCA)"
		assert_eq "task $t on $node (mlx5_1 DOWN): UCX_NET_DEVICES" "mlx5_0:1" "$(env_of "$out" "$t" UCX_NET_DEVICES)"
	fi
done
assert_contains "SUPERNODE_* still set" "0: SUPERNODE_NAME=sn0" "$out"

# One GPU per task by local rank: CUDA_VISIBLE_DEVICES=0,3 for both tasks
# of a node -> local rank 0 uses gpu0 (mlx5_0), local rank 1 gpu3 (mlx5_1);
# where mlx5_1 is DOWN, mlx5_0 is the only usable port, for both.
out=$(CUDA_VISIBLE_DEVICES=0,3 srun --supernode=1 -n4 --ntasks-per-node=2 -l env)
for t in 0 1 2 3; do
	node=$(env_of "$out" "$t" SLURMD_NODENAME)
	if ((t % 2 == 0)); then
		want=mlx5_0:1
	elif [[ $node == *1 ]]; then
		want=mlx5_1:1
	else
		want=mlx5_0:1	# its nearest NIC is DOWN: the node's only usable port
	fi
	assert_eq "CUDA_VISIBLE_DEVICES=0,3, task $t on $node: UCX_NET_DEVICES" "$want" "$(env_of "$out" "$t" UCX_NET_DEVICES)"
done

# --supernode-env=none: nothing at all.
out=$(srun --supernode=1 --supernode-env=none -n4 --ntasks-per-node=2 -l env)
assert_eq "--supernode-env=none: our variables" 0 \
	"$(grep -cE '^[0-9]+: (SUPERNODE_(COUNT|NAMES|NAME|INDEX|SIZE|NODE_RANK|ENV_SET)|MASTER_ADDR|MASTER_PORT|NCCL_[A-Z_]*|UCX_NET_DEVICES|GLOO_SOCKET_IFNAME|RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE)=' <<<"$out" || true)"
assert_eq "--supernode-env=none: the step ran" 4 "$(grep -c '^[0-9]: SLURM_PROCID=' <<<"$out" || true)"

# --supernode-env=show: task 0 of each node prints the table on stderr (on sn01:
# the lines below name sna1, and sn01 may still be busy with the last step).
err=$(srun --supernode=1 -w sna1 --supernode-env=show -n4 --ntasks-per-node=2 -l true 2>&1)
assert_contains "show: NCCL_IB_HCA line" \
	"supernode: --supernode-env=show: sna1: task 0: NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 (ACTIVE InfiniBand/RoCE ports of this node)" "$err"
assert_contains "show: DOWN port said" \
	"NCCL_IB_HCA==mlx5_0:1 (ACTIVE InfiniBand/RoCE ports of this node; left out: mlx5_1:1 (DOWN))" "$err"
assert_contains "show: NCCL_SOCKET_IFNAME line" \
	"sna1: task 0: NCCL_SOCKET_IFNAME==bond0 (env.socket_ifname, exact match (a bare name is a prefix))" "$err"
assert_contains "show: RANK line" "task 0: RANK=2 (SLURM_PROCID)" "$err"
assert_contains "show: UCX line" "task 0: UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1 (nearest NICs of the task's accelerators: 0->mlx5_0, 1->mlx5_0, 2->mlx5_1, 3->mlx5_1)" "$err"
assert_contains "show: MASTER_PORT line" "sna1: task 0: MASTER_PORT=" "$err"
assert_eq "show: one header per node" 2 "$(grep -c 'supernode-env=show: node sn.., task 0 of 2' <<<"$err" || true)"
assert_eq "show: nothing from task 1" 0 "$(grep -c ': task 1: ' <<<"$err" || true)"

# A user's own NCCL_IB_HCA stays (and show says so).
out=$(NCCL_IB_HCA=mlx5_5 srun --supernode=1 --supernode-env=show -n2 --ntasks-per-node=1 -l env 2>&1)
assert_eq "user's NCCL_IB_HCA, task 0" mlx5_5 "$(env_of "$out" 0 NCCL_IB_HCA)"
assert_eq "user's NCCL_IB_HCA, task 1" mlx5_5 "$(env_of "$out" 1 NCCL_IB_HCA)"
assert_contains "show: kept" "NCCL_IB_HCA=mlx5_5 (kept: user set it)" "$out"
assert_eq "the user's other variables are ours: UCX" "mlx5_0:1,mlx5_1:1" \
	"$(grep -h 'UCX_NET_DEVICES=' <<<"$out" | grep -v supernode | sed -n 's/^[0-9]: UCX_NET_DEVICES=//p' | sort | tail -n 1)"

# A user's own NCCL_SOCKET_IFNAME: kept, and Gloo is not pointed elsewhere.
out=$(NCCL_SOCKET_IFNAME=eth9 srun --supernode=1 -n2 --ntasks-per-node=1 -l env 2>&1)
assert_eq "user's NCCL_SOCKET_IFNAME kept" eth9 "$(env_of "$out" 0 NCCL_SOCKET_IFNAME)"
assert_eq "GLOO_SOCKET_IFNAME not set against it" "" "$(env_of "$out" 0 GLOO_SOCKET_IFNAME)"

# A bad value is refused before submission, naming the option and values.
for v in bogus '' AUTO ' none' show,none; do
	for prog in srun sbatch; do
		rest=(true)
		[[ $prog == sbatch ]] && rest=(--wrap true)
		set +e
		msg=$($prog --supernode=1 --supernode-env="$v" "${rest[@]}" 2>&1 </dev/null)
		rc=$?
		set -e
		if ((rc != 0)); then pass "$prog --supernode-env='$v' refused ($rc)"; else fail "$prog --supernode-env='$v' was accepted"; fi
		assert_contains "$prog --supernode-env='$v' message" "--supernode-env=$v: expected auto, none or show" "$msg"
	done
done
assert_eq "no job was created by a refused submission" "" "$(queued_jobs)"

# Batch: the script gets the node-wide variables but is no rank; its
# steps get per-task values; --supernode-env=none reaches the steps.
cat >job.sh <<'SH'
#!/bin/bash
echo "batch: HCA=${NCCL_IB_HCA:-unset} RANK=${RANK:-unset} UCX=${UCX_NET_DEVICES:-unset}"
srun -n4 --ntasks-per-node=2 -l bash -c 'echo "step: $RANK $LOCAL_RANK ${NCCL_IB_HCA:-unset}"' | sort
SH
j=$(sbatch --parsable --supernode=1 -n4 --ntasks-per-node=2 -o job.out job.sh)
wait_state "$j" COMPLETED
n0=$(scontrol show hostnames "$(job_field "$j" NodeList)" | head -n 1)
hca0="=mlx5_0:1,mlx5_1:1"
[[ $n0 == *2 ]] && hca0="=mlx5_0:1"
assert_eq "batch script" "batch: HCA=$hca0 RANK=unset UCX=unset" "$(grep '^batch:' job.out)"
assert_eq "batch: step task 0" "0: step: 0 0 $hca0" "$(grep '^0:' job.out)"
assert_eq "batch: step task 3 local rank" "3: step: 3 1" "$(grep '^3:' job.out | cut -d' ' -f1-4)"
j=$(sbatch --parsable --supernode=1 --supernode-env=none -n4 --ntasks-per-node=2 -o none.out job.sh)
wait_state "$j" COMPLETED
assert_eq "batch --supernode-env=none: script" "batch: HCA=unset RANK=unset UCX=unset" "$(grep '^batch:' none.out)"
assert_eq "batch --supernode-env=none: step" "0: step:   unset" "$(grep '^0:' none.out)"

# The job's node cache (spank/README.md): the batch step gathers the ports
# and writes STATE_DIR/taskenv/JOBID.NODE; the first srun needs the topology
# too, gathers it (no node's topology file yet: removed), writes the node's
# topology file and completes the job's file; the second reads it all (show
# says so) and sets exactly the values the first computed by gathering.
# The next job's first srun loads no topology: its ports from the batch
# step's file (the batch host) or read alone, the topology from the node's
# file, and the same values again.
cat >steps.sh <<'SH'
#!/bin/bash
ours='^[0-9]: (NCCL_[A-Z_]*|UCX_NET_DEVICES|CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|GLOO_SOCKET_IFNAME|RANK|LOCAL_RANK)='
p=${1:-}
srun -n4 --ntasks-per-node=2 -l --supernode-env=show env 2>${p}first.err | grep -E "$ours" | sort >${p}first.env
srun -n4 --ntasks-per-node=2 -l --supernode-env=show env 2>${p}second.err | grep -E "$ours" | sort >${p}second.env
SH
rm -f "$fx"/*/state/taskenv/topology.*
j=$(sbatch --parsable --supernode=1 -n4 --ntasks-per-node=2 -o steps.out steps.sh)
wait_state "$j" COMPLETED
nodes=$(job_field "$j" NodeList)
for n in $(scontrol show hostnames "$nodes"); do
	assert_contains "first step on $n: gathered, topology file written, cache completed" \
		"supernode: --supernode-env=show: $n: node facts: gathered by this step (the node's topology file written) (the job's cache written)" "$(cat first.err)"
	assert_contains "second step on $n: from the cache" \
		"supernode: --supernode-env=show: $n: node facts: from the job's cache (written by the step)" "$(cat second.err)"
	assert_eq "cache file of $n: root's, 0600" "600 root" "$(stat -c '%a %U' "$fx/$n/state/taskenv/$j.$n")"
	assert_eq "topology file of $n: root's, 0600" "600 root" "$(stat -c '%a %U' "$fx/$n/state/taskenv/topology.$n")"
done
j2=$(sbatch --parsable -w "$nodes" --supernode=1 -n4 --ntasks-per-node=2 -o steps2.out steps.sh next-)
wait_state "$j2" COMPLETED
bh=$(job_field "$j2" BatchHost)
for n in $(scontrol show hostnames "$nodes"); do
	ports="gathered by this step"
	[[ $n == "$bh" ]] && ports="from the job's cache (written by the step)"
	assert_contains "next job's first step on $n: the topology from the node's file" \
		"supernode: --supernode-env=show: $n: node facts: the ports $ports, the topology from the node's topology file (the job's cache written)" "$(cat next-first.err)"
done
# The job's config (lib/config/sn_config_snapshot.h): the batch step read
# the whole file and wrote STATE_DIR/jobconfig/JOBID.NODE on the batch host;
# the first srun read it there and wrote its own on the other node; the
# second srun read the job's config on both.
conf=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml
bh=$(job_field "$j" BatchHost)
for n in $(scontrol show hostnames "$nodes"); do
	how="the whole file"
	[[ $n == "$bh" ]] && how="the job's, cut from"
	assert_contains "first step on $n: config: $how" \
		"supernode: --supernode-env=show: $n: config: $how $conf" "$(cat first.err)"
	assert_contains "second step on $n: the job's config" \
		"supernode: --supernode-env=show: $n: config: the job's, cut from $conf" "$(cat second.err)"
	assert_eq "the job's config of $n: root's, 0600" "600 root" "$(stat -c '%a %U' "$fx/$n/state/jobconfig/$j.$n")"
done
# A job's config not ours (here: cut short) is refused, said in slurmd's
# log, and the step reads the whole file and sets the same values.
cat >bad.sh <<'SH'
#!/bin/bash
f=$1/$SLURMD_NODENAME/state/jobconfig/$SLURM_JOB_ID.$SLURMD_NODENAME
printf 'not ours' >"$f"
srun -N1 -n1 -w "$SLURMD_NODENAME" --supernode-env=show -l env 2>bad.err | grep '^0: NCCL_IB_HCA=' >bad.env
SH
j3=$(sbatch --parsable --supernode=1 -N2 -o bad.out bad.sh "$fx")
wait_state "$j3" COMPLETED
bh3=$(job_field "$j3" BatchHost)
assert_contains "a job's config cut short: the whole file read" \
	"supernode: --supernode-env=show: $bh3: config: the whole file $conf" "$(cat bad.err)"
assert_contains "a job's config cut short: said in slurmd's log" \
	"supernode: the job's config not taken, reading $conf: 8 bytes, shorter than its header: $fx/$bh3/state/jobconfig/$j3.$bh3" \
	"$(cat "$SUPERNODE_CLUSTER_DIR/log/slurmd-$bh3.log")"
hca="=mlx5_0:1,mlx5_1:1"
[[ $bh3 == *2 ]] && hca="=mlx5_0:1"
assert_eq "a job's config cut short: the same NCCL_IB_HCA" "0: NCCL_IB_HCA=$hca" "$(cat bad.env)"
assert_eq "next job: the same values as the gathered ones" "$(cat first.env)" "$(cat next-first.env)"
assert_eq "cached step: the same values as the gathered one" "$(cat first.env)" "$(cat second.env)"

# Issue 9 item 12: a user's values longer than any buffer of ours stay
# exactly as set: a 120 KB UCX_NET_DEVICES, a 70 KB MASTER_PORT and an
# 8 KB NCCL_IB_HCA (length and checksum, in every task and the batch step).
ucx=$(seq 100000 130000 | tr '\n' ,)
ucx=${ucx:0:122880}
mport=$(seq 200000 215000 | tr '\n' :)
mport=${mport:0:71680}
hca=$(printf '=mlx5_%d:1,' $(seq 0 999))
hca=${hca:0:8192}
sums() { # sums NAME VALUE...: "NAME LENGTH CKSUM" lines
	while (($#)); do
		echo "$1 ${#2} $(printf %s "$2" | cksum)"
		shift 2
	done
}
want=$(sums UCX_NET_DEVICES "$ucx" MASTER_PORT "$mport" NCCL_IB_HCA "$hca")
assert_eq "long values: UCX_NET_DEVICES is 122880 bytes" 122880 "${#ucx}"
cat >sums.sh <<'SH'
#!/bin/bash
for v in UCX_NET_DEVICES MASTER_PORT NCCL_IB_HCA; do
	val=${!v-}
	echo "$v ${#val} $(printf %s "$val" | cksum)"
done
SH
chmod +x sums.sh
out=$(UCX_NET_DEVICES=$ucx MASTER_PORT=$mport NCCL_IB_HCA=$hca \
	srun --supernode=1 -n4 --ntasks-per-node=2 -l ./sums.sh)
for t in 0 1 2 3; do
	assert_eq "long user values, task $t" "$want" "$(sed -n "s/^$t: //p" <<<"$out")"
done
j=$(UCX_NET_DEVICES=$ucx MASTER_PORT=$mport NCCL_IB_HCA=$hca \
	sbatch --parsable --supernode=1 -N2 -o long.out ./sums.sh)
wait_state "$j" COMPLETED
assert_eq "long user values, batch step" "$want" "$(cat long.out)"

# GPU binding where Slurm bound none (issue 12 item 4): on a two-GPU topology
# (tests/unit/fixtures/topo/small-2gpu-2nic.xml: gpu0 near mlx5_0, gpu1 near
# mlx5_1) a step of two tasks per node gets one GPU per task by PCI order,
# CUDA_DEVICE_ORDER=PCI_BUS_ID, and each task the NIC of its own GPU.
conf=$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml
sed -i 's|topo/small-4gpu-2nic.xml$|topo/small-2gpu-2nic.xml|' "$conf"
assert_contains "config: two-GPU topology" "small-2gpu-2nic.xml" "$(cat "$conf")"
out=$(srun --supernode=1 -n4 --ntasks-per-node=2 -l env)
for t in 0 1 2 3; do
	node=$(env_of "$out" "$t" SLURMD_NODENAME)
	lr=$(env_of "$out" "$t" SLURM_LOCALID)
	assert_eq "task $t on $node: CUDA_VISIBLE_DEVICES (local rank $lr)" "$lr" "$(env_of "$out" "$t" CUDA_VISIBLE_DEVICES)"
	assert_eq "task $t on $node: CUDA_DEVICE_ORDER" PCI_BUS_ID "$(env_of "$out" "$t" CUDA_DEVICE_ORDER)"
	want=mlx5_0:1
	[[ $lr == 1 && $node == *1 ]] && want=mlx5_1:1 # *2: mlx5_1 is DOWN
	assert_eq "task $t on $node: UCX_NET_DEVICES of GPU $lr" "$want" "$(env_of "$out" "$t" UCX_NET_DEVICES)"
done
assert_eq "two tasks per node: local ranks 0 and 1" "0 0 1 1" \
	"$(for t in 0 1 2 3; do env_of "$out" "$t" SLURM_LOCALID; done | sort | tr '\n' ' ' | sed 's/ $//')"
# The user's CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER: both left alone.
out=$(CUDA_VISIBLE_DEVICES=1 srun --supernode=1 -n4 --ntasks-per-node=2 -l env)
for t in 0 1 2 3; do
	assert_eq "user's CUDA_VISIBLE_DEVICES, task $t" 1 "$(env_of "$out" "$t" CUDA_VISIBLE_DEVICES)"
	assert_eq "user's CUDA_VISIBLE_DEVICES, task $t: no CUDA_DEVICE_ORDER" 0 "$(has_var "$out" "$t" CUDA_DEVICE_ORDER)"
done
out=$(CUDA_DEVICE_ORDER=FASTEST_FIRST srun --supernode=1 -n4 --ntasks-per-node=2 -l env)
for t in 0 1 2 3; do
	assert_eq "user's CUDA_DEVICE_ORDER, task $t" FASTEST_FIRST "$(env_of "$out" "$t" CUDA_DEVICE_ORDER)"
	assert_eq "user's CUDA_DEVICE_ORDER, task $t: no CUDA_VISIBLE_DEVICES" 0 "$(has_var "$out" "$t" CUDA_VISIBLE_DEVICES)"
done
# One task per node on two GPUs: not one per GPU, nothing set; show says why.
out=$(srun --supernode=1 -w sna1 --supernode-env=show -n2 --ntasks-per-node=1 -l env 2>&1)
assert_eq "one task on two GPUs: no CUDA_VISIBLE_DEVICES" 0 "$(has_var "$out" 0 CUDA_VISIBLE_DEVICES)"
assert_contains "show: why not" \
	"sna1: task 0: CUDA_VISIBLE_DEVICES not set (1 tasks on this node, 2 GPUs (hwloc): not one per task, no binding)" "$out"
sed -i 's|topo/small-2gpu-2nic.xml$|topo/small-4gpu-2nic.xml|' "$conf"

# env.force: the site's value replaces the user's, for a task variable
# (NCCL_IB_HCA) and a step variable (MASTER_PORT) alike.
sed -i 's/^  socket_ifname: bond0$/  socket_ifname: bond0\n  force: [NCCL_IB_HCA, MASTER_PORT]/' "$SUPERNODE_CLUSTER_DIR/etc/supernode.yaml"
out=$(NCCL_IB_HCA=mlx5_5 MASTER_PORT=4000 srun --supernode=1 -n2 --ntasks-per-node=1 -l env)
for t in 0 1; do
	node=$(env_of "$out" "$t" SLURMD_NODENAME)
	want="=mlx5_0:1,mlx5_1:1"
	[[ $node == *2 ]] && want="=mlx5_0:1"
	assert_eq "env.force, task $t on $node: NCCL_IB_HCA" "$want" "$(env_of "$out" "$t" NCCL_IB_HCA)"
	jobid=$(env_of "$out" "$t" SLURM_JOB_ID)
	# step 0 of the job: block (jobid mod 625) of 16 ports, slot 1
	assert_eq "env.force, task $t on $node: MASTER_PORT" "$((20000 + jobid % 625 * 16 + 1))" "$(env_of "$out" "$t" MASTER_PORT)"
done
assert_eq "no node drained" "" "$(drained_nodes)"
finish
