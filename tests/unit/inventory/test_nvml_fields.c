/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Field values (sn_nvml_field_values) against the fake libnvidia-ml.so.1:
 * the real 2x H200 capture before and after traffic
 * (fixtures/nvidia/traffic-h200x2), a field the GPU lacks (NOT_SUPPORTED
 * in that field only), a library without nvmlDeviceGetFieldValues
 * (FUNCTION_NOT_FOUND, no crash), the recovery action field, the bound on
 * fields per call, and the recovery action names.
 */
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_nvml.h"

#define TRAFFIC SN_FIXTURES "/nvidia/traffic-h200x2"
#define BEFORE TRAFFIC "/nvml-h200x2-before-traffic.json"
#define AFTER TRAFFIC "/nvml-h200x2-after-traffic.json"
#define SYNTH SN_FIXTURES "/accel/nvml-4xh100-sxm.json"

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
static const char *const fake_min_lib = SN_FAKE_NVML_MIN;
#else
static const char *const fake_lib = NULL;
static const char *const fake_min_lib = NULL;
#endif

static int clear(void **state)
{
	(void)state;
	unsetenv("SN_FAKE_NVML_FIXTURE");
	unsetenv("SN_FAKE_NVML_LOST");
	return 0;
}

static struct sn_nvml *open_lib(const char *lib, const char *fixture)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;

	if (!lib)
		skip();
	setenv("SN_FAKE_NVML_FIXTURE", fixture, 1);
	err_reset(&err);
	if (sn_nvml_open(lib, &nvml, &err))
		fail_msg("sn_nvml_open: %s", err.msg);
	return nvml;
}

#define F(i, s)                         \
	{                               \
		.id = (i), .scope = (s) \
	}

/* Before and after the 12 s all-reduce: the values nvidia-smi's capture holds. */
static void test_h200_traffic(void **state)
{
	static const char *const files[2] = { BEFORE, AFTER };
	/* THROUGHPUT_DATA_TX/RX @all_links of GPU 0, KiB (the fixtures). */
	static const unsigned long long tx[2] = { 7165163405ULL,
						  10558460005ULL };
	static const unsigned long long rx[2] = { 6596048781ULL,
						  9989345383ULL };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct sn_nvml_field f[] = {
			F(SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
			  SN_NVML_SCOPE_ALL_LINKS),
			F(SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
			  SN_NVML_SCOPE_ALL_LINKS),
			F(SN_NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY,
			  SN_NVML_SCOPE_ALL_LINKS),
			F(SN_NVML_FI_DEV_NVLINK_ERROR_DL_CRC, 0),
			F(SN_NVML_FI_DEV_NVLINK_GET_VERSION, 0),
			F(SN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0),
			F(SN_NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS,
			  SN_NVML_SCOPE_ALL_LINKS),
			F(SN_NVML_FI_DEV_NVLINK_ERROR_DL_CRC, 7),
		};
		struct sn_nvml *nvml = open_lib(fake_lib, files[k]);

		assert_int_equal(sn_nvml_field_values(nvml, 0, f, 8),
				 SN_NVML_SUCCESS);
		assert_int_equal(f[0].rc, SN_NVML_SUCCESS);
		assert_int_equal(f[0].type,
				 SN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
		assert_true(f[0].u == tx[k]);
		assert_true(f[1].u == rx[k]);
		assert_int_equal(f[2].rc, SN_NVML_SUCCESS);
		assert_int_equal(f[2].u, 0);
		assert_int_equal(f[3].rc, SN_NVML_SUCCESS);
		assert_int_equal(f[3].u, 0);
		assert_int_equal(f[4].u, SN_NVML_NVLINK_VERSION_4_0);
		/* Not in the capture (driver 580 on H200 did not answer it). */
		assert_int_equal(f[5].rc, SN_NVML_ERROR_NOT_SUPPORTED);
		assert_int_equal(f[6].rc, SN_NVML_ERROR_NOT_SUPPORTED);
		assert_int_equal(f[7].rc, SN_NVML_ERROR_NOT_SUPPORTED);
		sn_nvml_close(nvml);
	}
}

/* A fixture's NVLink 5 fields, by name and scope, as the fake serves them. */
static void test_nvlink5_fields(void **state)
{
	char path[] = "/tmp/sn-fields-XXXXXX";
	struct sn_nvml_field f[] = {
		F(SN_NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES,
		  SN_NVML_SCOPE_ALL_LINKS),
		F(SN_NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES,
		  SN_NVML_SCOPE_ALL_LINKS),
		F(SN_NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER,
		  SN_NVML_SCOPE_ALL_LINKS),
		F(SN_NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, 3),
	};
	struct sn_nvml *nvml;
	FILE *fp;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs("{\"gpus\": [{\"nvml_field_values\": {"
	      "\"NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES@all_links\": 7000,"
	      "\"NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES@all_links\": 9000,"
	      "\"NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER@all_links\": 524,"
	      "\"NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS@link3\": 12}}]}",
	      fp);
	fclose(fp);
	nvml = open_lib(fake_lib, path);
	assert_int_equal(sn_nvml_field_values(nvml, 0, f, 4), SN_NVML_SUCCESS);
	unlink(path);
	assert_int_equal(f[0].u, 7000);
	assert_int_equal(f[1].u, 9000);
	assert_int_equal(f[2].u, (2 << 8) | 12);
	assert_int_equal(f[3].rc, SN_NVML_SUCCESS);
	assert_int_equal(f[3].u, 12);
	sn_nvml_close(nvml);
}

/* A library without nvmlDeviceGetFieldValues: every field says so. */
static void test_minimal_library(void **state)
{
	struct sn_nvml_field f[2] = {
		F(SN_NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY, 0),
		F(SN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0),
	};
	struct sn_nvml *nvml = open_lib(fake_min_lib, BEFORE);

	(void)state;
	assert_int_equal(sn_nvml_field_values(nvml, 0, f, 2),
			 SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(f[0].rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(f[1].rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	sn_nvml_close(nvml);
}

/* A lost GPU: the handle's code in every field. */
static void test_lost_gpu(void **state)
{
	struct sn_nvml_field f[1] = { F(SN_NVML_FI_DEV_NVLINK_ERROR_DL_CRC,
					0) };
	struct sn_nvml *nvml = open_lib(fake_lib, BEFORE);

	(void)state;
	setenv("SN_FAKE_NVML_LOST", "1", 1);
	assert_int_equal(sn_nvml_field_values(nvml, 1, f, 1),
			 SN_NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(f[0].rc, SN_NVML_ERROR_GPU_IS_LOST);
	sn_nvml_close(nvml);
}

/* More fields than one call takes: the rest are INVALID_ARGUMENT. */
static void test_bound(void **state)
{
	struct sn_nvml_field f[SN_NVML_MAX_FIELDS + 2];
	struct sn_nvml *nvml = open_lib(fake_lib, BEFORE);

	(void)state;
	for (size_t i = 0; i < SN_NVML_MAX_FIELDS + 2; i++)
		f[i] = (struct sn_nvml_field)F(
			SN_NVML_FI_DEV_NVLINK_GET_VERSION, 0);
	assert_int_equal(sn_nvml_field_values(nvml, 0, f,
					      SN_NVML_MAX_FIELDS + 2),
			 SN_NVML_SUCCESS);
	assert_int_equal(f[SN_NVML_MAX_FIELDS - 1].rc, SN_NVML_SUCCESS);
	assert_int_equal(f[SN_NVML_MAX_FIELDS - 1].u, 6);
	assert_int_equal(f[SN_NVML_MAX_FIELDS].rc,
			 SN_NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(f[SN_NVML_MAX_FIELDS + 1].rc,
			 SN_NVML_ERROR_INVALID_ARGUMENT);
	sn_nvml_close(nvml);
}

/* The generation without field values: nvmlDeviceGetNvLinkVersion. */
static void test_nvlink_version(void **state)
{
	struct sn_nvml *nvml = open_lib(fake_lib, AFTER);
	unsigned int v = 99;

	(void)state;
	assert_int_equal(sn_nvml_nvlink_version(nvml, 1, 0, &v),
			 SN_NVML_SUCCESS);
	assert_int_equal(v, SN_NVML_NVLINK_VERSION_4_0);
	assert_int_equal(sn_nvml_nvlink_version(nvml, 1, 18, &v),
			 SN_NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(v, 0);
	sn_nvml_close(nvml);
	nvml = open_lib(fake_min_lib, AFTER);
	assert_int_equal(sn_nvml_nvlink_version(nvml, 0, 0, &v),
			 SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	sn_nvml_close(nvml);
}

static void test_recovery_action_names(void **state)
{
	(void)state;
	assert_string_equal(sn_nvml_recovery_action_name(0), "none");
	assert_string_equal(sn_nvml_recovery_action_name(1), "GPU reset");
	assert_string_equal(sn_nvml_recovery_action_name(2), "node reboot");
	assert_string_equal(sn_nvml_recovery_action_name(3),
			    "drain peer-to-peer traffic");
	assert_string_equal(sn_nvml_recovery_action_name(4), "drain and reset");
	assert_string_equal(sn_nvml_recovery_action_name(5),
			    "recover the IMEX domain");
	assert_string_equal(sn_nvml_recovery_action_name(6), "unknown action");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, clear, clear)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_h200_traffic),
		T(test_nvlink5_fields),
		T(test_minimal_library),
		T(test_lost_gpu),
		T(test_bound),
		T(test_nvlink_version),
		T(test_recovery_action_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
