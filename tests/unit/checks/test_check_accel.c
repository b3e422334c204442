/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The accelerator checks (lib/check_accel.c) and inventory (lib/accel.c):
 * sysfs trees and /dev trees built in temporary directories, NVML served by
 * the fake libnvidia-ml.so.1 (tests/fake_nvml) from fixtures edited per
 * test.  Field cases 11 (GPU lost / missing), 12 (row remapping,
 * NOT_SUPPORTED), 13 (NVLink inactive vs. absent), 9 (GPU width vs speed),
 * the Ascend count check, a file that is not regular in place of a PCI
 * attribute (issue 9 item 5), and the epilog's counter snapshot.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "unit.h"
#include "helpers/fake_sysfs.h"

#include "inventory/sn_accel.h"
#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "util/sn_child.h"

#define SYNTH SN_FIXTURES "/accel/nvml-4xh100-sxm.json"
#define PCIE SN_FIXTURES "/accel/nvml-2xl40s-pcie.json"
#define REAL SN_FIXTURES "/nvidia/nvml-h200x2.json"

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
static const char *const fake_min_lib = SN_FAKE_NVML_MIN;
#else
static const char *const fake_lib = NULL;
static const char *const fake_min_lib = NULL;
#endif

/* The four GPUs of field case 11 and the two of the real H200 capture. */
static const char *const bus4[] = {
	"0000:1b:00.0",
	"0000:43:00.0",
	"0000:52:00.0",
	"0000:61:00.0",
};
static const char *const bus_h200[] = { "0000:00:06.0", "0000:00:07.0" };

/* ---- temporary trees (helpers/fake_sysfs.h) ----------------------------- */

struct accel_tree {
	struct tree t; /* t.root holds sys/, dev/ and nvml.json */
	char sys[PATH_MAX];
	char dev[PATH_MAX];
	char fixture[PATH_MAX];
};

static struct accel_tree *T; /* the current test's tree */

/* A PCI function: <sys>/bus/pci/devices/<bdf>/{vendor,device,class}. */
static void add_pci(const char *bdf, const char *vendor, const char *device,
		    const char *cls)
{
	const char *names[] = { "vendor", "device", "class" };
	const char *values[] = { vendor, device, cls };
	char text[32];

	for (size_t i = 0; i < 3; i++) {
		snprintf(text, sizeof(text), "%s\n", values[i]);
		tree_filef(&T->t, text, "sys/bus/pci/devices/%s/%s", bdf,
			   names[i]);
	}
}

/* The link attributes pcie.c reads. */
static void add_pci_link(const char *bdf, const char *width, const char *speed)
{
	tree_filef(&T->t, width, "sys/bus/pci/devices/%s/current_link_width",
		   bdf);
	tree_filef(&T->t, "16\n", "sys/bus/pci/devices/%s/max_link_width", bdf);
	tree_filef(&T->t, speed, "sys/bus/pci/devices/%s/current_link_speed",
		   bdf);
	tree_filef(&T->t, "32.0 GT/s PCIe\n",
		   "sys/bus/pci/devices/%s/max_link_speed", bdf);
}

static void del_pci(const char *bdf)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	tree_remove_all(&T->t, rel);
}

/*
 * Put a file that is not regular in place of <bdf>/<attr>: "fifo",
 * "folder" or "link" (dangling).
 */
static void odd_attr(const char *bdf, const char *attr, const char *kind)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", bdf, attr);
	tree_odd(&T->t, rel, kind);
}

/* Undo odd_attr(): a regular file holding text again. */
static void odd_attr_undo(const char *bdf, const char *attr, const char *text)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", bdf, attr);
	tree_remove(&T->t, rel);
	tree_file(&T->t, rel, text);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("the accelerator check blocked on a file that is not regular");
}

/* A device node (an empty file is enough for counting). */
static void add_node(const char *name)
{
	tree_filef(&T->t, "", "dev/%s", name);
}

static void del_node(const char *name)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "dev/%s", name);
	tree_remove(&T->t, rel);
}

static const char *const knobs[] = {
	"SN_FAKE_NVML_FIXTURE", "SN_FAKE_NVML_HANG",  "SN_FAKE_NVML_LOST",
	"SN_FAKE_NVML_UNKNOWN", "SN_FAKE_NVML_COUNT", "SN_FAKE_NVML_INIT_FAIL",
};

static int setup(void **state)
{
	(void)state;
	T = calloc(1, sizeof(*T));
	if (!T)
		return -1;
	tree_new(&T->t);
	tree_path(&T->t, "sys", T->sys);
	tree_path(&T->t, "dev", T->dev);
	tree_path(&T->t, "nvml.json", T->fixture);
	tree_dir(&T->t, "sys/bus/pci/devices");
	tree_dir(&T->t, "dev");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	if (T)
		tree_free(&T->t);
	free(T);
	T = NULL;
	return 0;
}

/* NVIDIA GPUs at bus, nodes nvidia0..; with the usual neighbours. */
static void nvidia_tree(const char *const *bus, size_t n, const char *device)
{
	char node[32];

	for (size_t i = 0; i < n; i++) {
		add_pci(bus[i], "0x10de", device, "0x030200");
		snprintf(node, sizeof(node), "nvidia%zu", i);
		add_node(node);
	}
	add_pci("0000:05:00.0", "0x10de", "0x22a3", "0x068000"); /* NVSwitch */
	add_pci("0000:5a:00.0", "0x15b3", "0x1021",
		"0x020700"); /* ConnectX-7 */
	add_pci("0000:00:01.0", "0x8086", "0x09a2", "0x060400"); /* root port */
	add_node("nvidiactl");
	add_node("nvidia-uvm");
	add_node("nvidia-caps/nvidia-cap1");
}

/* ---- fixtures, edited per test ------------------------------------------ */

static json_object *fixture_load(const char *path)
{
	json_object *root = json_object_from_file(path);

	if (!root)
		fail_msg("cannot read %s", path);
	return root;
}

static json_object *gpu_obj(json_object *root, size_t i)
{
	json_object *gpus = NULL;

	assert_true(json_object_object_get_ex(root, "gpus", &gpus));
	return json_object_array_get_idx(gpus, i);
}

static void set_int(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void set_error(json_object *o, const char *key, const char *text)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "nvml_error", json_object_new_string(text));
	json_object_object_add(o, key, e);
}

static void set_remap(json_object *root, size_t gpu, int corr, int unc,
		      int pending, int failure)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_int(corr));
	json_object_array_add(a, json_object_new_int(unc));
	json_object_array_add(a, json_object_new_int(pending));
	json_object_array_add(a, json_object_new_int(failure));
	json_object_object_add(gpu_obj(root, gpu), "remapped_rows", a);
}

static void set_link_state(json_object *root, size_t gpu, size_t link,
			   int state)
{
	json_object *links = NULL;

	assert_true(json_object_object_get_ex(gpu_obj(root, gpu), "nvlink",
					      &links));
	set_int(json_object_array_get_idx(links, link), "state", state);
}

/* Write root to the tree's fixture, point the fake at it, release root. */
static void fixture_use(json_object *root)
{
	assert_int_equal(json_object_to_file(T->fixture, root), 0);
	json_object_put(root);
	setenv("SN_FAKE_NVML_FIXTURE", T->fixture, 1);
}

/* ---- running the check -------------------------------------------------- */

static struct sn_config *load_config(const char *nvml, const char *accel)
{
	struct sn_config *cfg;
	struct sn_error err;
	char *yaml = NULL;

	if (asprintf(&yaml,
		     "supernodes:\n"
		     "  - name: sn01\n"
		     "    nodes: n[1-2]\n"
		     "paths:\n"
		     "  sysfs: %s\n"
		     "  dev: %s\n"
		     "  nvml: %s\n"
		     "  dcmi: %s\n"
		     "node:\n"
		     "  accelerators:\n"
		     "%s",
		     T->sys, T->dev, nvml, SN_FAKE_DCMI, accel) < 0)
		fail_msg("out of memory");
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg) {
		fprintf(stderr, "%s\n", yaml);
		free(yaml);
		fail_msg("config refused: %s", err.msg);
	}
	free(yaml);
	return cfg;
}

/* Run sn_check_accelerators with the accelerators: lines given. */
static void run_check(const char *nvml, const char *accel, struct sn_results *r)
{
	struct sn_config *cfg = load_config(nvml, accel);
	struct sn_check_ctx ctx;
	struct sn_error err;

	memset(r, 0, sizeof(*r));
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);
	assert_int_equal(sn_check_accelerators(&ctx, r), 0);
	sn_config_free(cfg);
}

static void run_fake(const char *accel, struct sn_results *r)
{
	if (!fake_lib)
		skip();
	run_check(fake_lib, accel, r);
}

static void dump(const struct sn_results *r, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->count && len + 1 < size; i++) {
		const struct sn_result *x = &r->items[i];

		snprintf(buf + len, size - len,
			 "\n  %s %s %s [%s] expected '%s' found '%s'",
			 sn_grade_name(x->grade), x->check, x->code, x->device,
			 x->expected, x->found);
		len = strlen(buf);
	}
}

static size_t count_code(const struct sn_results *r, const char *code)
{
	size_t n = 0;

	for (size_t i = 0; i < r->count; i++)
		n += !strcmp(r->items[i].code, code);
	return n;
}

/* The one result with code on device (NULL: any device); fails otherwise. */
static const struct sn_result *expect(const struct sn_results *r,
				      enum sn_grade grade, const char *code,
				      const char *device)
{
	const struct sn_result *hit = NULL;
	char d[8192];

	for (size_t i = 0; i < r->count; i++) {
		const struct sn_result *x = &r->items[i];

		if (strcmp(x->code, code) ||
		    (device && strcmp(x->device, device)))
			continue;
		if (hit) {
			dump(r, d, sizeof(d));
			fail_msg("%s on %s twice:%s", code,
				 device ? device : "*", d);
		}
		hit = x;
	}
	if (!hit || hit->grade != grade) {
		dump(r, d, sizeof(d));
		fail_msg("no %s %s on %s:%s", sn_grade_name(grade), code,
			 device ? device : "*", d);
	}
	return hit;
}

/* Every result OK, and n of them. */
static void expect_all_ok(const struct sn_results *r, size_t n)
{
	char d[8192];

	for (size_t i = 0; i < r->count; i++)
		if (r->items[i].grade != SN_OK ||
		    strcmp(r->items[i].code, "OK")) {
			dump(r, d, sizeof(d));
			fail_msg("not all OK:%s", d);
		}
	if (r->count != n) {
		dump(r, d, sizeof(d));
		fail_msg("%zu results, want %zu:%s", r->count, n, d);
	}
}

#define NV4                                                          \
	"    vendor: nvidia\n    count: 4\n    pcie_min_width: 16\n" \
	"    pcie_min_gen: 5\n    nvlinks: 18\n"

/* ---- inventory ---------------------------------------------------------- */

static void test_class_table(void **state)
{
	(void)state;
	assert_true(sn_accel_class_accepted(SN_ACCEL_NVIDIA, 0x10de, 0x2335,
					    0x030200));
	assert_true(sn_accel_class_accepted(SN_ACCEL_NVIDIA, 0x10de, 0x2204,
					    0x030000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_NVIDIA, 0x10de, 0x22a3,
					     0x068000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_NVIDIA, 0x10de, 0x1aef,
					     0x040300));
	assert_false(sn_accel_class_accepted(SN_ACCEL_NVIDIA, 0x10de, 0x1ad8,
					     0x060400));
	assert_true(sn_accel_class_accepted(SN_ACCEL_AMD, 0x1002, 0x740c,
					    0x038000));
	assert_true(sn_accel_class_accepted(SN_ACCEL_AMD, 0x1002, 0x74a1,
					    0x120000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_AMD, 0x1002, 0xab28,
					     0x040300));
	assert_true(sn_accel_class_accepted(SN_ACCEL_ASCEND, 0x19e5, 0xd802,
					    0x120000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_ASCEND, 0x19e5, 0xa250,
					     0x120000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_ASCEND, 0x19e5, 0x1822,
					     0x020000));
	assert_true(sn_accel_class_accepted(SN_ACCEL_OTHER, 0xcabc, 0x0590,
					    0x120000));
	assert_true(sn_accel_class_accepted(SN_ACCEL_OTHER, 0x1d94, 0x6210,
					    0x038000));
	assert_true(sn_accel_class_accepted(SN_ACCEL_OTHER, 0x8086, 0x0bda,
					    0x0b4000));
	assert_false(sn_accel_class_accepted(SN_ACCEL_OTHER, 0x15b3, 0x1021,
					     0x020700));
	assert_false(sn_accel_class_accepted(SN_ACCEL_NONE, 0x10de, 0x2335,
					     0x030200));
	assert_string_equal(sn_accel_vendor_name(SN_ACCEL_ASCEND), "ascend");
}

static void test_pci_scan(void **state)
{
	struct sn_accel_pci_list *l = malloc(sizeof(*l));
	struct sn_error err;

	(void)state;
	assert_non_null(l);
	nvidia_tree(bus4, 4, "0x2330");
	/* Not PCI functions, or unreadable: skipped. */
	tree_dir(&T->t, "sys/bus/pci/devices/not-a-bdf");
	tree_file(&T->t, "sys/bus/pci/devices/0000:99:00.0/vendor",
		  "0x10de\n");				       /* no class */
	add_pci("0000:9a:00.0", "10de", "0x2330", "0x030200"); /* no 0x */
	assert_int_equal(
		sn_accel_pci_scan(T->sys, SN_ACCEL_NVIDIA, 0x10de, l, &err), 0);
	assert_int_equal(l->count, 4);
	assert_false(l->truncated);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(l->items[i].bdf, bus4[i]);
	assert_int_equal(l->items[0].vendor, 0x10de);
	assert_int_equal(l->items[0].device, 0x2330);
	assert_int_equal(l->items[0].pci_class, 0x030200);

	assert_int_equal(l->n_bad, 0);
	/* A FIFO for a vendor: that function is not classified, at once. */
	odd_attr(bus4[1], "vendor", "fifo");
	signal(SIGALRM, on_alarm);
	alarm(10);
	assert_int_equal(
		sn_accel_pci_scan(T->sys, SN_ACCEL_NVIDIA, 0x10de, l, &err), 0);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	assert_int_equal(l->count, 3);
	assert_int_equal(l->n_bad, 1);
	assert_string_equal(l->bad[0].bdf, "0000:43:00.0");
	assert_string_equal(l->bad[0].attr, "vendor");
	assert_string_equal(l->bad[0].why, "not a regular file (fifo)");

	err_reset(&err);
	assert_int_equal(sn_accel_pci_scan("/nonexistent", SN_ACCEL_NVIDIA,
					   0x10de, l, &err),
			 -1);
	assert_contains(err.msg, "/nonexistent/bus/pci/devices: No such file");
	free(l);
}

static void test_dev_nodes(void **state)
{
	struct sn_accel_nodes *n = malloc(sizeof(*n));
	struct sn_error err;
	char path[PATH_MAX * 2];

	(void)state;
	assert_non_null(n);
	for (int i = 0; i < 12; i++) {
		char name[32];

		snprintf(name, sizeof(name), "nvidia%d", i);
		add_node(name);
	}
	add_node("nvidiactl");
	add_node("nvidia-uvm");
	add_node("nvidia-caps/nvidia-cap1");
	assert_int_equal(sn_accel_dev_nodes(T->dev, "nvidia[0-9]*", n, &err),
			 0);
	assert_int_equal(n->count, 12);
	assert_string_equal(n->names[2], "nvidia2"); /* natural order */
	assert_string_equal(n->names[10], "nvidia10");

	assert_int_equal(sn_accel_dev_nodes(T->dev, "dri/renderD*", n, &err),
			 0);
	assert_int_equal(n->count, 0); /* no dri/ at all */
	add_node("dri/renderD128");
	add_node("dri/renderD129");
	add_node("dri/card0");
	assert_int_equal(sn_accel_dev_nodes(T->dev, "dri/renderD*", n, &err),
			 0);
	assert_int_equal(n->count, 2);
	assert_string_equal(n->names[1], "dri/renderD129");

	err_reset(&err);
	assert_int_equal(sn_accel_dev_nodes(T->dev, "d*/renderD*", n, &err),
			 -1);
	assert_contains(err.msg, "last component");
	snprintf(path, sizeof(path), "%s/missing", T->t.root);
	err_reset(&err);
	assert_int_equal(sn_accel_dev_nodes(path, "nvidia[0-9]*", n, &err), -1);
	assert_contains(err.msg, "paths.dev");
	free(n);
}

/* ---- NVIDIA: healthy ---------------------------------------------------- */

static void test_healthy_4x(void **state)
{
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	run_fake(NV4, &r);
	expect_all_ok(&r, 4);
	assert_string_equal(r.items[2].device, "gpu2 0000:52:00.0");
	assert_string_equal(r.items[2].check, "gpu");
	assert_contains(
		r.items[2].found,
		"NVIDIA H100 80GB HBM3 pcie gen5 x16, 18 nvlinks active");
	sn_results_free(&r);
}

static void test_healthy_real_h200x2(void **state)
{
	struct sn_results r;

	(void)state;
	nvidia_tree(bus_h200, 2, "0x2335");
	setenv("SN_FAKE_NVML_FIXTURE", REAL, 1);
	run_fake("    vendor: nvidia\n    count: 2\n    pcie_min_gen: 5\n"
		 "    pcie_min_width: 16\n    nvlinks: 18\n",
		 &r);
	expect_all_ok(&r, 2);
	assert_string_equal(r.items[0].device, "gpu0 0000:00:06.0");
	assert_string_equal(r.items[1].device, "gpu1 0000:00:07.0");
	assert_contains(r.items[1].found,
			"NVIDIA H200 pcie gen5 x16, 18 nvlinks active");
	sn_results_free(&r);
}

static void test_vendor_none_does_nothing(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_results r = { 0 };
	struct sn_error err;
	const char *yaml = "supernodes:\n  - name: sn01\n    nodes: n[1-2]\n";

	(void)state;
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);
	assert_int_equal(sn_check_accelerators(&ctx, &r), 0);
	assert_int_equal(r.count, 0);
	sn_config_free(cfg);
}

/* ---- NVIDIA: counts and lost GPUs (field case 11) ----------------------- */

static void test_manifest_wants_3(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus_h200, 2, "0x2335");
	setenv("SN_FAKE_NVML_FIXTURE", REAL, 1);
	run_fake("    vendor: nvidia\n    count: 3\n    nvlinks: 18\n", &r);
	x = expect(&r, SN_CRIT, "GPU_COUNT", "node");
	assert_string_equal(x->check, "gpu_count");
	assert_string_equal(x->expected, "3 gpus (manifest)");
	assert_string_equal(x->found, "nvml 2, pci 2, dev 2");
	assert_int_equal(count_code(&r, "OK"), 2);
	sn_results_free(&r);
}

static void test_case11_nvml_misses_one(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH), *gpus = NULL;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	json_object_object_get_ex(root, "gpus", &gpus);
	json_object_array_del_idx(gpus, 2, 1); /* 0000:52:00.0 */
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_COUNT", "node");
	assert_string_equal(x->found,
			    "nvml 3, pci 4, dev 4: gpu 0000:52:00.0 lost");
	assert_int_equal(count_code(&r, "OK"), 3);
	assert_int_equal(r.count, 4);
	sn_results_free(&r);
}

static void test_case11_handle_lost(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_LOST", "2", 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_LOST", "gpu2 0000:52:00.0");
	assert_string_equal(x->found, "gpu 0000:52:00.0 lost: GPU is lost");
	assert_int_equal(count_code(&r, "GPU_COUNT"), 0);
	assert_int_equal(count_code(&r, "OK"), 3);
	sn_results_free(&r);
}

static void test_lost_1_names_bus(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_LOST", "1", 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_LOST", "gpu1 0000:43:00.0");
	assert_contains(x->found, "0000:43:00.0 lost");
	assert_int_equal(sn_results_worst(&r), SN_CRIT);
	sn_results_free(&r);
}

static void test_lost_after_handle(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_LOST", "1:later", 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_LOST", "gpu1 0000:43:00.0");
	assert_string_equal(
		x->found,
		"gpu 0000:43:00.0 lost: nvmlDeviceGetPciInfo_v3: GPU is lost");
	assert_int_equal(count_code(&r, "GPU_COUNT"), 0);
	sn_results_free(&r);
}

static void test_case11_unknown_error(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_UNKNOWN", "2", 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_HANDLE", "gpu2 0000:52:00.0");
	assert_string_equal(
		x->found,
		"Unable to determine the device handle for gpu 0000:52:00.0: Unknown Error");
	sn_results_free(&r);
}

static void test_unknown_after_handle(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_error(gpu_obj(root, 3), "remapped_rows", "Unknown Error");
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_ERROR", "gpu3 0000:61:00.0");
	assert_string_equal(x->found,
			    "nvmlDeviceGetRemappedRows: Unknown Error");
	sn_results_free(&r);
}

static void test_count_missing_one_dev_node(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	del_node("nvidia3");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_COUNT", "node");
	assert_string_equal(x->found, "nvml 4, pci 4, dev 3");
	sn_results_free(&r);
}

/* ---- NVIDIA: NVML unavailable ------------------------------------------- */

/*
 * Issue 9 item 5: a FIFO (or a folder, or a dangling link) in place of a
 * GPU's vendor, class or device file used to block the whole group until
 * the check timed out (CRIT CHECK_TIMEOUT, a drain, every GPU's result
 * lost).  Now: one UNKNOWN naming the file and what it is, the four GPUs
 * judged by NVML as usual, no count CRIT; the alarm fails a check that
 * blocks instead of hanging the test.
 */
static void test_odd_pci_attribute_unknown(void **state)
{
	static const struct {
		const char *attr, *text, *kind, *what;
	} cases[] = {
		{ "vendor", "0x10de\n", "fifo", "fifo" },
		{ "class", "0x030200\n", "fifo", "fifo" },
		{ "device", "0x2330\n", "fifo", "fifo" },
		{ "class", "0x030200\n", "folder", "folder" },
		{ "class", "0x030200\n", "link", "symbolic link" },
	};
	const struct sn_result *x;
	struct sn_results r;
	char want[PATH_MAX * 2];

	(void)state;
	if (!fake_lib)
		skip();
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	signal(SIGALRM, on_alarm);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		odd_attr(bus4[1], cases[i].attr, cases[i].kind);
		alarm(10);
		run_fake(NV4, &r);
		alarm(0);
		snprintf(
			want, sizeof(want),
			"not a regular file (%s): %s/bus/pci/devices/0000:43:00.0/%s",
			cases[i].what, T->sys, cases[i].attr);
		x = expect(&r, SN_UNKNOWN, "ACCEL_PCI_ATTR", "0000:43:00.0");
		assert_string_equal(x->check, "gpu_count");
		assert_string_equal(x->expected,
				    "readable PCI vendor, class, device");
		assert_string_equal(x->found, want);
		assert_int_equal(count_code(&r, "OK"), 4);
		assert_int_equal(r.count, 5);
		assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
		sn_results_free(&r);
		odd_attr_undo(bus4[1], cases[i].attr, cases[i].text);
	}
	/* Another vendor's odd class is never read: all OK. */
	odd_attr("0000:5a:00.0", "class", "fifo");
	alarm(10);
	run_fake(NV4, &r);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
}

static void test_init_fail_unknown(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_INIT_FAIL", "1", 1);
	run_fake(NV4, &r);
	x = expect(&r, SN_UNKNOWN, "NVML_UNAVAILABLE", "node");
	assert_string_equal(x->check, "nvml");
	assert_contains(x->found, "nvmlInit_v2: Driver Not Loaded");
	assert_int_equal(r.count, 1);
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

static void test_missing_library_never_crit(void **state)
{
	const struct sn_result *x;
	struct sn_results r;
	char lib[PATH_MAX * 2];

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	snprintf(lib, sizeof(lib), "%s/no/libnvidia-ml.so.1", T->t.root);
	run_check(lib, NV4, &r);
	x = expect(&r, SN_UNKNOWN, "NVML_UNAVAILABLE", "node");
	assert_contains(
		x->found,
		"NVIDIA's NVML library not found where paths.nvml points: insta...");
	assert_contains(x->found, "/no/libnvidia-ml.so.1");
	assert_int_equal(r.count, 1);
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

static void test_missing_library_sysfs_still_counts(void **state)
{
	const struct sn_result *x;
	struct sn_results r;
	char lib[PATH_MAX * 2];

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	del_pci("0000:52:00.0");
	snprintf(lib, sizeof(lib), "%s/no/libnvidia-ml.so.1", T->t.root);
	run_check(lib, NV4, &r);
	expect(&r, SN_UNKNOWN, "NVML_UNAVAILABLE", "node");
	x = expect(&r, SN_CRIT, "GPU_COUNT", "node");
	assert_string_equal(x->found, "nvml ?, pci 3, dev 4");
	sn_results_free(&r);
}

static void test_old_library_without_optional_functions(void **state)
{
	struct sn_results r;
	size_t unknown = 0;

	(void)state;
	if (!fake_min_lib)
		skip();
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	run_check(fake_min_lib, NV4, &r);
	/* Width and NVLinks are asked for but cannot be read: UNKNOWN. */
	for (size_t i = 0; i < r.count; i++) {
		assert_int_not_equal(r.items[i].grade, SN_CRIT);
		if (r.items[i].grade == SN_UNKNOWN) {
			assert_string_equal(r.items[i].code, "NVML_QUERY");
			assert_contains(r.items[i].found, "Function Not Found");
			unknown++;
		}
	}
	assert_int_equal(unknown, 8); /* 4 GPUs x (width, nvlink) */
	/* Without nvmlDeviceGetPciInfo_v3 the bus ids come from sysfs. */
	assert_string_equal(r.items[r.count - 1].device, "gpu3 0000:61:00.0");
	sn_results_free(&r);
}

static void test_old_library_nothing_asked(void **state)
{
	struct sn_results r;

	(void)state;
	if (!fake_min_lib)
		skip();
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	run_check(fake_min_lib, "    vendor: nvidia\n    count: 4\n", &r);
	expect_all_ok(&r, 4);
	assert_string_equal(r.items[3].device, "gpu3 0000:61:00.0");
	sn_results_free(&r);
}

/* ---- NVIDIA: health (field case 12) ------------------------------------- */

static void test_case12_remap_pending(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	/* Remapped Rows: Correctable 0, Uncorrectable 4, Pending Yes, Failure No */
	set_remap(root, 0, 0, 4, 1, 0);
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_ROW_REMAP_PENDING", "gpu0 0000:1b:00.0");
	assert_string_equal(x->found,
			    "remap pending: reboot (uncorrectable rows 4)");
	assert_int_equal(count_code(&r, "GPU_ROW_REMAP_FAILED"), 0);
	assert_int_equal(count_code(&r, "OK"), 3);
	sn_results_free(&r);
}

/* Set NVML field name of GPU gpu (the fake's nvml_field_values). */
static void set_field(json_object *root, size_t gpu, const char *name,
		      int64_t v)
{
	json_object *fv = NULL, *g = gpu_obj(root, gpu);

	if (!json_object_object_get_ex(g, "nvml_field_values", &fv)) {
		fv = json_object_new_object();
		json_object_object_add(g, "nvml_field_values", fv);
	}
	set_int(fv, name, v);
}

/*
 * Issue 12: NVML's GPU recovery action other than NONE is CRIT naming it;
 * NONE, and a driver without the field (the fixtures), say nothing.
 */
static void test_recovery_action(void **state)
{
	static const struct {
		int64_t action;
		const char *found;
	} cases[] = {
		{ 1, "GPU reset (NVML action 1)" },
		{ 2, "node reboot (NVML action 2)" },
		{ 3, "drain peer-to-peer traffic (NVML action 3)" },
		{ 4, "drain and reset (NVML action 4)" },
		{ 5, "recover the IMEX domain (NVML action 5)" },
		{ 9, "unknown action (NVML action 9)" },
	};
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *root = fixture_load(SYNTH);

		set_field(root, 0, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", 0);
		set_field(root, 2, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION",
			  cases[i].action);
		fixture_use(root);
		run_fake(NV4, &r);
		x = expect(&r, SN_CRIT, "GPU_RECOVERY_ACTION",
			   "gpu2 0000:52:00.0");
		assert_string_equal(x->expected, "recovery action none");
		assert_string_equal(x->found, cases[i].found);
		assert_int_equal(count_code(&r, "GPU_RECOVERY_ACTION"), 1);
		assert_int_equal(count_code(&r, "OK"), 3);
		sn_results_free(&r);
	}
	/* An error in the field itself: the tool could not tell. */
	{
		json_object *root = fixture_load(SYNTH), *fv;

		set_field(root, 1, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", 0);
		assert_true(json_object_object_get_ex(
			gpu_obj(root, 1), "nvml_field_values", &fv));
		set_error(fv, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION",
			  "Unknown Error");
		fixture_use(root);
		run_fake(NV4, &r);
		x = expect(&r, SN_UNKNOWN, "NVML_QUERY", "gpu1 0000:43:00.0");
		assert_string_equal(x->found,
				    "nvmlDeviceGetFieldValues: Unknown Error");
		sn_results_free(&r);
	}
}

/*
 * A recovery action NVML answers as a double or a negative number is no
 * action: UNKNOWN NVML_QUERY, never read as NONE (0) and never CRIT.
 */
static void test_recovery_action_garbage(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH), *fv;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_field(root, 1, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", -1);
	set_field(root, 3, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", 0);
	assert_true(json_object_object_get_ex(gpu_obj(root, 3),
					      "nvml_field_values", &fv));
	json_object_object_add(fv, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION",
			       json_object_new_double(1.5));
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_UNKNOWN, "NVML_QUERY", "gpu1 0000:43:00.0");
	assert_string_equal(
		x->found, "nvmlDeviceGetFieldValues: recovery action negative");
	assert_string_equal(x->expected, "an answer from NVML");
	x = expect(&r, SN_UNKNOWN, "NVML_QUERY", "gpu3 0000:61:00.0");
	assert_string_equal(
		x->found,
		"nvmlDeviceGetFieldValues: recovery action of type double (1.5)");
	assert_int_equal(count_code(&r, "NVML_QUERY"), 2);
	assert_int_equal(count_code(&r, "GPU_RECOVERY_ACTION"), 0);
	/* gpu0 and gpu2 (no field: the driver says nothing) stay OK. */
	assert_int_equal(count_code(&r, "OK"), 2);
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

static void test_case12_remap_failure(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_remap(root, 1, 0, 9, 0, 1);
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_ROW_REMAP_FAILED", "gpu1 0000:43:00.0");
	assert_contains(x->found, "remap failure: RMA");
	assert_int_equal(count_code(&r, "GPU_ROW_REMAP_PENDING"), 0);
	sn_results_free(&r);
}

static void test_case12_remap_not_supported(void **state)
{
	static const char *const bus[] = { "0000:3b:00.0", "0000:d8:00.0" };
	struct sn_results r;

	(void)state;
	nvidia_tree(bus, 2, "0x26b9");
	setenv("SN_FAKE_NVML_FIXTURE", PCIE, 1);
	run_fake("    vendor: nvidia\n    count: 2\n    pcie_min_width: 16\n"
		 "    pcie_min_gen: 4\n    nvlinks: 0\n",
		 &r);
	expect_all_ok(&r, 2);
	sn_results_free(&r);
}

static void test_retired_pages_and_ecc(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_int(gpu_obj(root, 2), "retired_pages_pending", 1);
	set_int(gpu_obj(root, 3), "ecc_uncorrected_volatile", 2);
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_RETIRED_PAGES_PENDING",
		   "gpu2 0000:52:00.0");
	assert_contains(x->found, "reboot");
	x = expect(&r, SN_CRIT, "GPU_ECC_UNCORRECTED", "gpu3 0000:61:00.0");
	assert_string_equal(x->found, "2 uncorrected volatile ECC errors");
	assert_int_equal(count_code(&r, "OK"), 2);
	sn_results_free(&r);
}

static void test_no_permission_is_unknown(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_error(gpu_obj(root, 0), "remapped_rows",
		  "Insufficient Permissions");
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_UNKNOWN, "NVML_QUERY", "gpu0 0000:1b:00.0");
	assert_string_equal(
		x->found,
		"nvmlDeviceGetRemappedRows: Insufficient Permissions");
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

/* ---- NVIDIA: PCIe from NVML (field case 9) ------------------------------ */

static void test_pcie_width_downtrained(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_int(gpu_obj(root, 0), "pcie_width_cur", 8);
	fixture_use(root);
	run_fake("    vendor: nvidia\n    count: 4\n", &r);
	x = expect(&r, SN_CRIT, "GPU_PCIE_WIDTH", "gpu0 0000:1b:00.0");
	assert_string_equal(x->check, "gpu_pcie");
	assert_string_equal(x->expected, "width x16 (link max)");
	assert_string_equal(x->found, "x8 (link max x16)");
	sn_results_free(&r);
}

static void test_pcie_width_slot_limited(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	/* An x16 card in an x8 slot: NVML's max is the slot's. */
	set_int(gpu_obj(root, 1), "pcie_width_cur", 8);
	set_int(gpu_obj(root, 1), "pcie_width_max", 8);
	fixture_use(root);
	run_fake("    vendor: nvidia\n    count: 4\n", &r);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
	run_fake(NV4, &r); /* but the manifest wants x16 */
	x = expect(&r, SN_CRIT, "GPU_PCIE_WIDTH", "gpu1 0000:43:00.0");
	assert_string_equal(x->expected, "width x16 or more");
	assert_string_equal(x->found, "x8 (link max x8)");
	sn_results_free(&r);
}

static void test_pcie_idle_gen_is_not_judged(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_int(gpu_obj(root, 2), "pcie_gen_cur", 1); /* idle */
	fixture_use(root);
	run_fake(NV4, &r);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
	run_fake(NV4 "    pcie_check_speed: true\n", &r);
	x = expect(&r, SN_CRIT, "GPU_PCIE_SPEED", "gpu2 0000:52:00.0");
	assert_string_equal(x->expected, "gen5 or more");
	assert_string_equal(x->found, "gen1 (link max gen5)");
	sn_results_free(&r);
}

static void test_pcie_slot_gen_below_manifest(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_int(gpu_obj(root, 3), "pcie_gen_cur", 1);
	set_int(gpu_obj(root, 3), "pcie_gen_max", 4); /* Gen5 card, Gen4 slot */
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "GPU_PCIE_SPEED", "gpu3 0000:61:00.0");
	assert_string_equal(x->found, "link max gen4 (device and slot)");
	sn_results_free(&r);
	run_fake("    vendor: nvidia\n    count: 4\n    nvlinks: 18\n", &r);
	expect_all_ok(&r, 4); /* no minimum: fine */
	sn_results_free(&r);
}

static void test_pcie_not_supported_skips(void **state)
{
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	for (size_t i = 0; i < 4; i++) {
		set_error(gpu_obj(root, i), "pcie_width_cur", "Not Supported");
		set_error(gpu_obj(root, i), "pcie_gen_cur", "Not Supported");
		set_error(gpu_obj(root, i), "pcie_gen_max", "Not Supported");
	}
	fixture_use(root);
	run_fake(NV4 "    pcie_check_speed: true\n", &r);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
}

/* ---- NVIDIA: NVLink (field case 13) ------------------------------------- */

static void test_case13_one_link_inactive(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_link_state(root, 3, 5, 0);
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "NVLINK_INACTIVE", "gpu3 0000:61:00.0");
	assert_string_equal(x->check, "nvlink");
	assert_string_equal(x->expected, "18 active nvlinks");
	assert_string_equal(x->found, "gpu3 links 5 inactive, 17/18 active");
	assert_int_equal(count_code(&r, "OK"), 3);
	sn_results_free(&r);
}

static void test_case13_twelve_of_eighteen(void **state)
{
	const struct sn_result *x;
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	for (size_t l = 12; l < 18; l++)
		set_link_state(root, 0, l, 0);
	set_link_state(root, 1, 3, 0);
	set_link_state(root, 1, 4, 0);
	set_link_state(root, 1, 9, 0);
	fixture_use(root);
	run_fake(NV4, &r);
	x = expect(&r, SN_CRIT, "NVLINK_INACTIVE", "gpu0 0000:1b:00.0");
	assert_string_equal(x->found,
			    "gpu0 links 12-17 inactive, 12/18 active");
	x = expect(&r, SN_CRIT, "NVLINK_INACTIVE", "gpu1 0000:43:00.0");
	assert_string_equal(x->found,
			    "gpu1 links 3,4,9 inactive, 15/18 active");
	sn_results_free(&r);
}

static void test_case13_pcie_node_no_nvlink(void **state)
{
	static const char *const bus[] = { "0000:3b:00.0", "0000:d8:00.0" };
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus, 2, "0x26b9");
	setenv("SN_FAKE_NVML_FIXTURE", PCIE, 1);
	run_fake("    vendor: nvidia\n    count: 2\n    nvlinks: 0\n", &r);
	expect_all_ok(&r, 2);
	assert_contains(r.items[0].found,
			"NVIDIA L40S pcie gen1 x16, 0 nvlinks active");
	sn_results_free(&r);
	/* A manifest that wants NVLink on this node: CRIT, not a crash. */
	run_fake("    vendor: nvidia\n    count: 2\n    nvlinks: 18\n", &r);
	x = expect(&r, SN_CRIT, "NVLINK_INACTIVE", "gpu1 0000:d8:00.0");
	assert_string_equal(x->found, "gpu1 nvlink not supported, 0/18 active");
	sn_results_free(&r);
}

static void test_case13_all_down_with_zero_expected(void **state)
{
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	for (size_t g = 0; g < 4; g++)
		for (size_t l = 0; l < 18; l++)
			set_link_state(root, g, l, 0);
	fixture_use(root);
	run_fake("    vendor: nvidia\n    count: 4\n    nvlinks: 0\n", &r);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
}

static void test_nvlink_more_than_manifest_warns(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	run_fake("    vendor: nvidia\n    count: 4\n    nvlinks: 12\n", &r);
	x = expect(&r, SN_WARN, "NVLINK_UNEXPECTED", "gpu0 0000:1b:00.0");
	assert_contains(x->found, "18/12 active");
	assert_int_equal(sn_results_worst(&r), SN_WARN);
	sn_results_free(&r);
}

static void test_nvlink_not_checked_when_absent(void **state)
{
	json_object *root = fixture_load(SYNTH);
	struct sn_results r;

	(void)state;
	nvidia_tree(bus4, 4, "0x2330");
	set_link_state(root, 0, 0, 0);
	fixture_use(root);
	run_fake("    vendor: nvidia\n    count: 4\n", &r);
	expect_all_ok(&r, 4);
	sn_results_free(&r);
}

/* ---- other vendors: Ascend ---------------------------------------------- */

static const char *const npu_bus[] = {
	"0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
	"0000:81:00.0", "0000:82:00.0", "0000:c1:00.0", "0000:c2:00.0",
};

static void ascend_tree(void)
{
	char node[32];

	for (size_t i = 0; i < 8; i++) {
		add_pci(npu_bus[i], "0x19e5", "0xd802", "0x120000");
		snprintf(node, sizeof(node), "davinci%zu", i);
		add_node(node);
	}
	/* Kunpeng host: on-chip engines and a Huawei NIC, not NPUs. */
	add_pci("0000:75:00.0", "0x19e5", "0xa250", "0x120000"); /* ZIP */
	add_pci("0000:79:00.0", "0x19e5", "0xa258", "0x100000"); /* HPRE */
	add_pci("0000:3d:00.0", "0x19e5", "0x1822", "0x020000"); /* NIC */
	add_node("davinci_manager");
	add_node("devmm_svm");
	add_node("hisi_hdc");
}

#define ASCEND8 "    vendor: ascend\n    count: 8\n"

/* The fake DCMI (paths.dcmi) answers the eight NPUs of ascend_tree(). */
static void ascend_dcmi(void)
{
	setenv("SN_FAKE_DCMI_FIXTURE",
	       SN_FIXTURES "/vendors/ascend/tree-8.json", 1);
}

static void test_ascend_healthy(void **state)
{
	struct sn_results r;

	(void)state;
	ascend_tree();
	ascend_dcmi();
	run_check("/nonexistent/libnvidia-ml.so.1", ASCEND8, &r);
	expect_all_ok(&r, 8);
	/* One OK per NPU from DCMI's verdict (issue 18), by logic id. */
	assert_string_equal(r.items[4].device, "npu4 0000:81:00.0");
	assert_string_equal(r.items[4].check, "accel");
	assert_string_equal(r.items[4].expected, "healthy (DCMI)");
	assert_string_equal(r.items[4].found, "health 0 (normal)");
	sn_results_free(&r);
}

static void test_ascend_node_missing(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_tree();
	ascend_dcmi();
	del_node("davinci5");
	run_check("/nonexistent/libnvidia-ml.so.1", ASCEND8, &r);
	x = expect(&r, SN_CRIT, "ACCEL_COUNT", "node");
	assert_string_equal(x->check, "accel_count");
	assert_string_equal(x->expected, "8 ascend accelerators (pci 19e5)");
	assert_string_equal(x->found, "pci 8, dev 7: davinci5 missing");
	sn_results_free(&r);
}

static void test_ascend_pci_missing(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_tree();
	ascend_dcmi();
	del_pci("0000:c2:00.0");
	run_check("/nonexistent/libnvidia-ml.so.1", ASCEND8, &r);
	x = expect(&r, SN_CRIT, "ACCEL_COUNT", "node");
	assert_string_equal(x->found, "pci 7, dev 8");
	/* DCMI still answers for all eight: each has its verdict. */
	assert_int_equal(count_code(&r, "OK"), 8);
	sn_results_free(&r);
}

/* The same for a vendor without NVML: the other seven NPUs stay OK. */
static void test_ascend_fifo_class_unknown(void **state)
{
	const struct sn_result *x;
	struct sn_results r;
	char want[PATH_MAX * 2];

	(void)state;
	ascend_tree();
	ascend_dcmi();
	odd_attr("0000:c2:00.0", "class", "fifo");
	signal(SIGALRM, on_alarm);
	alarm(10);
	run_check("/nonexistent/libnvidia-ml.so.1", ASCEND8, &r);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	snprintf(
		want, sizeof(want),
		"not a regular file (fifo): %s/bus/pci/devices/0000:c2:00.0/class",
		T->sys);
	x = expect(&r, SN_UNKNOWN, "ACCEL_PCI_ATTR", "0000:c2:00.0");
	assert_string_equal(x->check, "accel_count");
	assert_string_equal(x->found, want);
	/* DCMI's verdict for all eight NPUs, the PCI attribute UNKNOWN. */
	assert_int_equal(count_code(&r, "OK"), 8);
	assert_int_equal(r.count, 9);
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

static void test_ascend_pcie_width(void **state)
{
	const struct sn_result *x;
	struct sn_results r;
	size_t pcie = 0;

	(void)state;
	ascend_tree();
	ascend_dcmi();
	for (size_t i = 0; i < 8; i++)
		add_pci_link(npu_bus[i], i == 6 ? "8\n" : "16\n",
			     "16.0 GT/s PCIe\n");
	run_check("/nonexistent/libnvidia-ml.so.1",
		  ASCEND8 "    pcie_min_width: 16\n    pcie_min_gen: 5\n", &r);
	for (size_t i = 0; i < r.count; i++)
		pcie += !strcmp(r.items[i].check, "pcie");
	assert_int_equal(pcie, 8); /* sn_pcie_check once per NPU */
	x = expect(&r, SN_CRIT, "PCIE_WIDTH", "accel6 0000:c1:00.0");
	assert_contains(x->found, "8");
	assert_int_equal(count_code(&r, "PCIE_SPEED"), 0); /* speed not asked */
	sn_results_free(&r);
}

/* ---- a vendor library's verdicts (check_vendor.c, fake DCMI) ------------ */

/*
 * tree-8.json (or the faults set since the last run_ascend) with card
 * `chip`'s first chip's key set to the JSON value, written to a temporary
 * file the fake DCMI then answers from; NULL key: as it is.
 */
static char fault_path[64];

static void ascend_fault(int chip, const char *key, const char *value)
{
	json_object *fx = json_object_from_file(
		fault_path[0] ? fault_path :
				SN_FIXTURES "/vendors/ascend/tree-8.json");
	json_object *cards, *card, *chips, *c;
	int fd;

	assert_non_null(fx);
	assert_true(json_object_object_get_ex(fx, "cards", &cards));
	card = json_object_array_get_idx(cards, (size_t)chip);
	assert_true(json_object_object_get_ex(card, "chips", &chips));
	c = json_object_array_get_idx(chips, 0);
	if (key)
		json_object_object_add(c, key, json_tokener_parse(value));
	if (!fault_path[0]) {
		snprintf(fault_path, sizeof(fault_path), "/tmp/sn-dcmi-XXXXXX");
		fd = mkstemp(fault_path);
		assert_true(fd >= 0);
		close(fd);
	}
	assert_int_equal(json_object_to_file(fault_path, fx), 0);
	json_object_put(fx);
	setenv("SN_FAKE_DCMI_FIXTURE", fault_path, 1);
}

static void run_ascend(const char *extra, struct sn_results *r)
{
	char accel[256];

	snprintf(accel, sizeof(accel), ASCEND8 "%s", extra ? extra : "");
	ascend_tree();
	run_check("/nonexistent/libnvidia-ml.so.1", accel, r);
	if (fault_path[0])
		unlink(fault_path);
	fault_path[0] = '\0';
}

/* DCMI's critical alarm with its fault code's class: CRIT, both named. */
static void test_vendor_health_crit(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_fault(2, "health", "3");
	ascend_fault(2, "errors", "[\"80E18402\"]");
	run_ascend(NULL, &r);
	x = expect(&r, SN_CRIT, "ACCEL_HEALTH", "npu2 0000:41:00.0");
	assert_string_equal(x->expected, "healthy (DCMI)");
	assert_string_equal(
		x->found,
		"health 3 (critical alarm), error 0x80e18402 (SeparateNPU)");
	assert_int_equal(count_code(&r, "OK"), 7);
	sn_results_free(&r);
}

/* A minor alarm is WARN: the node is not drained for it. */
static void test_vendor_health_warn(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_fault(5, "health", "1");
	run_ascend(NULL, &r);
	x = expect(&r, SN_WARN, "ACCEL_HEALTH", "npu5 0000:82:00.0");
	assert_string_equal(x->found, "health 1 (minor alarm)");
	assert_int_equal(sn_results_worst(&r), SN_WARN);
	sn_results_free(&r);
}

static void test_vendor_ecc(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_fault(0, "ecc",
		     "{\"enable\": 1, \"single\": 4, \"double\": 2, "
		     "\"total_single\": 4, \"total_double\": 2}");
	run_ascend(NULL, &r);
	x = expect(&r, SN_CRIT, "ACCEL_ECC_UNCORRECTED", "npu0 0000:01:00.0");
	assert_string_equal(x->found, "2 uncorrected ECC errors (DCMI)");
	sn_results_free(&r);
}

/* Network health: INIT (6) is healthy as MindCluster says, 3 is not. */
static void test_vendor_net_health(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_fault(1, "net", "6");
	run_ascend(NULL, &r);
	assert_int_equal(count_code(&r, "OK"), 8);
	sn_results_free(&r);
	ascend_fault(1, "net", "3");
	run_ascend(NULL, &r);
	x = expect(&r, SN_CRIT, "ACCEL_NET_HEALTH", "npu1 0000:02:00.0");
	assert_string_equal(x->expected, "network health OK or INIT");
	assert_string_equal(x->found, "network health 3 (UNREACH)");
	sn_results_free(&r);
}

/* node.accelerators.links: port 0 is no HCCS link, 7 are up. */
static void test_vendor_links(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_dcmi();
	run_ascend("    links: 7\n", &r);
	assert_int_equal(count_code(&r, "OK"), 8);
	sn_results_free(&r);
	ascend_dcmi();
	run_ascend("    links: 8\n", &r);
	x = expect(&r, SN_CRIT, "ACCEL_LINK_DOWN", "npu3 0000:42:00.0");
	assert_string_equal(x->found, "HCCS up 7 of 8, 1 unused");
	assert_int_equal(count_code(&r, "ACCEL_LINK_DOWN"), 8);
	sn_results_free(&r);
}

/*
 * The hung call (the field's case: network health after a card drop) is
 * UNKNOWN naming it, within the check's budget; the NPUs read before it
 * keep their verdicts.  Never CHECK_TIMEOUT.
 */
static void test_vendor_call_hung(void **state)
{
	const struct sn_result *x;
	struct sn_results r;
	int64_t t0;

	(void)state;
	ascend_dcmi();
	setenv("SN_FAKE_DCMI_HANG", "dcmi_get_device_network_health:3", 1);
	t0 = sn_now_ms();
	run_ascend(NULL, &r);
	unsetenv("SN_FAKE_DCMI_HANG");
	assert_true(sn_now_ms() - t0 < 2000);
	x = expect(&r, SN_UNKNOWN, "ACCEL_CALL_HUNG", "node");
	assert_string_equal(
		x->found,
		"dcmi_get_device_network_health(card 3, device 0) did not return in 1000 ms");
	assert_int_equal(count_code(&r, "OK"), 3);
	assert_int_equal(sn_results_worst(&r), SN_UNKNOWN);
	sn_results_free(&r);
}

/* The library missing, or failing to start: UNKNOWN with the reason. */
static void test_vendor_library(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_dcmi();
	setenv("SN_FAKE_DCMI_INIT_FAIL", "-8005", 1);
	run_ascend(NULL, &r);
	unsetenv("SN_FAKE_DCMI_INIT_FAIL");
	x = expect(&r, SN_UNKNOWN, "ACCEL_LIBRARY", "node");
	assert_string_equal(x->expected, "DCMI");
	assert_string_equal(x->found,
			    "dcmi_init: error -8005 (internal error)");
	assert_int_equal(count_code(&r, "OK"), 0);
	sn_results_free(&r);
}

/* A chip that DCMI does not list: the library's count, and its bus id. */
static void test_vendor_count(void **state)
{
	const struct sn_result *x;
	struct sn_results r;

	(void)state;
	ascend_fault(6, "type", "1"); /* chip of card 6 is not an NPU now */
	run_ascend(NULL, &r);
	x = expect(&r, SN_CRIT, "ACCEL_COUNT", "node");
	assert_string_equal(x->expected, "8 Huawei Ascend NPUs");
	assert_string_equal(x->found, "DCMI counts 7, not 0000:c1:00.0");
	sn_results_free(&r);
}

/* ---- counters for the epilog -------------------------------------------- */

static json_object *counters(const char *nvml, const char *accel)
{
	struct sn_config *cfg = load_config(nvml, accel);
	struct sn_check_ctx ctx;
	struct sn_error err;
	json_object *j;

	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);
	j = sn_accel_counters_json(&ctx);
	sn_config_free(cfg);
	assert_non_null(j);
	return j;
}

static json_object *path_get(json_object *o, const char *const *keys)
{
	for (; *keys; keys++)
		if (!json_object_object_get_ex(o, *keys, &o))
			fail_msg("no key %s", *keys);
	return o;
}

#define GET(o, ...) path_get(o, (const char *const[]){ __VA_ARGS__, NULL })

static void test_counters_real_h200x2(void **state)
{
	json_object *j;

	(void)state;
	if (!fake_lib)
		skip();
	setenv("SN_FAKE_NVML_FIXTURE", REAL, 1);
	j = counters(fake_lib, "    vendor: nvidia\n    count: 2\n");
	assert_string_equal(json_object_get_string(GET(j, "vendor")), "nvidia");
	assert_string_equal(json_object_get_string(GET(j, "driver")),
			    "580.159.04");
	assert_null(GET(j, "error"));
	assert_int_equal(json_object_object_length(GET(j, "devices")), 2);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:00:06.0",
						   "pcie_replay_counter")),
			 5);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:00:07.0",
						   "pcie_replay_counter")),
			 1);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:00:06.0",
						   "nvlink", "10", "crc_data")),
			 25);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:00:07.0",
						   "nvlink", "1", "crc_data")),
			 26);
	assert_true(json_object_get_boolean(
		GET(j, "devices", "0000:00:07.0", "nvlink", "17", "active")));
	assert_int_equal(json_object_object_length(
				 GET(j, "devices", "0000:00:07.0", "nvlink")),
			 18);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:00:06.0",
						   "ecc_uncorrected_volatile")),
			 0);
	assert_null(GET(j, "devices", "0000:00:06.0", "retired_pages_pending"));
	assert_false(json_object_get_boolean(
		GET(j, "devices", "0000:00:06.0", "remapped_rows", "pending")));
	assert_null(GET(j, "devices", "0000:00:06.0", "error"));
	assert_string_equal(json_object_get_string(
				    GET(j, "devices", "0000:00:06.0", "name")),
			    "NVIDIA H200");
	json_object_put(j);
}

static void test_counters_lost_and_unsupported(void **state)
{
	json_object *j;

	(void)state;
	if (!fake_lib)
		skip();
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_LOST", "1", 1);
	j = counters(fake_lib, "    vendor: nvidia\n    count: 4\n");
	assert_int_equal(json_object_object_length(GET(j, "devices")), 4);
	assert_string_equal(
		json_object_get_string(GET(j, "devices", "index1", "error")),
		"nvmlDeviceGetHandleByIndex_v2: GPU is lost");
	assert_null(GET(j, "devices", "index1", "pcie_replay_counter"));
	assert_int_equal(json_object_get_int64(
				 GET(j, "devices", "0000:61:00.0", "index")),
			 3);
	json_object_put(j);
	unsetenv("SN_FAKE_NVML_LOST");

	setenv("SN_FAKE_NVML_FIXTURE", PCIE, 1);
	j = counters(fake_lib, "    vendor: nvidia\n    count: 2\n");
	assert_null(GET(j, "devices", "0000:3b:00.0", "remapped_rows"));
	assert_int_equal(json_object_object_length(
				 GET(j, "devices", "0000:3b:00.0", "nvlink")),
			 0);
	assert_false(json_object_get_boolean(
		GET(j, "devices", "0000:3b:00.0", "retired_pages_pending")));
	json_object_put(j);
}

static void test_counters_without_nvml(void **state)
{
	json_object *j;

	(void)state;
	j = counters("/nonexistent/libnvidia-ml.so.1",
		     "    vendor: nvidia\n    count: 4\n");
	assert_string_equal(
		json_object_get_string(GET(j, "error")),
		"NVIDIA's NVML library not found where paths.nvml points: install the NVIDIA driver's libnvidia-ml package, or correct paths.nvml: /nonexistent/libnvidia-ml.so.1");
	assert_null(GET(j, "driver"));
	assert_int_equal(json_object_object_length(GET(j, "devices")), 0);
	json_object_put(j);
}

static void test_counters_ascend(void **state)
{
	json_object *j;

	(void)state;
	ascend_tree();
	ascend_dcmi();
	j = counters("/nonexistent/libnvidia-ml.so.1", ASCEND8);
	assert_string_equal(json_object_get_string(GET(j, "vendor")), "ascend");
	assert_null(GET(j, "error"));
	assert_int_equal(json_object_object_length(GET(j, "devices")), 8);
	/* DCMI's reading (issue 18): the driver, each NPU's HBM ECC under
	 * NVML's keys, the HCCS counters summed over the ports (tree-8.json:
	 * the NPU at c2 has tx 1071..1077 on ports 1-7) and per port. */
	assert_string_equal(json_object_get_string(GET(j, "driver")),
			    "24.1.0.3");
	assert_int_equal(json_object_get_int64(
				 GET(j, "devices", "0000:c2:00.0", "index")),
			 7);
	assert_string_equal(json_object_get_string(GET(
				    j, "devices", "0000:c2:00.0", "health")),
			    "ok");
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:c2:00.0",
						   "ecc_uncorrected_volatile")),
			 0);
	assert_int_equal(json_object_get_int64(
				 GET(j, "devices", "0000:c2:00.0", "hccs_crc")),
			 0);
	assert_int_equal(json_object_get_int64(GET(j, "devices", "0000:c2:00.0",
						   "links", "1", "tx")),
			 1071);
	assert_string_equal(json_object_get_string(GET(j, "devices",
						       "0000:c2:00.0", "links",
						       "0", "state")),
			    "unused");
	json_object_put(j);
}

#define TT(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TT(test_vendor_health_crit),
		TT(test_vendor_health_warn),
		TT(test_vendor_ecc),
		TT(test_vendor_net_health),
		TT(test_vendor_links),
		TT(test_vendor_call_hung),
		TT(test_vendor_library),
		TT(test_vendor_count),
		TT(test_class_table),
		TT(test_pci_scan),
		TT(test_dev_nodes),
		TT(test_healthy_4x),
		TT(test_healthy_real_h200x2),
		TT(test_vendor_none_does_nothing),
		TT(test_manifest_wants_3),
		TT(test_case11_nvml_misses_one),
		TT(test_case11_handle_lost),
		TT(test_lost_1_names_bus),
		TT(test_lost_after_handle),
		TT(test_case11_unknown_error),
		TT(test_unknown_after_handle),
		TT(test_count_missing_one_dev_node),
		TT(test_odd_pci_attribute_unknown),
		TT(test_init_fail_unknown),
		TT(test_missing_library_never_crit),
		TT(test_missing_library_sysfs_still_counts),
		TT(test_old_library_without_optional_functions),
		TT(test_old_library_nothing_asked),
		TT(test_case12_remap_pending),
		TT(test_recovery_action),
		TT(test_recovery_action_garbage),
		TT(test_case12_remap_failure),
		TT(test_case12_remap_not_supported),
		TT(test_retired_pages_and_ecc),
		TT(test_no_permission_is_unknown),
		TT(test_pcie_width_downtrained),
		TT(test_pcie_width_slot_limited),
		TT(test_pcie_idle_gen_is_not_judged),
		TT(test_pcie_slot_gen_below_manifest),
		TT(test_pcie_not_supported_skips),
		TT(test_case13_one_link_inactive),
		TT(test_case13_twelve_of_eighteen),
		TT(test_case13_pcie_node_no_nvlink),
		TT(test_case13_all_down_with_zero_expected),
		TT(test_nvlink_more_than_manifest_warns),
		TT(test_nvlink_not_checked_when_absent),
		TT(test_ascend_healthy),
		TT(test_ascend_node_missing),
		TT(test_ascend_pci_missing),
		TT(test_ascend_fifo_class_unknown),
		TT(test_ascend_pcie_width),
		TT(test_counters_real_h200x2),
		TT(test_counters_lost_and_unsupported),
		TT(test_counters_without_nvml),
		TT(test_counters_ascend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
