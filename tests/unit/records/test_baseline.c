/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The prolog's baseline (lib/baseline.c): the document collected from a
 * fake sysfs tree (two RDMA devices, three ports, counters), a kmsg record
 * file and the fake libnvidia-ml serving the real 2x H200 capture; saving
 * it atomically per job, two jobs at once (field case 16), and a hung
 * collector (NVML) that makes the save fail on time and write nothing.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "unit.h"
#include "fixtures/ports/ports_test.h"

#include "records/sn_baseline.h"
#include "util/sn_file.h"
#include "config/sn_config.h"
#include "util/sn_child.h"

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
#else
static const char *const fake_lib = NULL;
#endif

#define REAL SN_FIXTURES "/nvidia/nvml-h200x2.json"
#define KMSG SN_FIXTURES "/kmsg/records.kmsg"

static struct tree T;

static int setup(void **state)
{
	(void)state;
	tree_new(&T);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("SN_FAKE_NVML_FIXTURE");
	unsetenv("SN_FAKE_NVML_HANG");
	tree_free(&T);
	return 0;
}

/* The fake libnvidia-ml (tests/fake_nvml) is built with the tests. */
static int have_nvml(void)
{
	return fake_lib != NULL;
}

/* A config whose paths point into the tree; accelerators when NVML is here. */
static struct sn_config *config(const char *kmsg, int nvidia)
{
	struct sn_config *cfg;
	struct sn_error err;
	char *yaml = NULL;

	if (asprintf(
		    &yaml,
		    "supernodes:\n  - name: sn01\n    nodes: n[1-2]\n"
		    "paths:\n  sysfs: %s/sys\n  dev: %s/dev\n"
		    "  state_dir: %s/state/%%n\n  kmsg: %s\n  nvml: %s\n"
		    "%s",
		    T.root, T.root, T.root, kmsg,
		    fake_lib ? fake_lib : "/nonexistent/libnvidia-ml.so.1",
		    nvidia ?
			    "node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n" :
			    "") < 0)
		fail_msg("out of memory");
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	free(yaml);
	if (!cfg)
		fail_msg("%s", err.msg);
	if (nvidia)
		setenv("SN_FAKE_NVML_FIXTURE", REAL, 1);
	return cfg;
}

static void ctx_init(struct sn_check_ctx *ctx, const struct sn_config *cfg)
{
	struct sn_error err;

	if (sn_check_ctx_init(ctx, cfg, "n1", &err))
		fail_msg("%s", err.msg);
}

static void counter(const char *dev, unsigned port, const char *group,
		    const char *name, const char *value)
{
	tree_filef(&T, value, "sys/class/infiniband/%s/ports/%u/%s/%s", dev,
		   port, group, name);
}

/* mlx5_0 ports 1 and 2, mlx5_1 port 1; a device without ports. */
static void rdma_tree(void)
{
	struct tree sys; /* the sysfs root of the config: <root>/sys */

	if ((size_t)snprintf(sys.root, sizeof(sys.root), "%.59s/sys", T.root) >=
	    sizeof(sys.root))
		fail_msg("tree root too long");
	tree_dir(&T, "sys");
	ib_port_ndr(&sys, "mlx5_0");
	ib_port_files(&sys, "mlx5_0", 2, "1: DOWN", "3: Disabled",
		      "10 Gb/sec (4X SDR)", "InfiniBand");
	ib_port_files(&sys, "mlx5_1", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	tree_dir(&T, "sys/class/infiniband/mlx5_9"); /* no ports/ at all */

	counter("mlx5_0", 1, "counters", "port_rcv_data", "123456789012\n");
	counter("mlx5_0", 1, "counters", "port_xmit_data",
		"18446744073709551615\n");
	counter("mlx5_0", 1, "counters", "symbol_error", "0\n");
	counter("mlx5_0", 1, "counters", "link_downed", "N/A (no PMA)\n");
	counter("mlx5_0", 1, "hw_counters", "out_of_buffer", "17\n");
	counter("mlx5_0", 1, "hw_counters", "np_cnp_sent", "4\n");
	counter("mlx5_0", 2, "counters", "symbol_error", "65535\n");
	counter("mlx5_1", 1, "hw_counters", "rx_icrc_encapsulated", "3\n");
	counter("mlx5_1", 1, "counters_ext", "port_xmit_data_64", "250000\n");
	/* an NVSwitch (class 0x068000) and a GPU: only the switch is listed */
	tree_file(&T, "sys/bus/pci/devices/0000:05:00.0/vendor", "0x10de\n");
	tree_file(&T, "sys/bus/pci/devices/0000:05:00.0/class", "0x068000\n");
	tree_file(&T, "sys/bus/pci/devices/0000:05:00.0/device", "0x22a3\n");
	tree_file(&T, "sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
	tree_file(&T, "sys/bus/pci/devices/0000:1b:00.0/class", "0x030200\n");
}

static json_object *get(json_object *o, const char *const *keys)
{
	for (; *keys; keys++)
		if (!json_object_object_get_ex(o, *keys, &o))
			fail_msg("no key %s", *keys);
	return o;
}

#define GET(o, ...) get(o, (const char *const[]){ __VA_ARGS__, NULL })

static void expect_u64(json_object *o, uint64_t want)
{
	assert_non_null(o);
	assert_true(json_object_is_type(o, json_type_int));
	assert_true(json_object_get_uint64(o) == want);
}

/* The keys of an object, sorted, space-separated. */
static void keys(json_object *o, char *out, size_t size)
{
	const char *k[64];
	size_t n = 0, used = 0;

	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (n < 64)
			k[n++] = key;
	}
	for (size_t i = 1; i < n; i++) /* insertion sort */
		for (size_t j = i; j > 0 && strcmp(k[j - 1], k[j]) > 0; j--) {
			const char *t = k[j];

			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s",
					 i ? " " : "", k[i]);
}

/* ---- sn_baseline_collect ----------------------------------------------- */

static void test_collect(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	json_object *doc, *p;
	char list[512];
	char *text;
	int64_t t0 = time(NULL), t1;

	(void)state;
	rdma_tree();
	cfg = config(KMSG, have_nvml());
	ctx_init(&ctx, cfg);
	text = sn_baseline_collect(&ctx, 4242);
	t1 = time(NULL);
	assert_non_null(text);
	doc = json_tokener_parse(text);
	assert_non_null(doc);

	keys(doc, list, sizeof(list));
	assert_string_equal(
		list,
		"accelerators job_id kmsg_seq node nvswitches ports schema time");
	assert_string_equal(
		json_object_to_json_string_ext(GET(doc, "nvswitches"),
					       JSON_C_TO_STRING_PLAIN),
		"[\"0000:05:00.0\"]");
	assert_int_equal(json_object_get_int(GET(doc, "schema")),
			 SN_BASELINE_SCHEMA);
	assert_int_equal(json_object_get_int64(GET(doc, "job_id")), 4242);
	assert_string_equal(json_object_get_string(GET(doc, "node")), "n1");
	assert_true(json_object_get_int64(GET(doc, "time")) >= t0);
	assert_true(json_object_get_int64(GET(doc, "time")) <= t1);
	expect_u64(GET(doc, "kmsg_seq"), 105); /* the newest record */

	p = GET(doc, "ports");
	keys(p, list, sizeof(list));
	assert_string_equal(list, "mlx5_0/1 mlx5_0/2 mlx5_1/1");
	keys(GET(p, "mlx5_0/1", "counters"), list, sizeof(list));
	assert_string_equal(
		list, "link_downed port_rcv_data port_xmit_data symbol_error");
	expect_u64(GET(p, "mlx5_0/1", "counters", "port_rcv_data"),
		   123456789012ull);
	expect_u64(GET(p, "mlx5_0/1", "counters", "port_xmit_data"),
		   UINT64_MAX);
	expect_u64(GET(p, "mlx5_0/1", "counters", "symbol_error"), 0);
	assert_null(GET(p, "mlx5_0/1", "counters", "link_downed"));
	keys(GET(p, "mlx5_0/1", "hw_counters"), list, sizeof(list));
	assert_string_equal(list, "np_cnp_sent out_of_buffer");
	expect_u64(GET(p, "mlx5_0/1", "hw_counters", "out_of_buffer"), 17);
	expect_u64(GET(p, "mlx5_0/1", "hw_counters", "np_cnp_sent"), 4);
	expect_u64(GET(p, "mlx5_0/2", "counters", "symbol_error"), 65535);
	assert_int_equal(
		json_object_object_length(GET(p, "mlx5_0/2", "hw_counters")),
		0);
	assert_int_equal(
		json_object_object_length(GET(p, "mlx5_1/1", "counters")), 0);
	expect_u64(GET(p, "mlx5_1/1", "hw_counters", "rx_icrc_encapsulated"),
		   3);
	/* counters_ext/ only where the port has it (issue 9 item 6) */
	expect_u64(GET(p, "mlx5_1/1", "counters_ext", "port_xmit_data_64"),
		   250000);
	keys(GET(p, "mlx5_0/1"), list, sizeof(list));
	assert_string_equal(list, "counters hw_counters link_layer rate_gbps");
	/* the line rate bounds what the counters can count (item 4) */
	assert_true(json_object_get_double(GET(p, "mlx5_0/1", "rate_gbps")) ==
		    400.0);
	assert_true(json_object_get_double(GET(p, "mlx5_0/2", "rate_gbps")) ==
		    10.0);
	assert_true(json_object_get_double(GET(p, "mlx5_1/1", "rate_gbps")) ==
		    200.0);
	assert_string_equal(
		json_object_get_string(GET(p, "mlx5_1/1", "link_layer")),
		"Ethernet");

	if (have_nvml()) {
		json_object *a = GET(doc, "accelerators");

		assert_string_equal(json_object_get_string(GET(a, "vendor")),
				    "nvidia");
		assert_string_equal(json_object_get_string(GET(a, "driver")),
				    "580.159.04");
		assert_null(GET(a, "error"));
		keys(GET(a, "devices"), list, sizeof(list));
		assert_string_equal(list, "0000:00:06.0 0000:00:07.0");
		expect_u64(GET(a, "devices", "0000:00:06.0",
			       "pcie_replay_counter"),
			   5);
		expect_u64(GET(a, "devices", "0000:00:07.0", "nvlink", "1",
			       "crc_data"),
			   26);
	} else {
		assert_null(GET(doc, "accelerators"));
	}
	json_object_put(doc);
	free(text);
	sn_config_free(cfg);
}

/* Nothing to read: no RDMA devices, no kernel log, no accelerators. */
static void test_collect_empty(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	json_object *doc;
	char *text;

	(void)state;
	cfg = config("/nonexistent/kmsg", 0);
	ctx_init(&ctx, cfg);
	text = sn_baseline_collect(&ctx, 1);
	doc = json_tokener_parse(text);
	assert_non_null(doc);
	assert_int_equal(json_object_get_int64(GET(doc, "job_id")), 1);
	assert_null(GET(doc, "kmsg_seq"));
	assert_true(json_object_is_type(GET(doc, "ports"), json_type_object));
	assert_int_equal(json_object_object_length(GET(doc, "ports")), 0);
	assert_null(GET(doc, "accelerators"));
	json_object_put(doc);
	free(text);
	sn_config_free(cfg);
}

/* ---- sn_baseline_save -------------------------------------------------- */

/* The names in state/n1/baseline, sorted. */
static void baseline_listing(char *out, size_t size)
{
	char path[PATH_MAX];
	struct dirent **names;
	size_t used = 0;
	int n;

	tree_path(&T, "state/n1/baseline", path);
	n = scandir(path, &names, NULL, alphasort);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			used += (size_t)snprintf(out + used, size - used,
						 "%s%s", used ? " " : "",
						 names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	else
		snprintf(out, size, "(no folder)");
}

static json_object *saved(uint32_t job)
{
	char rel[64], path[PATH_MAX];
	json_object *doc;
	struct stat st;

	snprintf(rel, sizeof(rel), "state/n1/baseline/%u.json", job);
	tree_path(&T, rel, path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	doc = json_object_from_file(path);
	if (!doc)
		fail_msg("%s: not JSON", path);
	return doc;
}

static void test_save(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;
	char path[PATH_MAX], want[PATH_MAX], list[256];
	json_object *doc;

	(void)state;
	rdma_tree();
	cfg = config(KMSG, have_nvml());
	ctx_init(&ctx, cfg);
	assert_int_equal(sn_baseline_path(&ctx, 4242, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/state/n1/baseline/4242.json", T.root);
	assert_string_equal(path, want);
	assert_int_equal(sn_baseline_path(&ctx, 4242, path, 20), -1);

	err_reset(&err);
	assert_int_equal(sn_baseline_save(&ctx, 4242, 5000, &err), 0);
	assert_string_equal(err.msg, "(unset)");
	baseline_listing(list, sizeof(list));
	assert_string_equal(list, "4242.json"); /* no .tmp left */
	doc = saved(4242);
	assert_int_equal(json_object_get_int64(GET(doc, "job_id")), 4242);
	expect_u64(GET(doc, "ports", "mlx5_0/1", "counters", "port_rcv_data"),
		   123456789012ull);
	json_object_put(doc);

	/* Again for the same job (a requeue): replaced, still one file. */
	counter("mlx5_0", 1, "counters", "port_rcv_data", "123456789999\n");
	assert_int_equal(sn_baseline_save(&ctx, 4242, 5000, &err), 0);
	baseline_listing(list, sizeof(list));
	assert_string_equal(list, "4242.json");
	doc = saved(4242);
	expect_u64(GET(doc, "ports", "mlx5_0/1", "counters", "port_rcv_data"),
		   123456789999ull);
	json_object_put(doc);
	sn_config_free(cfg);
}

/* Field case 16: prologs of job 101 and job 102 on one node, 10 ms apart. */
static void test_save_two_jobs_at_once(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	char list[256];
	pid_t pids[2];

	(void)state;
	rdma_tree();
	cfg = config(KMSG, have_nvml());
	ctx_init(&ctx, cfg);
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct sn_error err;

			_exit(sn_baseline_save(&ctx, 101 + (uint32_t)i, 10000,
					       &err) ?
				      1 :
				      0);
		}
		usleep(10 * 1000);
	}
	for (int i = 0; i < 2; i++) {
		int st;

		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	baseline_listing(list, sizeof(list));
	assert_string_equal(list, "101.json 102.json");
	for (uint32_t job = 101; job <= 102; job++) {
		json_object *doc = saved(job);

		assert_int_equal(json_object_get_int64(GET(doc, "job_id")),
				 job);
		assert_string_equal(json_object_get_string(GET(doc, "node")),
				    "n1");
		expect_u64(GET(doc, "kmsg_seq"), 105);
		expect_u64(GET(doc, "ports", "mlx5_0/2", "counters",
			       "symbol_error"),
			   65535);
		json_object_put(doc);
	}
	sn_config_free(cfg);
}

/*
 * A collector stuck in NVML: the save still finishes on time, with the
 * fabric counters (sysfs) and the accelerators marked as not read.
 */
static void test_save_hang(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;
	char list[256], path[PATH_MAX], *text = NULL;
	json_object *doc;
	int64_t t0, took;

	(void)state;
	if (!have_nvml())
		skip();
	rdma_tree();
	cfg = config(KMSG, 1);
	ctx_init(&ctx, cfg);
	setenv("SN_FAKE_NVML_HANG", "nvmlDeviceGetCount_v2", 1);
	err_reset(&err);
	t0 = sn_now_ms();
	assert_int_equal(sn_baseline_save(&ctx, 7, 500, &err), 0);
	took = sn_now_ms() - t0;
	if (took < 400 || took > 700)
		fail_msg("gave up after %lld ms, want 400..700",
			 (long long)took);
	baseline_listing(list, sizeof(list));
	assert_string_equal(list, "7.json");
	assert_int_equal(sn_baseline_path(&ctx, 7, path, sizeof(path)), 0);
	assert_true(sn_file_read(path, 1 << 20, &text) > 0);
	assert_non_null(doc = json_tokener_parse(text));
	assert_non_null(json_object_object_get(doc, "ports"));
	assert_null(json_object_object_get(doc, "accelerators"));
	assert_non_null(
		strstr(json_object_get_string(json_object_object_get(
			       doc, "accelerators_error")),
		       "collecting accelerator counters timed out after"));
	json_object_put(doc);
	free(text);

	/* Hung in the first call of all: the same. */
	setenv("SN_FAKE_NVML_HANG", "nvmlInit_v2", 1);
	assert_int_equal(sn_baseline_save(&ctx, 8, 300, &err), 0);
	baseline_listing(list, sizeof(list));
	assert_string_equal(list, "7.json 8.json");
	unsetenv("SN_FAKE_NVML_HANG");
	sn_config_free(cfg);
}

/* A state_dir that cannot be made: an error naming it, before any work. */
static void test_save_bad_state_dir(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;
	char want[PATH_MAX + 64];

	(void)state;
	cfg = config(KMSG, 0);
	ctx_init(&ctx, cfg);
	tree_file(&T, "state/n1", "a file where the folder goes\n");
	err_reset(&err);
	assert_int_equal(sn_baseline_save(&ctx, 9, 5000, &err), -1);
	snprintf(want, sizeof(want), "not a folder (regular file): %s/state/n1",
		 T.root);
	assert_string_equal(err.msg, want);
	sn_config_free(cfg);
}

/*
 * Issue 9 items 7 and 9: state_dir/baseline planted as a link is refused
 * (the prolog logs it and does not drain for it); a killed prolog's
 * temporary goes, a live one's stays.
 */
static void test_save_trusted_folder(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_error err;
	char want[PATH_MAX + 64], victim[PATH_MAX], rel[64], live[64];
	pid_t dead;

	(void)state;
	cfg = config(KMSG, 0);
	ctx_init(&ctx, cfg);
	tree_dir(&T, "state/n1");
	tree_dir(&T, "victim");
	tree_path(&T, "victim", victim);
	tree_link(&T, "state/n1/baseline", victim);
	err_reset(&err);
	assert_int_equal(sn_baseline_save(&ctx, 10, 5000, &err), -1);
	snprintf(want, sizeof(want),
		 "a symbolic link, not followed: %s/state/n1/baseline", T.root);
	assert_string_equal(err.msg, want);
	tree_path(&T, "victim/10.json", want);
	assert_int_equal(access(want, F_OK), -1);
	tree_remove(&T, "state/n1/baseline");
	/* stale temporaries of prologs killed while writing */
	dead = fork();
	assert_true(dead >= 0);
	if (!dead)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	tree_dir(&T, "state/n1/baseline");
	snprintf(rel, sizeof(rel), "state/n1/baseline/7.json.%d.tmp",
		 (int)dead);
	tree_file(&T, rel, "{");
	snprintf(live, sizeof(live), "state/n1/baseline/8.json.%d.tmp",
		 (int)getppid());
	tree_file(&T, live, "{");
	assert_int_equal(sn_baseline_save(&ctx, 11, 5000, &err), 0);
	tree_path(&T, rel, want);
	assert_int_equal(access(want, F_OK), -1);
	tree_path(&T, live, want);
	assert_int_equal(access(want, F_OK), 0);
	tree_path(&T, "state/n1/baseline/11.json", want);
	assert_int_equal(access(want, F_OK), 0);
	/* the epilog removes it through the same folder */
	assert_int_equal(sn_baseline_remove(&ctx, 11, &err), 0);
	assert_int_equal(access(want, F_OK), -1);
	assert_int_equal(sn_baseline_remove(&ctx, 11, &err),
			 0); /* gone: fine */
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collect_empty, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_two_jobs_at_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_hang, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_save_bad_state_dir, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_save_trusted_folder, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
