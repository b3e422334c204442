/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Hygon backend (lib/inventory/vendor_hygon.c) against the fake ROCm
 * SMI (tests/fake_rocm_smi): the 8 x K100_AI node, each fault kind with
 * its exact value, the BDFID decoding, the library missing or too old, a
 * call that hangs, init failing or slow, a lost card.
 */
#include "vendor_fake.h"

#define HEALTHY VF_VENDORS "/hygon/k100ai-8.json"
#define FAULTS VF_VENDORS "/hygon/faults.json"

#ifdef SN_FAKE_ROCM_SMI
static const char *const fake = SN_FAKE_ROCM_SMI;
static const char *const fake_min = SN_FAKE_ROCM_SMI_MIN;
#else
static const char *const fake = NULL;
static const char *const fake_min = NULL;
#endif

static const char *const bdfs[8] = {
	"0000:07:00.0", "0000:0a:00.0", "0000:0f:00.0", "0000:16:00.0",
	"0000:1d:00.0", "0000:20:00.0", "0000:25:00.0", "0000:2c:00.0",
};

static int teardown(void **state)
{
	(void)state;
	vf_unset("SN_FAKE_ROCM_SMI");
	return 0;
}

static int64_t read_fake(const char *fixture, bool child,
			 struct sn_vendor_node **out)
{
	assert_non_null(fake);
	setenv("SN_FAKE_ROCM_SMI_FIXTURE", fixture, 1);
	return vf_read("hygon", "rocm_smi", fake, child, out);
}

static void assert_healthy(const struct sn_vendor_node *n)
{
	assert_string_equal(n->error, "");
	assert_string_equal(n->hung_call, "");
	assert_true(n->counted);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 8);
	assert_string_equal(n->version, "6.3.8");
	for (unsigned i = 0; i < 8; i++) {
		const struct sn_vendor_dev *d = &n->devs[i];

		assert_int_equal(d->index, i);
		assert_string_equal(d->bdf, bdfs[i]);
		assert_int_equal(d->health, SN_VHEALTH_OK);
		assert_string_equal(d->health_text, "no ECC errors");
		assert_true(d->ecc_read);
		assert_int_equal(d->ecc_uncorrected, 0);
		assert_int_equal(d->ecc_corrected, 0);
		assert_int_equal(d->n_links, 0);
		assert_int_equal(d->n_ctrs, 1);
		assert_string_equal(d->ctrs[0].name, "xgmi_error_status");
		assert_int_equal(d->ctrs[0].value, 0);
		assert_string_equal(d->error, "");
	}
}

static void test_healthy_here(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, false, &n);
	assert_healthy(n);
	assert_string_equal(n->devs[3].label, "DCU 3");
	free(n);
}

static void test_healthy_child(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	read_fake(HEALTHY, true, &n);
	assert_int_equal(n->vendor, SN_ACCEL_HYGON);
	assert_string_equal(n->library, fake);
	assert_healthy(n);
	free(n);
}

/* UMC UE -> CRIT, CE or non-UMC UE -> WARN, XGMI, BDFID bits, no ECC. */
static void test_faults(void **state)
{
	struct sn_vendor_node *n;
	const struct sn_vendor_dev *d;

	(void)state;
	read_fake(FAULTS, false, &n);
	assert_int_equal(n->count, 6);
	assert_int_equal(n->n_devs, 6);
	assert_int_equal(n->devs[0].health, SN_VHEALTH_OK);
	d = &n->devs[1];
	assert_int_equal(d->health, SN_VHEALTH_CRIT);
	assert_string_equal(d->health_text, "UMC uncorrectable ECC 2");
	assert_int_equal(d->ecc_uncorrected, 2);
	assert_int_equal(d->ecc_corrected, 1);
	d = &n->devs[2];
	assert_int_equal(d->health, SN_VHEALTH_WARN);
	assert_string_equal(
		d->health_text,
		"ECC correctable 7, uncorrectable 1 outside UMC (dcu-dcgm: Warning)");
	assert_int_equal(d->ecc_uncorrected, 1); /* MMHUB, summed */
	assert_int_equal(d->ecc_corrected, 7);
	d = &n->devs[3];
	assert_int_equal(d->health, SN_VHEALTH_OK);
	assert_string_equal(d->ctrs[0].name, "xgmi_error_status");
	assert_int_equal(d->ctrs[0].value, 2); /* MULTIPLE_ERRORS */
	/* domain 0x10, partition 2 (not in the address), 0xc1:0x1f.7 */
	assert_string_equal(n->devs[4].bdf, "0010:c1:1f.7");
	d = &n->devs[5];
	assert_string_equal(d->bdf, "0000:2c:00.0");
	assert_int_equal(d->health, SN_VHEALTH_UNREAD);
	assert_false(d->ecc_read);
	assert_string_equal(
		d->health_text,
		"no verdict: no block answers rsmi_dev_ecc_count_get");
	assert_int_equal(d->n_ctrs, 0); /* XGMI not supported */
	assert_string_equal(d->error, "");
	free(n);
}

static void test_library_missing(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("hygon", "rocm_smi", "/nonexistent/librocm_smi64.so", false,
		&n);
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	assert_string_equal(
		n->error,
		"Hygon's ROCm SMI library not found where paths.rocm_smi points: install Hygon's DCU driver (hyhal) or DTK, or correct paths.rocm_smi: /nonexistent/librocm_smi64.so");
	free(n);
}

/* No paths.rocm_smi: the vendor's default places, each named. */
static void test_library_missing_defaults(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	vf_read("hygon", "rocm_smi", "", false, &n);
	assert_false(n->counted);
	assert_string_equal(
		n->error,
		"Hygon's ROCm SMI library (librocm_smi64.so) not found: install Hygon's DCU driver (hyhal) or DTK, or set paths.rocm_smi");
	free(n);
}

static void test_library_too_old(void **state)
{
	struct sn_vendor_node *n;
	char want[512], cut[512];

	(void)state;
	assert_non_null(fake_min);
	setenv("SN_FAKE_ROCM_SMI_FIXTURE", HEALTHY, 1);
	vf_read("hygon", "rocm_smi", fake_min, true, &n);
	snprintf(
		want, sizeof(want),
		"no symbol rsmi_dev_ecc_count_get: library too old or not ROCm SMI: %s",
		fake_min);
	/* as the node holds it: cut by the one rule when the path is long
	 * (the phrase kept, the path's tail kept) */
	sn_error_cut(cut, sizeof(n->error), want);
	assert_string_equal(n->error, cut);
	assert_false(n->counted);
	free(n);
}

/* The watchdog cuts the hung call at 1 s and names it. */
static void test_call_hangs(void **state)
{
	struct sn_vendor_node *n;
	int64_t ms;

	(void)state;
	setenv("SN_FAKE_ROCM_SMI_HANG", "rsmi_dev_ecc_count_get", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_string_equal(n->hung_call,
			    "rsmi_dev_ecc_count_get(device 0, UMC)");
	assert_int_equal(n->hung_ms, SN_VENDOR_CALL_MS);
	assert_in_range(ms, 950, 1300);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 1);
	assert_string_equal(n->devs[0].bdf, "0000:07:00.0");
	assert_int_equal(n->devs[0].health, SN_VHEALTH_UNREAD);
	free(n);
}

static void test_init_fails(void **state)
{
	struct sn_vendor_node *n;

	(void)state;
	setenv("SN_FAKE_ROCM_SMI_INIT_FAIL", "8", 1);
	read_fake(HEALTHY, true, &n);
	assert_string_equal(n->error, "rsmi_init: error 8 (INIT_ERROR)");
	assert_false(n->counted);
	assert_int_equal(n->n_devs, 0);
	free(n);
}

/* Init may take longer than one call's limit (SN_VCALL_LONG). */
static void test_init_slow(void **state)
{
	struct sn_vendor_node *n;
	int64_t ms;

	(void)state;
	setenv("SN_FAKE_ROCM_SMI_INIT_MS", "1200", 1);
	ms = read_fake(HEALTHY, true, &n);
	assert_true(ms >= 1200);
	assert_healthy(n);
	free(n);
}

/* A card gone from the bus: its calls fail, the others are read. */
static void test_device_lost(void **state)
{
	struct sn_vendor_node *n;
	const struct sn_vendor_dev *d;

	(void)state;
	setenv("SN_FAKE_ROCM_SMI_LOST", "2", 1);
	read_fake(HEALTHY, true, &n);
	assert_int_equal(n->count, 8);
	assert_int_equal(n->n_devs, 8);
	d = &n->devs[2];
	assert_string_equal(d->error, "rsmi_dev_pci_id_get: error 4294967295 "
				      "(UNKNOWN_ERROR)");
	assert_string_equal(d->bdf, "");
	assert_int_equal(d->health, SN_VHEALTH_UNREAD);
	assert_string_equal(n->devs[3].bdf, "0000:16:00.0");
	assert_int_equal(n->devs[3].health, SN_VHEALTH_OK);
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
