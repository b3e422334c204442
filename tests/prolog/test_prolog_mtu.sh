#!/usr/bin/env bash
# supernode-prolog end to end on a fixture tree (issue 18 item 6): the RDMA
# path MTU of an InfiniBand port (its active MTU, from the tree's
# supernode-live/ stand-in for libibverbs) and of a RoCE port (derived from
# its netdev's MTU as the kernel's iboe_get_mtu() does), and the socket
# interface of the collective library (env.socket_ifname: up, with an
# address), through --check, --check --json, --learn and Prolog= mode.
# The socket interface is node_exporter's real bond0 (MTU 1500, up; see
# tests/unit/fixtures/sysfs-net/README.md).
# Environment (from CMake): PROLOG, FIXTURES (tests/unit/fixtures).
set -u

[[ -x ${PROLOG:-} ]] || { echo "FAIL: supernode-prolog not built"; exit 1; }
BOND=${FIXTURES:-/nonexistent}/sysfs-net/node-exporter/sys/class/net/bond0
[[ -r $BOND/mtu ]] || { echo "FAIL: no $BOND"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 (json) missing"; exit 1; }
json() { python3 -c 'import json, sys
d = json.load(sys.stdin)
print(eval("d" + sys.argv[1]))' "$1"; }

W=$(mktemp -d /tmp/sn-prolog-mtu-XXXXXX)
trap 'rm -rf "$W"' EXIT
source "$(dirname "$0")/lib.sh"
S=$W/sys

# ---- fixture node: mlx5_0 InfiniBand NDR, mlx5_2 RoCE on eth2, bond0 ------
port() { # port DEV LAYER RATE
	local p=$S/class/infiniband/$1/ports/1
	mkdir -p "$p/counters" "$p/hw_counters"
	echo "4: ACTIVE" >"$p/state"
	echo "5: LinkUp" >"$p/phys_state"
	echo "$3" >"$p/rate"
	echo "$2" >"$p/link_layer"
}
port mlx5_0 InfiniBand "400 Gb/sec (4X NDR)"
port mlx5_2 Ethernet "200 Gb/sec (4X HDR)"
g=$S/class/infiniband/mlx5_2/ports/1
mkdir -p "$g/gids" "$g/gid_attrs/types" "$g/gid_attrs/ndevs"
echo "fe80:0000:0000:0000:0c42:a1ff:fe22:3344" >"$g/gids/0"
echo "RoCE v2" >"$g/gid_attrs/types/0"
echo eth2 >"$g/gid_attrs/ndevs/0"
mkdir -p "$S/class/net/eth2" "$S/supernode-live/verbs/mlx5_0/1" "$S/supernode-live/ifaddrs"
echo up >"$S/class/net/eth2/operstate"
echo 9000 >"$S/class/net/eth2/mtu"
cp -r "$BOND" "$S/class/net/bond0"
echo 4096 >"$S/supernode-live/verbs/mlx5_0/1/active_mtu"
printf 'fe80::1e34:daff:fe5e:d8f0/64\n10.0.0.7/24\n' >"$S/supernode-live/ifaddrs/bond0"
mkdir -p "$W/etc"
printf '6,100,5000000,-;Linux version 6.1.0\n' >"$W/kmsg"

cat >"$W/ok.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: n[1-2]
node:
  ports:
    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: 400, min_mtu: 4096}
    - {device: mlx5_2, link_layer: Ethernet, min_rate_gbps: 200, min_mtu: 4096}
env:
  socket_ifname: bond0
paths:
  sysfs: $S
  state_dir: $W/state/%n
  kmsg: $W/kmsg
YAML
check() { "$PROLOG" --config "$W/ok.yaml" --node n1 --check "$@" 2>"$W/err"; }
squeeze() { tr -s ' ' <<<"$1"; }

# ---- all OK ---------------------------------------------------------------
out=$(check); rc=$?
assert_eq "all OK: exit" 0 "$rc"
assert_eq "all OK: stderr" "" "$(cat "$W/err")"
assert_eq "all OK: table" \
"GRADE CHECK CODE DEVICE EXPECTED FOUND
OK ib_port OK mlx5_0/1 InfiniBand ACTIVE LinkUp >= 400 Gb/sec, path MTU >= 4096 ACTIVE LinkUp 400 Gb/sec (4X NDR), active MTU 4096
OK ib_port OK mlx5_2/1 Ethernet ACTIVE LinkUp >= 200 Gb/sec, netdev up, RoCE v2 GID, path MTU >= 4096 ACTIVE LinkUp 200 Gb/sec (4X HDR) eth2 up, RoCE v2 GID 0, path MTU 4096 (eth2 MTU 9000)
OK net_iface OK bond0 up, with an address NCCL_SOCKET_IFNAME bond0 up, address 10.0.0.7" \
	"$(squeeze "$out")"

# ---- the RoCE netdev at 1500 (the real bond's MTU): path MTU 1024 ---------
echo 1500 >"$S/class/net/eth2/mtu"
out=$(check); rc=$?
assert_eq "RoCE 1500: exit" 2 "$rc"
assert_eq "RoCE 1500: the CRIT" \
	"CRIT ib_port PORT_MTU mlx5_2/1 path MTU >= 4096 path MTU 1024 (netdev eth2 MTU 1500) below 4096" \
	"$(squeeze "$(grep PORT_MTU <<<"$out")")"
out=$(check --json); rc=$?
assert_eq "RoCE 1500 --json: exit" 2 "$rc"
assert_eq "RoCE 1500 --json: worst" CRIT "$(json '["worst"]' <<<"$out")"
assert_eq "RoCE 1500 --json: the result (worst first)" \
	"CRIT PORT_MTU mlx5_2/1 path MTU 1024 (netdev eth2 MTU 1500) below 4096" \
	"$(json '["results"][0]["grade"] + " " + d["results"][0]["code"] + " " + d["results"][0]["device"] + " " + d["results"][0]["found"]' <<<"$out")"

# Prolog= mode: the node is to be drained with the MTU in the reason (the
# slurmctld on port 1 cannot be reached: the reason is printed instead).
cat >"$W/etc/slurm.conf" <<CONF
ClusterName=snmtu
SlurmctldHost=localhost
SlurmctldPort=1
AuthType=auth/munge
NodeName=n[1-2] CPUs=1 State=UNKNOWN
PartitionName=p Nodes=n[1-2] Default=YES
CONF
# (a short prolog.timeout: the drain's wait for slurmctld ends with it)
sed 's/^env:$/prolog:\n  timeout: 5\n  check_timeout: 4\nenv:/' "$W/ok.yaml" >"$W/etc/supernode.yaml"
out=$(env -i ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
	SLURM_CONF="$W/etc/slurm.conf" SLURMD_NODENAME=n1 SLURM_JOB_ID=90 \
	SPANK_SUPERNODE=1 "$PROLOG" 2>"$W/err"); rc=$?
assert_eq "Prolog= RoCE 1500: exit" 2 "$rc"
assert_eq "Prolog= RoCE 1500: reason on stdout" \
	"supernode: PORT_MTU mlx5_2/1 path MTU 1024 (netdev eth2 MTU 1500) below 4096 expected path MTU >= 4096" \
	"$out"
echo 9000 >"$S/class/net/eth2/mtu"

# ---- the InfiniBand port at 2048 ------------------------------------------
echo 2048 >"$S/supernode-live/verbs/mlx5_0/1/active_mtu"
out=$(check); rc=$?
assert_eq "IB 2048: exit" 2 "$rc"
assert_eq "IB 2048: the CRIT" \
	"CRIT ib_port PORT_MTU mlx5_0/1 path MTU >= 4096 active MTU 2048 below 4096" \
	"$(squeeze "$(grep PORT_MTU <<<"$out")")"
rm "$S/supernode-live/verbs/mlx5_0/1/active_mtu"
out=$(check); rc=$?
assert_eq "IB MTU unreadable: exit" 3 "$rc"
# (the path loses its head at a '/' to fit the result's 96 bytes)
assert_contains "IB MTU unreadable: UNKNOWN naming the file" \
	"UNKNOWN  ib_port    PORT_MTU  mlx5_0/1  path MTU >= 4096" "$out"
assert_contains "IB MTU unreadable: the file" \
	"cannot read active_mtu (missing): .../sys/supernode-live/verbs/mlx5_0/1/active_mtu" "$out"
echo 4096 >"$S/supernode-live/verbs/mlx5_0/1/active_mtu"

# ---- the socket interface -------------------------------------------------
echo down >"$S/class/net/bond0/operstate"
out=$(check); rc=$?
assert_eq "bond0 down: exit" 2 "$rc"
assert_eq "bond0 down: the CRIT" \
	"CRIT net_iface SOCKET_IFACE_DOWN bond0 up NCCL_SOCKET_IFNAME bond0 operstate=down" \
	"$(squeeze "$(grep SOCKET_ <<<"$out")")"
echo up >"$S/class/net/bond0/operstate"
echo 'fe80::1e34:daff:fe5e:d8f0/64' >"$S/supernode-live/ifaddrs/bond0"
out=$(check); rc=$?
assert_eq "bond0 without address: exit" 2 "$rc"
assert_eq "bond0 without address: the CRIT" \
	"CRIT net_iface SOCKET_IFACE_NO_ADDR bond0 an IPv4 or IPv6 address NCCL_SOCKET_IFNAME bond0 has no address (IPv6 link-local only)" \
	"$(squeeze "$(grep SOCKET_ <<<"$out")")"
sed -i 's/socket_ifname: bond0/socket_ifname: bond1/' "$W/ok.yaml"
out=$(check); rc=$?
assert_eq "bond1 missing: exit" 2 "$rc"
assert_eq "bond1 missing: the CRIT" \
	"CRIT net_iface SOCKET_IFACE_DOWN bond1 up NCCL_SOCKET_IFNAME bond1: no such interface" \
	"$(squeeze "$(grep SOCKET_ <<<"$out")")"
sed -i 's/socket_ifname: bond1/socket_ifname: bond0/' "$W/ok.yaml"

# ---- --learn: the path MTU of each port -----------------------------------
echo 1500 >"$S/class/net/eth2/mtu"
out=$("$PROLOG" --config "$W/ok.yaml" --node n1 --learn 2>"$W/err"); rc=$?
assert_eq "--learn: exit" 0 "$rc"
assert_eq "--learn: stderr" "" "$(cat "$W/err")"
assert_contains "--learn: the IB port's active MTU" \
	"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400, min_mtu: 4096}" "$out"
assert_contains "--learn: the RoCE port's path MTU" \
	"    - {device: mlx5_2, port: 1, link_layer: Ethernet, min_rate_gbps: 200, min_mtu: 1024}" "$out"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
