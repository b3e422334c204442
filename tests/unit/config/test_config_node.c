/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node:, prolog: and drain: sections of supernode.yaml
 * (lib/config_node.c): a full valid example with every value checked, the
 * vendor defaults, the defaults of an absent section, and each refusal with
 * its exact "FILE:LINE:COL: key.path: message".
 */
#include <unistd.h>

#include "unit.h"

#include "config/sn_config.h"

/* Every test starts with the same three lines: line numbers below count them. */
#define HEAD "supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"

static struct sn_config *load_ok(const char *yaml)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("refused: %s\n%s", err.msg, yaml);
	return cfg;
}

/* The config must be refused with exactly msg. */
static void refused_at(const char *yaml, const char *msg, const char *file,
		       int line)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (cfg) {
		sn_config_free(cfg);
		fail_msg("%s:%d: accepted:\n%s", file, line, yaml);
	}
	if (strcmp(err.msg, msg))
		fail_msg("%s:%d: message\n  got:  %s\n  want: %s", file, line,
			 err.msg, msg);
}

#define REFUSED(yaml, msg) refused_at(HEAD yaml, msg, __FILE__, __LINE__)

/* ---- valid ------------------------------------------------------------- */

static const char full_yaml[] = HEAD
	"node:\n"
	"  accelerators:\n"
	"    vendor: nvidia\n"
	"    count: 8\n"
	"    pcie_min_gen: 5\n"
	"    pcie_min_width: 16\n"
	"    pcie_check_speed: true\n"
	"    nvlinks: 18\n"
	"  ports:\n"
	"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400, pcie_min_gen: 5, pcie_min_width: 16}\n"
	"    - {device: mlx5_2, port: 2, link_layer: Ethernet, min_rate_gbps: 200.5, gid_index: 3}\n"
	"    - {device: mlx5_0, port: 2, link_layer: InfiniBand}\n"
	"  topology:\n"
	"    nearness: numa\n"
	"    pairs:\n"
	"      - {accelerator: 0, nic: mlx5_0}\n"
	"      - {accelerator: 7, nic: mlx5_2}\n"
	"prolog:\n"
	"  all_jobs: true\n"
	"  timeout: 60\n"
	"  check_timeout: 15\n"
	"  drain_on_unknown: true\n"
	"drain:\n"
	"  tag: \"[supernode-hc]\"\n"
	"paths:\n"
	"  nvml: /opt/nvidia/lib/libnvidia-ml.so.1\n"
	"  hwloc_xml: /etc/supernode/%n.xml\n"
	"  kmsg: /var/log/kern.log\n";

static void test_full_example(void **state)
{
	struct sn_config *cfg = load_ok(full_yaml);
	const struct sn_manifest *m = &cfg->node;
	const struct sn_accel_manifest *a = &m->accel;

	(void)state;
	assert_true(m->present);
	assert_int_equal(a->vendor, SN_ACCEL_NVIDIA);
	assert_int_equal(a->pci_vendor, 0x10de);
	assert_int_equal(a->count, 8);
	assert_string_equal(a->device_glob, "nvidia[0-9]*");
	assert_int_equal(a->pcie_min_gen, 5);
	assert_int_equal(a->pcie_min_width, 16);
	assert_true(a->pcie_check_speed);
	assert_int_equal(a->nvlinks, 18);

	assert_int_equal(m->n_ports, 3);
	assert_string_equal(m->ports[0].device, "mlx5_0");
	assert_int_equal(m->ports[0].port, 1);
	assert_int_equal(m->ports[0].link_layer, SN_LINK_INFINIBAND);
	assert_true(m->ports[0].min_rate_gbps == 400.0);
	assert_int_equal(m->ports[0].pcie_min_gen, 5);
	assert_int_equal(m->ports[0].pcie_min_width, 16);
	assert_int_equal(m->ports[0].gid_index, -1);
	assert_string_equal(m->ports[1].device, "mlx5_2");
	assert_int_equal(m->ports[1].port, 2);
	assert_int_equal(m->ports[1].link_layer, SN_LINK_ETHERNET);
	assert_true(m->ports[1].min_rate_gbps == 200.5);
	assert_int_equal(m->ports[1].pcie_min_gen, 0);
	assert_int_equal(m->ports[1].pcie_min_width, 0);
	assert_int_equal(m->ports[1].gid_index, 3);
	/* Same device, other port: not a duplicate; defaults for the rest. */
	assert_string_equal(m->ports[2].device, "mlx5_0");
	assert_int_equal(m->ports[2].port, 2);
	assert_true(m->ports[2].min_rate_gbps == 0.0);
	assert_int_equal(m->ports[2].gid_index, -1);

	assert_int_equal(m->nearness, SN_NEAR_NUMA);
	assert_int_equal(m->n_pairs, 2);
	assert_int_equal(m->pairs[0].accelerator, 0);
	assert_string_equal(m->pairs[0].nic, "mlx5_0");
	assert_int_equal(m->pairs[1].accelerator, 7);
	assert_string_equal(m->pairs[1].nic, "mlx5_2");

	assert_true(cfg->prolog.all_jobs);
	assert_int_equal(cfg->prolog.timeout_s, 60);
	assert_int_equal(cfg->prolog.check_timeout_s, 15);
	assert_true(cfg->prolog.drain_on_unknown);
	assert_string_equal(cfg->drain_tag, "[supernode-hc]");
	assert_string_equal(cfg->nvml, "/opt/nvidia/lib/libnvidia-ml.so.1");
	assert_string_equal(cfg->hwloc_xml, "/etc/supernode/%n.xml");
	assert_string_equal(cfg->kmsg, "/var/log/kern.log");
	sn_config_free(cfg);
}

/* The same document from a file: the same values (and the path kept). */
static void test_full_example_file(void **state)
{
	char path[] = "/tmp/sn-config-node-XXXXXX";
	struct sn_config *cfg;
	struct sn_error err;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, full_yaml, strlen(full_yaml)),
			 (ssize_t)strlen(full_yaml));
	close(fd);
	err_reset(&err);
	cfg = sn_config_load(path, &err);
	unlink(path);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->path, path);
	assert_int_equal(cfg->node.accel.count, 8);
	assert_int_equal(cfg->node.n_ports, 3);
	assert_string_equal(cfg->drain_tag, "[supernode-hc]");
	sn_config_free(cfg);
}

/* Without node:, prolog:, drain: or paths.kmsg. */
static void test_defaults(void **state)
{
	struct sn_config *cfg = load_ok(HEAD);

	(void)state;
	assert_false(cfg->node.present);
	assert_int_equal(cfg->node.accel.vendor, SN_ACCEL_NONE);
	assert_int_equal(cfg->node.accel.pci_vendor, 0);
	assert_int_equal(cfg->node.accel.count, 0);
	assert_null(cfg->node.accel.device_glob);
	assert_int_equal(cfg->node.accel.pcie_min_gen, 0);
	assert_int_equal(cfg->node.accel.pcie_min_width, 0);
	assert_false(cfg->node.accel.pcie_check_speed);
	assert_int_equal(cfg->node.accel.nvlinks, -1); /* not checked */
	assert_int_equal(cfg->node.n_ports, 0);
	assert_int_equal(cfg->node.n_pairs, 0);
	assert_int_equal(cfg->node.nearness, SN_NEAR_PCIE_SWITCH);
	assert_false(cfg->prolog.all_jobs);
	assert_int_equal(cfg->prolog.timeout_s, 30);
	assert_int_equal(cfg->prolog.check_timeout_s, 10);
	assert_false(cfg->prolog.drain_on_unknown);
	assert_string_equal(cfg->drain_tag, "supernode:");
	assert_string_equal(cfg->kmsg, "/dev/kmsg");
	assert_null(cfg->nvml);
	assert_null(cfg->hwloc_xml);
	sn_config_free(cfg);
}

/* node: with accelerators only: nvlinks stays "not checked". */
static void test_nvlinks_absent_and_zero(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(
		HEAD
		"node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n");
	assert_true(cfg->node.present);
	assert_int_equal(cfg->node.accel.nvlinks, -1);
	sn_config_free(cfg);
	cfg = load_ok(HEAD "node:\n  accelerators:\n    vendor: nvidia\n"
			   "    count: 2\n    nvlinks: 0\n");
	assert_int_equal(cfg->node.accel.nvlinks, 0); /* PCIe cards */
	sn_config_free(cfg);
	/* nvlinks 0 ("none") is not an NVIDIA-only statement. */
	cfg = load_ok(HEAD "node:\n  accelerators:\n    vendor: ascend\n"
			   "    count: 8\n    nvlinks: 0\n");
	assert_int_equal(cfg->node.accel.nvlinks, 0);
	sn_config_free(cfg);
	cfg = load_ok(HEAD "node: {}\n");
	assert_true(cfg->node.present);
	assert_int_equal(cfg->node.accel.vendor, SN_ACCEL_NONE);
	sn_config_free(cfg);
}

static void expect_vendor(const char *accel, enum sn_accel_vendor v,
			  unsigned pci, const char *glob)
{
	char yaml[512];
	struct sn_config *cfg;

	snprintf(yaml, sizeof(yaml), HEAD "node:\n  accelerators:\n%s", accel);
	cfg = load_ok(yaml);
	assert_int_equal(cfg->node.accel.vendor, v);
	assert_int_equal(cfg->node.accel.pci_vendor, pci);
	assert_string_equal(cfg->node.accel.device_glob, glob);
	sn_config_free(cfg);
}

static void test_vendor_defaults(void **state)
{
	(void)state;
	expect_vendor("    vendor: nvidia\n    count: 8\n", SN_ACCEL_NVIDIA,
		      0x10de, "nvidia[0-9]*");
	expect_vendor("    vendor: ascend\n    count: 8\n", SN_ACCEL_ASCEND,
		      0x19e5, "davinci[0-9]*");
	expect_vendor("    vendor: amd\n    count: 8\n", SN_ACCEL_AMD, 0x1002,
		      "dri/renderD*");
	/* Given values win over the vendor's. */
	expect_vendor(
		"    vendor: ascend\n    count: 8\n    pci_vendor: 0x19E6\n"
		"    device_glob: npu[0-9]*\n",
		SN_ACCEL_ASCEND, 0x19e6, "npu[0-9]*");
	expect_vendor(
		"    vendor: other\n    pci_vendor: 0x1d94\n    count: 4\n"
		"    device_glob: \"mlu[0-9]*\"\n",
		SN_ACCEL_OTHER, 0x1d94, "mlu[0-9]*");
}

static void test_drain_tag_32(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(HEAD
		      "drain:\n  tag: \"abcdefghijabcdefghijabcdefghij:.\"\n");
	assert_int_equal(strlen(cfg->drain_tag), 32);
	assert_string_equal(cfg->drain_tag, "abcdefghijabcdefghijabcdefghij:.");
	sn_config_free(cfg);
}

/* A short prolog.timeout alone takes the default check_timeout down with it. */
static void test_short_timeout_alone(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(HEAD "prolog:\n  timeout: 5\n");
	assert_int_equal(cfg->prolog.timeout_s, 5);
	assert_int_equal(cfg->prolog.check_timeout_s, 5);
	sn_config_free(cfg);
	cfg = load_ok(HEAD "prolog:\n  timeout: 20\n");
	assert_int_equal(cfg->prolog.check_timeout_s, 10);
	sn_config_free(cfg);
	cfg = load_ok(HEAD "prolog:\n  timeout: 3\n  check_timeout: 3\n");
	assert_int_equal(cfg->prolog.check_timeout_s, 3);
	sn_config_free(cfg);
}

/* ---- refused ----------------------------------------------------------- */

static void test_unknown_keys(void **state)
{
	(void)state;
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n"
		"    colour: green\n",
		"t.yaml:8:5: node.accelerators.colour: unknown key (allowed here: vendor, pci_vendor, count, device_glob, pcie_min_gen, pcie_min_width, pcie_check_speed, nvlinks, links, nvlink_domain, imex, imex_channel)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n"
		"  extra: 1\n",
		"t.yaml:8:3: node.extra: unknown key (allowed here: accelerators, ports, topology)");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, speed: 400}\n",
		"t.yaml:6:57: node.ports[0].speed: unknown key (allowed here: device, port, link_layer, min_rate_gbps, pcie_min_gen, pcie_min_width, gid_index, min_mtu)");
	REFUSED("node:\n  topology:\n    near: numa\n",
		"t.yaml:6:5: node.topology.near: unknown key (allowed here: nearness, pairs)");
	REFUSED("prolog:\n  timeout_z: 60\n",
		"t.yaml:5:3: prolog.timeout_z: unknown key (allowed here: all_jobs, timeout, check_timeout, drain_on_unknown)");
	REFUSED("drain:\n  colour: red\n",
		"t.yaml:5:3: drain.colour: unknown key (allowed here: tag)");
}

static void test_accelerators_refused(void **state)
{
	(void)state;
	REFUSED("node:\n  accelerators:\n    vendor: intel\n    count: 2\n",
		"t.yaml:6:13: node.accelerators.vendor: 'intel' is not a vendor (allowed: nvidia, ascend, hygon, cambricon, mthreads, metax, kunlunxin, amd, other)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n",
		"t.yaml:6:5: node.accelerators.count: required key missing");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 65\n",
		"t.yaml:7:12: node.accelerators.count: 65 is out of range (allowed: 0 to 64)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n"
		"    nvlinks: -1\n",
		"t.yaml:8:14: node.accelerators.nvlinks: -1 is out of range (allowed: 0 to 64)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n"
		"    device_glob: /dev/nvidia*\n",
		"t.yaml:8:18: node.accelerators.device_glob: '/dev/nvidia*': give a glob relative to paths.dev (e.g. nvidia[0-9]*)");
	/* other: pci_vendor (and the device glob) must be given. */
	REFUSED("node:\n  accelerators:\n    vendor: other\n    count: 2\n"
		"    device_glob: \"mlu[0-9]*\"\n",
		"t.yaml:6:13: node.accelerators.vendor: vendor 'other' needs pci_vendor and device_glob");
	REFUSED("node:\n  accelerators:\n    vendor: other\n    count: 2\n"
		"    pci_vendor: 0x1d94\n",
		"t.yaml:6:13: node.accelerators.vendor: vendor 'other' needs pci_vendor and device_glob");
	/* NVLinks are NVIDIA's. */
	REFUSED("node:\n  accelerators:\n    vendor: ascend\n    count: 8\n"
		"    nvlinks: 18\n",
		"t.yaml:8:14: node.accelerators.nvlinks: nvlinks applies to vendor nvidia only");
	REFUSED("node:\n  accelerators:\n    vendor: amd\n    count: 8\n"
		"    nvlinks: 7\n",
		"t.yaml:8:14: node.accelerators.nvlinks: nvlinks applies to vendor nvidia only");
}

/* node.accelerators.nvlink_domain, imex, imex_channel (issue 12 item 2). */
static void test_fabric_keys(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load_ok(HEAD "node:\n  accelerators:\n    vendor: nvidia\n"
			   "    count: 4\n    nvlink_domain: true\n"
			   "    imex: true\n    imex_channel: 5\n");
	assert_true(cfg->node.accel.nvlink_domain);
	assert_true(cfg->node.accel.imex);
	assert_int_equal(cfg->node.accel.imex_channel, 5);
	sn_config_free(cfg);
	cfg = load_ok(HEAD "node:\n  accelerators:\n    vendor: nvidia\n"
			   "    count: 4\n");
	assert_false(cfg->node.accel.nvlink_domain);
	assert_false(cfg->node.accel.imex);
	assert_int_equal(cfg->node.accel.imex_channel, 0);
	sn_config_free(cfg);
	REFUSED("node:\n  accelerators:\n    vendor: ascend\n    count: 8\n"
		"    nvlink_domain: true\n",
		"t.yaml:8:20: node.accelerators.nvlink_domain: nvlink_domain applies to vendor nvidia only");
	REFUSED("node:\n  accelerators:\n    vendor: amd\n    count: 8\n"
		"    imex: true\n",
		"t.yaml:8:11: node.accelerators.imex: imex applies to vendor nvidia only");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 8\n"
		"    imex_channel: 1048577\n",
		"t.yaml:8:19: node.accelerators.imex_channel: 1048577 is out of range (allowed: 0 to 1048576)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 8\n"
		"    nvlink_domain: yes\n",
		"t.yaml:8:20: node.accelerators.nvlink_domain: expected true or false, found 'yes'");
}

static void test_pci_vendor_format(void **state)
{
	static const char *const bad[] = {
		"19e5",	  "0x1d9",  "0x12345", "0x12g4",
		"0x0000", "0xffff", "0X19e5",
	};
	char yaml[512], msg[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(
			yaml, sizeof(yaml),
			HEAD
			"node:\n  accelerators:\n    vendor: other\n"
			"    pci_vendor: %s\n    count: 2\n    device_glob: x*\n",
			bad[i]);
		snprintf(
			msg, sizeof(msg),
			"t.yaml:7:17: node.accelerators.pci_vendor: '%s' is not a PCI vendor id (expected 0x followed by 4 hex digits, e.g. 0x19e5)",
			bad[i]);
		refused_at(yaml, msg, __FILE__, __LINE__);
	}
	REFUSED("node:\n  accelerators:\n    vendor: other\n    pci_vendor: [1]\n"
		"    count: 2\n    device_glob: x*\n",
		"t.yaml:7:17: node.accelerators.pci_vendor: expected a string, found a list");
}

static void test_ports_refused(void **state)
{
	(void)state;
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand}\n"
		"    - {device: mlx5_1, link_layer: InfiniBand}\n"
		"    - {device: mlx5_0, link_layer: InfiniBand}\n",
		"t.yaml:8:7: node.ports[2]: mlx5_0 port 1 is listed twice (first as node.ports[0])");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, gid_index: 3}\n",
		"t.yaml:6:68: node.ports[0].gid_index: gid_index applies to Ethernet (RoCE) ports only");
	/* gid_index before link_layer: the same rule, wherever it is written. */
	REFUSED("node:\n  ports:\n"
		"    - {gid_index: 0, device: mlx5_0, link_layer: InfiniBand}\n",
		"t.yaml:6:19: node.ports[0].gid_index: gid_index applies to Ethernet (RoCE) ports only");
	REFUSED("node:\n  ports:\n    - {device: mlx5_0, link_layer: infiniband}\n",
		"t.yaml:6:36: node.ports[0].link_layer: 'infiniband' is not a link layer (allowed: InfiniBand, Ethernet)");
	REFUSED("node:\n  ports:\n    - {device: mlx5_0, link_layer: RoCE}\n",
		"t.yaml:6:36: node.ports[0].link_layer: 'RoCE' is not a link layer (allowed: InfiniBand, Ethernet)");
	REFUSED("node:\n  ports:\n    - {device: mlx5_0}\n",
		"t.yaml:6:7: node.ports[0].link_layer: required key missing");
	REFUSED("node:\n  ports:\n    - {device: \"mlx5 0\", link_layer: InfiniBand}\n",
		"t.yaml:6:16: node.ports[0].device: 'mlx5 0' is not an RDMA device name (e.g. mlx5_0)");
	REFUSED("node:\n  ports:\n    - {device: mlx5_0, port: 0, link_layer: InfiniBand}\n",
		"t.yaml:6:30: node.ports[0].port: 0 is out of range (allowed: 1 to 255)");
	/* yaml_walk_double does not quote what it found (see the report). */
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: fast}\n",
		"t.yaml:6:72: node.ports[0].min_rate_gbps: expected a number from 0 to 100000, found 'fast'");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: -1}\n",
		"t.yaml:6:72: node.ports[0].min_rate_gbps: expected a number from 0 to 100000, found '-1'");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 100001}\n",
		"t.yaml:6:72: node.ports[0].min_rate_gbps: 100001 is out of range (allowed: 0 to 100000)");
	REFUSED("node:\n  ports:\n    device: mlx5_0\n",
		"t.yaml:6:5: node.ports: expected a list of {device, port, link_layer, ...}");
}

/* min_mtu: one of the five IB MTUs (enum ib_mtu), for IB and RoCE alike. */
static void test_ports_min_mtu(void **state)
{
	static const char yaml[] =
		"supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"
		"node:\n  ports:\n"
		"    - {device: mlx5_0, link_layer: InfiniBand, min_mtu: 4096}\n"
		"    - {device: mlx5_2, link_layer: Ethernet, min_mtu: 256}\n"
		"    - {device: mlx5_3, link_layer: Ethernet}\n";
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("refused: %s", err.msg);
	assert_int_equal(cfg->node.ports[0].min_mtu, 4096);
	assert_int_equal(cfg->node.ports[1].min_mtu, 256);
	assert_int_equal(cfg->node.ports[2].min_mtu, 0); /* not checked */
	sn_config_free(cfg);
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, link_layer: InfiniBand, min_mtu: 9000}\n",
		"t.yaml:6:57: node.ports[0].min_mtu: 9000 is not an RDMA path MTU (allowed: 256, 512, 1024, 2048, 4096)");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, link_layer: InfiniBand, min_mtu: 1500}\n",
		"t.yaml:6:57: node.ports[0].min_mtu: 1500 is not an RDMA path MTU (allowed: 256, 512, 1024, 2048, 4096)");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, link_layer: Ethernet, min_mtu: 0}\n",
		"t.yaml:6:55: node.ports[0].min_mtu: 0 is not an RDMA path MTU (allowed: 256, 512, 1024, 2048, 4096)");
	REFUSED("node:\n  ports:\n"
		"    - {device: mlx5_0, link_layer: Ethernet, min_mtu: 4k}\n",
		"t.yaml:6:55: node.ports[0].min_mtu: '4k' is not an RDMA path MTU (allowed: 256, 512, 1024, 2048, 4096)");
}

static void test_topology_refused(void **state)
{
	(void)state;
	/* Accelerators are numbered from 0: count 2 has 0 and 1. */
	REFUSED("node:\n  topology:\n    pairs:\n"
		"      - {accelerator: 0, nic: mlx5_0}\n"
		"      - {accelerator: 2, nic: mlx5_1}\n"
		"  accelerators:\n    vendor: nvidia\n    count: 2\n",
		"t.yaml:8:23: node.topology.pairs[1].accelerator: 2, but node.accelerators.count is 2 (accelerators are numbered from 0)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 8\n"
		"  topology:\n    pairs:\n      - {accelerator: 8, nic: mlx5_0}\n",
		"t.yaml:10:23: node.topology.pairs[0].accelerator: 8, but node.accelerators.count is 8 (accelerators are numbered from 0)");
	REFUSED("node:\n  topology:\n    pairs:\n      - {accelerator: 0, nic: mlx5_0}\n",
		"t.yaml:7:23: node.topology.pairs[0].accelerator: topology pairs need node.accelerators");
	REFUSED("node:\n  topology:\n    nearness: rack\n",
		"t.yaml:6:15: node.topology.nearness: 'rack' is not a nearness (allowed: pcie_switch, numa)");
	REFUSED("node:\n  topology:\n    pairs:\n      - {accelerator: 0}\n",
		"t.yaml:7:9: node.topology.pairs[0].nic: required key missing");
}

static void test_prolog_refused(void **state)
{
	(void)state;
	REFUSED("prolog:\n  timeout: 10\n  check_timeout: 11\n",
		"t.yaml:6:18: prolog.check_timeout: check_timeout 11 is above timeout 10");
	/* Against the default timeout (30). */
	REFUSED("prolog:\n  check_timeout: 31\n",
		"t.yaml:5:18: prolog.check_timeout: check_timeout 31 is above timeout 30");
	REFUSED("prolog:\n  timeout: 0\n",
		"t.yaml:5:12: prolog.timeout: 0 is out of range (allowed: 1 to 3600)");
	REFUSED("prolog:\n  timeout: 3601\n",
		"t.yaml:5:12: prolog.timeout: 3601 is out of range (allowed: 1 to 3600)");
	/* YAML 1.1 booleans are not booleans here. */
	REFUSED("prolog:\n  all_jobs: yes\n",
		"t.yaml:5:13: prolog.all_jobs: expected true or false, found 'yes'");
	REFUSED("prolog:\n  drain_on_unknown: \"true\"\n",
		"t.yaml:5:21: prolog.drain_on_unknown: expected true or false, found 'true' (quoted)");
	REFUSED("node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n"
		"    pcie_check_speed: on\n",
		"t.yaml:8:23: node.accelerators.pcie_check_speed: expected true or false, found 'on'");
}

static void test_drain_refused(void **state)
{
	(void)state;
	REFUSED("drain:\n  tag: \"super node:\"\n",
		"t.yaml:5:8: drain.tag: printable characters only, no spaces");
	REFUSED("drain:\n  tag: \"supernode:\\t\"\n",
		"t.yaml:5:8: drain.tag: a tab at byte 11 of 'supernode:?' (quoted): a config string is one line without control characters");
	REFUSED("drain:\n  tag: \"abcdefghijabcdefghijabcdefghijabc\"\n",
		"t.yaml:5:8: drain.tag: at most 32 characters");
	REFUSED("drain:\n  tag: \"\"\n",
		"t.yaml:5:8: drain.tag: expected a string, found empty");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_full_example_file),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_nvlinks_absent_and_zero),
		cmocka_unit_test(test_vendor_defaults),
		cmocka_unit_test(test_drain_tag_32),
		cmocka_unit_test(test_short_timeout_alone),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_accelerators_refused),
		cmocka_unit_test(test_fabric_keys),
		cmocka_unit_test(test_pci_vendor_format),
		cmocka_unit_test(test_ports_refused),
		cmocka_unit_test(test_ports_min_mtu),
		cmocka_unit_test(test_topology_refused),
		cmocka_unit_test(test_prolog_refused),
		cmocka_unit_test(test_drain_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
