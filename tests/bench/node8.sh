# shellcheck shell=bash
# A node of 8 GPUs and 8 HCAs on fixtures, shared by the benchmarks: a fake
# NVML serving 8 H100-class GPUs, the real sysfs InfiniBand tree of an
# 8-port NDR node (tests/unit/fixtures), a fake PCI tree and /dev nodes, and a
# supernode.yaml for them.  Needs SRC, SHARED, FAKE; sets fx (a temporary
# folder, removed on exit) and exports SN_FAKE_NVML_FIXTURE.
node8_fixture() {
	fx=$(mktemp -d)
	trap 'rm -rf "$fx"' EXIT
	buses=(1b 43 52 61 9d c3 d1 df)
	python3 - "$SRC/tests/unit/fixtures/accel/nvml-4xh100-sxm.json" "$fx/nvml8.json" "${buses[@]}" <<'PY'
import json, sys, copy
src, dst, buses = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(src))
g0 = d["gpus"][0]
d["gpus"] = []
for i, b in enumerate(buses):
    g = copy.deepcopy(g0)
    g["index"] = i
    g["pci_bus_id"] = "00000000:%s:00.0" % b.upper()
    g["uuid"] = "GPU-bench-%d" % i
    d["gpus"].append(g)
json.dump(d, open(dst, "w"))
PY
	mkdir -p "$fx/sys/bus/pci/devices" "$fx/dev"
	cp -r "$SHARED/sysfs-infiniband/gpud-h100/sys/class" "$fx/sys/"
	for i in "${!buses[@]}"; do
		d=$fx/sys/bus/pci/devices/0000:${buses[$i]}:00.0
		mkdir -p "$d"
		echo 0x10de >"$d/vendor"; echo 0x2330 >"$d/device"; echo 0x030200 >"$d/class"
		: >"$fx/dev/nvidia$i"
	done
	ports=""
	for dev in mlx5_0 mlx5_1 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_8 mlx5_9; do
		ports+="    - {device: $dev, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}"$'\n'
	done
	cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - {name: sn01, nodes: "gpu[01-18]"}
node:
  accelerators: {vendor: nvidia, count: 8, pcie_min_gen: 5, pcie_min_width: 16, nvlinks: 18}
  ports:
$ports
epilog:
  record_dir: $fx/records
  textfile_dir: $fx/prom
paths:
  sysfs: $fx/sys
  dev: $fx/dev
  nvml: $FAKE
  state_dir: $fx/state
  kmsg: $fx/kmsg
YAML
	printf '6,1,100,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n' >"$fx/kmsg"
	export SN_FAKE_NVML_FIXTURE=$fx/nvml8.json
}
