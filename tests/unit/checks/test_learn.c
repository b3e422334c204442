/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node: manifest from the node's inventory (lib/checks/learn.c): the
 * smallest maximum over the accelerators, the smallest active NVLink count,
 * ACTIVE ports learned and the others said, an accelerator's NIC when they
 * share a PCIe switch.  Fixtures: the fake NVML serving
 * fixtures/accel/nvml-4xh100-sxm.json, the captured sysfs-mlx4 tree (one
 * ACTIVE 40 Gb/s InfiniBand port) and the hand-written topo/small-4gpu-2nic.xml.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "checks/sn_learn.h"
#include "helpers/fake_sysfs.h"

#define MLX4 SN_FIXTURES "/sysfs-mlx4/sys"
#define SYNTH SN_FIXTURES "/accel/nvml-4xh100-sxm.json"
#define TOPO SN_FIXTURES "/topo/small-4gpu-2nic.xml"

/* What fn wrote, as one string (caller frees). */
struct mem {
	char *text;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
}

static const char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->text;
}

static void gpu(struct sn_nvml_gpu *g, unsigned gen, unsigned width,
		unsigned links, unsigned active)
{
	memset(g, 0, sizeof(*g));
	g->gen_max.rc = SN_NVML_SUCCESS;
	g->gen_max.value = gen;
	g->width_max.rc = SN_NVML_SUCCESS;
	g->width_max.value = width;
	g->n_links = links;
	for (unsigned l = 0; l < active; l++)
		g->links[l].active = true;
}

/* Smallest maximum and smallest active count; unread values do not count. */
static void test_learn_gpu(void **state)
{
	struct sn_learned_accel a = SN_LEARNED_ACCEL_INIT;
	struct sn_nvml_gpu *g = calloc(1, sizeof(*g));

	(void)state;
	assert_non_null(g);
	gpu(g, 5, 16, 18, 18);
	sn_learn_gpu(&a, g);
	assert_int_equal(a.gen, 5);
	assert_int_equal(a.width, 16);
	assert_int_equal(a.nvlinks, 18);
	gpu(g, 4, 8, 18, 17);
	sn_learn_gpu(&a, g);
	gpu(g, 6, 32, 18, 18);
	g->gen_max.rc = SN_NVML_SUCCESS + 1; /* not read: not learned */
	g->gen_max.value = 1;
	sn_learn_gpu(&a, g);
	assert_int_equal(a.gen, 4);
	assert_int_equal(a.width, 8);
	assert_int_equal(a.nvlinks, 17);
	free(g);
}

/* Only a present ACTIVE port is learned. */
static void test_port_keep(void **state)
{
	struct sn_ib_port p = { .present = true, .state_num = 4 };

	(void)state;
	assert_true(sn_learn_port_keep(&p));
	p.state_num = 1;
	assert_false(sn_learn_port_keep(&p));
	p.state_num = 4;
	p.present = false;
	assert_false(sn_learn_port_keep(&p));
}

static void test_ports_fixture(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m);
	sn_learn_ports_write(m.f, MLX4);
	assert_string_equal(
		mem_close(&m),
		"  ports:\n"
		"    - {device: mlx4_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 40}"
		"   # min_mtu not learned: cannot read active_mtu (missing)\n");
	free(m.text);
	mem_open(&m);
	sn_learn_ports_write(m.f, "/nonexistent");
	assert_string_equal(
		mem_close(&m),
		"  # no ACTIVE RDMA port found under /nonexistent/class/infiniband\n");
	free(m.text);
}

/*
 * min_mtu: an IB port's active MTU, a RoCE port's path MTU from its
 * netdev MTU (1500 -> 1024), a netdev MTU too small for any path MTU.
 */
static void test_ports_mtu(void **state)
{
	struct mem m;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	tree_file(&t, "supernode-live/verbs/mlx5_0/1/active_mtu", "4096\n");
	ib_port_files(&t, "mlx5_2", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(&t, "mlx5_2", 1, 0, "fe80:0000:0000:0000:0c42:a1ff:fe22:3344",
	       "RoCE v2", "eth2");
	tree_file(&t, "class/net/eth2/mtu", "1500\n");
	ib_port_files(&t, "mlx5_3", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(&t, "mlx5_3", 1, 0, "fe80:0000:0000:0000:0c42:a1ff:fe22:3345",
	       "RoCE v2", "eth3");
	tree_file(&t, "class/net/eth3/mtu", "300\n");
	mem_open(&m);
	sn_learn_ports_write(m.f, t.root);
	assert_string_equal(
		mem_close(&m),
		"  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400, min_mtu: 4096}\n"
		"    - {device: mlx5_2, port: 1, link_layer: Ethernet, min_rate_gbps: 200, min_mtu: 1024}\n"
		"    - {device: mlx5_3, port: 1, link_layer: Ethernet, min_rate_gbps: 200}"
		"   # min_mtu not learned: path MTU below 256 (netdev eth3 MTU 300)\n");
	free(m.text);
	tree_free(&t);
}

/* gpu0 and gpu1 share switch 0000:05 with mlx5_0, gpu2 0000:85 with mlx5_1. */
static void test_topology_fixture(void **state)
{
	struct sn_learned_accel a = { .vendor = SN_ACCEL_NVIDIA,
				      .pci_vendor = 0x10de,
				      .count = 4 };
	struct mem m;
	const char *out;

	(void)state;
	mem_open(&m);
	sn_learn_topology_write(m.f, TOPO, &a);
	out = mem_close(&m);
	assert_non_null(strstr(
		out, "  topology:\n    nearness: pcie_switch\n    pairs:\n"
		     "      - {accelerator: 0, nic: mlx5_0}   # "));
	assert_non_null(
		strstr(out, "      - {accelerator: 1, nic: mlx5_0}   # "));
	assert_non_null(
		strstr(out, "      - {accelerator: 2, nic: mlx5_1}   # "));
	assert_null(strstr(out, "accelerator: 3"));
	free(m.text);
	a.count = 0;
	mem_open(&m);
	sn_learn_accel_write(m.f, &a);
	assert_string_equal(
		mem_close(&m),
		"  # no accelerators found (NVML, or the PCI ids of nvidia, ascend, hygon, cambricon, mthreads, metax, kunlunxin, amd, other)\n");
	free(m.text);
}

#ifdef SN_FAKE_NVML
/* The whole body: 4 H100 through the fake NVML, the mlx4 port, the pairs. */
static void test_write_fixture(void **state)
{
	struct sn_check_ctx ctx = { .nodename = "n1" };
	struct mem m;
	const char *out;

	(void)state;
	snprintf(ctx.sysfs, sizeof(ctx.sysfs), "%s", MLX4);
	snprintf(ctx.nvml, sizeof(ctx.nvml), "%s", SN_FAKE_NVML);
	snprintf(ctx.hwloc_xml, sizeof(ctx.hwloc_xml), "%s", TOPO);
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	mem_open(&m);
	sn_learn_write(m.f, &ctx);
	out = mem_close(&m);
	assert_non_null(strstr(
		out,
		"  accelerators:\n    vendor: nvidia\n    count: 4\n"
		"    pcie_min_gen: 5\n    pcie_min_width: 16\n    nvlinks: 18\n"
		"  ports:\n"
		"    - {device: mlx4_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 40}"
		"   # min_mtu not learned: cannot read active_mtu (missing)\n"
		"  topology:\n"));
	assert_non_null(
		strstr(out, "      - {accelerator: 2, nic: mlx5_1}   # "));
	free(m.text);
	unsetenv("SN_FAKE_NVML_FIXTURE");
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_gpu),
		cmocka_unit_test(test_port_keep),
		cmocka_unit_test(test_ports_fixture),
		cmocka_unit_test(test_ports_mtu),
		cmocka_unit_test(test_topology_fixture),
#ifdef SN_FAKE_NVML
		cmocka_unit_test(test_write_fixture),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
