/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Cambricon backend (lib/inventory/vendor_cambricon.c) against the
 * fake libcndev.so of tests/fake_cndev, through sn_vendor_lib_read() (the
 * child and its watchdog) and sn_vendor_lib_read_here(): the 8-card cnmon
 * sample healthy, each fault kind with CNDev's own value, the version
 * stamp the fake refuses without, library and symbol missing, a hung
 * call, init failure and slowness, a lost card.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "unit.h"

#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "inventory/sn_vendor_lib.h"
#include "util/sn_error.h"
#include "util/sn_child.h"

#define HEALTHY SN_FIXTURES "/vendors/cambricon/healthy.json"
#define FAULTS SN_FIXTURES "/vendors/cambricon/faults.json"

static const char *const knobs[] = {
	"SN_FAKE_CNDEV_FIXTURE", "SN_FAKE_CNDEV_HANG",
	"SN_FAKE_CNDEV_LOST",	 "SN_FAKE_CNDEV_INIT_FAIL",
	"SN_FAKE_CNDEV_INIT_MS",
};

static const char *const bdfs[8] = {
	"0000:4f:00.0", "0000:53:00.0", "0000:6f:00.0", "0000:73:00.0",
	"0000:af:00.0", "0000:b3:00.0", "0000:cf:00.0", "0000:d3:00.0",
};

static struct sn_vendor_node *node;

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	setenv("SN_FAKE_CNDEV_FIXTURE", HEALTHY, 1);
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
		 "node:\n  accelerators:\n    vendor: cambricon\n"
		 "    count: 8\n"
		 "paths:\n  cndev: %s\n",
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
			const char *text, const uint64_t ctr[4])
{
	static const char *const names[4] = { "fec_corrected",
					      "fec_uncorrected", "fcs_rx_bad",
					      "fcs_tx_bad" };

	assert_int_equal(l->state, state);
	assert_string_equal(l->state_text, text);
	assert_int_equal(l->n_ctrs, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(l->ctrs[i].name, names[i]);
		assert_int_equal(l->ctrs[i].value, ctr[i]);
	}
}

static const uint64_t zero[4] = { 0 };

static void assert_healthy_dev(const struct sn_vendor_dev *d, uint32_t i)
{
	assert_int_equal(d->index, i);
	assert_string_equal(d->bdf, bdfs[i]);
	assert_string_equal(d->error, "");
	assert_int_equal(d->health, SN_VHEALTH_OK);
	assert_string_equal(d->health_text,
			    "health 1 deviceState 1 driverState 4 overall 0");
	assert_true(d->ecc_read);
	assert_int_equal(d->ecc_uncorrected, 0);
	assert_int_equal(d->ecc_corrected, 0);
	assert_int_equal(d->n_links, 6);
	for (int l = 0; l < 6; l++)
		assert_link(&d->links[l], SN_VLINK_UP, "macState 1 serdes 1",
			    zero);
}

static void test_healthy_child(void **state)
{
	(void)state;
	read_lib(SN_FAKE_CNDEV, true);
	assert_string_equal(node->error, "");
	assert_string_equal(node->hung_call, "");
	assert_string_equal(node->library, SN_FAKE_CNDEV);
	assert_string_equal(node->version, "5.10.31");
	assert_true(node->counted);
	assert_int_equal(node->count, 8);
	assert_int_equal(node->n_devs, 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_healthy_dev(&node->devs[i], i);
	assert_string_equal(node->devs[3].label, "card 3");
}

static void test_healthy_here(void **state)
{
	(void)state;
	read_lib(SN_FAKE_CNDEV, false);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	for (uint32_t i = 0; i < 8; i++)
		assert_healthy_dev(&node->devs[i], i);
}

static void read_faults(void)
{
	setenv("SN_FAKE_CNDEV_FIXTURE", FAULTS, 1);
	read_lib(SN_FAKE_CNDEV, false);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	assert_healthy_dev(&node->devs[0], 0);
}

static void test_sick_incident(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[1];
	assert_string_equal(d->bdf, "0000:53:00.0");
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text,
			    "health 0 deviceState 0 driverState 4 overall 20; "
			    "incidents 15 DBE_VIOLATION");
}

static void test_warn_incident(void **state)
{
	(void)state;
	read_faults();
	assert_int_equal(node->devs[6].health, SN_VHEALTH_WARN);
	assert_string_equal(node->devs[6].health_text,
			    "health 1 deviceState 1 driverState 4 overall 10; "
			    "incidents 10 MLULINK_REPLAY");
}

static void test_driver_not_running(void **state)
{
	(void)state;
	read_faults();
	assert_int_equal(node->devs[7].health, SN_VHEALTH_CRIT);
	assert_string_equal(node->devs[7].health_text,
			    "health 1 deviceState 1 driverState 7 overall 0");
}

static void test_ecc(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[2];
	assert_true(d->ecc_read);
	/* multipleError 2 + multipleMultipleError 0; oneBit 4 + multipleOne 1 */
	assert_int_equal(d->ecc_uncorrected, 2);
	assert_int_equal(d->ecc_corrected, 5);
	assert_int_equal(d->health, SN_VHEALTH_OK);
}

static void test_link_down(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	read_faults();
	d = &node->devs[3];
	assert_int_equal(d->n_links, 6);
	assert_link(&d->links[3], SN_VLINK_DOWN, "macState 0 serdes 0", zero);
	assert_link(&d->links[2], SN_VLINK_UP, "macState 1 serdes 1", zero);
	d = &node->devs[5];
	assert_link(&d->links[1], SN_VLINK_DOWN, "macState 1 serdes 2", zero);
	assert_link(&d->links[2], SN_VLINK_UP, "macState 3 serdes 1", zero);
	assert_link(&d->links[3], SN_VLINK_UP, "macState 2 serdes 1", zero);
}

static void test_link_counters(void **state)
{
	static const uint64_t want[4] = { 1234, 7, 3, 1 };

	(void)state;
	read_faults();
	assert_link(&node->devs[4].links[2], SN_VLINK_UP, "macState 1 serdes 1",
		    want);
	assert_link(&node->devs[4].links[1], SN_VLINK_UP, "macState 1 serdes 1",
		    zero);
}

/* CNDev's quirk: the fake refuses an unstamped struct, as CNDev does. */
static void test_version_stamp_refused(void **state)
{
	struct {
		int32_t version;
		uint32_t number;
	} cards = { 5, 0 };
	struct {
		int32_t version;
		uint64_t v[8];
	} ecc = { 0, { 0 } };
	int32_t (*init)(int32_t), (*count)(void *), (*get_ecc)(void *, int32_t);
	void *dl = dlopen(SN_FAKE_CNDEV, RTLD_NOW | RTLD_LOCAL);

	(void)state;
	assert_non_null(dl);
	*(void **)&init = dlsym(dl, "cndevInit");
	*(void **)&count = dlsym(dl, "cndevGetDeviceCount");
	*(void **)&get_ecc = dlsym(dl, "cndevGetECCInfo");
	assert_int_equal(init(0), 0);
	/* CNDEV_ERROR_UNSUPPORTED_API_VERSION */
	assert_int_equal(count(&cards), 3);
	assert_int_equal(cards.number, 0);
	assert_int_equal(get_ecc(&ecc, 0), 3);
	cards.version = 6; /* CNDEV_VERSION_6 */
	assert_int_equal(count(&cards), 0);
	assert_int_equal(cards.number, 8);
	ecc.version = 6;
	assert_int_equal(get_ecc(&ecc, 0), 0);
	dlclose(dl);
}

static void test_library_missing(void **state)
{
	(void)state;
	read_lib("/nonexistent/neuware/libcndev.so", true);
	assert_false(node->counted);
	assert_int_equal(node->n_devs, 0);
	assert_string_equal(
		node->error,
		"Cambricon's CNDev library not found where paths.cndev points: install Cambricon's driver (Neuware), or correct paths.cndev: /nonexistent/neuware/libcndev.so");
}

static void test_symbol_missing(void **state)
{
	char want[PATH_MAX + 128], cut[PATH_MAX + 128];

	(void)state;
	read_lib(SN_FAKE_CNDEV_OLD, true);
	snprintf(
		want, sizeof(want),
		"no symbol cndevGetCardHealthStateV2: library too old or not CNDev: %s",
		SN_FAKE_CNDEV_OLD);
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
	setenv("SN_FAKE_CNDEV_HANG", "cndevGetECCInfo", 1);
	t0 = sn_now_ms();
	read_lib(SN_FAKE_CNDEV, true);
	assert_in_range(sn_now_ms() - t0, 900, 1300);
	assert_string_equal(node->hung_call, "cndevGetECCInfo(0)");
	assert_int_equal(node->hung_ms, 1000);
	assert_int_equal(node->count, 8);
	/* what was read before it stays: card 0's bus id and health */
	assert_string_equal(node->devs[0].bdf, "0000:4f:00.0");
	assert_int_equal(node->devs[0].health, SN_VHEALTH_OK);
	assert_false(node->devs[0].ecc_read);
	assert_string_equal(node->devs[1].bdf, "");
}

static void test_init_fail(void **state)
{
	(void)state;
	setenv("SN_FAKE_CNDEV_INIT_FAIL", "1", 1);
	read_lib(SN_FAKE_CNDEV, true);
	assert_string_equal(node->error,
			    "cndevInit: error 1 (CNDEV_ERROR_NO_DRIVER)");
	assert_false(node->counted);
	assert_int_equal(node->n_devs, 0);
}

/* The fixture's knobs, and env over them. */
static void test_fixture_knobs(void **state)
{
	char path[] = "/tmp/sn-cndev-XXXXXX";
	const char *json = "{\"knobs\": {\"init_fail\": 12}, \"devices\": []}";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	setenv("SN_FAKE_CNDEV_FIXTURE", path, 1);
	read_lib(SN_FAKE_CNDEV, false);
	assert_string_equal(node->error,
			    "cndevInit: error 12 (CNDEV_ERROR_NO_DEVICES)");
	setenv("SN_FAKE_CNDEV_INIT_FAIL", "2", 1);
	read_lib(SN_FAKE_CNDEV, true);
	assert_string_equal(
		node->error,
		"cndevInit: error 2 (CNDEV_ERROR_LOW_DRIVER_VERSION)");
	unlink(path);
}

/* A slow init is given the budget, not the per-call second. */
static void test_init_slow(void **state)
{
	int64_t t0;

	(void)state;
	setenv("SN_FAKE_CNDEV_INIT_MS", "1500", 1);
	t0 = sn_now_ms();
	read_lib(SN_FAKE_CNDEV, true);
	assert_true(sn_now_ms() - t0 >= 1500);
	assert_string_equal(node->hung_call, "");
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
}

static void test_lost(void **state)
{
	const struct sn_vendor_dev *d;

	(void)state;
	setenv("SN_FAKE_CNDEV_LOST", "2", 1);
	read_lib(SN_FAKE_CNDEV, true);
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	d = &node->devs[2];
	assert_string_equal(
		d->error,
		"cndevGetPCIeInfoV2: error 18 (CNDEV_ERROR_IN_PROBLEM)");
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
		T(test_sick_incident),
		T(test_warn_incident),
		T(test_driver_not_running),
		T(test_ecc),
		T(test_link_down),
		T(test_link_counters),
		T(test_version_stamp_refused),
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
