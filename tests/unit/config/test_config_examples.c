/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipped examples load with the real loader: every .yaml file in etc/examples
 * (and etc/supernode.yaml.example), and each example's shape (supernodes,
 * size, method, fabric settings) is what its comments say.
 */
#include <dirent.h>

#include "unit.h"

#include "config/sn_config.h"
#include "config/sn_vendor.h"

/* tests/unit/fixtures -> the source tree's etc/ */
#define ETC_DIR SN_FIXTURES "/../../../etc"

static struct sn_config *example(const char *name)
{
	char path[4096];
	struct sn_error err;
	struct sn_config *cfg;

	snprintf(path, sizeof(path), "%s/%s", ETC_DIR, name);
	err_reset(&err);
	/* on a machine with Linux's default ephemeral ports, not this one */
	cfg = sn_config_load(path, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

/* Every *.yaml in etc/examples loads; there are at least the three. */
static void test_every_example_loads(void **state)
{
	DIR *d = opendir(ETC_DIR "/examples");
	struct dirent *e;
	size_t n = 0, len;
	char name[512];

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(name, sizeof(name), "examples/%s", e->d_name);
		sn_config_free(example(name));
		n++;
	}
	closedir(d);
	assert_true(n >= 3);
	sn_config_free(example("supernode.yaml.example"));
}

static void test_nvl72(void **state)
{
	struct sn_config *cfg = example("examples/nvl72.yaml");

	(void)state;
	assert_int_equal(cfg->n_supernodes, 8);
	assert_int_equal(cfg->supernode_size, 18);
	assert_int_equal(cfg->method, SN_PLACE_SWITCH);
	assert_true(cfg->mnnvl);
	assert_int_equal(cfg->node.accel.vendor, SN_ACCEL_NVIDIA);
	assert_int_equal(cfg->node.accel.count, 4);
	assert_int_equal(cfg->node.accel.nvlinks, 18);
	assert_true(cfg->node.accel.nvlink_domain);
	assert_true(cfg->node.accel.imex);
	assert_string_equal(
		cfg->supernodes[0].identity,
		"nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766");
	assert_null(cfg->supernodes[1].identity);
	assert_int_equal(cfg->node.n_ports, 4);
	assert_int_equal(cfg->node.n_pairs, 4);
	assert_non_null(sn_config_find_node(cfg, "gb-r08-n18"));
	sn_config_free(cfg);
}

static void test_ib_8gpu(void **state)
{
	struct sn_config *cfg = example("examples/ib-8gpu.yaml");

	(void)state;
	assert_int_equal(cfg->n_supernodes, 16);
	assert_int_equal(cfg->supernode_size, 4);
	assert_int_equal(cfg->method, SN_PLACE_SWITCH);
	assert_false(cfg->mnnvl);
	assert_int_equal(cfg->node.accel.count, 8);
	assert_int_equal(cfg->node.n_ports, 8);
	for (size_t i = 0; i < cfg->node.n_ports; i++) {
		assert_int_equal(cfg->node.ports[i].link_layer,
				 SN_LINK_INFINIBAND);
		assert_true(cfg->node.ports[i].min_rate_gbps == 400);
	}
	assert_int_equal(cfg->node.n_pairs, 8);
	assert_string_equal(cfg->node.pairs[7].nic, "mlx5_7");
	assert_string_equal(cfg->socket_ifname, "bond0");
	sn_config_free(cfg);
}

static void test_ascend_roce(void **state)
{
	struct sn_config *cfg = example("examples/ascend-roce.yaml");

	(void)state;
	assert_int_equal(cfg->n_supernodes, 12);
	assert_int_equal(cfg->supernode_size, 4);
	assert_int_equal(cfg->node.accel.vendor, SN_ACCEL_ASCEND);
	assert_int_equal(cfg->node.accel.pci_vendor, 0x19e5);
	assert_int_equal(cfg->node.accel.count, 8);
	assert_int_equal(cfg->node.n_ports, 8);
	assert_int_equal(cfg->node.ports[0].link_layer, SN_LINK_ETHERNET);
	assert_int_equal(cfg->node.ports[0].gid_index, 3);
	assert_string_equal(cfg->socket_ifname, "enp189s0f0");
	sn_config_free(cfg);
}

/* One example per vendor shape (issue 18), with the vendor's library key. */
static void test_vendor_examples(void **state)
{
	static const struct {
		const char *file;
		enum sn_accel_vendor vendor;
		int links;
	} ex[] = {
		{ "examples/ascend-superpod.yaml", SN_ACCEL_ASCEND, -1 },
		{ "examples/hygon-dcu-roce.yaml", SN_ACCEL_HYGON, -1 },
		{ "examples/cambricon-mlulink.yaml", SN_ACCEL_CAMBRICON, 6 },
		{ "examples/mthreads-mtlink.yaml", SN_ACCEL_MTHREADS, 14 },
		{ "examples/metax-metaxlink.yaml", SN_ACCEL_METAX, 7 },
		{ "examples/kunlunxin-xpu.yaml", SN_ACCEL_KUNLUNXIN, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct sn_config *cfg = example(ex[i].file);

		assert_int_equal(cfg->node.accel.vendor, ex[i].vendor);
		assert_int_equal(cfg->node.accel.pci_vendor,
				 sn_vendor_of(ex[i].vendor)->pci_vendor);
		assert_int_equal(cfg->node.accel.count, i ? 8 : 16);
		assert_int_equal(cfg->node.accel.links, ex[i].links);
		if (ex[i].vendor == SN_ACCEL_ASCEND)
			assert_non_null(cfg->dcmi);
		else
			assert_non_null(cfg->vendor_lib[ex[i].vendor]);
		sn_config_free(cfg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_example_loads),
		cmocka_unit_test(test_nvl72),
		cmocka_unit_test(test_ib_8gpu),
		cmocka_unit_test(test_ascend_roce),
		cmocka_unit_test(test_vendor_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
