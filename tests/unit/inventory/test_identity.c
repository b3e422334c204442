/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Supernode identity from the hardware (lib/inventory/identity.c, dcmi.c):
 * the pure rule over fabric answers (several domains, the sentinel clique,
 * zero UUIDs, GPUs that disagree or are not ready), sn_identity_read
 * through the fake NVML (the real HGX H200, two NVL72 domains) and the fake
 * DCMI (a super pod, cards that disagree, a failing card), and the JSON.
 */
#include <unistd.h>

#include "unit.h"

#include "config/sn_checkctx.h"
#include "inventory/sn_dcmi.h"
#include "inventory/sn_identity.h"

#define H200 SN_FIXTURES "/nvidia/fabric-h200x2.json"
#define DOM_A SN_FIXTURES "/accel/fabric-nvl72-domain-a.json"
#define DOM_B SN_FIXTURES "/accel/fabric-nvl72-domain-b.json"
#define POD7 SN_FIXTURES "/accel/dcmi-superpod-7.json"
#define KEY_A "nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766"
#define KEY_B "nvlink:b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766"

#ifdef SN_FAKE_NVML
static const char *const fake_nvml = SN_FAKE_NVML;
static const char *const fake_nvml_min = SN_FAKE_NVML_MIN;
#else
static const char *const fake_nvml = NULL;
static const char *const fake_nvml_min = NULL;
#endif
#ifdef SN_FAKE_DCMI
static const char *const fake_dcmi = SN_FAKE_DCMI;
#else
static const char *const fake_dcmi = NULL;
#endif

static char tmp_fixture[64];

static int teardown(void **state)
{
	(void)state;
	if (tmp_fixture[0])
		unlink(tmp_fixture);
	tmp_fixture[0] = '\0';
	unsetenv("SN_FAKE_NVML_FIXTURE");
	unsetenv("SN_FAKE_DCMI_FIXTURE");
	return 0;
}

/* A fabric answer: completed, success, in uuid byte b repeated, clique. */
static struct sn_nvml_fabric fab(unsigned char b, unsigned int clique)
{
	struct sn_nvml_fabric f;

	memset(&f, 0, sizeof(f));
	f.rc = SN_NVML_SUCCESS;
	f.version = 3;
	f.state = SN_NVML_FABRIC_STATE_COMPLETED;
	memset(f.cluster_uuid, b, sizeof(f.cluster_uuid));
	f.clique_id = clique;
	return f;
}

static void test_one_domain(void **state)
{
	struct sn_nvml_fabric f[4] = { fab(0xab, 5), fab(0xab, 5), fab(0xab, 5),
				       fab(0xab, 5) };
	struct sn_identity id;

	(void)state;
	sn_identity_from_fabric(f, 4, &id);
	assert_int_equal(id.kind, SN_IDENTITY_NVLINK);
	assert_string_equal(id.key,
			    "nvlink:abababab-abab-abab-abab-abababababab/5");
	assert_int_equal(id.devices, 4);
	assert_true(sn_config_identity_valid(id.key));
}

/* GB200/GB300: the same sentinel clique in two domains: two identities. */
static void test_sentinel_clique(void **state)
{
	struct sn_nvml_fabric a[2] = { fab(0x11, 32766), fab(0x11, 32766) };
	struct sn_nvml_fabric b[2] = { fab(0x22, 32766), fab(0x22, 32766) };
	struct sn_identity ia, ib;

	(void)state;
	sn_identity_from_fabric(a, 2, &ia);
	sn_identity_from_fabric(b, 2, &ib);
	assert_int_equal(ia.kind, SN_IDENTITY_NVLINK);
	assert_int_equal(ib.kind, SN_IDENTITY_NVLINK);
	assert_string_not_equal(ia.key, ib.key);
	assert_string_equal(
		ia.key, "nvlink:11111111-1111-1111-1111-111111111111/32766");
}

/* Same UUID, two cliques (two partitions of one rack): two identities. */
static void test_two_cliques(void **state)
{
	struct sn_nvml_fabric f[2] = { fab(0x33, 1), fab(0x33, 2) };
	struct sn_identity id;

	(void)state;
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
	assert_string_equal(
		id.why,
		"GPUs in two domains: gpu1 33333333-3333-3333-3333-333333333333/2, gpu0 33333333-3333-3333-3333-333333333333/1");
}

static void test_zero_uuid(void **state)
{
	struct sn_nvml_fabric f[2] = { fab(0, 0), fab(0, 0) };
	struct sn_identity id;

	(void)state;
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_NONE);
	assert_string_equal(id.key, "");
	assert_string_equal(
		id.why,
		"cluster UUID is zero on every GPU: no multi-node NVLink domain");
	/* One GPU in a domain, one not: they disagree. */
	f[1] = fab(0x44, 0);
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
}

static void test_not_ready(void **state)
{
	struct sn_nvml_fabric f[2] = { fab(0x55, 9), fab(0x55, 9) };
	struct sn_identity id;

	(void)state;
	f[1].state = SN_NVML_FABRIC_STATE_IN_PROGRESS;
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
	assert_string_equal(
		id.why, "gpu1: fabric registration not completed (state 2)");
	f[1] = fab(0x55, 9);
	f[1].status = SN_NVML_ERROR_UNKNOWN;
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
	assert_string_equal(id.why,
			    "gpu1: fabric probe failed: Unknown Error (999)");
	f[1] = fab(0x55, 9);
	f[0].rc = SN_NVML_ERROR_GPU_IS_LOST;
	sn_identity_from_fabric(f, 2, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
	assert_string_equal(
		id.why, "gpu0: nvmlDeviceGetGpuFabricInfoV: GPU is lost (15)");
}

static void test_no_fabric(void **state)
{
	struct sn_nvml_fabric f[1] = { fab(0x66, 1) };
	struct sn_identity id;

	(void)state;
	f[0].rc = SN_NVML_ERROR_NOT_SUPPORTED;
	sn_identity_from_fabric(f, 1, &id);
	assert_int_equal(id.kind, SN_IDENTITY_NONE);
	assert_string_equal(
		id.why, "gpu0: no NVLink fabric (fabric info not supported)");
	f[0].rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	sn_identity_from_fabric(f, 1, &id);
	assert_int_equal(id.kind, SN_IDENTITY_CONFIG);
	sn_identity_from_fabric(f, 0, &id);
	assert_int_equal(id.kind, SN_IDENTITY_CONFIG);
	assert_string_equal(id.why, "no GPUs");
}

/* ---- through the fake libraries ---------------------------------------- */

static struct sn_config *config_for(const char *vendor, const char *lib_key,
				    const char *lib)
{
	char yaml[1024];
	struct sn_config *cfg;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n"
		 "  - name: sn01\n    nodes: a[1-2]\n"
		 "    identity: " KEY_A "\n"
		 "  - name: sn02\n    nodes: b[1-2]\n"
		 "node:\n  accelerators:\n    vendor: %s\n    count: 4\n"
		 "paths:\n  %s: %s\n",
		 vendor, lib_key, lib);
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

static void read_with(const char *vendor, const char *key, const char *lib,
		      struct sn_identity *id)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;

	if (!lib)
		skip();
	cfg = config_for(vendor, key, lib);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "a1", &err), 0);
	sn_identity_read(&ctx, id);
	sn_config_free(cfg);
}

static void test_read_h200(void **state)
{
	struct sn_identity id;

	(void)state;
	setenv("SN_FAKE_NVML_FIXTURE", H200, 1);
	read_with("nvidia", "nvml", fake_nvml, &id);
	assert_int_equal(id.kind, SN_IDENTITY_NONE);
	assert_contains(id.why, "cluster UUID is zero");
}

static void test_read_domains(void **state)
{
	struct sn_identity a, b;

	(void)state;
	setenv("SN_FAKE_NVML_FIXTURE", DOM_A, 1);
	read_with("nvidia", "nvml", fake_nvml, &a);
	setenv("SN_FAKE_NVML_FIXTURE", DOM_B, 1);
	read_with("nvidia", "nvml", fake_nvml, &b);
	assert_int_equal(a.kind, SN_IDENTITY_NVLINK);
	assert_string_equal(a.key, KEY_A);
	assert_int_equal(a.devices, 4);
	assert_int_equal(b.kind, SN_IDENTITY_NVLINK);
	assert_string_equal(b.key, KEY_B);
}

static void test_read_old_library(void **state)
{
	struct sn_identity id;

	(void)state;
	setenv("SN_FAKE_NVML_FIXTURE", DOM_A, 1);
	read_with("nvidia", "nvml", fake_nvml_min, &id);
	assert_int_equal(id.kind, SN_IDENTITY_CONFIG);
	assert_string_equal(
		id.why,
		"NVML lacks nvmlDeviceGetGpuFabricInfoV (driver too old)");
}

static void test_read_no_nvml(void **state)
{
	struct sn_identity id;

	(void)state;
	/* vendor nvidia: a library that does not load is an error ... */
	read_with("nvidia", "nvml", "/nonexistent/libnvidia-ml.so.1", &id);
	assert_int_equal(id.kind, SN_IDENTITY_ERROR);
	assert_string_equal(
		id.why,
		"NVIDIA's NVML library not found where paths.nvml points: install the NVIDIA driver's libnvidia-ml package, or correct paths.nvml: /nonexistent/libnvidia-ml.so.1");
	/* ... other vendors have no hardware identity here. */
	read_with("amd", "nvml", "/nonexistent/libnvidia-ml.so.1", &id);
	assert_int_equal(id.kind, SN_IDENTITY_CONFIG);
}

static const char *dcmi_fixture(const char *cards)
{
	FILE *f;
	int fd;

	strcpy(tmp_fixture, "/tmp/sn-dcmi-XXXXXX");
	fd = mkstemp(tmp_fixture);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "{\"cards\": %s}", cards);
	fclose(f);
	return tmp_fixture;
}

static void test_read_ascend(void **state)
{
	struct sn_identity id;

	(void)state;
	setenv("SN_FAKE_DCMI_FIXTURE", POD7, 1);
	read_with("ascend", "dcmi", fake_dcmi, &id);
	assert_int_equal(id.kind, SN_IDENTITY_ASCEND);
	assert_string_equal(id.key, "ascend:7");
	assert_int_equal(id.devices, 8);
	assert_true(sn_config_identity_valid(id.key));
}

static void test_dcmi_faults(void **state)
{
	struct sn_dcmi_pod pod;
	struct sn_error err;

	(void)state;
	if (!fake_dcmi)
		skip();
	setenv("SN_FAKE_DCMI_FIXTURE",
	       dcmi_fixture("[{\"card_id\": 0, \"super_pod_id\": 3},"
			    " {\"card_id\": 1, \"super_pod_id\": 4}]"),
	       1);
	assert_int_equal(sn_dcmi_super_pod(fake_dcmi, &pod, &err), -1);
	assert_string_equal(err.msg, "card 1 in super pod 4, card 0 in 3");
	unlink(tmp_fixture);
	setenv("SN_FAKE_DCMI_FIXTURE",
	       dcmi_fixture("[{\"card_id\": 0, \"super_pod_id\": 3},"
			    " {\"card_id\": 5, \"rc\": -8005}]"),
	       1);
	assert_int_equal(sn_dcmi_super_pod(fake_dcmi, &pod, &err), -1);
	assert_string_equal(err.msg,
			    "dcmi_get_device_info card 5: error -8005");
	unlink(tmp_fixture);
	setenv("SN_FAKE_DCMI_FIXTURE", dcmi_fixture("[]"), 1);
	assert_int_equal(sn_dcmi_super_pod(fake_dcmi, &pod, &err), -1);
	assert_string_equal(err.msg,
			    "dcmi_get_card_list: 0 cards (1 to 64 read)");
	/* A library that is not DCMI. */
	if (fake_nvml) {
		assert_int_equal(sn_dcmi_super_pod(fake_nvml, &pod, &err), -1);
		assert_contains(err.msg, "no symbol dcmi_init: not a DCMI");
	}
}

static void test_json(void **state)
{
	struct sn_config *cfg = config_for("nvidia", "nvml", "/x/libnvml.so");
	struct sn_identity id = { 0 };
	char *s;

	(void)state;
	id.kind = SN_IDENTITY_NVLINK;
	strcpy(id.key, KEY_B);
	id.devices = 4;
	s = sn_identity_json(&id, "a2", cfg);
	assert_string_equal(
		s,
		"{\"node\":\"a2\",\"kind\":\"nvlink\",\"identity\":\"" KEY_B
		"\",\"why\":null,\"devices\":4,\"supernode\":\"sn01\",\"expected\":\"" KEY_A
		"\"}");
	free(s);
	memset(&id, 0, sizeof(id));
	strcpy(id.why, "no GPUs");
	s = sn_identity_json(&id, "z9", cfg);
	assert_string_equal(
		s,
		"{\"node\":\"z9\",\"kind\":\"config\",\"identity\":null,\"why\":\"no GPUs\",\"devices\":0,\"supernode\":null,\"expected\":null}");
	free(s);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_domain),
		cmocka_unit_test(test_sentinel_clique),
		cmocka_unit_test(test_two_cliques),
		cmocka_unit_test(test_zero_uuid),
		cmocka_unit_test(test_not_ready),
		cmocka_unit_test(test_no_fabric),
		cmocka_unit_test_teardown(test_read_h200, teardown),
		cmocka_unit_test_teardown(test_read_domains, teardown),
		cmocka_unit_test_teardown(test_read_old_library, teardown),
		cmocka_unit_test_teardown(test_read_no_nvml, teardown),
		cmocka_unit_test_teardown(test_read_ascend, teardown),
		cmocka_unit_test_teardown(test_dcmi_faults, teardown),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
