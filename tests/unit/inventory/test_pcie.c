/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCIe link attributes and the link check (lib/pcie.c): the speed strings
 * of old and new kernels, the path to the root, every row of field case 9
 * (a Gen5 card in a Gen4 slot passes, a downtrained link behind a switch
 * fails, a narrow GPU link fails, missing or "Unknown" attributes are
 * UNKNOWN and never CRIT), the manifest minimum, odd files, and the
 * RDMA device -> PCI address helper.
 */
#include <signal.h>
#include <sys/stat.h>

#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "checks/sn_check_pcie.h"
#include "inventory/sn_pcie.h"

#define G4 "16.0 GT/s PCIe"
#define G5 "32.0 GT/s PCIe"
#define G3 "8.0 GT/s PCIe"

/* Root port 0000:59:01.0, HCA 0000:5a:00.0 (field case 9, row 1). */
#define RP59 "pci0000:00/0000:59:01.0"
#define HCA5A RP59 "/0000:5a:00.0"

/* Root port, switch upstream and downstream port, HCA 0000:3b:00.0. */
#define RP38 "pci0000:00/0000:38:01.0"
#define USP39 RP38 "/0000:39:00.0"
#define DSP3A USP39 "/0000:3a:00.0"
#define HCA3B DSP3A "/0000:3b:00.0"

/* A Gen5 switch path whose every link trained fully. */
static void switch_path(struct tree *t, const char *usp_cur)
{
	pci_dev(t, RP38, usp_cur, G5, "16", "16");
	pci_dev(t, USP39, usp_cur, G5, "16", "16");
	pci_dev(t, DSP3A, G5, G5, "16", "16");
}

static void check(struct tree *t, const char *bdf, const char *label,
		  uint32_t min_gen, uint32_t min_width, bool speed,
		  struct sn_results *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(sn_pcie_check(t->root, bdf, label, min_gen, min_width,
				       speed, r),
			 0);
}

/* ---- parsing ----------------------------------------------------------- */

static void test_speed_gen(void **state)
{
	static const struct {
		const char *text;
		uint32_t gen;
	} cases[] = {
		{ "2.5 GT/s PCIe", 1 },
		{ "5.0 GT/s PCIe", 2 },
		{ "8.0 GT/s PCIe", 3 },
		{ "16.0 GT/s PCIe", 4 },
		{ "32.0 GT/s PCIe", 5 },
		{ "64.0 GT/s PCIe", 6 },
		/* kernels before 5.x */
		{ "2.5 GT/s", 1 },
		{ "5 GT/s", 2 },
		{ "8 GT/s", 3 },
		{ "16 GT/s", 4 },
		{ "32 GT/s", 5 },
		/* unknown, PCI-X, conventional PCI, garbage */
		{ "Unknown", 0 },
		{ "Unknown speed", 0 },
		{ "66 MHz PCI-X", 0 },
		{ "33 MHz PCI", 0 },
		{ "128.0 GT/s PCIe", 0 },
		{ "16.0 GT/s PCIe x", 0 },
		{ "16.0 GT/s  PCIe", 0 },
		{ "16.0GT/s", 0 },
		{ "1.6 GT/s", 0 },
		{ "", 0 },
		{ ".", 0 },
		{ "16.0 GT/", 0 },
		{ " 16.0 GT/s", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sn_pcie_speed_gen(cases[i].text) != cases[i].gen)
			fail_msg("'%s' -> %u, want %u", cases[i].text,
				 sn_pcie_speed_gen(cases[i].text),
				 cases[i].gen);
	assert_int_equal(sn_pcie_speed_gen(NULL), 0);
	assert_string_equal(sn_pcie_gen_speed(1), "2.5 GT/s");
	assert_string_equal(sn_pcie_gen_speed(4), "16.0 GT/s");
	assert_string_equal(sn_pcie_gen_speed(6), "64.0 GT/s");
	assert_string_equal(sn_pcie_gen_speed(0), "?");
	assert_string_equal(sn_pcie_gen_speed(7), "?");
}

static void test_bdf_valid(void **state)
{
	static const char *const good[] = {
		"0000:5a:00.0",
		"0000:00:1f.7",
		"10000:e1:00.0",
		"ffffffff:ff:1f.7",
	};
	static const char *const bad[] = {
		"",
		"0000:5a:00",
		"000:5a:00.0",
		"0000:5A:00.0",
		"0000:5a:20.0",
		"0000:5a:00.8",
		"0000:5a:00.0 ",
		"../../etc",
		"pci0000:00",
		"0000:5a:00.0/x",
		"123456789:5a:00.0",
		"0000-5a:00.0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!sn_pcie_bdf_valid(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sn_pcie_bdf_valid(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
	assert_false(sn_pcie_bdf_valid(NULL));
}

static void test_dev_read(void **state)
{
	struct sn_pcie_dev d;
	struct tree t;
	char dir[PATH_MAX];

	(void)state;
	tree_new(&t);
	pci_dev(&t, "pci0000:00/0000:01:00.0", G4, "Unknown", "0", "x16");
	tree_path(&t, "devices/pci0000:00/0000:01:00.0", dir);
	sn_pcie_dev_read(dir, "0000:01:00.0", &d);
	assert_string_equal(d.bdf, "0000:01:00.0");
	assert_int_equal(d.cur_speed.status, SN_ATTR_OK);
	assert_int_equal(d.cur_speed.value, 4);
	assert_string_equal(d.cur_speed.text, G4);
	assert_int_equal(d.max_speed.status, SN_ATTR_BAD);
	assert_int_equal(d.max_speed.value, 0);
	assert_string_equal(d.max_speed.text, "Unknown");
	assert_int_equal(d.cur_width.status, SN_ATTR_BAD); /* 0 lanes */
	assert_int_equal(d.max_width.status, SN_ATTR_BAD);
	/* empty, white space only, a directory, a FIFO, missing */
	tree_file(&t, "devices/pci0000:00/0000:01:00.0/current_link_width", "");
	tree_file(&t, "devices/pci0000:00/0000:01:00.0/max_link_width",
		  " \n\n");
	tree_remove(&t, "devices/pci0000:00/0000:01:00.0/current_link_speed");
	tree_dir(&t, "devices/pci0000:00/0000:01:00.0/current_link_speed");
	tree_remove(&t, "devices/pci0000:00/0000:01:00.0/max_link_speed");
	tree_path(&t, "devices/pci0000:00/0000:01:00.0/max_link_speed", dir);
	assert_int_equal(mkfifo(dir, 0600), 0);
	tree_path(&t, "devices/pci0000:00/0000:01:00.0", dir);
	sn_pcie_dev_read(dir, "0000:01:00.0", &d);
	assert_int_equal(d.cur_width.status, SN_ATTR_EMPTY);
	assert_int_equal(d.max_width.status, SN_ATTR_EMPTY);
	assert_int_equal(d.cur_speed.status, SN_ATTR_NOT_REGULAR);
	assert_string_equal(d.cur_speed.text, "folder");
	assert_int_equal(d.max_speed.status, SN_ATTR_NOT_REGULAR);
	assert_string_equal(d.max_speed.text, "fifo");
	sn_pcie_dev_read("/nonexistent/dir", NULL, &d);
	assert_string_equal(d.bdf, "");
	assert_int_equal(d.cur_speed.status, SN_ATTR_MISSING);
	assert_int_equal(d.max_width.status, SN_ATTR_MISSING);
	tree_free(&t);
}

static void test_attr_read_line(void **state)
{
	struct tree t;
	char path[PATH_MAX], buf[8], big[SN_ATTR_READ_MAX + 100];

	(void)state;
	tree_new(&t);
	tree_file(&t, "a", "\n\n  x y \n second\n");
	tree_path(&t, "a", path);
	assert_int_equal(sn_attr_read_line(path, buf, sizeof(buf)), SN_ATTR_OK);
	assert_string_equal(buf, "x y");
	tree_file(&t, "b", "12345678\n"); /* does not fit 8 bytes */
	tree_path(&t, "b", path);
	assert_int_equal(sn_attr_read_line(path, buf, sizeof(buf)),
			 SN_ATTR_UNREADABLE);
	assert_string_equal(buf, "");
	memset(big, ' ', sizeof(big) - 1); /* past the 4 KiB cap */
	big[sizeof(big) - 2] = '1';
	big[sizeof(big) - 1] = '\0';
	tree_file(&t, "c", big);
	tree_path(&t, "c", path);
	assert_int_equal(sn_attr_read_line(path, buf, sizeof(buf)),
			 SN_ATTR_EMPTY);
	/* links are never followed, dangling or not */
	tree_link(&t, "d", "a");
	tree_path(&t, "d", path);
	assert_int_equal(sn_attr_read_line(path, buf, sizeof(buf)),
			 SN_ATTR_NOT_REGULAR);
	assert_string_equal(buf, "symboli"); /* cut to buf */
	tree_link(&t, "e", "nowhere");
	tree_path(&t, "e", path);
	assert_int_equal(sn_attr_read_line(path, big, sizeof(big)),
			 SN_ATTR_NOT_REGULAR);
	assert_string_equal(big, "symbolic link");
	assert_string_equal(sn_attr_name(SN_ATTR_MISSING), "missing");
	assert_string_equal(sn_attr_name(SN_ATTR_BAD), "unparsable");
	assert_string_equal(sn_attr_name(SN_ATTR_NOT_REGULAR),
			    "not a regular file");
	tree_free(&t);
}

static void test_path_read(void **state)
{
	struct sn_pcie_path p;
	struct tree t;
	char rel[PATH_MAX] = "pci0000:00";

	(void)state;
	tree_new(&t);
	switch_path(&t, G5);
	pci_dev(&t, HCA3B, G5, G5, "16", "16");
	assert_int_equal(sn_pcie_path_read(t.root, "0000:3b:00.0", &p), 0);
	assert_int_equal(p.n, 4);
	assert_false(p.truncated);
	assert_string_equal(p.dev[0].bdf, "0000:3b:00.0");
	assert_string_equal(p.dev[1].bdf, "0000:3a:00.0");
	assert_string_equal(p.dev[2].bdf, "0000:39:00.0");
	assert_string_equal(p.dev[3].bdf, "0000:38:01.0");
	assert_int_equal(p.dev[0].cur_speed.value, 5);
	/* errors */
	assert_int_equal(sn_pcie_path_read(t.root, "0000:99:00.0", &p), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(sn_pcie_path_read(t.root, "../../x", &p), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sn_pcie_path_read(NULL, "0000:3b:00.0", &p), -1);
	/* a chain deeper than SN_PCIE_PATH_MAX is cut, not overrun */
	for (unsigned i = 0; i < SN_PCIE_PATH_MAX + 4; i++) {
		size_t n = strlen(rel);

		snprintf(rel + n, sizeof(rel) - n, "/0000:%02x:00.0", i + 1);
		pci_dev(&t, rel, G4, G4, "4", "4");
	}
	assert_int_equal(sn_pcie_path_read(t.root, "0000:14:00.0", &p), 0);
	assert_int_equal(p.n, SN_PCIE_PATH_MAX);
	assert_true(p.truncated);
	tree_free(&t);
}

/* ---- field case 9, row by row ------------------------------------------ */

/* Row 1: Gen5 HCA in a Gen4 root port trained at 16 GT/s: slot limit. */
static void test_case9_gen5_card_gen4_slot(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G4, G4, "16", "16");
	pci_dev(&t, HCA5A, G4, G5, "16", "16");
	check(&t, "0000:5a:00.0", "mlx5_0 0000:5a:00.0", 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", "mlx5_0 0000:5a:00.0", "Gen4 x16",
			     "link max" });
	assert_string_equal(r.items[0].check, "pcie");
	sn_results_free(&r);
	/* with the manifest's Gen4 x16 minimum too */
	check(&t, "0000:5a:00.0", NULL, 4, 16, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", "0000:5a:00.0", "Gen4 x16",
			     "link max, >= Gen4 x16" });
	sn_results_free(&r);
	/* a manifest asking Gen5 says the card sits in the wrong slot */
	check(&t, "0000:5a:00.0", NULL, 5, 16, true, &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PCIE_SPEED", "0000:5a:00.0",
			     "Gen4 (16.0 GT/s)", ">= Gen5 (manifest)" });
	sn_results_free(&r);
	tree_free(&t);
}

/* Row 2: HCA behind a switch, both ends Gen5, trained at Gen4. */
static void test_case9_downtrained_behind_switch(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	switch_path(&t, G5);
	pci_dev(&t, HCA3B, G4, G5, "16", "16");
	check(&t, "0000:3b:00.0", "mlx5_1 0000:3b:00.0", 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PCIE_SPEED", "mlx5_1 0000:3b:00.0",
			     "16.0 GT/s at 0000:3b:00.0",
			     ">= 32.0 GT/s (link max)" });
	sn_results_free(&r);
	/* the same tree fully trained passes */
	tree_file(&t, "devices/" HCA3B "/current_link_speed", G5 "\n");
	check(&t, "0000:3b:00.0", NULL, 5, 16, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "Gen5 x16",
			     "link max, >= Gen5 x16" });
	sn_results_free(&r);
	tree_free(&t);
}

/* The switch's own uplink (upstream port to root port) downtrained. */
static void test_case9_switch_uplink_downtrained(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	switch_path(&t, G3);
	pci_dev(&t, HCA3B, G5, G5, "16", "16");
	check(&t, "0000:3b:00.0", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PCIE_SPEED", NULL,
			     "8.0 GT/s at 0000:39:00.0",
			     ">= 32.0 GT/s (link max)" });
	sn_results_free(&r);
	/* a narrow uplink */
	tree_file(&t, "devices/" USP39 "/current_link_speed", G5 "\n");
	tree_file(&t, "devices/" USP39 "/current_link_width", "4\n");
	check(&t, "0000:3b:00.0", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PCIE_WIDTH", NULL, "x4 at 0000:39:00.0",
			     ">= x16 (link max)" });
	sn_results_free(&r);
	tree_free(&t);
}

/* A switch downstream port faster than the card below it is no fault. */
static void test_case9_gen3_card_behind_gen5_switch(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	switch_path(&t, G5);
	tree_file(&t, "devices/" DSP3A "/current_link_speed", G3 "\n");
	tree_file(&t, "devices/" DSP3A "/current_link_width", "8\n");
	pci_dev(&t, HCA3B, G3, G3, "8", "8");
	check(&t, "0000:3b:00.0", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "Gen3 x8", "link max" });
	sn_results_free(&r);
	tree_free(&t);
}

/* Row 3: GPU at x8 of x16, speed not judged (GPUs idle at a lower gen). */
static void test_case9_gpu_width(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, "pci0000:00/0000:1a:01.0", "2.5 GT/s PCIe", G5, "16", "16");
	pci_dev(&t, "pci0000:00/0000:1a:01.0/0000:1b:00.0", "2.5 GT/s PCIe", G5,
		"8", "16");
	check(&t, "0000:1b:00.0", "gpu0 0000:1b:00.0", 5, 16, false, &r);
	EXPECT_RESULTS(&r, { SN_CRIT, "PCIE_WIDTH", "gpu0 0000:1b:00.0",
			     "x8 at 0000:1b:00.0", ">= x16 (link max)" });
	sn_results_free(&r);
	/* at x16 it passes although it idles at 2.5 GT/s */
	tree_file(
		&t,
		"devices/pci0000:00/0000:1a:01.0/0000:1b:00.0/current_link_width",
		"16\n");
	check(&t, "0000:1b:00.0", "gpu0 0000:1b:00.0", 5, 16, false, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", "gpu0 0000:1b:00.0", "x16",
			     "link max, >= x16" });
	sn_results_free(&r);
	tree_free(&t);
}

/* Row 4: an HCA without current_link_* files (mlx4, nhc#90). */
static void test_case9_no_current_files(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G3, G3, "8", "8");
	pci_dev(&t, HCA5A, NULL, G3, NULL, "8");
	check(&t, "0000:5a:00.0", "mlx4_0 0000:5a:00.0", 3, 8, true, &r);
	EXPECT_RESULTS(&r,
		       { SN_UNKNOWN, "PCIE_UNKNOWN", "mlx4_0 0000:5a:00.0",
			 "current_link_width missing at 0000:5a:00.0",
			 "known link width" },
		       { SN_UNKNOWN, "PCIE_UNKNOWN", NULL,
			 "current_link_speed missing at 0000:5a:00.0",
			 "known link speed" });
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
	/* no link files at all, no parent, no minimum: still UNKNOWN */
	pci_dev(&t, "pci0000:00/0000:00:14.0", NULL, NULL, NULL, NULL);
	check(&t, "0000:00:14.0", NULL, 0, 0, false, &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PCIE_UNKNOWN", NULL,
			     "current_link_width missing at 0000:00:14.0",
			     "known link width" });
	sn_results_free(&r);
	tree_free(&t);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("blocked on a FIFO");
}

/*
 * A FIFO in place of a link attribute: UNKNOWN naming the attribute, what
 * it is and the device, at once (the alarm fails a reader that blocks);
 * the other attributes are still judged.
 */
static void test_fifo_attribute_unknown(void **state)
{
	char path[PATH_MAX];
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G4, G4, "16", "16");
	pci_dev(&t, HCA5A, G4, G4, "16", "16");
	tree_remove(&t, "devices/" HCA5A "/current_link_width");
	tree_path(&t, "devices/" HCA5A "/current_link_width", path);
	assert_int_equal(mkfifo(path, 0600), 0);
	tree_remove(&t, "devices/" RP59 "/max_link_speed");
	tree_link(&t, "devices/" RP59 "/max_link_speed", "/nowhere");
	signal(SIGALRM, on_alarm);
	alarm(5);
	check(&t, "0000:5a:00.0", "mlx5_2 0000:5a:00.0", 4, 16, true, &r);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	EXPECT_RESULTS(
		&r,
		{ SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_2 0000:5a:00.0",
		  "current_link_width not a regular file (fifo) at 0000:5a:00.0",
		  "known link width" },
		{ SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_2 0000:5a:00.0",
		  "max_link_speed not a regular file (symbolic link) at 0000:59:01.0",
		  "known link speed" });
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
	tree_free(&t);
}

/* Row 5: current_link_speed "Unknown". */
static void test_case9_unknown_speed(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G4, G4, "16", "16");
	pci_dev(&t, HCA5A, "Unknown", G4, "16", "16");
	check(&t, "0000:5a:00.0", NULL, 4, 16, true, &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PCIE_UNKNOWN", NULL,
			     "current_link_speed=Unknown at 0000:5a:00.0",
			     "known link speed" });
	sn_results_free(&r);
	/* the old kernels' "Unknown speed" on the parent's max */
	tree_file(&t, "devices/" HCA5A "/current_link_speed", G4 "\n");
	tree_file(&t, "devices/" RP59 "/max_link_speed", "Unknown speed\n");
	check(&t, "0000:5a:00.0", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PCIE_UNKNOWN", NULL,
			     "max_link_speed=Unknown speed at 0000:59:01.0",
			     "known link speed" });
	sn_results_free(&r);
	tree_free(&t);
}

/* ---- more shapes ------------------------------------------------------- */

static void test_old_kernel_strings(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, "8 GT/s", "8 GT/s", "16", "16");
	pci_dev(&t, HCA5A, "8 GT/s", "8 GT/s", "16", "16");
	check(&t, "0000:5a:00.0", NULL, 3, 16, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "Gen3 x16",
			     "link max, >= Gen3 x16" });
	sn_results_free(&r);
	tree_free(&t);
}

/* No PCI parent (a VM's root bus): the manifest minimum only. */
static void test_no_parent(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, "pci0000:00/0000:00:05.0", G3, G4, "8", "16");
	check(&t, "0000:00:05.0", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "Gen3 x8", "readable link" });
	sn_results_free(&r);
	check(&t, "0000:00:05.0", NULL, 3, 8, true, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "Gen3 x8", ">= Gen3 x8" });
	sn_results_free(&r);
	check(&t, "0000:00:05.0", NULL, 4, 16, true, &r);
	EXPECT_RESULTS(
		&r, { SN_CRIT, "PCIE_WIDTH", NULL, "x8", ">= x16 (manifest)" },
		{ SN_CRIT, "PCIE_SPEED", NULL, "Gen3 (8.0 GT/s)",
		  ">= Gen4 (manifest)" });
	sn_results_free(&r);
	/* speed not checked: min_gen is ignored */
	check(&t, "0000:00:05.0", NULL, 4, 8, false, &r);
	EXPECT_RESULTS(&r, { SN_OK, "OK", NULL, "x8", ">= x8" });
	sn_results_free(&r);
	/* the shape of the H200 VM the device tool lends: the GPU sits on the
	 * root bus (/sys/devices/pci0000:00/0000:00:06.0), 32.0 GT/s x16 */
	pci_dev(&t, "pci0000:00/0000:00:06.0", G5, G5, "16", "16");
	check(&t, "0000:00:06.0", "gpu0 0000:00:06.0", 5, 16, false, &r);
	EXPECT_RESULTS(&r,
		       { SN_OK, "OK", "gpu0 0000:00:06.0", "x16", ">= x16" });
	sn_results_free(&r);
	tree_free(&t);
}

/* A link CRIT on the device's own link is not repeated as a manifest CRIT. */
static void test_no_double_report(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G4, G4, "16", "16");
	pci_dev(&t, HCA5A, G3, G4, "8", "16");
	check(&t, "0000:5a:00.0", NULL, 4, 16, true, &r);
	EXPECT_RESULTS(&r,
		       { SN_CRIT, "PCIE_WIDTH", NULL, "x8 at 0000:5a:00.0",
			 ">= x16 (link max)" },
		       { SN_CRIT, "PCIE_SPEED", NULL,
			 "8.0 GT/s at 0000:5a:00.0",
			 ">= 16.0 GT/s (link max)" });
	sn_results_free(&r);
	tree_free(&t);
}

static void test_missing_device(void **state)
{
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	check(&t, "0000:99:00.0", "mlx5_9 0000:99:00.0", 4, 16, true, &r);
	EXPECT_RESULTS(
		&r, { SN_UNKNOWN, "PCIE_UNKNOWN", "mlx5_9 0000:99:00.0",
		      "no PCI device 0000:99:00.0 (No such file or directory)",
		      "a PCI device" });
	sn_results_free(&r);
	check(&t, "../../etc", NULL, 0, 0, true, &r);
	EXPECT_RESULTS(&r, { SN_UNKNOWN, "PCIE_UNKNOWN", NULL,
			     "no PCI device ../../etc (Invalid argument)",
			     "a PCI device" });
	sn_results_free(&r);
	tree_free(&t);
}

/* Garbage in every attribute: UNKNOWN or OK, never CRIT, never a crash. */
static void test_garbage_never_crit(void **state)
{
	static const char *const junk[] = {
		"",
		"\n",
		"Unknown",
		"x",
		"-1",
		"99999999999999999999",
		"16.0 GT/s PCIe\0x",
		"\xff\xfe",
		"16",
		"16.0 GT/s PCIe",
	};
	const size_t n = sizeof(junk) / sizeof(junk[0]);
	struct sn_results r;
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, RP59, G4, G4, "16", "16");
	pci_dev(&t, HCA5A, G4, G4, "16", "16");
	for (size_t i = 0; i < n * n; i++) {
		const char *a = junk[i % n], *b = junk[i / n];

		tree_file(&t, "devices/" HCA5A "/current_link_speed", a);
		tree_file(&t, "devices/" HCA5A "/current_link_width", a);
		tree_file(&t, "devices/" RP59 "/max_link_speed", b);
		tree_file(&t, "devices/" RP59 "/max_link_width", b);
		check(&t, "0000:5a:00.0", NULL, 0, 0, true, &r);
		assert_true(r.count >= 1);
		for (size_t k = 0; k < r.count; k++)
			assert_true(r.items[k].grade == SN_UNKNOWN ||
				    r.items[k].grade == SN_OK);
		/* one file cannot be both a speed and a width */
		assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
		sn_results_free(&r);
	}
	tree_free(&t);
}

/* ---- RDMA device -> PCI address ---------------------------------------- */

static void test_rdma_device_bdf(void **state)
{
	char bdf[SN_BDF_SIZE];
	struct tree t;

	(void)state;
	tree_new(&t);
	pci_dev(&t, HCA5A, G4, G5, "16", "16");
	ib_dev_pci(&t, "mlx5_0", HCA5A);
	assert_int_equal(sn_rdma_device_bdf(t.root, "mlx5_0", bdf), 0);
	assert_string_equal(bdf, "0000:5a:00.0");
	/* no such device */
	assert_int_equal(sn_rdma_device_bdf(t.root, "mlx5_1", bdf), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(bdf, "");
	/* a software device: the link does not end in a PCI address */
	tree_dir(&t, "devices/virtual/rxe0");
	tree_link(&t, "class/infiniband/rxe0/device",
		  "../../../devices/virtual/rxe0");
	assert_int_equal(sn_rdma_device_bdf(t.root, "rxe0", bdf), -1);
	assert_int_equal(errno, EINVAL);
	/* names that would leave class/infiniband */
	assert_int_equal(sn_rdma_device_bdf(t.root, "../x", bdf), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sn_rdma_device_bdf(t.root, "..", bdf), -1);
	assert_int_equal(sn_rdma_device_bdf(t.root, "", bdf), -1);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_gen),
		cmocka_unit_test(test_bdf_valid),
		cmocka_unit_test(test_dev_read),
		cmocka_unit_test(test_attr_read_line),
		cmocka_unit_test(test_path_read),
		cmocka_unit_test(test_case9_gen5_card_gen4_slot),
		cmocka_unit_test(test_case9_downtrained_behind_switch),
		cmocka_unit_test(test_case9_switch_uplink_downtrained),
		cmocka_unit_test(test_case9_gen3_card_behind_gen5_switch),
		cmocka_unit_test(test_case9_gpu_width),
		cmocka_unit_test(test_case9_no_current_files),
		cmocka_unit_test(test_case9_unknown_speed),
		cmocka_unit_test(test_fifo_attribute_unknown),
		cmocka_unit_test(test_old_kernel_strings),
		cmocka_unit_test(test_no_parent),
		cmocka_unit_test(test_no_double_report),
		cmocka_unit_test(test_missing_device),
		cmocka_unit_test(test_garbage_never_crit),
		cmocka_unit_test(test_rdma_device_bdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
