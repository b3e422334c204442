/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MetaX backend (lib/inventory/vendor_metax.c) against the fake MXSML
 * (tests/fake_mxsml): the 8 x MXC500 node, mxSmlGetDeviceCount returning
 * the count itself, each fault kind with its exact value (DRAM UE, the
 * unavailable reason, MetaXLink ports), the library missing or too old, a
 * call that hangs, init failing or slow, a lost card.
 */
#include "vendor_fake.h"

#define HEALTHY VF_VENDORS "/metax/c500-8.json"
#define FAULTS VF_VENDORS "/metax/faults.json"

#ifdef SN_FAKE_MXSML
static const char *const fake = SN_FAKE_MXSML;
static const char *const fake_min = SN_FAKE_MXSML_MIN;
#else
static const char *const fake = NULL;
static const char *const fake_min = NULL;
#endif

static const char *const bdfs[8] = {
	"0000:0e:00.0", "0000:0f:00.0", "0000:10:00.0", "0000:12:00.0",
	"0000:35:00.0", "0000:36:00.0", "0000:37:00.0", "0000:38:00.0",
};

static int teardown(void **state)
{
	(void)state;
	vf_unset("SN_FAKE_MXSML");
	return 0;
}

static int64_t read_fake(const char *fixture, bool child,
			 struct sn_vendor_node **out)
{
	assert_non_null(fake);
	setenv("SN_FAKE_MXSML_FIXTURE", fixture, 1);
	return vf_read("metax", "mxsml", fake, child, out);
}

/* Six ports Up, the seventh NoUse, as the healthy fixture has them. */
static void assert_links_up(const struct sn_vendor_dev *d)
{
	assert_int_equal(d->n_links, 7);
	for (unsigned p = 0; p < 6; p++) {
		assert_int_equal(d->links[p].state, SN_VLINK_UP);
		assert_string_equal(d->links[p].state_text, "Up");
	}
	assert_int_equal(d->links[6].state, SN_VLINK_UNUSED);
	assert_string_equal(d->links[6].state_text, "NoUse");
}

static void assert_healthy(const struct sn_vendor_node *n)
{
	assert_string_equal(n->error, "");
	assert_string_equal(n->hung_call, "");
	assert_true(n->counted);
	assert_int_equal(n->count, 8); /* mxSmlGetDeviceCount's value */
	assert_int_equal(n->n_devs, 8);
	assert_string_equal(n->version, "3.5.3.18");
	for (unsigned i = 0; i < 8; i++) {
		const struct sn_vendor_dev *d = &n->devs[i];

		assert_int_equal(d->index, i);
		assert_string_equal(d->bdf, bdfs[i]);
		assert_int_equal(d->health, SN_VHEALTH_OK);
		assert_string_equal(d->health_text,
				    "available, DRAM uncorrectable ECC 0");
		assert_true(d->ecc_read);
		assert_int_equal(d->ecc_uncorrected, 0);
		assert_int_equal(d->ecc_corrected, 0);
		assert_int_equal(d->n_ctrs, 1);
		assert_string_equal(d->ctrs[0].name, "retired_page");
		assert_int_equal(d->ctrs[0].value, 0);
		assert_links_up(d);
		assert_string_equal(d->error, "");
	}
}

static void test_healthy_here(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, false, &n);
	assert_healthy(n);
	assert_string_equal(n->devs[5].label, "GPU 5");
	free(n);
}

static void test_healthy_child(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, true, &n);
	assert_int_equal(n->vendor, SN_ACCEL_METAX);
	assert_string_equal(n->library, fake);
	assert_healthy(n);
	free(n);
}

/* DRAM UE, the unavailable reason, ports down, a card without either. */
static void test_faults(void **state)
{
	struct sn_vendor_node *n;
	const struct sn_vendor_dev *d;

	(void)state;
	read_fake(FAULTS, false, &n);
	assert_int_equal(n->count, 5); /* the count itself, not a status */
	assert_int_equal(n->n_devs, 5);
	assert_int_equal(n->devs[0].health, SN_VHEALTH_OK);
	d = &n->devs[1];
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text, "DRAM uncorrectable ECC 3");
	assert_int_equal(d->ecc_uncorrected, 3);
	assert_int_equal(d->ecc_corrected, 4);
	assert_int_equal(d->ctrs[0].value, 2); /* retired_page */
	d = &n->devs[2];
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text,
			    "unavailable, code 4: GPU hang detected, reset "
			    "required");
	d = &n->devs[3];
	assert_int_equal(d->health, SN_VHEALTH_OK);
	assert_int_equal(d->n_links, 7);
	assert_int_equal(d->links[0].state, SN_VLINK_UP);
	assert_int_equal(d->links[1].state, SN_VLINK_DOWN);
	assert_string_equal(d->links[1].state_text, "NoTraining");
	assert_int_equal(d->links[3].state, SN_VLINK_DOWN);
	assert_string_equal(d->links[3].state_text, "Down_Optical_OutPlace");
	assert_int_equal(d->links[6].state, SN_VLINK_UNUSED);
	/* no ECC, no MetaXLink (OPERATION_NOT_SUPPORT): only "available" */
	d = &n->devs[4];
	assert_string_equal(d->bdf, "0000:38:00.0");
	assert_int_equal(d->health, SN_VHEALTH_OK);
	assert_string_equal(d->health_text, "available");
	assert_false(d->ecc_read);
	assert_int_equal(d->n_links, 0);
	assert_string_equal(d->error, "");
	free(n);
}

static void test_library_missing(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("metax", "mxsml", "/nonexistent/libmxsml.so", false, &n);
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	assert_string_equal(
		n->error,
		"MetaX's MXSML library not found where paths.mxsml points: install the MetaX driver (mxdriver or MACA), or correct paths.mxsml: /nonexistent/libmxsml.so");
	free(n);
}

/* No paths.mxsml: the vendor's default places, each named. */
static void test_library_missing_defaults(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("metax", "mxsml", "", false, &n);
	assert_false(n->counted);
	assert_string_equal(
		n->error,
		"MetaX's MXSML library (libmxsml.so) not found: install the MetaX driver (mxdriver or MACA), or set paths.mxsml");
	free(n);
}

static void test_library_too_old(void **state)
{
	struct sn_vendor_node *n;
	char want[512], cut[512];

	(void)state;
	assert_non_null(fake_min);
	setenv("SN_FAKE_MXSML_FIXTURE", HEALTHY, 1);
	vf_read("metax", "mxsml", fake_min, true, &n);
	snprintf(
		want, sizeof(want),
		"no symbol mxSmlGetTotalEccErrors: library too old or not MXSML: %s",
		fake_min);
	/* as the node holds it: cut by the one rule when the path is long
	 * (the phrase kept, the path's tail kept) */
	sn_error_cut(cut, sizeof(n->error), want);
	assert_string_equal(n->error, cut);
	assert_false(n->counted);
	free(n);
}

static void test_call_hangs(void **state)
{
	struct sn_vendor_node *n;
	int64_t ms;

	(void)state;
	setenv("SN_FAKE_MXSML_HANG", "mxSmlGetMetaXLinkPortState", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_string_equal(n->hung_call,
			    "mxSmlGetMetaXLinkPortState(device 0)");
	assert_int_equal(n->hung_ms, SN_VENDOR_CALL_MS);
	assert_in_range(ms, 950, 1300);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 1);
	/* what was read before the hang comes back */
	assert_string_equal(n->devs[0].bdf, "0000:0e:00.0");
	assert_int_equal(n->devs[0].health, SN_VHEALTH_OK);
	assert_int_equal(n->devs[0].n_links, 0);
	free(n);
}

static void test_init_fails(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	setenv("SN_FAKE_MXSML_INIT_FAIL", "21", 1);
	read_fake(HEALTHY, true, &n);
	assert_string_equal(n->error,
			    "mxSmlInit: error 21 (OPEN_DEVICE_FILE_FAILURE)");
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	free(n);
}

static void test_init_slow(void **state)
{
	struct sn_vendor_node *n;
	int64_t ms;

	(void)state;
	setenv("SN_FAKE_MXSML_INIT_MS", "1200", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_true(ms >= 1200);
	assert_healthy(n);
	free(n);
}

static void test_device_lost(void **state)
{
	struct sn_vendor_node *n;
	const struct sn_vendor_dev *d;

	(void)state;
	setenv("SN_FAKE_MXSML_LOST", "7", 1);
	read_fake(HEALTHY, true, &n);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 8);
	d = &n->devs[7];
	assert_string_equal(d->error,
			    "mxSmlGetDeviceInfo: error 2 (NO_DEVICE)");
	assert_string_equal(d->bdf, "");
	assert_int_equal(d->health, SN_VHEALTH_UNREAD);
	assert_int_equal(n->devs[6].health, SN_VHEALTH_OK);
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: once the fake is loaded here, the loader name
		 * finds it by its soname */
		cmocka_unit_test_teardown(test_library_missing_defaults,
					  teardown),
		cmocka_unit_test_teardown(test_healthy_here, teardown),
		cmocka_unit_test_teardown(test_healthy_child, teardown),
		cmocka_unit_test_teardown(test_faults, teardown),
		cmocka_unit_test_teardown(test_library_missing, teardown),
		cmocka_unit_test_teardown(test_library_too_old, teardown),
		cmocka_unit_test_teardown(test_call_hangs, teardown),
		cmocka_unit_test_teardown(test_init_fails, teardown),
		cmocka_unit_test_teardown(test_init_slow, teardown),
		cmocka_unit_test_teardown(test_device_lost, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
