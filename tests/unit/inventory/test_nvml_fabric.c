/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_nvml_fabric_read (lib/inventory/nvml.c) against the fake NVML: the
 * real HGX H200 answer (fixtures/nvidia/fabric-h200x2.json), an NVL72-like
 * domain, the v3 -> v2 fallback, an error object, the IN_PROGRESS sequence
 * and a library without the symbol.
 */
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_nvml.h"

#define REAL SN_FIXTURES "/nvidia/fabric-h200x2.json"

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
static const char *const fake_min_lib = SN_FAKE_NVML_MIN;
#else
static const char *const fake_lib = NULL;
static const char *const fake_min_lib = NULL;
#endif

static char tmp_fixture[64];

static int teardown(void **state)
{
	(void)state;
	if (tmp_fixture[0])
		unlink(tmp_fixture);
	tmp_fixture[0] = '\0';
	unsetenv("SN_FAKE_NVML_FIXTURE");
	return 0;
}

/* A fixture of one GPU whose "fabric" value is fabric (JSON text). */
static const char *one_gpu(const char *fabric)
{
	FILE *f;
	int fd;

	strcpy(tmp_fixture, "/tmp/sn-fabric-XXXXXX");
	fd = mkstemp(tmp_fixture);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f,
		"{\"gpus\": [{\"pci_bus_id\": \"00000000:1B:00.0\", \"fabric\": %s}]}",
		fabric);
	fclose(f);
	return tmp_fixture;
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

static void test_real_h200(void **state)
{
	struct sn_nvml *nvml = open_lib(fake_lib, REAL);
	struct sn_nvml_fabric f;
	char uuid[SN_NVML_FABRIC_UUID_STR];

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(sn_nvml_fabric_read(nvml, i, &f),
				 SN_NVML_SUCCESS);
		assert_int_equal(f.version, 3);
		assert_int_equal(f.state, SN_NVML_FABRIC_STATE_COMPLETED);
		assert_int_equal(f.status, SN_NVML_SUCCESS);
		assert_int_equal(f.clique_id, 0);
		assert_int_equal(f.health_mask, 0);
		assert_int_equal(f.health_summary,
				 SN_NVML_FABRIC_SUMMARY_NOT_SUPPORTED);
		assert_true(sn_nvml_fabric_uuid_zero(&f));
		sn_nvml_fabric_uuid_format(&f, uuid, sizeof(uuid));
		assert_string_equal(uuid,
				    "00000000-0000-0000-0000-000000000000");
	}
	sn_nvml_close(nvml);
}

static void test_domain_v3(void **state)
{
	struct sn_nvml *nvml = open_lib(
		fake_lib,
		one_gpu("{\"state\": 3, \"status\": 0, \"clique_id\": 32766,"
			" \"cluster_uuid\": \"8B7F1C2D-0000-4A5B-9C8D-0123456789AB\","
			" \"health_mask\": 1126, \"health_summary\": 3}"));
	struct sn_nvml_fabric f;
	char uuid[SN_NVML_FABRIC_UUID_STR];

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 0, &f), SN_NVML_SUCCESS);
	assert_int_equal(f.version, 3);
	assert_int_equal(f.clique_id, 32766);
	assert_int_equal(f.health_mask, 1126);
	assert_int_equal(f.health_summary,
			 SN_NVML_FABRIC_SUMMARY_LIMITED_CAPACITY);
	assert_false(sn_nvml_fabric_uuid_zero(&f));
	sn_nvml_fabric_uuid_format(&f, uuid, sizeof(uuid));
	assert_string_equal(uuid, "8b7f1c2d-0000-4a5b-9c8d-0123456789ab");
	sn_nvml_close(nvml);
}

/* A driver that knows only the v2 struct: the read falls back to it. */
static void test_v2_fallback(void **state)
{
	struct sn_nvml *nvml = open_lib(
		fake_lib,
		one_gpu("{\"version\": 2, \"state\": 3, \"status\": 0,"
			" \"clique_id\": 7, \"health_summary\": 2,"
			" \"cluster_uuid\": \"00000000-0000-0000-0000-000000000001\","
			" \"health_mask\": 16}"));
	struct sn_nvml_fabric f;

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 0, &f), SN_NVML_SUCCESS);
	assert_int_equal(f.version, 2);
	assert_int_equal(f.clique_id, 7);
	assert_int_equal(f.health_mask, 16);
	/* v2 has no healthSummary: the fixture's 2 is not read. */
	assert_int_equal(f.health_summary,
			 SN_NVML_FABRIC_SUMMARY_NOT_SUPPORTED);
	sn_nvml_close(nvml);
}

static void test_error_object(void **state)
{
	struct sn_nvml *nvml = open_lib(
		fake_lib, one_gpu("{\"nvml_error\": \"Not Supported\"}"));
	struct sn_nvml_fabric f;

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 0, &f),
			 SN_NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(f.rc, SN_NVML_ERROR_NOT_SUPPORTED);
	sn_nvml_close(nvml);
}

static void test_states_sequence(void **state)
{
	struct sn_nvml *nvml = open_lib(
		fake_lib,
		one_gpu("{\"states\": [2, 2, 3], \"status\": 0, \"clique_id\": 1,"
			" \"cluster_uuid\": \"00000000-0000-0000-0000-000000000001\","
			" \"health_mask\": 0}"));
	struct sn_nvml_fabric f;

	(void)state;
	sn_nvml_fabric_read(nvml, 0, &f);
	assert_int_equal(f.state, SN_NVML_FABRIC_STATE_IN_PROGRESS);
	sn_nvml_fabric_read(nvml, 0, &f);
	assert_int_equal(f.state, SN_NVML_FABRIC_STATE_IN_PROGRESS);
	sn_nvml_fabric_read(nvml, 0, &f);
	assert_int_equal(f.state, SN_NVML_FABRIC_STATE_COMPLETED);
	sn_nvml_fabric_read(nvml, 0, &f);
	assert_int_equal(f.state, SN_NVML_FABRIC_STATE_COMPLETED);
	sn_nvml_close(nvml);
}

/* Any value may be an error object: the call answers that code. */
static void test_value_error(void **state)
{
	struct sn_nvml *nvml = open_lib(
		fake_lib,
		one_gpu("{\"state\": 3, \"status\": 0,"
			" \"clique_id\": {\"nvml_error\": \"Insufficient Permissions\"},"
			" \"cluster_uuid\": \"00000000-0000-0000-0000-000000000001\","
			" \"health_mask\": 0}"));
	struct sn_nvml_fabric f;

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 0, &f),
			 SN_NVML_ERROR_NO_PERMISSION);
	sn_nvml_close(nvml);
}

/* An old library without nvmlDeviceGetGpuFabricInfoV: an answer, no crash. */
static void test_symbol_absent(void **state)
{
	struct sn_nvml *nvml = open_lib(fake_min_lib, REAL);
	struct sn_nvml_fabric f;

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 0, &f),
			 SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	sn_nvml_close(nvml);
}

static void test_bad_index(void **state)
{
	struct sn_nvml *nvml = open_lib(fake_lib, REAL);
	struct sn_nvml_fabric f;

	(void)state;
	assert_int_equal(sn_nvml_fabric_read(nvml, 5, &f),
			 SN_NVML_ERROR_INVALID_ARGUMENT);
	sn_nvml_close(nvml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_real_h200, teardown),
		cmocka_unit_test_teardown(test_domain_v3, teardown),
		cmocka_unit_test_teardown(test_v2_fallback, teardown),
		cmocka_unit_test_teardown(test_error_object, teardown),
		cmocka_unit_test_teardown(test_states_sequence, teardown),
		cmocka_unit_test_teardown(test_value_error, teardown),
		cmocka_unit_test_teardown(test_symbol_absent, teardown),
		cmocka_unit_test_teardown(test_bad_index, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
