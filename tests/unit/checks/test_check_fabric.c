/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric check group (lib/checks/check_fabric.c) against the fake NVML:
 * every state of the NVLink domain gate (the real HGX H200 with and without
 * a domain asked for, an NVL72 tray, IN_PROGRESS that completes and one
 * that does not, NOT_STARTED, not supported, old library, lost GPU, probe
 * failure, each healthMask sub-field, incorrect configuration with each
 * cause, summaries, GPUs split over two domains), the identity guard
 * (match, another domain, no domain, cannot tell, Ascend), and IMEX
 * (channel missing, a link, a file, a device; nvidia-imex-ctl READY, not
 * ready, missing, hung).
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "unit.h"

#include "checks/sn_check_groups.h"
#include "checks/sn_runner.h"
#include "util/sn_child.h"
#include "config/sn_checkctx.h"

#define H200 SN_FIXTURES "/nvidia/fabric-h200x2.json"
#define DOM_A SN_FIXTURES "/accel/fabric-nvl72-domain-a.json"
#define DOM_B SN_FIXTURES "/accel/fabric-nvl72-domain-b.json"
#define POD7 SN_FIXTURES "/accel/dcmi-superpod-7.json"
#define UUID_A "3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11"
#define KEY_A "nvlink:" UUID_A "/32766"
#define KEY_B "nvlink:b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766"
#define HEALTHY_MASK 4522 /* every boolean FALSE, config NONE, partition TRUE */

#ifdef SN_FAKE_DCMI
static const char *const fake_dcmi = SN_FAKE_DCMI;
#else
static const char *const fake_dcmi = NULL;
#endif
#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
static const char *const fake_min_lib = SN_FAKE_NVML_MIN;
#else
static const char *const fake_lib = NULL;
static const char *const fake_min_lib = NULL;
#endif

static char dir[64];			 /* this test's temporary folder */
static struct sn_results res;		 /* the group's verdicts */
static struct sn_config *cfg;		 /* the loaded config */
static char node_name[16] = "a1";	 /* the node checked */
static unsigned int check_timeout_s = 1; /* prolog.check_timeout */
static struct sn_check_ctx check_ctx;	 /* the loaded config's paths */

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/sn-fabric-XXXXXX");
	assert_non_null(mkdtemp(dir));
	memset(&res, 0, sizeof(res));
	strcpy(node_name, "a1");
	check_timeout_s = 1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return -1;
	unsetenv("SN_FAKE_NVML_FIXTURE");
	unsetenv("SN_FAKE_NVML_INIT_MS");
	unsetenv("SN_FAKE_DCMI_FIXTURE");
	return 0;
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A fixture of two GPUs with these fabric objects (JSON text). */
static const char *two_gpus(const char *f0, const char *f1)
{
	static char path[128];
	char text[2048];

	snprintf(
		text, sizeof(text),
		"{\"gpus\": [{\"pci_bus_id\": \"00000000:1B:00.0\", \"fabric\": %s},"
		" {\"pci_bus_id\": \"00000000:43:00.0\", \"fabric\": %s}]}",
		f0, f1);
	write_file("nvml.json", text, 0644);
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	return path;
}

/* A fabric object in domain A with this state, status, mask and summary. */
static const char *fabric(unsigned state, unsigned status, unsigned mask,
			  unsigned summary)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, 256,
		 "{\"state\": %u, \"status\": %u, \"clique_id\": 32766,"
		 " \"cluster_uuid\": \"" UUID_A "\", \"health_mask\": %u,"
		 " \"health_summary\": %u}",
		 state, status, mask, summary);
	return b;
}

/* Load the config (HEAD + accel keys + extra) into cfg and check_ctx. */
static void load_group(const char *lib, const char *fixture, const char *accel,
		       const char *identity, const char *extra)
{
	char yaml[2048];
	struct sn_error err;

	if (!lib)
		skip();
	if (fixture)
		setenv("SN_FAKE_NVML_FIXTURE", fixture, 1);
	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: sn01\n    nodes: a[1-2]\n%s%s%s"
		 "  - name: sn02\n    nodes: b[1-2]\n"
		 "node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n%s"
		 "prolog:\n  check_timeout: %u\n"
		 "paths:\n  nvml: %s\n  imex_ctl: %s/imex-ctl\n"
		 "  imex_channels: %s/channels\n%s",
		 identity ? "    identity: " : "", identity ? identity : "",
		 identity ? "\n" : "", accel, check_timeout_s, lib, dir, dir,
		 extra ? extra : "");
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s\n%s", err.msg, yaml);
	assert_int_equal(sn_check_ctx_init(&check_ctx, cfg, node_name, &err),
			 0);
}

/* Load and call the group directly (no runner: check_timeout paces it). */
static void run_group(const char *lib, const char *fixture, const char *accel,
		      const char *identity, const char *extra)
{
	load_group(lib, fixture, accel, identity, extra);
	assert_int_equal(sn_check_fabric(&check_ctx, &res), 0);
}

#define DOMAIN "    nvlink_domain: true\n"

/* The one result with this device and code; fails when absent. */
static const struct sn_result *find(const char *device, const char *code)
{
	for (size_t i = 0; i < res.count; i++)
		if (!strcmp(res.items[i].device, device) &&
		    !strcmp(res.items[i].code, code))
			return &res.items[i];
	for (size_t i = 0; i < res.count; i++)
		print_message("  %s %s %s %s: %s\n",
			      sn_grade_name(res.items[i].grade),
			      res.items[i].check, res.items[i].code,
			      res.items[i].device, res.items[i].found);
	fail_msg("no %s result for %s", code, device);
	return NULL;
}

static void expect(const char *device, const char *code, enum sn_grade g,
		   const char *found)
{
	const struct sn_result *r = find(device, code);

	assert_int_equal(r->grade, g);
	if (found)
		assert_string_equal(r->found, found);
}

/* ---- the real HGX H200 --------------------------------------------------- */

/* No domain asked for: the group adds nothing; the H200 passes. */
static void test_h200_no_domain(void **state)
{
	(void)state;
	run_group(fake_lib, H200, "", NULL, NULL);
	assert_int_equal(res.count, 0);
	assert_int_equal(sn_results_worst(&res), SN_OK);
}

static void test_h200_domain_asked(void **state)
{
	(void)state;
	run_group(fake_lib, H200, DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_NO_DOMAIN", SN_CRIT,
	       "cluster UUID 00000000-0000-0000-0000-000000000000, clique 0: in no NVLink domain");
	expect("gpu1", "FABRIC_NO_DOMAIN", SN_CRIT, NULL);
	assert_int_equal(res.count, 2);
}

/* ---- NVL72 states -------------------------------------------------------- */

static void test_nvl72_healthy(void **state)
{
	(void)state;
	run_group(fake_lib, DOM_A, DOMAIN, NULL, NULL);
	expect("gpu0", "OK", SN_OK, "domain " UUID_A "/32766");
	assert_int_equal(res.count, 4);
	assert_int_equal(sn_results_worst(&res), SN_OK);
}

static void test_in_progress_completes(void **state)
{
	const char *f = "{\"states\": [2, 2, 3], \"status\": 0,"
			" \"clique_id\": 32766, \"cluster_uuid\": \"" UUID_A
			"\", \"health_mask\": 4522, \"health_summary\": 1}";

	(void)state;
	/* Asked every 250 ms for half of 2 s: the third answer is seen. */
	check_timeout_s = 2;
	run_group(fake_lib, two_gpus(f, f), DOMAIN, NULL, NULL);
	expect("gpu0", "OK", SN_OK, NULL);
	expect("gpu1", "OK", SN_OK, NULL);
}

static void test_in_progress_stays(void **state)
{
	const char *f = fabric(2, 0, HEALTHY_MASK, 1);

	(void)state;
	run_group(fake_lib, two_gpus(f, fabric(3, 0, HEALTHY_MASK, 1)), DOMAIN,
		  NULL, NULL);
	/* UNKNOWN, never CRIT on its own. */
	expect("gpu0", "FABRIC_IN_PROGRESS", SN_UNKNOWN,
	       "still registering after 500 ms");
	expect("gpu1", "OK", SN_OK, NULL);
	assert_int_equal(sn_results_worst(&res), SN_UNKNOWN);
}

/* With nvlink_domain, a node whose NVML sees no GPU is broken. */
static void test_no_gpu(void **state)
{
	char path[128];

	(void)state;
	write_file("nvml.json", "{\"gpus\": []}", 0644);
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	run_group(fake_lib, path, DOMAIN, NULL, NULL);
	expect("node", "FABRIC_NO_GPU", SN_CRIT, "NVML sees no GPU");
	assert_string_equal(find("node", "FABRIC_NO_GPU")->expected,
			    "GPUs in an NVLink domain");
	assert_int_equal(res.count, 1);
}

static void test_not_started(void **state)
{
	(void)state;
	run_group(fake_lib, two_gpus(fabric(1, 0, 0, 0), fabric(0, 0, 0, 0)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_NOT_STARTED", SN_CRIT,
	       "state 1: not registered with the fabric");
	expect("gpu1", "FABRIC_UNSUPPORTED", SN_CRIT, "no NVLink fabric");
}

static void test_call_errors(void **state)
{
	(void)state;
	run_group(fake_lib,
		  two_gpus("{\"nvml_error\": \"Not Supported\"}",
			   "{\"nvml_error\": \"Timeout\"}"),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_UNSUPPORTED", SN_CRIT, NULL);
	expect("gpu1", "NVML_QUERY", SN_UNKNOWN,
	       "nvmlDeviceGetGpuFabricInfoV: Timeout (10)");
}

static void test_gpu_lost(void **state)
{
	(void)state;
	setenv("SN_FAKE_NVML_LOST", "1:later", 1);
	run_group(fake_lib, DOM_A, DOMAIN, NULL, NULL);
	unsetenv("SN_FAKE_NVML_LOST");
	expect("gpu0", "OK", SN_OK, NULL);
	expect("gpu1", "GPU_LOST", SN_CRIT, "GPU is lost (15)");
}

static void test_old_library(void **state)
{
	(void)state;
	run_group(fake_min_lib, DOM_A, DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_NO_API", SN_UNKNOWN,
	       "NVML lacks nvmlDeviceGetGpuFabricInfoV");
}

static void test_probe_failed(void **state)
{
	(void)state;
	run_group(fake_lib,
		  two_gpus(fabric(3, 999, HEALTHY_MASK, 1),
			   fabric(3, 0, HEALTHY_MASK, 1)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_PROBE_FAILED", SN_CRIT,
	       "status Unknown Error (999)");
	expect("gpu1", "OK", SN_OK, NULL);
}

/* Each boolean sub-field TRUE is a fault; FALSE and NOT_SUPPORTED are not. */
static void test_mask_booleans(void **state)
{
	static const struct {
		unsigned shift;
		const char *code, *found;
	} cases[] = {
		{ 0, "FABRIC_DEGRADED_BW", "bandwidth degraded" },
		{ 2, "FABRIC_ROUTE_RECOVERY", "route recovery in progress" },
		{ 4, "FABRIC_ROUTE_UNHEALTHY", "route unhealthy" },
		{ 6, "FABRIC_ACCESS_TIMEOUT",
		  "access timeout recovery in progress" },
	};
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned mask = (HEALTHY_MASK & ~(3u << cases[i].shift)) |
				(1u << cases[i].shift);

		run_group(fake_lib,
			  two_gpus(fabric(3, 0, mask, 1),
				   fabric(3, 0, HEALTHY_MASK, 1)),
			  DOMAIN, NULL, NULL);
		snprintf(want, sizeof(want), "%s (healthMask 0x%x)",
			 cases[i].found, mask);
		expect("gpu0", cases[i].code, SN_CRIT, want);
		expect("gpu1", "OK", SN_OK, NULL);
		assert_int_equal(res.count, 2);
		sn_results_free(&res);
		sn_config_free(cfg);
		cfg = NULL;
	}
	/* All NOT_SUPPORTED (0) and all FALSE (2): healthy, not a fault. */
	run_group(fake_lib, two_gpus(fabric(3, 0, 0, 0), fabric(3, 0, 0xaa, 1)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "OK", SN_OK, NULL);
	expect("gpu1", "OK", SN_OK, NULL);
	/* PARTITION_ASSIGNED FALSE (2 << 12) is not judged on its own. */
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	run_group(fake_lib,
		  two_gpus(fabric(3, 0, (HEALTHY_MASK & ~0x3000u) | 0x2000u, 1),
			   fabric(3, 0, HEALTHY_MASK, 1)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "OK", SN_OK, NULL);
}

static void test_mask_incorrect_configuration(void **state)
{
	static const char *const causes[] = {
		[2] = "incorrect SysGUID",
		[3] = "incorrect chassis serial number",
		[4] = "no partition",
		[5] = "insufficient NVLinks",
		[6] = "incompatible GPU firmware",
		[7] = "invalid location",
		[8] = "GPU state invalid",
		[9] = "unknown cause",
	};
	char want[128];

	(void)state;
	for (unsigned v = 2; v <= 9; v++) {
		unsigned mask = (HEALTHY_MASK & ~0xf00u) | (v << 8);

		run_group(fake_lib,
			  two_gpus(fabric(3, 0, mask, 1),
				   fabric(3, 0, HEALTHY_MASK, 1)),
			  DOMAIN, NULL, NULL);
		snprintf(want, sizeof(want), "incorrect configuration: %s (%u)",
			 causes[v], v);
		expect("gpu0", "FABRIC_BAD_CONFIG", SN_CRIT, want);
		sn_results_free(&res);
		sn_config_free(cfg);
		cfg = NULL;
	}
	/* NONE (1): the configuration is correct. */
	run_group(fake_lib,
		  two_gpus(fabric(3, 0, (HEALTHY_MASK & ~0xf00u) | 0x100u, 1),
			   fabric(3, 0, HEALTHY_MASK, 1)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "OK", SN_OK, NULL);
}

static void test_summary(void **state)
{
	(void)state;
	run_group(fake_lib,
		  two_gpus(fabric(3, 0, HEALTHY_MASK, 2),
			   fabric(3, 0, HEALTHY_MASK, 3)),
		  DOMAIN, NULL, NULL);
	expect("gpu0", "FABRIC_UNHEALTHY", SN_CRIT, "summary unhealthy");
	expect("gpu1", "FABRIC_LIMITED", SN_WARN, "summary limited capacity");
}

static void test_split(void **state)
{
	const char *other =
		"{\"state\": 3, \"status\": 0, \"clique_id\": 32766,"
		" \"cluster_uuid\": \"b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52\","
		" \"health_mask\": 4522, \"health_summary\": 1}";

	(void)state;
	run_group(fake_lib, two_gpus(fabric(3, 0, HEALTHY_MASK, 1), other),
		  DOMAIN, NULL, NULL);
	expect("node", "FABRIC_SPLIT", SN_CRIT,
	       "gpu1 in b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766");
	assert_string_equal(find("node", "FABRIC_SPLIT")->expected,
			    "one domain: gpu0's " UUID_A "/32766");
}

/* ---- identity guard ------------------------------------------------------ */

static void test_identity_match(void **state)
{
	(void)state;
	run_group(fake_lib, DOM_A, "", KEY_A, NULL);
	expect("node", "OK", SN_OK, KEY_A);
	assert_int_equal(res.count, 1);
}

/* A node that lies in a domain other than the one configured. */
static void test_identity_mismatch(void **state)
{
	(void)state;
	run_group(fake_lib, DOM_B, DOMAIN, KEY_A, NULL);
	expect("node", "SUPERNODE_MISMATCH", SN_CRIT, KEY_B);
	assert_string_equal(find("node", "SUPERNODE_MISMATCH")->expected,
			    KEY_A " (sn01)");
	/* The fabric itself is healthy. */
	expect("gpu0", "OK", SN_OK, NULL);
}

/* Only sn01 records an identity: sn02's nodes are not guarded. */
static void test_identity_other_supernode(void **state)
{
	(void)state;
	strcpy(node_name, "b1");
	run_group(fake_lib, DOM_B, "", KEY_A, NULL);
	assert_int_equal(res.count, 0);
}

static void test_identity_no_domain(void **state)
{
	(void)state;
	run_group(fake_lib, H200, "", KEY_A, NULL);
	expect("node", "SUPERNODE_MISMATCH", SN_CRIT,
	       "in no domain: cluster UUID is zero on every GPU: no multi-node NVLink domain");
}

static void test_identity_cannot_tell(void **state)
{
	(void)state;
	run_group(fake_min_lib, DOM_A, "", KEY_A, NULL);
	expect("node", "SUPERNODE_IDENTITY", SN_UNKNOWN,
	       "cannot tell: NVML lacks nvmlDeviceGetGpuFabricInfoV (driver too old)");
}

/* Ascend: the super pod from DCMI against the recorded ascend:ID. */
static void run_ascend(const char *identity)
{
	char yaml[1024];
	struct sn_check_ctx ctx;
	struct sn_error err;

	if (!fake_dcmi)
		skip();
	setenv("SN_FAKE_DCMI_FIXTURE", POD7, 1);
	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: sn01\n    nodes: a[1-2]\n"
		 "    identity: %s\n"
		 "node:\n  accelerators:\n    vendor: ascend\n    count: 8\n"
		 "paths:\n  dcmi: %s\n",
		 identity, fake_dcmi);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "a2", &err), 0);
	assert_int_equal(sn_check_fabric(&ctx, &res), 0);
}

static void test_identity_ascend(void **state)
{
	(void)state;
	run_ascend("ascend:7");
	expect("node", "OK", SN_OK, "ascend:7");
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	run_ascend("ascend:8");
	expect("node", "SUPERNODE_MISMATCH", SN_CRIT, "ascend:7");
	assert_string_equal(find("node", "SUPERNODE_MISMATCH")->expected,
			    "ascend:8 (sn01)");
}

/*
 * An ascend: identity recorded without node.accelerators (issue 19): the
 * node is then taken as NVML's, so the key to add is named, never NVML's
 * failure to open (nvlink_fabric NVML_OPEN).  And an nvlink: identity on an
 * Ascend node names the vendor.
 */
static void run_identity_only(const char *identity, const char *accel)
{
	char yaml[1024];
	struct sn_check_ctx ctx;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: sn01\n    nodes: a[1-2]\n"
		 "    identity: %s\n%s"
		 "paths:\n  nvml: /nonexistent/libnvidia-ml.so.1\n"
		 "  dcmi: /nonexistent/libdcmi.so\n",
		 identity, accel);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "a2", &err), 0);
	assert_int_equal(sn_check_fabric(&ctx, &res), 0);
}

static void test_identity_ascend_without_accelerators(void **state)
{
	(void)state;
	run_identity_only("ascend:7", "");
	assert_int_equal(res.count, 1);
	expect("node", "SUPERNODE_IDENTITY", SN_UNKNOWN,
	       "node.accelerators is missing: add it with vendor: ascend (DCMI reads ascend:)");
	assert_string_equal(find("node", "SUPERNODE_IDENTITY")->expected,
			    "ascend:7 (sn01)");
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	run_identity_only(KEY_A, "node:\n  accelerators:\n    vendor: ascend\n"
				 "    count: 8\n");
	assert_int_equal(res.count, 1);
	expect("node", "SUPERNODE_IDENTITY", SN_UNKNOWN,
	       "nvlink: is read by NVML, but node.accelerators.vendor is ascend");
}

/* ---- IMEX ---------------------------------------------------------------- */

#define IMEX "    imex: true\n    imex_channel: 3\n"

static void make_channels(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/channels", dir);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void test_imex_channel_missing(void **state)
{
	(void)state;
	write_file("imex-ctl", "#!/bin/sh\necho READY\n", 0755);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("channel3", "IMEX_CHANNEL_MISSING", SN_CRIT, NULL);
	/* Only the site's channel is checked, and the verdict says why. */
	assert_string_equal(
		find("channel3", "IMEX_CHANNEL_MISSING")->expected,
		"site channel 3, a character device (a job's own is made after the prolog)");
	expect("nvidia-imex", "OK", SN_OK, "READY");
	assert_int_equal(res.count, 2);
}

static void test_imex_channel_link_and_file(void **state)
{
	char path[128];

	(void)state;
	make_channels();
	write_file("imex-ctl", "#!/bin/sh\necho READY\n", 0755);
	snprintf(path, sizeof(path), "%s/channels/channel3", dir);
	assert_int_equal(symlink("/dev/null", path), 0);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("channel3", "IMEX_CHANNEL_LINK", SN_CRIT, NULL);
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	unlink(path);
	write_file("channels/channel3", "", 0644);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("channel3", "IMEX_CHANNEL_NOT_DEVICE", SN_CRIT, NULL);
}

static void test_imex_channel_device(void **state)
{
	char path[128];

	(void)state;
	make_channels();
	write_file("imex-ctl", "#!/bin/sh\necho READY\n", 0755);
	snprintf(path, sizeof(path), "%s/channels/channel3", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)))
		skip(); /* needs root (CAP_MKNOD) */
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("channel3", "OK", SN_OK, "present");
	expect("nvidia-imex", "OK", SN_OK, "READY");
}

static void test_imex_daemon(void **state)
{
	(void)state;
	write_file("imex-ctl", "#!/bin/sh\necho 'NOT READY'\nexit 1\n", 0755);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("nvidia-imex", "IMEX_NOT_READY", SN_CRIT,
	       "'NOT READY' (exit 1)");
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	write_file("imex-ctl", "#!/bin/sh\nexec sleep 30\n", 0755);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("nvidia-imex", "IMEX_CTL_TIMEOUT", SN_UNKNOWN, NULL);
	sn_results_free(&res);
	sn_config_free(cfg);
	cfg = NULL;
	write_file("imex-ctl", "#!/nonexistent/interpreter\n", 0755);
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	expect("nvidia-imex", "IMEX_CTL_FAILED", SN_UNKNOWN, NULL);
}

static void test_imex_ctl_missing(void **state)
{
	char want[256];

	(void)state;
	run_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	snprintf(want, sizeof(want),
		 "cannot ask: No such file or directory: %s/imex-ctl", dir);
	expect("nvidia-imex", "IMEX_CTL_MISSING", SN_UNKNOWN, want);
}

/* ---- the group's time ---------------------------------------------------- */

static const struct sn_check_group fabric_only[] = {
	{ "fabric", sn_check_fabric },
};

static size_t count_grade(enum sn_grade g)
{
	size_t n = 0;

	for (size_t i = 0; i < res.count; i++)
		n += res.items[i].grade == g;
	return n;
}

/*
 * gpu0 stays IN_PROGRESS and nvidia-imex-ctl never answers, run by the
 * runner with these two limits (it kills the group at the smaller):
 * both are UNKNOWN and the group ends in time, never CRIT CHECK_TIMEOUT.
 * The IN_PROGRESS retries took about half the limit.
 */
static void run_slow(uint32_t check_ms, uint32_t total_ms, uint32_t limit)
{
	const char *f = fabric(2, 0, HEALTHY_MASK, 1);
	const struct sn_result *x;
	unsigned int waited = 0;
	int64_t t0;

	write_file("imex-ctl", "#!/bin/sh\nexec sleep 30\n", 0755);
	load_group(fake_lib, two_gpus(f, fabric(3, 0, HEALTHY_MASK, 1)),
		   DOMAIN IMEX, NULL, NULL);
	t0 = sn_now_ms();
	assert_int_equal(sn_run_checks(&check_ctx, fabric_only, 1, check_ms,
				       total_ms, &res),
			 0);
	assert_true(sn_now_ms() - t0 < limit + 200);
	for (size_t i = 0; i < res.count; i++)
		assert_string_not_equal(res.items[i].code, "CHECK_TIMEOUT");
	x = find("gpu0", "FABRIC_IN_PROGRESS");
	assert_int_equal(x->grade, SN_UNKNOWN);
	assert_int_equal(
		sscanf(x->found, "still registering after %u ms", &waited), 1);
	assert_in_range(waited, limit / 2 - 100, limit / 2);
	expect("gpu1", "OK", SN_OK, NULL);
	expect("nvidia-imex", "IMEX_CTL_TIMEOUT", SN_UNKNOWN, NULL);
	/* The one CRIT is the site channel this test does not make. */
	expect("channel3", "IMEX_CHANNEL_MISSING", SN_CRIT, NULL);
	assert_int_equal(count_grade(SN_CRIT), 1);
	assert_int_equal(res.count, 4);
}

/*
 * check_timeout 2 s is the group's limit, and nvmlInit takes 600 ms (a
 * driver without persistence mode): the retries still end half way.
 */
static void test_slow_fabric_and_imex(void **state)
{
	(void)state;
	check_timeout_s = 2;
	setenv("SN_FAKE_NVML_INIT_MS", "600", 1);
	run_slow(2000, 30000, 2000);
	unsetenv("SN_FAKE_NVML_INIT_MS");
}

/* check_timeout 10 s, but the prolog has 1 s left: that is the limit. */
static void test_slow_fabric_prolog_time_left(void **state)
{
	(void)state;
	check_timeout_s = 10;
	run_slow(10000, 1000, 1000);
}

/* Under the margin left: nvidia-imex-ctl is not started at all. */
static void test_imex_no_time_left(void **state)
{
	int64_t t0;

	(void)state;
	write_file("imex-ctl", "#!/bin/sh\nexec sleep 30\n", 0755);
	load_group(fake_lib, DOM_A, IMEX, NULL, NULL);
	check_ctx.deadline_ms = sn_now_ms() + 100;
	t0 = sn_now_ms();
	assert_int_equal(sn_check_fabric(&check_ctx, &res), 0);
	assert_true(sn_now_ms() - t0 < 100);
	expect("nvidia-imex", "IMEX_CTL_TIMEOUT", SN_UNKNOWN,
	       "not asked: no time left within check_timeout");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_h200_no_domain),
		T(test_h200_domain_asked),
		T(test_nvl72_healthy),
		T(test_in_progress_completes),
		T(test_in_progress_stays),
		T(test_no_gpu),
		T(test_not_started),
		T(test_call_errors),
		T(test_gpu_lost),
		T(test_old_library),
		T(test_probe_failed),
		T(test_mask_booleans),
		T(test_mask_incorrect_configuration),
		T(test_summary),
		T(test_split),
		T(test_identity_match),
		T(test_identity_mismatch),
		T(test_identity_other_supernode),
		T(test_identity_no_domain),
		T(test_identity_cannot_tell),
		T(test_identity_ascend),
		T(test_identity_ascend_without_accelerators),
		T(test_imex_channel_missing),
		T(test_imex_channel_link_and_file),
		T(test_imex_channel_device),
		T(test_imex_daemon),
		T(test_imex_ctl_missing),
		T(test_slow_fabric_and_imex),
		T(test_slow_fabric_prolog_time_left),
		T(test_imex_no_time_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
