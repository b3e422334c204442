/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rate arithmetic of the epilog (lib/records/rate.c): counts, rates
 * per hour and per TB, the one-hour and one-TB floors of short jobs, the
 * grade at and around the limits, and the text of a drain reason.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"

#include "records/sn_rate.h"

static void test_count(void **state)
{
	struct sn_rate r = sn_rate_of(SN_UNIT_COUNT, 2, 86400, 0);

	(void)state;
	assert_true(r.value == 2);
	assert_true(r.over == 0 && r.actual == 0);
}

/* A few events in a 2 s job are a few per hour, not thousands. */
static void test_short_job(void **state)
{
	struct sn_rate r = sn_rate_of(SN_UNIT_PER_HOUR, 3, 2, 0);

	(void)state;
	assert_true(r.value == 3); /* not 3 x 1800 = 5400/h */
	assert_true(r.over == 1.0);
	assert_true(fabs(r.actual - 2.0 / 3600) < 1e-12);
	/* Many events in a short job are still many per hour. */
	r = sn_rate_of(SN_UNIT_PER_HOUR, 500, 2, 0);
	assert_true(r.value == 500);
	/* No duration (a baseline taken at the end's second) or negative. */
	assert_true(sn_rate_of(SN_UNIT_PER_HOUR, 7, 0, 0).value == 7);
	assert_true(sn_rate_of(SN_UNIT_PER_HOUR, 7, -30, 0).value == 7);
}

static void test_long_job(void **state)
{
	struct sn_rate r = sn_rate_of(SN_UNIT_PER_HOUR, 240, 7200, 0);

	(void)state;
	assert_true(r.value == 120);
	assert_true(r.over == 2 && r.actual == 2);
	/* 24 h at the H200 capture's legacy crc_data rate of GPU 1 (61 in
	 * 12 s): 439200, 18300/h. */
	r = sn_rate_of(SN_UNIT_PER_HOUR, 61ULL * 7200, 86400, 0);
	assert_true(r.value == 18300);
	/* One hour exactly is its own floor. */
	assert_true(sn_rate_of(SN_UNIT_PER_HOUR, 9, 3600, 0).value == 9);
	assert_true(sn_rate_of(SN_UNIT_PER_HOUR, 9, 3601, 0).value < 9);
}

static void test_per_tb(void **state)
{
	/* The capture: 6949471438848 bytes on GPU 1's NVLinks, 61 CRC. */
	struct sn_rate r = sn_rate_of(SN_UNIT_PER_TB, 61, 12, 6949471438848ULL);

	(void)state;
	assert_true(fabs(r.actual - 6.949471438848) < 1e-9);
	assert_true(fabs(r.value - 61 / 6.949471438848) < 1e-9);
	/* Under a TB, or traffic not known: the count over one TB. */
	assert_true(sn_rate_of(SN_UNIT_PER_TB, 30, 12, 3000000000ULL).value ==
		    30);
	r = sn_rate_of(SN_UNIT_PER_TB, 30, 12, 0);
	assert_true(r.value == 30 && r.over == 1 && r.actual == 0);
	/* The most a 64-bit byte count can say. */
	r = sn_rate_of(SN_UNIT_PER_TB, 1, 1, UINT64_MAX);
	assert_true(r.value > 0 && r.value < 1e-6);
}

static void test_grade(void **state)
{
	struct sn_threshold t = { .counter = (char *)"symbol_error",
				  .unit = SN_UNIT_PER_HOUR,
				  .has_warn = true,
				  .has_crit = true,
				  .warn = 10,
				  .crit = 120 };

	(void)state;
	assert_string_equal(sn_rate_grade(&t, 0), "OK");
	assert_string_equal(sn_rate_grade(&t, 9.999), "OK");
	assert_string_equal(sn_rate_grade(&t, 10), "WARN");
	assert_string_equal(sn_rate_grade(&t, 119.9), "WARN");
	assert_string_equal(sn_rate_grade(&t, 120), "CRIT");
	t.has_warn = false;
	assert_string_equal(sn_rate_grade(&t, 50), "OK");
	t.has_crit = false;
	assert_string_equal(sn_rate_grade(&t, 1e9), "OK");
}

/*
 * Issue 17 item 4: a counter any user's traffic can raise is CRIT only with
 * a physical-layer counter that moved; the other raisers as before.
 */
static void test_grade_raised(void **state)
{
	struct sn_threshold t = { .counter = (char *)"rnr_nak_retry_err",
				  .unit = SN_UNIT_PER_HOUR,
				  .has_warn = true,
				  .has_crit = true,
				  .warn = 100,
				  .crit = 100000 };

	(void)state;
	assert_string_equal(sn_rate_grade_raised(&t, 200000, SN_RAISED_USER,
						 false),
			    "WARN");
	assert_string_equal(
		sn_rate_grade_raised(&t, 200000, SN_RAISED_USER, true), "CRIT");
	assert_string_equal(
		sn_rate_grade_raised(&t, 99999, SN_RAISED_USER, true), "WARN");
	assert_string_equal(sn_rate_grade_raised(&t, 99, SN_RAISED_USER, true),
			    "OK");
	assert_string_equal(sn_rate_grade_raised(&t, 200000, SN_RAISED_HARDWARE,
						 false),
			    "CRIT");
	assert_string_equal(sn_rate_grade_raised(&t, 200000, SN_RAISED_DRIVER,
						 false),
			    "CRIT");
	/* a crit without a warn is held at WARN all the same */
	t.has_warn = false;
	assert_string_equal(sn_rate_grade_raised(&t, 200000, SN_RAISED_USER,
						 false),
			    "WARN");
	assert_string_equal(sn_rate_grade_raised(&t, 50, SN_RAISED_USER, false),
			    "OK");
}

static void test_format(void **state)
{
	char buf[128];
	struct sn_rate r = sn_rate_of(SN_UNIT_PER_HOUR, 500, 12, 0);

	(void)state;
	sn_rate_format(&r, 500, 12, buf, sizeof(buf));
	assert_string_equal(buf, "+500 in 12 s = 500/h");
	r = sn_rate_of(SN_UNIT_PER_HOUR, 5000, 7200, 0);
	sn_rate_format(&r, 5000, 7200, buf, sizeof(buf));
	assert_string_equal(buf, "+5000 in 2.0 h = 2500/h");
	r = sn_rate_of(SN_UNIT_PER_TB, 30, 12, 3400000000000ULL);
	sn_rate_format(&r, 30, 12, buf, sizeof(buf));
	assert_string_equal(buf, "+30 in 3.40 TB = 8.824/TB");
	r = sn_rate_of(SN_UNIT_COUNT, 2, 12, 0);
	sn_rate_format(&r, 2, 12, buf, sizeof(buf));
	assert_string_equal(buf, "+2");
}

/* sn_rate_ber() of a raw value it must decode. */
static double ber_of(uint64_t raw)
{
	double ber = -1;

	assert_int_equal(sn_rate_ber(raw, &ber), 0);
	return ber;
}

/* DCGM's cases (MonitorNVLink5Fields): the raw field's decoding. */
static void test_ber(void **state)
{
	(void)state;
	assert_true(fabs(ber_of((1 << 8) | 12) - 1e-12) < 1e-24);
	assert_true(fabs(ber_of((2 << 8) | 12) - 2e-12) < 1e-24);
	assert_true(fabs(ber_of((9 << 8) | 13) - 9e-13) < 1e-24);
	assert_true(fabs(ber_of((11 << 8) | 13) - 1.1e-12) < 1e-24);
	assert_true(ber_of(0) == 0);
	assert_true(ber_of((15 << 8) | 255) < 1e-200);
	assert_true(fabs(ber_of(SN_BER_RAW_MAX) - 15e-255) < 1e-265);
}

/*
 * Bits outside the mantissa (4 bits) and exponent (8 bits), nvml.h's
 * NVML_NVLINK_BER_*: not a BER.  Unmasked, 0x100c would read as a
 * mantissa of 16 (1.6e-11, CRIT) and 0x2000c as 512e-12.
 */
static void test_ber_garbage(void **state)
{
	static const uint64_t raw[] = { SN_BER_RAW_MAX + 1, (16 << 8) | 12,
					(512ULL << 8) | 12, UINT64_MAX };
	double ber;

	(void)state;
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		ber = 1;
		assert_int_equal(sn_rate_ber(raw[i], &ber), -EINVAL);
		assert_true(ber == 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_short_job),
		cmocka_unit_test(test_long_job),
		cmocka_unit_test(test_per_tb),
		cmocka_unit_test(test_grade),
		cmocka_unit_test(test_grade_raised),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_ber),
		cmocka_unit_test(test_ber_garbage),
	};

	return cmocka_run_group_tests_name("rate", tests, NULL, NULL);
}
