/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node.ports check group (lib/check_ports.c), driven through the
 * config loader (node: schema) and sn_check_ctx: every row of field cases
 * 7 (state, phys_state, rate) and 8 (RoCE / Ethernet ports, exact count),
 * field case 9 through the HCA's PCIe link, RoCE netdev and GID cases, a
 * missing port, unreadable files, and the three real sysfs trees of
 * fixtures/sysfs-infiniband.
 */
#include <sys/stat.h>

#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "config/sn_config.h"

#define REAL SN_FIXTURES "/sysfs-infiniband"

#define IB400 \
	"{device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}"

/*
 * Load a config whose paths.sysfs is sysfs and node.ports is ports; top
 * (top-level sections, e.g. "env:\n  socket_ifname: bond0\n") and node
 * (node: keys before ports:, e.g. "  accelerators:\n    vendor: ascend\n")
 * are added as given.
 */
static struct sn_config *load_with(const char *sysfs, const char *top,
				   const char *node, const char *ports)
{
	static const char fmt[] = "supernodes:\n"
				  "  - name: sn01\n"
				  "    nodes: n[1-2]\n"
				  "paths:\n"
				  "  sysfs: %s\n"
				  "%s"
				  "node:\n"
				  "%s"
				  "  ports:\n"
				  "%s";
	char yaml[16384];
	struct sn_config *cfg;
	struct sn_error err;

	if (snprintf(yaml, sizeof(yaml), fmt, sysfs, top, node, ports) >=
	    (int)sizeof(yaml))
		fail_msg("config too long");
	err_reset(&err);
	cfg = sn_config_load_buffer("ports.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("refused: %s\n--- config ---\n%s", err.msg, yaml);
	return cfg;
}

/* Run sn_check_ports over sysfs with load_with()'s config. */
static void run_with(const char *sysfs, const char *top, const char *node,
		     const char *ports, struct sn_results *r)
{
	struct sn_config *cfg = load_with(sysfs, top, node, ports);
	struct sn_check_ctx ctx;
	struct sn_error err;

	err_reset(&err);
	if (sn_check_ctx_init(&ctx, cfg, "n1", &err))
		fail_msg("ctx: %s", err.msg);
	memset(r, 0, sizeof(*r));
	assert_int_equal(sn_check_ports(&ctx, r), 0);
	for (size_t i = 0; i < r->count; i++)
		assert_true(!strcmp(r->items[i].check, "ib_port") ||
			    !strcmp(r->items[i].check, "pcie") ||
			    !strcmp(r->items[i].check, "net_iface"));
	sn_config_free(cfg);
}

/* Run sn_check_ports over sysfs with the given node.ports list. */
static void run(const char *sysfs, const char *ports, struct sn_results *r)
{
	run_with(sysfs, "", "", ports, r);
}

/* One port list entry: "    - {...}\n". */
static void entry(char *buf, size_t size, const char *flow)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "    - %s\n", flow);
}

/* ---- field case 7 ------------------------------------------------------ */

struct row7 {
	const char *state, *phys, *rate;
	double min_rate;
	size_t n;
	struct want w[2];
};

#define EXP400 ">= 400 Gb/sec"

static const struct row7 case7[] = {
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "400 Gb/sec (4X NDR)",
	  400,
	  1,
	  { { SN_OK, "OK", "mlx5_0/1", "ACTIVE LinkUp 400 Gb/sec (4X NDR)",
	      "InfiniBand ACTIVE LinkUp >= 400 Gb/sec" } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "200 Gb/sec (2X NDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1", "200 Gb/sec (2X NDR)",
	      EXP400 } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "200 Gb/sec (4X HDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1", "200 Gb/sec (4X HDR)",
	      EXP400 } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "100 Gb/sec (2X HDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1", "100 Gb/sec (2X HDR)",
	      EXP400 } } },
	{ "2: INIT",
	  "5: LinkUp",
	  "400 Gb/sec (4X NDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1",
	      "state=INIT (no subnet manager?)", "ACTIVE" } } },
	{ "3: ARMED",
	  "5: LinkUp",
	  "400 Gb/sec (4X NDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1", "state=ARMED", "ACTIVE" } } },
	{ "1: DOWN",
	  "2: Polling",
	  "10 Gb/sec (4X SDR)",
	  400,
	  2,
	  { { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1", "state=DOWN", "ACTIVE" },
	    { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1",
	      "phys_state=Polling (cable or peer)", "LinkUp" } } },
	{ "1: DOWN",
	  "3: Disabled",
	  "400 Gb/sec (4X NDR)",
	  400,
	  2,
	  { { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1", "state=DOWN", "ACTIVE" },
	    { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1", "phys_state=Disabled",
	      "LinkUp" } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "2.5 Gb/sec (1X SDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1", "2.5 Gb/sec (1X SDR)",
	      EXP400 } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "800 Gb/sec (4X XDR)",
	  400,
	  1,
	  { { SN_OK, "OK", "mlx5_0/1", "ACTIVE LinkUp 800 Gb/sec (4X XDR)",
	      "InfiniBand ACTIVE LinkUp >= 400 Gb/sec" } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "800 Gb/sec (4X XDR)",
	  800,
	  1,
	  { { SN_OK, "OK", "mlx5_0/1", "ACTIVE LinkUp 800 Gb/sec (4X XDR)",
	      "InfiniBand ACTIVE LinkUp >= 800 Gb/sec" } } },
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "800 Gb/sec (4X XDR)",
	  1600,
	  1,
	  { { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1", "800 Gb/sec (4X XDR)",
	      ">= 1600 Gb/sec" } } },
	{ "4: ACTIVE",
	  "0: <unknown>",
	  "400 Gb/sec (4X NDR)",
	  400,
	  1,
	  { { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1", "phys_state=<unknown>",
	      "LinkUp" } } },
	/* a rate of 0 in the manifest is not checked */
	{ "4: ACTIVE",
	  "5: LinkUp",
	  "2.5 Gb/sec (1X SDR)",
	  0,
	  1,
	  { { SN_OK, "OK", "mlx5_0/1", "ACTIVE LinkUp 2.5 Gb/sec (1X SDR)",
	      "InfiniBand ACTIVE LinkUp" } } },
};

static void test_case7_rows(void **state)
{
	char ports[256];

	(void)state;
	for (size_t i = 0; i < sizeof(case7) / sizeof(case7[0]); i++) {
		const struct row7 *row = &case7[i];
		struct sn_results r;
		struct tree t;

		tree_new(&t);
		ib_port_files(&t, "mlx5_0", 1, row->state, row->phys, row->rate,
			      "InfiniBand");
		snprintf(
			ports, sizeof(ports),
			"    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: %g}\n",
			row->min_rate);
		run(t.root, ports, &r);
		fprintf(stderr, "row %zu: %s | %s | %s\n", i, row->state,
			row->phys, row->rate);
		expect_results_at(&r, row->w, row->n, __FILE__, __LINE__);
		sn_results_free(&r);
		tree_free(&t);
	}
}

/* Row 12: rate file missing or empty -> UNKNOWN "cannot read rate". */
static void test_case7_rate_unreadable(void **state)
{
	struct sn_results r;
	struct tree t;
	char found[256];

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp", NULL,
		      "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	snprintf(
		found, sizeof(found),
		"cannot read rate (missing): %s/class/infiniband/mlx5_0/ports/1/rate",
		t.root);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "IB_PORT_RATE", "mlx5_0/1", found,
			     EXP400 });
	sn_results_free(&r);
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/rate", "");
	run(t.root, "    - " IB400 "\n", &r);
	snprintf(
		found, sizeof(found),
		"cannot read rate (empty): %s/class/infiniband/mlx5_0/ports/1/rate",
		t.root);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "IB_PORT_RATE", "mlx5_0/1", found,
			     EXP400 });
	assert_contains(r.items[0].found, "cannot read rate");
	sn_results_free(&r);
	/* a rate in no known format */
	tree_file(&t, "class/infiniband/mlx5_0/ports/1/rate", "400 Gb/s\n");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "IB_PORT_RATE", "mlx5_0/1",
			     "cannot parse rate '400 Gb/s'", EXP400 });
	sn_results_free(&r);
	tree_free(&t);
}

/*
 * A state or phys_state number outside the kernel's table is UNKNOWN
 * naming the number, never CRIT, whatever name follows it ("9: ACTIVE"
 * once drained with "state=9: ACTIVE expected ACTIVE").  The other
 * attributes are still judged; known numbers keep their grades.
 */
static void test_unknown_state_numbers(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "9: ACTIVE", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r,
		       { SN_UNKNOWN, "IB_PORT_DOWN", "mlx5_0/1",
			 "state number 9 unknown ('9: ACTIVE')", "ACTIVE" });
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
	/* a bare unknown number; phys_state 8 with a known name; low rate */
	ib_port_files(&t, "mlx5_0", 1, "6", "8: LinkUp", "200 Gb/sec (2X NDR)",
		      "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r,
		       { SN_UNKNOWN, "IB_PORT_DOWN", "mlx5_0/1",
			 "state number 6 unknown ('6')", "ACTIVE" },
		       { SN_UNKNOWN, "IB_PORT_PHYS", "mlx5_0/1",
			 "phys_state number 8 unknown ('8: LinkUp')",
			 "LinkUp" },
		       { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1",
			 "200 Gb/sec (2X NDR)", EXP400 });
	sn_results_free(&r);
	/* the last numbers of the tables are known: their grades stand */
	ib_port_files(&t, "mlx5_0", 1, "5: ACTIVE_DEFER", "7: Phy Test",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1",
			 "state=ACTIVE_DEFER", "ACTIVE" },
		       { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1",
			 "phys_state=Phy Test", "LinkUp" });
	sn_results_free(&r);
	tree_free(&t);
}

/*
 * A FIFO or a dangling link in place of an attribute: UNKNOWN naming what
 * it is and the path (its head cut at a '/' when both do not fit).
 */
static void test_state_not_regular(void **state)
{
	char path[PATH_MAX], found1[256];
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	tree_remove(&t, "class/infiniband/mlx5_0/ports/1/state");
	tree_path(&t, "class/infiniband/mlx5_0/ports/1/state", path);
	assert_int_equal(mkfifo(path, 0600), 0);
	tree_remove(&t, "class/infiniband/mlx5_0/ports/1/phys_state");
	tree_link(&t, "class/infiniband/mlx5_0/ports/1/phys_state", "nowhere");
	run(t.root, "    - " IB400 "\n", &r);
	snprintf(
		found1, sizeof(found1),
		"state not a regular file (fifo): %s/class/infiniband/mlx5_0/ports/1/state",
		t.root);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "IB_PORT_DOWN", "mlx5_0/1", found1, "ACTIVE" },
		{ SN_UNKNOWN, "IB_PORT_PHYS", "mlx5_0/1",
		  "phys_state not a regular file (symbolic link): .../class/infiniband/mlx5_0/ports/1/phys_state",
		  "LinkUp" });
	sn_results_free(&r);
	tree_free(&t);
}

/* state missing, phys_state empty: UNKNOWN each, with the path. */
static void test_state_unreadable(void **state)
{
	struct sn_results r;
	struct tree t;
	char found1[256], found2[256];

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, NULL, "", "400 Gb/sec (4X NDR)",
		      "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	snprintf(
		found1, sizeof(found1),
		"cannot read state (missing): %s/class/infiniband/mlx5_0/ports/1/state",
		t.root);
	snprintf(
		found2, sizeof(found2),
		"cannot read phys_state (empty): %s/class/infiniband/mlx5_0/ports/1/phys_state",
		t.root);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "IB_PORT_DOWN", "mlx5_0/1", found1, "ACTIVE" },
		{ SN_UNKNOWN, "IB_PORT_PHYS", "mlx5_0/1", found2, "LinkUp" });
	sn_results_free(&r);
	/* unparsable state, unknown link layer */
	ib_port_files(&t, "mlx5_0", 1, "ACTIVE", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "Unknown");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r,
		       { SN_UNKNOWN, "IB_LINK_LAYER", "mlx5_0/1",
			 "cannot parse link_layer 'Unknown'", "InfiniBand" },
		       { SN_UNKNOWN, "IB_PORT_DOWN", "mlx5_0/1",
			 "cannot parse state 'ACTIVE'", "ACTIVE" });
	sn_results_free(&r);
	tree_free(&t);
}

/* The drain reason is code + device + found + "expected" + expected. */
static void test_drain_reason_parts(void **state)
{
	struct sn_results r;
	struct tree t;
	char reason[512];

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_2", 1, "1: DOWN", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	run(t.root, "    - {device: mlx5_2, port: 1, link_layer: InfiniBand}\n",
	    &r);
	assert_int_equal(r.count, 1);
	snprintf(reason, sizeof(reason), "supernode: %s %s %s expected %s",
		 r.items[0].code, r.items[0].device, r.items[0].found,
		 r.items[0].expected);
	assert_string_equal(
		reason,
		"supernode: IB_PORT_DOWN mlx5_2/1 state=DOWN expected ACTIVE");
	assert_int_equal(sn_results_worst(&r), SN_CRIT);
	sn_results_free(&r);
	tree_free(&t);
}

/* A name that is not the kernel's for its number is shown with it. */
static void test_odd_names(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "4: ACTIVE",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
	run(t.root, "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1",
			     "phys_state=4: ACTIVE", "LinkUp" });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- missing ports, exact count (field case 8) ------------------------- */

static void eight_hdr_ports(struct tree *t, size_t n)
{
	char dev[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%zu", i);
		ib_port_files(t, dev, 1, "4: ACTIVE", "5: LinkUp",
			      "200 Gb/sec (4X HDR)", "InfiniBand");
	}
	ib_port_files(t, "mlx5_an0", 1, "4: ACTIVE", "5: LinkUp",
		      "40 Gb/sec (4X QDR)", "Ethernet");
}

static void eight_ib_entries(char *ports, size_t size)
{
	char flow[128];

	ports[0] = '\0';
	for (unsigned i = 0; i < 8; i++) {
		snprintf(
			flow, sizeof(flow),
			"{device: mlx5_%u, port: 1, link_layer: InfiniBand, min_rate_gbps: 200}",
			i);
		entry(ports, size, flow);
	}
}

/* The Ethernet function (Azure accelerated networking) is not counted. */
static void test_case8_ethernet_vf_not_counted(void **state)
{
	struct sn_results r;
	struct tree t;
	char ports[2048], dev[16];

	(void)state;
	tree_new(&t);
	eight_hdr_ports(&t, 8);
	eight_ib_entries(ports, sizeof(ports));
	run(t.root, ports, &r);
	assert_int_equal(r.count, 8);
	for (size_t i = 0; i < 8; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%zu/1", i);
		assert_int_equal(r.items[i].grade, SN_OK);
		assert_string_equal(r.items[i].code, "OK");
		assert_string_equal(r.items[i].device, dev);
		assert_string_equal(r.items[i].found,
				    "ACTIVE LinkUp 200 Gb/sec (4X HDR)");
		assert_not_contains(r.items[i].device, "an0");
	}
	assert_int_equal(sn_results_worst(&r), SN_OK);
	sn_results_free(&r);
	tree_free(&t);
}

/* 7 of 8 is CRIT, not a pass on the minimum. */
static void test_case8_seven_of_eight(void **state)
{
	struct sn_results r;
	struct tree t;
	char ports[2048];

	(void)state;
	tree_new(&t);
	eight_hdr_ports(&t, 7);
	eight_ib_entries(ports, sizeof(ports));
	run(t.root, ports, &r);
	assert_int_equal(r.count, 8);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(r.items[i].grade, SN_OK);
	expect_results_at(
		&(struct sn_results){ .items = &r.items[7], .count = 1 },
		(const struct want[]){ { SN_CRIT, "IB_PORT_MISSING", "mlx5_7/1",
					 "no such device", "present" } },
		1, __FILE__, __LINE__);
	assert_int_equal(sn_results_worst(&r), SN_CRIT);
	sn_results_free(&r);
	tree_free(&t);
}

static void test_missing_port(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	run(t.root,
	    "    - {device: mlx5_0, port: 2, link_layer: InfiniBand}\n"
	    "    - {device: mlx5_0, port: 1, link_layer: InfiniBand}\n",
	    &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "IB_PORT_MISSING", "mlx5_0/2", "no such port",
			 "present" },
		       { SN_OK, "OK", "mlx5_0/1",
			 "ACTIVE LinkUp 400 Gb/sec (4X NDR)",
			 "InfiniBand ACTIVE LinkUp" });
	sn_results_free(&r);
	tree_free(&t);
}

/* An InfiniBand entry whose port reports Ethernet: CRIT, no IB rules. */
static void test_case8_ib_entry_on_ethernet_port(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	eight_hdr_ports(&t, 0); /* only mlx5_an0: Ethernet, 40 Gb/sec */
	run(t.root,
	    "    - {device: mlx5_an0, link_layer: InfiniBand, min_rate_gbps: 200}\n",
	    &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "IB_LINK_LAYER", "mlx5_an0/1",
			     "link_layer=Ethernet", "InfiniBand" });
	sn_results_free(&r);
	tree_free(&t);
}

/* An Ethernet entry whose port reports InfiniBand: CRIT too. */
static void test_ethernet_entry_on_ib_port(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	run(t.root, "    - {device: mlx5_0, link_layer: Ethernet}\n", &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "IB_LINK_LAYER", "mlx5_0/1",
			     "link_layer=InfiniBand", "Ethernet" });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- RoCE (field case 8, RoCE site) ------------------------------------ */

#define GID_LL "fe80:0000:0000:0000:0c42:a1ff:fe22:3344"
#define GID_V4 "0000:0000:0000:0000:0000:ffff:0a00:0007"
#define GID_0 "0000:0000:0000:0000:0000:0000:0000:0000"

/* mlx5_2 and mlx5_3 in Ethernet mode with a usual RoCE GID table. */
static void roce_site(struct tree *t)
{
	static const char *const devs[] = { "mlx5_2", "mlx5_3" };
	static const char *const nets[] = { "eth2", "eth3" };

	eight_hdr_ports(t, 2); /* mlx5_0, mlx5_1: InfiniBand, not listed */
	for (size_t i = 0; i < 2; i++) {
		ib_port_files(t, devs[i], 1, "4: ACTIVE", "5: LinkUp",
			      "200 Gb/sec (4X HDR)", "Ethernet");
		ib_gid(t, devs[i], 1, 0, GID_LL, "IB/RoCE v1", nets[i]);
		ib_gid(t, devs[i], 1, 1, GID_LL, "RoCE v2", nets[i]);
		ib_gid(t, devs[i], 1, 2, GID_V4, "IB/RoCE v1", nets[i]);
		ib_gid(t, devs[i], 1, 3, GID_V4, "RoCE v2", nets[i]);
		ib_gid(t, devs[i], 1, 4, GID_0, NULL, NULL);
		net_operstate(t, nets[i], "up");
	}
}

#define ROCE2                                                                \
	"    - {device: mlx5_2, link_layer: Ethernet, min_rate_gbps: 200}\n" \
	"    - {device: mlx5_3, link_layer: Ethernet, min_rate_gbps: 200, gid_index: 3}\n"
#define ROCE_EXP "Ethernet ACTIVE LinkUp >= 200 Gb/sec, netdev up, RoCE v2 GID"

static void test_case8_roce_site(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_site(&t);
	run(t.root, ROCE2, &r);
	EXPECT_RESULTS(
		&r,
		{ SN_OK, "OK", "mlx5_2/1",
		  "ACTIVE LinkUp 200 Gb/sec (4X HDR) eth2 up, RoCE v2 GID 1",
		  ROCE_EXP },
		{ SN_OK, "OK", "mlx5_3/1",
		  "ACTIVE LinkUp 200 Gb/sec (4X HDR) eth3 up, RoCE v2 GID 3",
		  ROCE_EXP });
	sn_results_free(&r);
	tree_free(&t);
}

static void test_roce_netdev_down(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_site(&t);
	net_operstate(&t, "eth2", "down");
	net_operstate(&t, "eth3", "lowerlayerdown");
	run(t.root, ROCE2, &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "ROCE_NETDEV_DOWN", "mlx5_2/1",
			 "eth2 operstate=down", "netdev up" },
		       { SN_CRIT, "ROCE_NETDEV_DOWN", "mlx5_3/1",
			 "eth3 operstate=lowerlayerdown", "netdev up" });
	sn_results_free(&r);
	tree_free(&t);
}

static void test_roce_state_down(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_site(&t);
	/* RoCE INIT is not "no subnet manager" */
	ib_port_files(&t, "mlx5_2", 1, "2: INIT", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_port_files(&t, "mlx5_3", 1, "1: DOWN", "3: Disabled",
		      "10 Gb/sec (1X QDR)", "Ethernet");
	net_operstate(&t, "eth3", "down");
	run(t.root, ROCE2, &r);
	EXPECT_RESULTS(
		&r,
		{ SN_CRIT, "IB_PORT_DOWN", "mlx5_2/1", "state=INIT", "ACTIVE" },
		{ SN_CRIT, "IB_PORT_DOWN", "mlx5_3/1", "state=DOWN", "ACTIVE" },
		{ SN_CRIT, "IB_PORT_PHYS", "mlx5_3/1", "phys_state=Disabled",
		  "LinkUp" },
		{ SN_CRIT, "ROCE_NETDEV_DOWN", "mlx5_3/1",
		  "eth3 operstate=down", "netdev up" });
	sn_results_free(&r);
	tree_free(&t);
}

static void gid_case(const char *gid_index, const struct want *w)
{
	struct sn_results r;
	struct tree t;
	char ports[256];

	tree_new(&t);
	roce_site(&t);
	snprintf(ports, sizeof(ports),
		 "    - {device: mlx5_2, link_layer: Ethernet%s}\n", gid_index);
	run(t.root, ports, &r);
	expect_results_at(&r, w, 1, __FILE__, __LINE__);
	sn_results_free(&r);
	tree_free(&t);
}

static void test_roce_gid_index(void **state)
{
	(void)state;
	gid_case(", gid_index: 2",
		 &(struct want){ SN_CRIT, "ROCE_GID_MISSING", "mlx5_2/1",
				 "GID 2 type=IB/RoCE v1", "RoCE v2 at GID 2" });
	gid_case(", gid_index: 4",
		 &(struct want){ SN_CRIT, "ROCE_GID_MISSING", "mlx5_2/1",
				 "GID 4 empty", "RoCE v2 at GID 4" });
	gid_case(", gid_index: 9",
		 &(struct want){ SN_CRIT, "ROCE_GID_MISSING", "mlx5_2/1",
				 "no GID 9", "RoCE v2 at GID 9" });
	gid_case(
		", gid_index: 1",
		&(struct want){
			SN_OK, "OK", "mlx5_2/1",
			"ACTIVE LinkUp 200 Gb/sec (4X HDR) eth2 up, RoCE v2 GID 1",
			"Ethernet ACTIVE LinkUp, netdev up, RoCE v2 GID" });
}

static void test_roce_no_v2(void **state)
{
	struct sn_results r;
	struct tree t;
	char found[256];

	(void)state;
	tree_new(&t);
	roce_site(&t);
	tree_file(&t, "class/infiniband/mlx5_2/ports/1/gid_attrs/types/1",
		  "IB/RoCE v1\n");
	tree_file(&t, "class/infiniband/mlx5_2/ports/1/gid_attrs/types/3",
		  "IB/RoCE v1\n");
	run(t.root, ROCE2, &r);
	EXPECT_RESULTS(
		&r,
		{ SN_CRIT, "ROCE_GID_MISSING", "mlx5_2/1", "no RoCE v2 GID",
		  "a RoCE v2 GID" },
		{ SN_OK, "OK", "mlx5_3/1",
		  "ACTIVE LinkUp 200 Gb/sec (4X HDR) eth3 up, RoCE v2 GID 3",
		  ROCE_EXP });
	sn_results_free(&r);
	/* no GID table at all, no netdev anywhere */
	tree_free(&t);
	tree_new(&t);
	ib_port_files(&t, "mlx5_2", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	run(t.root, "    - {device: mlx5_2, link_layer: Ethernet}\n", &r);
	snprintf(
		found, sizeof(found),
		"cannot read gids (missing): %s/class/infiniband/mlx5_2/ports/1/gids",
		t.root);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "ROCE_NETDEV_DOWN", "mlx5_2/1",
		  "cannot find netdev (no gid_attrs/ndevs, no device/net)",
		  "netdev up" },
		{ SN_UNKNOWN, "ROCE_GID_MISSING", "mlx5_2/1", found,
		  "a RoCE v2 GID" });
	sn_results_free(&r);
	tree_free(&t);
}

/* The netdev from device/net/ when the GID table names none. */
static void test_roce_netdev_device_net(void **state)
{
	struct sn_results r;
	struct tree t;
	char found[256];

	(void)state;
	tree_new(&t);
	ib_port_files(&t, "mlx5_2", 1, "4: ACTIVE", "5: LinkUp",
		      "100 Gb/sec (4X EDR)", "Ethernet");
	ib_gid(&t, "mlx5_2", 1, 0, GID_LL, "RoCE v2", NULL);
	tree_dir(&t, "devices/pci0000:00/0000:5a:00.0/net/ens5f0np0");
	ib_dev_pci(&t, "mlx5_2", "pci0000:00/0000:5a:00.0");
	run(t.root, "    - {device: mlx5_2, link_layer: Ethernet}\n", &r);
	snprintf(
		found, sizeof(found),
		"cannot read operstate (missing): %s/class/net/ens5f0np0/operstate",
		t.root);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "ROCE_NETDEV_DOWN", "mlx5_2/1", found,
			     "netdev up" });
	sn_results_free(&r);
	net_operstate(&t, "ens5f0np0", "up");
	run(t.root, "    - {device: mlx5_2, link_layer: Ethernet}\n", &r);
	EXPECT_RESULTS(
		&r,
		{ SN_OK, "OK", "mlx5_2/1",
		  "ACTIVE LinkUp 100 Gb/sec (4X EDR) ens5f0np0 up, RoCE v2 GID 0",
		  "Ethernet ACTIVE LinkUp, netdev up, RoCE v2 GID" });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- field case 9 through the HCA -------------------------------------- */

#define RP59 "pci0000:00/0000:59:01.0"
#define HCA5A RP59 "/0000:5a:00.0"
#define PCIE_PORT \
	"    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: 400, pcie_min_gen: 4, pcie_min_width: 16}\n"

static void hca(struct tree *t, const char *cur_speed, const char *cur_width)
{
	ib_port_ndr(t, "mlx5_0");
	pci_dev(t, RP59, "16.0 GT/s PCIe", "16.0 GT/s PCIe", "16", "16");
	pci_dev(t, HCA5A, cur_speed, "32.0 GT/s PCIe", cur_width, "16");
	ib_dev_pci(t, "mlx5_0", HCA5A);
}

#define PORT_OK                                                               \
	{                                                                     \
		SN_OK, "OK", "mlx5_0/1", "ACTIVE LinkUp 400 Gb/sec (4X NDR)", \
			"InfiniBand ACTIVE LinkUp >= 400 Gb/sec"              \
	}

static void test_case9_hca(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	/* Gen5 card in a Gen4 slot */
	tree_new(&t);
	hca(&t, "16.0 GT/s PCIe", "16");
	run(t.root, PCIE_PORT, &r);
	EXPECT_RESULTS(&r, PORT_OK,
		       { SN_OK, "OK", "mlx5_0 0000:5a:00.0", "Gen4 x16",
			 "link max, >= Gen4 x16" });
	assert_string_equal(r.items[1].check, "pcie");
	sn_results_free(&r);
	tree_free(&t);
	/* trained at x8 */
	tree_new(&t);
	hca(&t, "16.0 GT/s PCIe", "8");
	run(t.root, PCIE_PORT, &r);
	EXPECT_RESULTS(&r, PORT_OK,
		       { SN_CRIT, "PCIE_WIDTH", "mlx5_0 0000:5a:00.0",
			 "x8 at 0000:5a:00.0", ">= x16 (link max)" });
	sn_results_free(&r);
	tree_free(&t);
	/* no current_link_* files: UNKNOWN, never CRIT */
	tree_new(&t);
	hca(&t, NULL, NULL);
	run(t.root, PCIE_PORT, &r);
	EXPECT_RESULTS(&r, PORT_OK,
		       { SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_0 0000:5a:00.0",
			 "current_link_width missing at 0000:5a:00.0",
			 "known link width" },
		       { SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_0 0000:5a:00.0",
			 "current_link_speed missing at 0000:5a:00.0",
			 "known link speed" });
	sn_results_free(&r);
	tree_free(&t);
	/* "Unknown" speed */
	tree_new(&t);
	hca(&t, "Unknown", "16");
	run(t.root, PCIE_PORT, &r);
	EXPECT_RESULTS(&r, PORT_OK,
		       { SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_0 0000:5a:00.0",
			 "current_link_speed=Unknown at 0000:5a:00.0",
			 "known link speed" });
	sn_results_free(&r);
	tree_free(&t);
	/* no device link at all */
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	run(t.root, PCIE_PORT, &r);
	EXPECT_RESULTS(
		&r, PORT_OK,
		{ SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_0",
		  "cannot resolve class/infiniband/mlx5_0/device (No such file or directory)",
		  "a PCI device" });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- nothing listed, the live path ------------------------------------- */

static void test_no_ports_listed(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_results r = { 0 };
	struct sn_error err;
	static const char yaml[] = "supernodes:\n  - {name: a, nodes: n1}\n";

	(void)state;
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);
	assert_int_equal(sn_check_ports(&ctx, &r), 0);
	assert_int_equal(r.count, 0);
	sn_config_free(cfg);
}

/* sysfs "/sys" on a host without RDMA devices: missing, no verbs noise. */
static void test_live_sys_without_devices(void **state)
{
	struct sn_results r;

	(void)state;
	if (!access("/sys/class/infiniband/mlx5_0", F_OK)) {
		print_message(
			"this host has RDMA devices (/sys/class/infiniband/mlx5_0)\n");
		skip();
	}
	run("/sys", "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "IB_PORT_MISSING", "mlx5_0/1",
			     "no such device", "present" });
	sn_results_free(&r);
}

/* A typo in paths.sysfs is UNKNOWN (a config error), never a drain. */
static void test_sysfs_root_missing(void **state)
{
	struct sn_results r;

	(void)state;
	run("/nonexistent/sn-sysfs", "    - " IB400 "\n", &r);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "IB_SYSFS", "node",
		  "cannot use /nonexistent/sn-sysfs: No such file or directory",
		  "paths.sysfs is a folder" });
	sn_results_free(&r);
	run("/etc/passwd", "    - " IB400 "\n", &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "IB_SYSFS", "node",
			     "cannot use /etc/passwd: not a folder",
			     "paths.sysfs is a folder" });
	sn_results_free(&r);
}

/* ---- real trees -------------------------------------------------------- */

static void test_real_gpud_h100(void **state)
{
	static const char *const ib[] = {
		"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5",
		"mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9",
	};
	const char *sysfs = REAL "/gpud-h100/sys";
	char ports[2048] = "", flow[128], dev[32];
	struct sn_results r;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		snprintf(
			flow, sizeof(flow),
			"{device: %s, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}",
			ib[i]);
		entry(ports, sizeof(ports), flow);
	}
	entry(ports, sizeof(ports),
	      "{device: mlx5_bond_0, link_layer: Ethernet, min_rate_gbps: 200}");
	run(sysfs, ports, &r);
	assert_int_equal(r.count, 10);
	for (size_t i = 0; i < 8; i++) {
		snprintf(dev, sizeof(dev), "%s/1", ib[i]);
		expect_results_at(
			&(struct sn_results){ .items = &r.items[i],
					      .count = 1 },
			&(struct want){
				SN_OK, "OK", dev,
				"ACTIVE LinkUp 400 Gb/sec (4X NDR)",
				"InfiniBand ACTIVE LinkUp >= 400 Gb/sec" },
			1, __FILE__, __LINE__);
	}
	/* the RoCE bond: state, phys and rate pass; the tree has no GID
	 * table and no netdev, so those two are UNKNOWN, not CRIT */
	expect_results_at(
		&(struct sn_results){ .items = &r.items[8], .count = 2 },
		(const struct want[]){
			{ SN_UNKNOWN, "ROCE_NETDEV_DOWN", "mlx5_bond_0/1",
			  "cannot find netdev (no gid_attrs/ndevs, no device/net)",
			  "netdev up" },
			{ SN_UNKNOWN, "ROCE_GID_MISSING", "mlx5_bond_0/1",
			  "cannot read gids (missing): .../gpud-h100/sys/class/infiniband/mlx5_bond_0/ports/1/gids",
			  "a RoCE v2 GID" } },
		2, __FILE__, __LINE__);
	sn_results_free(&r);
	/* asking 800 Gb/sec of them: all eight CRIT */
	run(sysfs,
	    "    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: 800}\n"
	    "    - {device: mlx5_bond_0, link_layer: InfiniBand}\n",
	    &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "IB_PORT_RATE", "mlx5_0/1",
			 "400 Gb/sec (4X NDR)", ">= 800 Gb/sec" },
		       { SN_CRIT, "IB_LINK_LAYER", "mlx5_bond_0/1",
			 "link_layer=Ethernet", "InfiniBand" });
	sn_results_free(&r);
}

static void test_real_node_exporter(void **state)
{
	struct sn_results r;

	(void)state;
	run(REAL "/node-exporter/sys",
	    "    - {device: mlx4_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 40}\n"
	    "    - {device: mlx4_0, port: 2, link_layer: InfiniBand, min_rate_gbps: 40}\n"
	    "    - {device: i40iw0, port: 1, link_layer: InfiniBand, min_rate_gbps: 10}\n",
	    &r);
	EXPECT_RESULTS(
		&r,
		{ SN_OK, "OK", "mlx4_0/1", "ACTIVE LinkUp 40 Gb/sec (4X QDR)",
		  "InfiniBand ACTIVE LinkUp >= 40 Gb/sec" },
		{ SN_OK, "OK", "mlx4_0/2", "ACTIVE LinkUp 40 Gb/sec (4X QDR)",
		  NULL },
		{ SN_OK, "OK", "i40iw0/1", "ACTIVE LinkUp 10 Gb/sec (4X)",
		  "InfiniBand ACTIVE LinkUp >= 10 Gb/sec" });
	sn_results_free(&r);
}

static void test_real_prometheus_procfs(void **state)
{
	struct sn_results r;

	(void)state;
	run(REAL "/prometheus-procfs/sys",
	    "    - {device: hfi1_0, link_layer: InfiniBand, min_rate_gbps: 100}\n"
	    "    - {device: mlx4_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 40}\n"
	    "    - {device: mlx4_0, port: 2, link_layer: InfiniBand, min_rate_gbps: 40}\n"
	    "    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: 25}\n",
	    &r);
	/* mlx5_0's phys_state file reads "4: ACTIVE" (sic): not LinkUp */
	EXPECT_RESULTS(&r,
		       { SN_OK, "OK", "hfi1_0/1",
			 "ACTIVE LinkUp 100 Gb/sec (4X EDR)", NULL },
		       { SN_OK, "OK", "mlx4_0/1",
			 "ACTIVE LinkUp 40 Gb/sec (4X QDR)", NULL },
		       { SN_OK, "OK", "mlx4_0/2",
			 "ACTIVE LinkUp 40 Gb/sec (4X QDR)", NULL },
		       { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1",
			 "phys_state=4: ACTIVE", "LinkUp" });
	sn_results_free(&r);
}

/* ---- path MTU (issue 18, item 6) --------------------------------------- */

#define NET_REAL SN_FIXTURES "/sysfs-net/node-exporter/sys"

/*
 * A file of the tree's "supernode-live/" folder: what verbs and
 * getifaddrs() answer on a live node, for a tree that is not /sys.
 */
static void live(const struct tree *t, const char *rel, const char *content)
{
	tree_filef(t, content, "supernode-live/%s", rel);
}

#define IB_MTU(min)                                                                         \
	"    - {device: mlx5_0, link_layer: InfiniBand, min_rate_gbps: 400, min_mtu: " #min \
	"}\n"
#define IB_MTU_EXP "InfiniBand ACTIVE LinkUp >= 400 Gb/sec, path MTU >= 4096"

static void test_mtu_ib(void **state)
{
	char found[256];
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	ib_port_ndr(&t, "mlx5_0");
	live(&t, "verbs/mlx5_0/1/active_mtu", "4096\n");
	run(t.root, IB_MTU(4096), &r);
	EXPECT_RESULTS(&r,
		       { SN_OK, "OK", "mlx5_0/1",
			 "ACTIVE LinkUp 400 Gb/sec (4X NDR), active MTU 4096",
			 IB_MTU_EXP });
	sn_results_free(&r);
	live(&t, "verbs/mlx5_0/1/active_mtu", "2048\n");
	run(t.root, IB_MTU(4096), &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "PORT_MTU", "mlx5_0/1",
			 "active MTU 2048 below 4096", "path MTU >= 4096" });
	sn_results_free(&r);
	run(t.root, IB_MTU(2048), &r);
	EXPECT_RESULTS(&r,
		       { SN_OK, "OK", "mlx5_0/1",
			 "ACTIVE LinkUp 400 Gb/sec (4X NDR), active MTU 2048",
			 NULL });
	sn_results_free(&r);
	/* not one of the five IB MTUs */
	live(&t, "verbs/mlx5_0/1/active_mtu", "4000\n");
	run(t.root, IB_MTU(4096), &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PORT_MTU", "mlx5_0/1",
			     "cannot parse active_mtu '4000'",
			     "path MTU >= 4096" });
	sn_results_free(&r);
	tree_remove(&t, "supernode-live/verbs/mlx5_0/1/active_mtu");
	run(t.root, IB_MTU(4096), &r);
	snprintf(
		found, sizeof(found),
		"cannot read active_mtu (missing): %s/supernode-live/verbs/mlx5_0/1/active_mtu",
		t.root);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PORT_MTU", "mlx5_0/1", found,
			     "path MTU >= 4096" });
	sn_results_free(&r);
	/* an untrained link has no real MTU: only its phys_state is judged */
	ib_port_files(&t, "mlx5_0", 1, "1: DOWN", "2: Polling",
		      "10 Gb/sec (4X)", "InfiniBand");
	run(t.root,
	    "    - {device: mlx5_0, link_layer: InfiniBand, min_mtu: 4096}\n",
	    &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1", "state=DOWN",
			 "ACTIVE" },
		       { SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1",
			 "phys_state=Polling (cable or peer)", "LinkUp" });
	sn_results_free(&r);
	/* min_mtu absent: not read, no result of its own */
	ib_port_ndr(&t, "mlx5_0");
	run(t.root, "    - {device: mlx5_0, link_layer: InfiniBand}\n", &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", "mlx5_0/1",
			     "ACTIVE LinkUp 400 Gb/sec (4X NDR)",
			     "InfiniBand ACTIVE LinkUp" });
	sn_results_free(&r);
	tree_free(&t);
}

/* One RoCE row: the netdev's MTU, min_mtu, the path MTU the kernel gives. */
struct mtu_row {
	const char *netdev_mtu;
	unsigned min_mtu;
	unsigned path_mtu;
};

/*
 * include/rdma/ib_addr.h iboe_get_mtu(): netdev MTU - 96, then the largest
 * IB MTU not above it; every edge, both sides.
 */
static const struct mtu_row roce_rows[] = {
	{ "9000", 4096, 4096 }, { "4200", 4096, 4096 }, { "4192", 4096, 4096 },
	{ "4191", 4096, 2048 }, { "2144", 2048, 2048 }, { "2143", 2048, 1024 },
	{ "1500", 4096, 1024 }, { "1500", 1024, 1024 }, { "1120", 1024, 1024 },
	{ "1119", 1024, 512 },	{ "1100", 512, 512 },	{ "608", 512, 512 },
	{ "607", 512, 256 },	{ "352", 256, 256 },	{ "351", 256, 0 },
	{ "68", 256, 0 },
};

static void roce_mtu_row(const struct tree *t, const struct mtu_row *row)
{
	char ports[256], found[SN_VALUE_MAX], expected[SN_VALUE_MAX];
	struct sn_results r;

	snprintf(
		ports, sizeof(ports),
		"    - {device: mlx5_2, link_layer: Ethernet, min_rate_gbps: 200, min_mtu: %u}\n",
		row->min_mtu);
	tree_filef(t, row->netdev_mtu, "class/net/eth2/mtu");
	run(t->root, ports, &r);
	if (row->path_mtu >= row->min_mtu) {
		snprintf(
			found, sizeof(found),
			"ACTIVE LinkUp 200 Gb/sec (4X HDR) eth2 up, RoCE v2 GID 1, path MTU %u (eth2 MTU %s)",
			row->path_mtu, row->netdev_mtu);
		snprintf(
			expected, sizeof(expected),
			"Ethernet ACTIVE LinkUp >= 200 Gb/sec, netdev up, RoCE v2 GID, path MTU >= %u",
			row->min_mtu);
		EXPECT_RESULTS(&r,
			       { SN_OK, "OK", "mlx5_2/1", found, expected });
	} else {
		snprintf(found, sizeof(found),
			 "path MTU %u (netdev eth2 MTU %s) below %u",
			 row->path_mtu, row->netdev_mtu, row->min_mtu);
		snprintf(expected, sizeof(expected), "path MTU >= %u",
			 row->min_mtu);
		EXPECT_RESULTS(&r, { SN_CRIT, "PORT_MTU", "mlx5_2/1", found,
				     expected });
	}
	sn_results_free(&r);
}

static void test_mtu_roce_table(void **state)
{
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_site(&t);
	for (size_t i = 0; i < sizeof(roce_rows) / sizeof(roce_rows[0]); i++)
		roce_mtu_row(&t, &roce_rows[i]);
	tree_free(&t);
}

static void test_mtu_roce_unreadable(void **state)
{
	char found[256];
	const char *ports =
		"    - {device: mlx5_2, link_layer: Ethernet, min_mtu: 1024}\n";
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_site(&t);
	run(t.root, ports, &r);
	snprintf(found, sizeof(found),
		 "cannot read mtu (missing): %s/class/net/eth2/mtu", t.root);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PORT_MTU", "mlx5_2/1", found,
			     "path MTU >= 1024" });
	sn_results_free(&r);
	tree_file(&t, "class/net/eth2/mtu", "jumbo\n");
	run(t.root, ports, &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PORT_MTU", "mlx5_2/1",
			     "cannot parse mtu 'jumbo'", "path MTU >= 1024" });
	sn_results_free(&r);
	/* no netdev at all: both the netdev and its MTU are UNKNOWN */
	tree_remove_all(&t, "class/infiniband/mlx5_2/ports/1/gid_attrs");
	run(t.root, ports, &r);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "ROCE_NETDEV_DOWN", "mlx5_2/1",
		  "cannot find netdev (no gid_attrs/ndevs, no device/net)",
		  "netdev up" },
		{ SN_CRIT, "ROCE_GID_MISSING", "mlx5_2/1", "no RoCE v2 GID",
		  "a RoCE v2 GID" },
		{ SN_UNKNOWN, "PORT_MTU", "mlx5_2/1",
		  "cannot find the netdev to read its MTU",
		  "path MTU >= 1024" });
	sn_results_free(&r);
	tree_free(&t);
}

/* The real bond0 of node_exporter's sys.ttar: MTU 1500, operstate up. */
static void test_mtu_real_bond(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	tree_copy(&t, "class/net/bond0", NET_REAL "/class/net/bond0");
	ib_port_files(&t, "mlx5_bond_0", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(&t, "mlx5_bond_0", 1, 0, GID_LL, "IB/RoCE v1", "bond0");
	ib_gid(&t, "mlx5_bond_0", 1, 1, GID_LL, "RoCE v2", "bond0");
	run(t.root,
	    "    - {device: mlx5_bond_0, link_layer: Ethernet, min_mtu: 4096}\n",
	    &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PORT_MTU", "mlx5_bond_0/1",
			     "path MTU 1024 (netdev bond0 MTU 1500) below 4096",
			     "path MTU >= 4096" });
	sn_results_free(&r);
	run(t.root,
	    "    - {device: mlx5_bond_0, link_layer: Ethernet, min_mtu: 1024}\n",
	    &r);
	EXPECT_RESULTS(
		&r,
		{ SN_OK, "OK", "mlx5_bond_0/1",
		  "ACTIVE LinkUp 200 Gb/sec (4X HDR) bond0 up, RoCE v2 GID 1, path MTU 1024 (bond0 MTU 1500)",
		  NULL });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- the collective library's socket interface ------------------------- */

#define SOCK_TOP "env:\n  socket_ifname: bond0\n"
#define ASCEND "  accelerators:\n    vendor: ascend\n    count: 8\n"
#define NO_PORTS "    []\n"

static void sock_expect(const struct tree *t, const char *node,
			const struct want *w)
{
	struct sn_results r;

	run_with(t->root, SOCK_TOP, node, NO_PORTS, &r);
	expect_results_at(&r, w, 1, __FILE__, __LINE__);
	sn_results_free(&r);
}

static void test_socket_iface(void **state)
{
	char found[256];
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	tree_copy(&t, "class/net/bond0", NET_REAL "/class/net/bond0");
	live(&t, "ifaddrs/bond0",
	     "fe80::1e34:daff:fe5e:d8f0/64\n10.0.0.7/24\n");
	sock_expect(
		&t, ASCEND,
		&(struct want){ SN_OK, "OK", "bond0",
				"HCCL_SOCKET_IFNAME bond0 up, address 10.0.0.7",
				"up, with an address" });
	/* NVIDIA's variable, also with no accelerators configured (the job
	 * environment sets NCCL's there); an IPv6 address counts */
	live(&t, "ifaddrs/bond0", "2001:db8::7/64\n");
	sock_expect(&t, "",
		    &(struct want){
			    SN_OK, "OK", "bond0",
			    "NCCL_SOCKET_IFNAME bond0 up, address 2001:db8::7",
			    NULL });
	sock_expect(&t, "  accelerators:\n    vendor: nvidia\n    count: 8\n",
		    &(struct want){
			    SN_OK, "OK", "bond0",
			    "NCCL_SOCKET_IFNAME bond0 up, address 2001:db8::7",
			    NULL });
	/* no address, or a link-local one only */
	live(&t, "ifaddrs/bond0", "");
	sock_expect(&t, ASCEND,
		    &(struct want){ SN_CRIT, "SOCKET_IFACE_NO_ADDR", "bond0",
				    "HCCL_SOCKET_IFNAME bond0 has no address",
				    "an IPv4 or IPv6 address" });
	live(&t, "ifaddrs/bond0", "fe80::1e34:daff:fe5e:d8f0/64\n");
	sock_expect(
		&t, ASCEND,
		&(struct want){
			SN_CRIT, "SOCKET_IFACE_NO_ADDR", "bond0",
			"HCCL_SOCKET_IFNAME bond0 has no address (IPv6 link-local only)",
			NULL });
	live(&t, "ifaddrs/bond0", "10.0.0.300/24\n");
	sock_expect(&t, ASCEND,
		    &(struct want){ SN_UNKNOWN, "SOCKET_IFACE_NO_ADDR", "bond0",
				    "cannot parse address '10.0.0.300/24'",
				    NULL });
	tree_remove(&t, "supernode-live/ifaddrs/bond0");
	snprintf(
		found, sizeof(found),
		"cannot read addresses (missing): %s/supernode-live/ifaddrs/bond0",
		t.root);
	sock_expect(&t, ASCEND,
		    &(struct want){ SN_UNKNOWN, "SOCKET_IFACE_NO_ADDR", "bond0",
				    found, NULL });
	/* down, or not there at all: CRIT naming it */
	live(&t, "ifaddrs/bond0", "10.0.0.7/24\n");
	tree_file(&t, "class/net/bond0/operstate", "down\n");
	sock_expect(&t, ASCEND,
		    &(struct want){ SN_CRIT, "SOCKET_IFACE_DOWN", "bond0",
				    "HCCL_SOCKET_IFNAME bond0 operstate=down",
				    "up" });
	/* "unknown": no carrier reporting (some bonds, VLANs), taken as up */
	tree_file(&t, "class/net/bond0/operstate", "unknown\n");
	sock_expect(
		&t, ASCEND,
		&(struct want){
			SN_OK, "OK", "bond0",
			"HCCL_SOCKET_IFNAME bond0 unknown, address 10.0.0.7",
			NULL });
	tree_remove_all(&t, "class/net/bond0");
	sock_expect(
		&t, ASCEND,
		&(struct want){ SN_CRIT, "SOCKET_IFACE_DOWN", "bond0",
				"HCCL_SOCKET_IFNAME bond0: no such interface",
				"up" });
	/* env.socket_ifname not set: nothing judged */
	run_with(t.root, "", ASCEND, NO_PORTS, &r);
	assert_int_equal(r.count, 0);
	sn_results_free(&r);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case7_rows),
		cmocka_unit_test(test_case7_rate_unreadable),
		cmocka_unit_test(test_state_unreadable),
		cmocka_unit_test(test_unknown_state_numbers),
		cmocka_unit_test(test_state_not_regular),
		cmocka_unit_test(test_drain_reason_parts),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_case8_ethernet_vf_not_counted),
		cmocka_unit_test(test_case8_seven_of_eight),
		cmocka_unit_test(test_missing_port),
		cmocka_unit_test(test_case8_ib_entry_on_ethernet_port),
		cmocka_unit_test(test_ethernet_entry_on_ib_port),
		cmocka_unit_test(test_case8_roce_site),
		cmocka_unit_test(test_roce_netdev_down),
		cmocka_unit_test(test_roce_state_down),
		cmocka_unit_test(test_roce_gid_index),
		cmocka_unit_test(test_roce_no_v2),
		cmocka_unit_test(test_roce_netdev_device_net),
		cmocka_unit_test(test_case9_hca),
		cmocka_unit_test(test_no_ports_listed),
		cmocka_unit_test(test_live_sys_without_devices),
		cmocka_unit_test(test_sysfs_root_missing),
		cmocka_unit_test(test_real_gpud_h100),
		cmocka_unit_test(test_real_node_exporter),
		cmocka_unit_test(test_real_prometheus_procfs),
		cmocka_unit_test(test_mtu_ib),
		cmocka_unit_test(test_mtu_roce_table),
		cmocka_unit_test(test_mtu_roce_unreadable),
		cmocka_unit_test(test_mtu_real_bond),
		cmocka_unit_test(test_socket_iface),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
