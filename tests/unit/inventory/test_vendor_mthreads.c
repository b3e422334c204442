/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Moore Threads backend (lib/inventory/vendor_mthreads.c) against the
 * fake libmtml.so of tests/fake_mtml, through sn_vendor_lib_read() (the
 * child and its watchdog) and sn_vendor_lib_read_here(): 8 GPUs with 14
 * MTLinks healthy, each fault kind with MTML's own value (uncorrected ECC,
 * link DOWN, the DOWNGRADE quirk), library and symbol missing, a hung
 * call, init failure and slowness, a lost GPU.
 */
#include <stdint.h>

#include "unit.h"

#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "inventory/sn_vendor_lib.h"
#include "util/sn_error.h"
#include "util/sn_child.h"

#define HEALTHY SN_FIXTURES "/vendors/mthreads/healthy.json"
#define FAULTS SN_FIXTURES "/vendors/mthreads/faults.json"

static const char *const knobs[] = {
	"SN_FAKE_MTML_FIXTURE",	  "SN_FAKE_MTML_HANG",	  "SN_FAKE_MTML_LOST",
	"SN_FAKE_MTML_INIT_FAIL", "SN_FAKE_MTML_INIT_MS",
};

static const char *const bdfs[8] = {
	"0000:0f:00.0", "0000:14:00.0", "0000:3a:00.0", "0000:3f:00.0",
	"0000:8f:00.0", "0000:94:00.0", "0000:ba:00.0", "0000:bf:00.0",
};

static struct sn_vendor_node *node;

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	setenv("SN_FAKE_MTML_FIXTURE", HEALTHY, 1);
	node = calloc(1, sizeof(*node));
	return node ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(node);
	node = NULL;
	return 0;
}

static struct sn_config *config_for(const char *lib)
{
	char yaml[1024];
	struct sn_config *cfg;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n"
		 "  - name: sn01\n    nodes: a[1-2]\n"
		 "node:\n  accelerators:\n    vendor: mthreads\n"
		 "    count: 8\n"
		 "paths:\n  mtml: %s\n",
		 lib);
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

/* Read lib (in a child with the watchdog when child) into node. */
static void read_lib(const char *lib, bool child)
{
	struct sn_config *cfg = config_for(lib);
	struct sn_check_ctx ctx;
	struct sn_error err;

	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "a1", &err), 0);
	assert_string_equal(ctx.accel_lib, lib);
	if (child)
		assert_int_equal(sn_vendor_lib_read(&ctx, 0, node), 0);
	else
		assert_int_equal(sn_vendor_lib_read_here(&ctx, node), 0);
	sn_config_free(cfg);
}

static void assert_link(const struct sn_vendor_link *l, uint8_t state,
			const char *text)
{
	assert_int_equal(l->state, state);
	assert_string_equal(l->state_text, text);
	assert_int_equal(l->n_ctrs, 0); /* MTML counts no MTLink errors */
}

static void assert_healthy_dev(const struct sn_vendor_dev *d, uint32_t i)
{
	assert_int_equal(d->index, i);
	assert_string_equal(d->bdf, bdfs[i]);
	assert_string_equal(d->error, "");
	assert_int_equal(d->health, SN_VHEALTH_OK);
	assert_string_equal(d->health_text,
			    "ECC uncorrected 0 (volatile, DRAM)");
	assert_true(d->ecc_read);
	assert_int_equal(d->ecc_uncorrected, 0);
	assert_int_equal(d->ecc_corrected, 0);
	assert_int_equal(d->n_links, 14);
	for (int l = 0; l < 14; l++)
		assert_link(&d->links[l], SN_VLINK_UP, "UP");
}

static void test_healthy_child(void **state)
{
	(void)state;
	read_lib(SN_FAKE_MTML, true);
	assert_string_equal(node->error, "");
	assert_string_equal(node->hung_call, "");
	assert_string_equal(node->library, SN_FAKE_MTML);
	assert_string_equal(node->version, "3.0.0");
	assert_true(node->counted);
	assert_int_equal(node->count, 8);
	assert_int_equal(node->n_devs, 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_healthy_dev(&node->devs[i], i);
	assert_string_equal(node->devs[5].label, "gpu 5");
}

static void test_healthy_here(void **state)
{
	(void)state;
	read_lib(SN_FAKE_MTML, false);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_healthy_dev(&node->devs[i], i);
}

static void read_faults(void)
{
	setenv("SN_FAKE_MTML_FIXTURE", FAULTS, 1);
	read_lib(SN_FAKE_MTML, false);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	assert_healthy_dev(&node->devs[0], 0);
}

/* gpustack's rule: volatile uncorrected DRAM ECC > 0 is unhealthy. */
static void test_ecc_uncorrected(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[1];
	assert_string_equal(d->bdf, "0000:14:00.0");
	assert_true(d->ecc_read);
	assert_int_equal(d->ecc_uncorrected, 2);
	assert_int_equal(d->ecc_corrected, 9);
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text,
			    "ECC uncorrected 2 (volatile, DRAM)");
	/* corrected errors alone stay healthy */
	d = &node->devs[7];
	assert_int_equal(d->ecc_corrected, 3);
	assert_int_equal(d->health, SN_VHEALTH_OK);
}

/* MTML's quirk: DOWNGRADE is its own state, degraded, not up or down. */
static void test_link_downgrade(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[2];
	assert_int_equal(d->n_links, 14);
	assert_link(&d->links[5], SN_VLINK_DEGRADED, "DOWNGRADE");
	assert_link(&d->links[4], SN_VLINK_UP, "UP");
	assert_int_equal(d->health, SN_VHEALTH_OK);
}

static void test_link_down(void **state)
{
	(void)state;
	read_faults();
	assert_link(&node->devs[3].links[0], SN_VLINK_DOWN, "DOWN");
	assert_link(&node->devs[3].links[1], SN_VLINK_UP, "UP");
	/* a state outside the header's enum stays unread, its value kept */
	assert_link(&node->devs[6].links[13], SN_VLINK_UNREAD, "state 7");
}

static void test_not_supported(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[4];
	assert_false(d->ecc_read);
	assert_int_equal(d->health, SN_VHEALTH_UNREAD);
	assert_string_equal(d->health_text,
			    "no health call; ECC not supported");
	assert_string_equal(d->error, "");
	assert_int_equal(d->n_links, 14);
	d = &node->devs[5];
	assert_int_equal(d->n_links, 0);
	assert_string_equal(d->error, "");
	assert_int_equal(d->health, SN_VHEALTH_OK);
}

static void test_library_missing(void **state)
{
	(void)state;
	read_lib("/nonexistent/musa/lib/libmtml.so", true);
	assert_false(node->counted);
	assert_int_equal(node->n_devs, 0);
	assert_string_equal(
		node->error,
		"Moore Threads' MTML library not found where paths.mtml points: install the Moore Threads driver (MTML), or correct paths.mtml: /nonexistent/musa/lib/libmtml.so");
}

static void test_symbol_missing(void **state)
{
	char want[PATH_MAX + 128], cut[PATH_MAX + 128];

	(void)state;
	read_lib(SN_FAKE_MTML_OLD, true);
	snprintf(
		want, sizeof(want),
		"no symbol mtmlDeviceGetMtLinkSpec: library too old or not MTML: %s",
		SN_FAKE_MTML_OLD);
	/* as the node holds it: cut by the one rule when the path is long
	 * (the phrase kept, the path's tail kept) */
	sn_error_cut(cut, sizeof(node->error), want);
	assert_string_equal(node->error, cut);
	assert_false(node->counted);
}

static void test_call_hung(void **state)
{
	int64_t t0;

	(void)state;
	setenv("SN_FAKE_MTML_HANG", "mtmlDeviceGetMtLinkState", 1);
	t0 = sn_now_ms();
	read_lib(SN_FAKE_MTML, true);
	assert_in_range(sn_now_ms() - t0, 900, 1300);
	assert_string_equal(node->hung_call, "mtmlDeviceGetMtLinkState(0, 0)");
	assert_int_equal(node->hung_ms, 1000);
	assert_int_equal(node->count, 8);
	/* what was read before it stays: GPU 0's bus id and ECC */
	assert_string_equal(node->devs[0].bdf, "0000:0f:00.0");
	assert_true(node->devs[0].ecc_read);
	assert_int_equal(node->devs[0].health, SN_VHEALTH_OK);
	assert_string_equal(node->devs[1].bdf, "");
}

static void test_init_fail(void **state)
{
	(void)state;
	setenv("SN_FAKE_MTML_INIT_FAIL", "2", 1);
	read_lib(SN_FAKE_MTML, true);
	assert_string_equal(
		node->error,
		"mtmlLibraryInit: error 2 (MTML_ERROR_DRIVER_FAILURE)");
	assert_false(node->counted);
	assert_int_equal(node->n_devs, 0);
}

/* The fixture's knobs, and env over them. */
static void test_fixture_knobs(void **state)
{
	char path[] = "/tmp/sn-mtml-XXXXXX";
	const char *json = "{\"knobs\": {\"init_fail\": 1}, \"devices\": []}";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	setenv("SN_FAKE_MTML_FIXTURE", path, 1);
	read_lib(SN_FAKE_MTML, false);
	assert_string_equal(
		node->error,
		"mtmlLibraryInit: error 1 (MTML_ERROR_DRIVER_NOT_LOADED)");
	setenv("SN_FAKE_MTML_INIT_FAIL", "999", 1);
	read_lib(SN_FAKE_MTML, true);
	assert_string_equal(node->error,
			    "mtmlLibraryInit: error 999 (MTML_ERROR_UNKNOWN)");
	unlink(path);
}

/* A slow init is given the budget, not the per-call second. */
static void test_init_slow(void **state)
{
	int64_t t0;

	(void)state;
	setenv("SN_FAKE_MTML_INIT_MS", "1500", 1);
	t0 = sn_now_ms();
	read_lib(SN_FAKE_MTML, true);
	assert_true(sn_now_ms() - t0 >= 1500);
	assert_string_equal(node->hung_call, "");
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
}

static void test_lost(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	setenv("SN_FAKE_MTML_LOST", "2", 1);
	read_lib(SN_FAKE_MTML, true);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	d = &node->devs[2];
	assert_string_equal(
		d->error,
		"mtmlLibraryInitDeviceByIndex: error 7 (MTML_ERROR_NOT_FOUND)");
	assert_string_equal(d->bdf, "");
	assert_int_equal(d->health, SN_VHEALTH_UNREAD);
	assert_false(d->ecc_read);
	assert_int_equal(d->n_links, 0);
	assert_healthy_dev(&node->devs[3], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_healthy_child),
		T(test_healthy_here),
		T(test_ecc_uncorrected),
		T(test_link_downgrade),
		T(test_link_down),
		T(test_not_supported),
		T(test_library_missing),
		T(test_symbol_missing),
		T(test_call_hung),
		T(test_init_fail),
		T(test_fixture_knobs),
		T(test_init_slow),
		T(test_lost),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
