/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One RDMA port from sysfs (lib/ib_port.c): the state, phys_state and rate
 * formats of drivers/infiniband/core/sysfs.c (field case 7's strings and
 * more), missing/empty/odd files, GIDs and netdevs, the counters JSON, the
 * libibverbs path on a host without RDMA devices, and the three real
 * sysfs trees of fixtures/sysfs-infiniband.
 */
#include <math.h>

#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "inventory/sn_ib_port.h"

#define REAL SN_FIXTURES "/sysfs-infiniband"

/* ---- parsers ----------------------------------------------------------- */

static void test_parse_state(void **state)
{
	char name[SN_IB_NAME_MAX];
	int num = -1;

	(void)state;
	assert_int_equal(sn_ib_parse_state("4: ACTIVE", &num, name), 0);
	assert_int_equal(num, 4);
	assert_string_equal(name, "ACTIVE");
	assert_int_equal(sn_ib_parse_state("1: DOWN", &num, name), 0);
	assert_int_equal(num, 1);
	assert_string_equal(name, "DOWN");
	assert_int_equal(sn_ib_parse_state("2: INIT", &num, name), 0);
	assert_int_equal(sn_ib_parse_state("3: ARMED", &num, name), 0);
	assert_int_equal(num, 3);
	assert_string_equal(name, "ARMED");
	/* a bare number gets the kernel's name */
	assert_int_equal(sn_ib_parse_state("5", &num, name), 0);
	assert_string_equal(name, "ACTIVE_DEFER");
	assert_int_equal(sn_ib_parse_state("9", &num, name), 0);
	assert_string_equal(name, "<unknown>");
	/* malformed */
	static const char *const bad[] = {
		"",
		"ACTIVE",
		"4:ACTIVE",
		"4: ",
		"4 ACTIVE",
		"-1: DOWN",
		"1234: X",
		": ACTIVE",
		"4: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!sn_ib_parse_state(bad[i], &num, name))
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(sn_ib_parse_state(NULL, &num, name), -1);
}

static void test_parse_phys(void **state)
{
	static const struct {
		const char *text;
		unsigned num;
		const char *name;
	} cases[] = {
		{ "5: LinkUp", 5, "LinkUp" },
		{ "2: Polling", 2, "Polling" },
		{ "3: Disabled", 3, "Disabled" },
		{ "0: <unknown>", 0, "<unknown>" },
		{ "1: Sleep", 1, "Sleep" },
		{ "7: Phy Test", 7, "Phy Test" },
		{ "4: PortConfigurationTraining", 4,
		  "PortConfigurationTraining" },
		{ "6", 6, "LinkErrorRecovery" },
		{ "0", 0, "<unknown>" },
	};
	char name[SN_IB_NAME_MAX];
	unsigned num;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sn_ib_parse_phys(cases[i].text, &num, name))
			fail_msg("'%s' refused", cases[i].text);
		assert_int_equal(num, cases[i].num);
		assert_string_equal(name, cases[i].name);
	}
	assert_int_equal(sn_ib_parse_phys("LinkUp", &num, name), -1);
	assert_int_equal(sn_ib_parse_phys("5:LinkUp", &num, name), -1);
	assert_string_equal(sn_ib_phys_name(5), "LinkUp");
	assert_string_equal(sn_ib_phys_name(8), "<unknown>");
	/* the tables: phys_state 0 is the kernel's own "<unknown>" entry */
	assert_true(sn_ib_phys_known(0));
	assert_true(sn_ib_phys_known(7));
	assert_false(sn_ib_phys_known(8));
	assert_true(sn_ib_state_known(0));
	assert_true(sn_ib_state_known(5));
	assert_false(sn_ib_state_known(6));
	assert_false(sn_ib_state_known(-1));
	assert_string_equal(sn_ib_state_name(-1), "<unknown>");
}

static void test_parse_rate(void **state)
{
	static const struct {
		const char *text;
		double gbps;
		unsigned width;
		const char *speed;
	} cases[] = {
		{ "400 Gb/sec (4X NDR)", 400, 4, "NDR" },
		{ "2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR" },
		{ "200 Gb/sec (2X NDR)", 200, 2, "NDR" },
		{ "100 Gb/sec (2X HDR)", 100, 2, "HDR" },
		{ "200 Gb/sec (4X HDR)", 200, 4, "HDR" },
		{ "800 Gb/sec (4X XDR)", 800, 4, "XDR" },
		{ "10 Gb/sec (4X)", 10, 4, "" }, /* old kernels */
		{ "40 Gb/sec (4X QDR)", 40, 4, "QDR" },
		{ "10 Gb/sec (4X SDR)", 10, 4, "SDR" },
		{ "56 Gb/sec (4X FDR)", 56, 4, "FDR" },
		{ "40 Gb/sec (4X FDR10)", 40, 4, "FDR10" },
		{ "25 Gb/sec (1X EDR)", 25, 1, "EDR" },
		{ "300 Gb/sec (12X EDR)", 300, 12, "EDR" },
		{ "7.5 Gb/sec (1X)", 7.5, 1, "" },
		{ "1600 Gb/sec (8X XDR)", 1600, 8, "XDR" },
	};
	static const char *const bad[] = {
		"",
		"Gb/sec",
		"400",
		"400 Gb/sec",
		"400 Gb/sec ()",
		"400 Gb/sec (3X NDR)",
		"400 Gb/sec (16X NDR)",
		"400 Gb/sec (4X ndr)",
		"400 Gb/sec (4X NDR",
		"400Gb/sec (4X NDR)",
		"-1 Gb/sec (4X)",
		"400 Gb/sec (4X NDR) x",
		"400 Gb/sec (4XNDR)",
		".5 Gb/sec (1X)",
		"2. Gb/sec (1X)",
		"400 Gb/s (4X NDR)",
		"400 Gb/sec (X NDR)",
		"400 Gb/sec (4X NDRNDRNDR)",
		"1234567 Gb/sec (4X)",
		"400 Gb/sec (4X  NDR)",
	};
	char speed[SN_IB_SPEED_MAX];
	unsigned width;
	double gbps;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sn_ib_parse_rate(cases[i].text, &gbps, &width, speed))
			fail_msg("'%s' refused", cases[i].text);
		if (fabs(gbps - cases[i].gbps) > 1e-9)
			fail_msg("'%s' -> %g", cases[i].text, gbps);
		assert_int_equal(width, cases[i].width);
		assert_string_equal(speed, cases[i].speed);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!sn_ib_parse_rate(bad[i], &gbps, &width, speed))
			fail_msg("'%s' accepted", bad[i]);
}

/* ---- reading a port ---------------------------------------------------- */

static void test_read_port(void **state)
{
	struct sn_ib_port p;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 1, &p), 0);
	assert_true(p.dev_present);
	assert_true(p.present);
	assert_string_equal(p.dev, "mlx5_0");
	assert_int_equal(p.port, 1);
	assert_int_equal(p.state.status, SN_ATTR_OK);
	assert_string_equal(p.state.text, "4: ACTIVE");
	assert_int_equal(p.state_num, 4);
	assert_string_equal(p.state_name, "ACTIVE");
	assert_int_equal(p.phys.status, SN_ATTR_OK);
	assert_int_equal(p.phys_num, 5);
	assert_string_equal(p.phys_name, "LinkUp");
	assert_int_equal(p.rate.status, SN_ATTR_OK);
	assert_true(p.rate_gbps == 400.0);
	assert_int_equal(p.width, 4);
	assert_string_equal(p.speed, "NDR");
	assert_int_equal(p.link_layer.status, SN_ATTR_OK);
	assert_int_equal(p.layer, SN_LINK_INFINIBAND);
	/* numbers outside the kernel's tables are not states: BAD */
	ib_port_files(&t, "mlx5_0", 1, "9: ACTIVE", "8: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 1, &p), 0);
	assert_int_equal(p.state.status, SN_ATTR_BAD);
	assert_string_equal(p.state.text, "9: ACTIVE");
	assert_int_equal(p.phys.status, SN_ATTR_BAD);
	assert_string_equal(p.phys.text, "8: LinkUp");
	assert_int_equal(p.rate.status, SN_ATTR_OK);
	tree_free(&t);
}

static void test_read_odd_files(void **state)
{
	struct sn_ib_port p;
	struct tree t;
	char path[PATH_MAX];

	(void)state;
	tree_new(&t);
	/* rate missing, link_layer "Unknown", phys_state garbage */
	ib_port_files(&t, "mlx5_0", 1, "1: DOWN", "LinkUp", NULL, "Unknown");
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 1, &p), 0);
	assert_int_equal(p.state.status, SN_ATTR_OK);
	assert_int_equal(p.state_num, 1);
	assert_int_equal(p.phys.status, SN_ATTR_BAD);
	assert_string_equal(p.phys.text, "LinkUp");
	assert_int_equal(p.rate.status, SN_ATTR_MISSING);
	assert_int_equal(p.link_layer.status, SN_ATTR_BAD);
	/* empty rate, state a directory, link_layer a FIFO (must not hang) */
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/rate", "");
	tree_remove(&t, "class/infiniband/mlx5_0/ports/1/state");
	tree_dir(&t, "class/infiniband/mlx5_0/ports/1/state");
	tree_remove(&t, "class/infiniband/mlx5_0/ports/1/link_layer");
	tree_path(&t, "class/infiniband/mlx5_0/ports/1/link_layer", path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 1, &p), 0);
	assert_int_equal(p.rate.status, SN_ATTR_EMPTY);
	assert_int_equal(p.state.status, SN_ATTR_NOT_REGULAR);
	assert_string_equal(p.state.text, "folder");
	assert_int_equal(p.link_layer.status, SN_ATTR_NOT_REGULAR);
	assert_string_equal(p.link_layer.text, "fifo");
	/* "Ethernet" with the blank line prometheus-procfs has */
	tree_remove(&t, "class/infiniband/mlx5_0/ports/1/link_layer");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/link_layer",
		  "Ethernet\n\n");
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 1, &p), 0);
	assert_int_equal(p.link_layer.status, SN_ATTR_OK);
	assert_int_equal(p.layer, SN_LINK_ETHERNET);
	tree_free(&t);
}

static void test_read_missing(void **state)
{
	struct sn_ib_port p;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", NULL, NULL, NULL);
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 2, &p), 0);
	assert_true(p.dev_present);
	assert_false(p.present);
	assert_int_equal(p.state.status, SN_ATTR_MISSING);
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_7", 1, &p), 0);
	assert_false(p.dev_present);
	assert_false(p.present);
	/* bad arguments */
	assert_int_equal(sn_ib_port_read(t.root, "../mlx5_0", 1, &p), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sn_ib_port_read(t.root, "mlx5_0", 0, &p), -1);
	assert_int_equal(sn_ib_port_read(NULL, "mlx5_0", 1, &p), -1);
	assert_int_equal(sn_ib_port_read(t.root, "", 1, &p), -1);
	tree_free(&t);
}

/* ---- GIDs, netdev ------------------------------------------------------ */

#define GID_LL "fe80:0000:0000:0000:0c42:a1ff:fe22:3344"
#define GID_V4 "0000:0000:0000:0000:0000:ffff:0a00:0007"
#define GID_0 "0000:0000:0000:0000:0000:0000:0000:0000"

static void test_gids(void **state)
{
	struct sn_ib_gid g;
	struct tree t;
	char ifname[SN_IFNAME_MAX], oper[16];

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_2", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(&t, "mlx5_2", 1, 0, GID_LL, "IB/RoCE v1", "eth2");
	ib_gid(&t, "mlx5_2", 1, 1, GID_LL, "RoCE v2", "eth2");
	ib_gid(&t, "mlx5_2", 1, 2, GID_V4, "IB/RoCE v1", "eth2");
	ib_gid(&t, "mlx5_2", 1, 3, GID_V4, "RoCE v2", "eth2");
	ib_gid(&t, "mlx5_2", 1, 4, GID_0, NULL, NULL);
	assert_int_equal(sn_ib_gid_read(t.root, "mlx5_2", 1, 3, &g), 0);
	assert_int_equal(g.index, 3);
	assert_int_equal(g.status, SN_ATTR_OK);
	assert_false(g.empty);
	assert_string_equal(g.gid, GID_V4);
	assert_string_equal(g.type, "RoCE v2");
	assert_string_equal(g.ndev, "eth2");
	assert_true(sn_ib_gid_is_roce_v2(&g));
	assert_int_equal(sn_ib_gid_read(t.root, "mlx5_2", 1, 4, &g), 0);
	assert_true(g.empty);
	assert_int_equal(g.type_status, SN_ATTR_MISSING);
	assert_false(sn_ib_gid_is_roce_v2(&g));
	assert_int_equal(sn_ib_gid_read(t.root, "mlx5_2", 1, 9, &g), 0);
	assert_int_equal(g.status, SN_ATTR_MISSING);
	assert_int_equal(sn_ib_find_roce_v2(t.root, "mlx5_2", 1, &g), 1);
	assert_int_equal(g.index, 1);
	/* netdev from the GID table; operstate */
	assert_int_equal(sn_ib_port_netdev(t.root, "mlx5_2", 1, 3, ifname),
			 SN_ATTR_OK);
	assert_string_equal(ifname, "eth2");
	net_operstate(&t, "eth2", "up");
	assert_int_equal(sn_net_operstate(t.root, "eth2", oper, sizeof(oper)),
			 SN_ATTR_OK);
	assert_string_equal(oper, "up");
	assert_int_equal(sn_net_operstate(t.root, "eth9", oper, sizeof(oper)),
			 SN_ATTR_MISSING);
	assert_int_equal(sn_net_operstate(t.root, "../x", oper, sizeof(oper)),
			 SN_ATTR_MISSING);
	/* only RoCE v1 left: none */
	tree_file(&t, "class/infiniband/mlx5_2/ports/1/gid_attrs/types/1",
		  "IB/RoCE v1\n");
	tree_file(&t, "class/infiniband/mlx5_2/ports/1/gid_attrs/types/3",
		  "IB/RoCE v1\n");
	assert_int_equal(sn_ib_find_roce_v2(t.root, "mlx5_2", 1, &g), -1);
	/* no table at all */
	assert_int_equal(sn_ib_find_roce_v2(t.root, "mlx5_3", 1, &g), -2);
	tree_free(&t);
}

static void test_netdev_from_device_net(void **state)
{
	char ifname[SN_IFNAME_MAX];
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_3", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	assert_int_equal(sn_ib_port_netdev(t.root, "mlx5_3", 1, -1, ifname),
			 SN_ATTR_MISSING);
	assert_string_equal(ifname, "");
	tree_dir(&t, "devices/pci0000:00/0000:5a:00.1/net/ens9f1np1");
	tree_dir(&t, "devices/pci0000:00/0000:5a:00.1/net/ens9f1");
	ib_dev_pci(&t, "mlx5_3", "pci0000:00/0000:5a:00.1");
	assert_int_equal(sn_ib_port_netdev(t.root, "mlx5_3", 1, -1, ifname),
			 SN_ATTR_OK);
	assert_string_equal(ifname, "ens9f1"); /* first by name */
	/* an entry without a netdev is passed over */
	ib_gid(&t, "mlx5_3", 1, 0, GID_LL, "IB/RoCE v1", NULL);
	ib_gid(&t, "mlx5_3", 1, 1, GID_LL, "RoCE v2", "bond0");
	assert_int_equal(sn_ib_port_netdev(t.root, "mlx5_3", 1, -1, ifname),
			 SN_ATTR_OK);
	assert_string_equal(ifname, "bond0");
	tree_free(&t);
}

/* ---- counters ---------------------------------------------------------- */

static void assert_json(json_object *o, const char *want)
{
	const char *got =
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);

	if (strcmp(got, want))
		fail_msg("\n got: %s\nwant: %s", got, want);
}

static void test_counters_json(void **state)
{
	json_object *o;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/symbol_error",
		  "0\n");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/link_downed",
		  "255\n");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data",
		  "18446744073709551615\n");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data",
		  "18446744073709551616\n"); /* overflows: null */
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/VL15_dropped",
		  "N/A (no PMA)\n");
	tree_file(&t,
		  "class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors",
		  "");
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/counters/neg", "-1\n");
	tree_dir(&t, "class/infiniband/mlx5_0/ports/1/counters/subdir");
	o = sn_ib_port_counters_json(t.root, "mlx5_0", 1);
	assert_non_null(o);
	assert_json(
		o,
		"{\"counters\":{\"VL15_dropped\":null,\"link_downed\":255,"
		"\"neg\":null,\"port_rcv_data\":null,\"port_rcv_errors\":null,"
		"\"port_xmit_data\":18446744073709551615,\"symbol_error\":0},"
		"\"hw_counters\":{}}");
	json_object_put(o);
	/* a missing port, bad arguments */
	errno = 0;
	assert_null(sn_ib_port_counters_json(t.root, "mlx5_0", 2));
	assert_int_equal(errno, ENOENT);
	assert_null(sn_ib_port_counters_json(t.root, "../mlx5_0", 1));
	assert_int_equal(errno, EINVAL);
	tree_free(&t);
}

static void test_counters_capped(void **state)
{
	json_object *o, *hw;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	for (unsigned i = 0; i < SN_IB_COUNTERS_MAX + 44; i++)
		tree_filef(&t, "1\n",
			   "class/infiniband/mlx5_0/ports/1/hw_counters/c%03u",
			   i);
	o = sn_ib_port_counters_json(t.root, "mlx5_0", 1);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "hw_counters", &hw));
	assert_int_equal(json_object_object_length(hw), SN_IB_COUNTERS_MAX);
	json_object_put(o);
	tree_free(&t);
}

/* ---- path MTU ---------------------------------------------------------- */

static void test_mtu_enum(void **state)
{
	static const unsigned bytes[] = { 0, 256, 512, 1024, 2048, 4096, 0 };

	(void)state;
	for (int e = 0; e <= 6; e++)
		assert_int_equal(sn_ib_mtu_bytes(e), bytes[e]);
	assert_int_equal(sn_ib_mtu_bytes(-1), 0);
}

/* include/rdma/ib_addr.h iboe_get_mtu(): netdev MTU - 96, rounded down. */
static void test_roce_path_mtu(void **state)
{
	static const struct {
		long netdev;
		unsigned path;
	} rows[] = {
		{ 9000, 4096 }, { 4200, 4096 },	 { 4192, 4096 }, { 4191, 2048 },
		{ 2144, 2048 }, { 2143, 1024 },	 { 1500, 1024 }, { 1120, 1024 },
		{ 1119, 512 },	{ 1100, 512 },	 { 608, 512 },	 { 607, 256 },
		{ 352, 256 },	{ 351, 0 },	 { 68, 0 },	 { 0, 0 },
		{ -1, 0 },	{ 65535, 4096 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (sn_roce_path_mtu(rows[i].netdev) != rows[i].path)
			fail_msg("netdev MTU %ld: path MTU %u, want %u",
				 rows[i].netdev,
				 sn_roce_path_mtu(rows[i].netdev),
				 rows[i].path);
	}
}

static void test_port_mtu_ib(void **state)
{
	struct sn_port_mtu m;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	tree_file(&t, "supernode-live/verbs/mlx5_0/1/active_mtu", "4096\n");
	assert_int_equal(sn_ib_port_mtu(t.root, "mlx5_0", 1, SN_LINK_INFINIBAND,
					-1, &m),
			 0);
	assert_int_equal(m.status, SN_ATTR_OK);
	assert_int_equal(m.path_mtu, 4096);
	assert_int_equal(m.netdev_mtu, 0);
	assert_string_equal(m.attr, "active_mtu");
	tree_file(&t, "supernode-live/verbs/mlx5_0/1/active_mtu", "1500\n");
	sn_ib_port_mtu(t.root, "mlx5_0", 1, SN_LINK_INFINIBAND, -1, &m);
	assert_int_equal(m.status, SN_ATTR_BAD);
	assert_string_equal(m.text, "1500");
	tree_odd(&t, "supernode-live/verbs/mlx5_0/1/active_mtu", "fifo");
	sn_ib_port_mtu(t.root, "mlx5_0", 1, SN_LINK_INFINIBAND, -1, &m);
	assert_int_equal(m.status, SN_ATTR_NOT_REGULAR);
	assert_int_equal(sn_ib_port_mtu(t.root, "../x", 1, SN_LINK_INFINIBAND,
					-1, &m),
			 -1);
	assert_int_equal(errno, EINVAL);
	tree_free(&t);
}

static void test_port_mtu_roce(void **state)
{
	struct sn_port_mtu m;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_2", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(&t, "mlx5_2", 1, 0, "fe80:0000:0000:0000:0c42:a1ff:fe22:3344",
	       "RoCE v2", "eth2");
	ib_gid(&t, "mlx5_2", 1, 1, "0000:0000:0000:0000:0000:ffff:0a00:0007",
	       "RoCE v2", "eth2.100");
	tree_file(&t, "class/net/eth2/mtu", "9000\n");
	tree_file(&t, "class/net/eth2.100/mtu", "1500\n");
	sn_ib_port_mtu(t.root, "mlx5_2", 1, SN_LINK_ETHERNET, -1, &m);
	assert_int_equal(m.status, SN_ATTR_OK);
	assert_string_equal(m.ifname, "eth2");
	assert_int_equal(m.netdev_mtu, 9000);
	assert_int_equal(m.path_mtu, 4096);
	/* the configured GID's netdev: a VLAN with its own MTU */
	sn_ib_port_mtu(t.root, "mlx5_2", 1, SN_LINK_ETHERNET, 1, &m);
	assert_string_equal(m.ifname, "eth2.100");
	assert_int_equal(m.netdev_mtu, 1500);
	assert_int_equal(m.path_mtu, 1024);
	tree_file(&t, "class/net/eth2/mtu", "9000 bytes\n");
	sn_ib_port_mtu(t.root, "mlx5_2", 1, SN_LINK_ETHERNET, 0, &m);
	assert_int_equal(m.status, SN_ATTR_BAD);
	assert_string_equal(m.text, "9000 bytes");
	tree_remove(&t, "class/net/eth2/mtu");
	sn_ib_port_mtu(t.root, "mlx5_2", 1, SN_LINK_ETHERNET, 0, &m);
	assert_int_equal(m.status, SN_ATTR_MISSING);
	assert_string_equal(m.attr, "mtu");
	assert_string_equal(m.ifname, "eth2");
	tree_free(&t);
}

/* paths.sysfs "/sys" on a host without RDMA devices: verbs answers ENODEV. */
static void test_port_mtu_live_without_devices(void **state)
{
	struct sn_port_mtu m;

	(void)state;
	if (!access("/sys/class/infiniband", F_OK)) {
		print_message(
			"this host has RDMA devices (/sys/class/infiniband)\n");
		skip();
	}
	assert_int_equal(sn_ib_port_mtu("/sys", "mlx5_0", 1, SN_LINK_INFINIBAND,
					-1, &m),
			 0);
	assert_int_equal(m.status, SN_ATTR_UNREADABLE);
	assert_string_equal(m.attr, "verbs");
	assert_string_equal(m.text, strerror(ENODEV));
	assert_string_equal(m.path, "");
}

/* ---- libibverbs -------------------------------------------------------- */

static void test_verbs_without_devices(void **state)
{
	struct sn_ib_verbs v;

	(void)state;
	if (!access("/sys/class/infiniband", F_OK)) {
		print_message(
			"this host has RDMA devices (/sys/class/infiniband)\n");
		skip();
	}
	assert_int_equal(sn_ib_port_verbs("mlx5_0", 1, &v), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(sn_ib_port_verbs("../x", 1, &v), -1);
	assert_int_equal(errno, EINVAL);
}

/* ---- real trees -------------------------------------------------------- */

static void real_port(const char *tree, const char *dev, unsigned port,
		      struct sn_ib_port *p)
{
	char sysfs[PATH_MAX];

	snprintf(sysfs, sizeof(sysfs), "%s/%s/sys", REAL, tree);
	assert_int_equal(sn_ib_port_read(sysfs, dev, port, p), 0);
	if (!p->present)
		fail_msg("%s: %s/%u not present", tree, dev, port);
}

static void test_real_gpud_h100(void **state)
{
	static const char *const ib[] = {
		"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5",
		"mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9",
	};
	struct sn_ib_port p;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		real_port("gpud-h100", ib[i], 1, &p);
		assert_int_equal(p.state_num, 4);
		assert_string_equal(p.state_name, "ACTIVE");
		assert_int_equal(p.phys_num, 5);
		assert_string_equal(p.phys_name, "LinkUp");
		assert_int_equal(p.rate.status, SN_ATTR_OK);
		assert_true(p.rate_gbps == 400.0);
		assert_int_equal(p.width, 4);
		assert_string_equal(p.speed, "NDR");
		assert_int_equal(p.layer, SN_LINK_INFINIBAND);
	}
	real_port("gpud-h100", "mlx5_bond_0", 1, &p);
	assert_int_equal(p.state_num, 4);
	assert_int_equal(p.phys_num, 5);
	assert_true(p.rate_gbps == 200.0);
	assert_int_equal(p.width, 2);
	assert_string_equal(p.speed, "NDR");
	assert_int_equal(p.layer, SN_LINK_ETHERNET);
}

static void test_real_node_exporter(void **state)
{
	struct sn_ib_port p;

	(void)state;
	real_port("node-exporter", "i40iw0", 1, &p); /* old kernel rate */
	assert_string_equal(p.rate.text, "10 Gb/sec (4X)");
	assert_true(p.rate_gbps == 10.0);
	assert_int_equal(p.width, 4);
	assert_string_equal(p.speed, "");
	assert_int_equal(p.layer, SN_LINK_INFINIBAND);
	for (unsigned port = 1; port <= 2; port++) {
		real_port("node-exporter", "mlx4_0", port, &p);
		assert_int_equal(p.state_num, 4);
		assert_int_equal(p.phys_num, 5);
		assert_true(p.rate_gbps == 40.0);
		assert_string_equal(p.speed, "QDR");
	}
}

static void test_real_prometheus_procfs(void **state)
{
	struct sn_ib_port p;

	(void)state;
	real_port("prometheus-procfs", "hfi1_0", 1, &p);
	assert_true(p.rate_gbps == 100.0);
	assert_string_equal(p.speed, "EDR");
	real_port("prometheus-procfs", "mlx4_0", 2, &p); /* extra blank line */
	assert_int_equal(p.link_layer.status, SN_ATTR_OK);
	assert_int_equal(p.layer, SN_LINK_INFINIBAND);
	real_port("prometheus-procfs", "mlx5_0", 1, &p);
	assert_int_equal(p.phys.status, SN_ATTR_OK); /* "4: ACTIVE" (sic) */
	assert_int_equal(p.phys_num, 4);
	assert_string_equal(p.phys_name, "ACTIVE");
	assert_true(p.rate_gbps == 25.0);
	assert_int_equal(p.width, 1);
	assert_string_equal(p.speed, "EDR");
}

static uint64_t counter(json_object *o, const char *group, const char *name)
{
	json_object *g, *v;

	if (!json_object_object_get_ex(o, group, &g) ||
	    !json_object_object_get_ex(g, name, &v))
		fail_msg("no %s.%s", group, name);
	if (!v)
		fail_msg("%s.%s is null", group, name);
	return json_object_get_uint64(v);
}

static void test_real_counters(void **state)
{
	json_object *o, *g, *v;

	(void)state;
	/* gpud: 21 counters, 26 hw_counters, link_downed 255, rcv errors 14 */
	o = sn_ib_port_counters_json(REAL "/gpud-h100/sys", "mlx5_1", 1);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "counters", &g));
	assert_int_equal(json_object_object_length(g), 21);
	assert_true(json_object_object_get_ex(o, "hw_counters", &g));
	assert_int_equal(json_object_object_length(g), 26);
	assert_int_equal(counter(o, "counters", "link_downed"), 255);
	assert_int_equal(counter(o, "counters", "port_rcv_errors"), 14);
	assert_int_equal(counter(o, "counters", "port_rcv_data"),
			 205128687774249ULL);
	json_object_put(o);
	/* i40iw0: "N/A (no PMA)" everywhere: 17 nulls, no hw_counters */
	o = sn_ib_port_counters_json(REAL "/node-exporter/sys", "i40iw0", 1);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "counters", &g));
	assert_int_equal(json_object_object_length(g), 17);
	json_object_object_foreach(g, name, val)
	{
		(void)name;
		assert_null(val);
	}
	assert_true(json_object_object_get_ex(o, "hw_counters", &v));
	assert_int_equal(json_object_object_length(v), 0);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_state),
		cmocka_unit_test(test_parse_phys),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_read_port),
		cmocka_unit_test(test_read_odd_files),
		cmocka_unit_test(test_read_missing),
		cmocka_unit_test(test_gids),
		cmocka_unit_test(test_netdev_from_device_net),
		cmocka_unit_test(test_counters_json),
		cmocka_unit_test(test_counters_capped),
		cmocka_unit_test(test_verbs_without_devices),
		cmocka_unit_test(test_mtu_enum),
		cmocka_unit_test(test_roce_path_mtu),
		cmocka_unit_test(test_port_mtu_ib),
		cmocka_unit_test(test_port_mtu_roce),
		cmocka_unit_test(test_port_mtu_live_without_devices),
		cmocka_unit_test(test_real_gpud_h100),
		cmocka_unit_test(test_real_node_exporter),
		cmocka_unit_test(test_real_prometheus_procfs),
		cmocka_unit_test(test_real_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
