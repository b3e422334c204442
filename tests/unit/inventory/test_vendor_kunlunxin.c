/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Kunlunxin backend (lib/inventory/vendor_kunlunxin.c) against the
 * fake XPUML (tests/fake_xpuml): 8 XPUs running, every device state with
 * its number and name, the library missing or too old, a call that hangs,
 * init failing or slow, a lost XPU (XPUML_ERROR_XPU_IS_LOST, from env and
 * from the fixture's knobs).
 */
#include <unistd.h>

#include "vendor_fake.h"

#define HEALTHY VF_VENDORS "/kunlunxin/xpu-8.json"
#define FAULTS VF_VENDORS "/kunlunxin/faults.json"

#ifdef SN_FAKE_XPUML
static const char *const fake = SN_FAKE_XPUML;
static const char *const fake_min = SN_FAKE_XPUML_MIN;
#else
static const char *const fake = NULL;
static const char *const fake_min = NULL;
#endif

static const char *const bdfs[8] = {
	"0000:1a:00.0", "0000:1b:00.0", "0000:3d:00.0", "0000:3e:00.0",
	"0000:88:00.0", "0000:89:00.0", "0000:b1:00.0", "0000:b2:00.0",
};

static char tmp_fixture[64];

static int teardown(void **state)
{
	(void)state;
	vf_unset("SN_FAKE_XPUML");
	if (tmp_fixture[0])
		unlink(tmp_fixture);
	tmp_fixture[0] = '\0';
	return 0;
}

static int64_t read_fake(const char *fixture, bool child,
			 struct sn_vendor_node **out)
{
	assert_non_null(fake);
	setenv("SN_FAKE_XPUML_FIXTURE", fixture, 1);
	return vf_read("kunlunxin", "xpuml", fake, child, out);
}

static void assert_healthy(const struct sn_vendor_node *n)
{
	assert_string_equal(n->error, "");
	assert_string_equal(n->hung_call, "");
	assert_true(n->counted);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 8);
	assert_string_equal(n->version, "5.0.21.21");
	for (unsigned i = 0; i < 8; i++) {
		const struct sn_vendor_dev *d = &n->devs[i];

		assert_int_equal(d->index, i);
		assert_string_equal(d->bdf, bdfs[i]);
		assert_int_equal(d->health, SN_VHEALTH_OK);
		assert_string_equal(d->health_text,
				    "xpumlDeviceGetState 201 (RUNNING)");
		/* the 2022 header has neither ECC nor link calls */
		assert_false(d->ecc_read);
		assert_int_equal(d->n_links, 0);
		assert_int_equal(d->n_ctrs, 0);
		assert_string_equal(d->error, "");
	}
}

static void test_healthy_here(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, false, &n);
	assert_healthy(n);
	assert_string_equal(n->devs[4].label, "XPU 4");
	free(n);
}

static void test_healthy_child(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, true, &n);
	assert_int_equal(n->vendor, SN_ACCEL_KUNLUNXIN);
	assert_string_equal(n->library, fake);
	assert_healthy(n);
	free(n);
}

/* Every state of xpumlDeviceState_t, and one the header does not name. */
static void test_states(void **state)
{
	static const struct {
		uint8_t health;
		const char *text;
	} want[6] = {
		{ SN_VHEALTH_OK, "xpumlDeviceGetState 0 (UNUSED)" },
		{ SN_VHEALTH_WARN, "xpumlDeviceGetState 205 (IN_RESET)" },
		{ SN_VHEALTH_CRIT, "xpumlDeviceGetState 207 (ERROR)" },
		{ SN_VHEALTH_CRIT, "xpumlDeviceGetState 208 (IN_EXCEPTION)" },
		{ SN_VHEALTH_WARN, "xpumlDeviceGetState 999 (unknown state)" },
		{ SN_VHEALTH_OK, "xpumlDeviceGetState 201 (RUNNING)" },
	};
	struct sn_vendor_node *n;

	(void)state;
	read_fake(FAULTS, false, &n);
	assert_int_equal(n->count, 6);
	assert_int_equal(n->n_devs, 6);
	for (unsigned i = 0; i < 6; i++) {
		assert_string_equal(n->devs[i].bdf, bdfs[i]);
		assert_int_equal(n->devs[i].health, want[i].health);
		assert_string_equal(n->devs[i].health_text, want[i].text);
	}
	free(n);
}

static void test_library_missing(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("kunlunxin", "xpuml", "/nonexistent/libxpuml.so.1", false, &n);
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	assert_string_equal(
		n->error,
		"Kunlunxin's XPUML library not found where paths.xpuml points: install the Kunlunxin XPU driver (XPUML), or correct paths.xpuml: /nonexistent/libxpuml.so.1");
	free(n);
}

/* No paths.xpuml: the vendor's default places, each named. */
static void test_library_missing_defaults(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("kunlunxin", "xpuml", "", false, &n);
	assert_false(n->counted);
	assert_string_equal(
		n->error,
		"Kunlunxin's XPUML library (libxpuml.so) not found: install the Kunlunxin XPU driver (XPUML), or set paths.xpuml");
	free(n);
}

static void test_library_too_old(void **state)
{
	struct sn_vendor_node *n;
	char want[512], cut[512];

	(void)state;
	assert_non_null(fake_min);
	setenv("SN_FAKE_XPUML_FIXTURE", HEALTHY, 1);
	vf_read("kunlunxin", "xpuml", fake_min, true, &n);
	snprintf(
		want, sizeof(want),
		"no symbol xpumlDeviceGetState: library too old or not XPUML: %s",
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
	setenv("SN_FAKE_XPUML_HANG", "xpumlDeviceGetState", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_string_equal(n->hung_call, "xpumlDeviceGetState(device 0)");
	assert_int_equal(n->hung_ms, SN_VENDOR_CALL_MS);
	assert_in_range(ms, 950, 1300);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 1);
	assert_string_equal(n->devs[0].bdf, "0000:1a:00.0");
	assert_int_equal(n->devs[0].health, SN_VHEALTH_UNREAD);
	free(n);
}

static void test_init_fails(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	setenv("SN_FAKE_XPUML_INIT_FAIL", "9", 1);
	read_fake(HEALTHY, true, &n);
	assert_string_equal(n->error, "xpumlInit: error 9 (DRIVER_NOT_LOADED)");
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	free(n);
}

static void test_init_slow(void **state)
{
	struct sn_vendor_node *n;
	int64_t ms;

	(void)state;
	setenv("SN_FAKE_XPUML_INIT_MS", "1200", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_true(ms >= 1200);
	assert_healthy(n);
	free(n);
}

static void assert_lost(const struct sn_vendor_node *n, unsigned lost)
{
	const struct sn_vendor_dev *d = &n->devs[lost];

	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 8);
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text, "XPU is lost (15)");
	assert_string_equal(d->bdf, "");
	assert_string_equal(d->error, "");
	assert_int_equal(n->devs[lost ? 0 : 1].health, SN_VHEALTH_OK);
}

static void test_device_lost(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	setenv("SN_FAKE_XPUML_LOST", "3", 1);
	read_fake(HEALTHY, true, &n);
	assert_lost(n, 3);
	free(n);
}

/* The knobs also come from the fixture's "knobs" object. */
static void test_device_lost_fixture_knob(void **state)
{
	static const char json[] =
		"{\"devices\": [{\"bdf\": \"0000:1a:00.0\"}, "
		"{\"bdf\": \"0000:1b:00.0\"}, {\"bdf\": \"0000:3d:00.0\"}, "
		"{\"bdf\": \"0000:3e:00.0\"}, {\"bdf\": \"0000:88:00.0\"}, "
		"{\"bdf\": \"0000:89:00.0\"}, {\"bdf\": \"0000:b1:00.0\"}, "
		"{\"bdf\": \"0000:b2:00.0\"}], \"knobs\": {\"lost\": 6}}";
	struct sn_vendor_node *n;
	int fd;

	(void)state;
	snprintf(tmp_fixture, sizeof(tmp_fixture), "/tmp/sn-xpuml-XXXXXX");
	fd = mkstemp(tmp_fixture);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(unit_write_file(tmp_fixture, json, strlen(json), 0600),
			 0);
	read_fake(tmp_fixture, false, &n);
	assert_lost(n, 6);
	assert_string_equal(n->devs[5].health_text,
			    "xpumlDeviceGetState 201 (RUNNING)");
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
		cmocka_unit_test_teardown(test_states, teardown),
		cmocka_unit_test_teardown(test_library_missing, teardown),
		cmocka_unit_test_teardown(test_library_too_old, teardown),
		cmocka_unit_test_teardown(test_call_hangs, teardown),
		cmocka_unit_test_teardown(test_init_fails, teardown),
		cmocka_unit_test_teardown(test_init_slow, teardown),
		cmocka_unit_test_teardown(test_device_lost, teardown),
		cmocka_unit_test_teardown(test_device_lost_fixture_knob,
					  teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
