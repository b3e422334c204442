/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_promfile_*: the exact text for a small snapshot, the cross-job state,
 * the atomic update in a folder, and `promtool check metrics` on the
 * result (skipped when promtool is not installed; Debian: prometheus).
 */
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "util/sn_file.h"
#include "inventory/sn_ib_port.h"
#include "records/sn_promfile.h"

#define IB_TREE SN_FIXTURES "/sysfs-infiniband/gpud-h100/sys"

static json_object *parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	if (!o)
		fail_msg("bad JSON in test: %s", text);
	return o;
}

static const char *small_snapshot =
	"{\"schema\": 1, \"time\": 5, \"ports\": {"
	" \"mlx5_0/1\": {\"counters\": {\"symbol_error\": 3, \"port_xmit_data\": 10,"
	"   \"port_rcv_data\": null, \"VL15_dropped\": 0},"
	"  \"hw_counters\": {\"np_cnp_sent\": 9, \"symbol_error\": 1}},"
	" \"we\\\"ird\\\\dev/2\": {\"counters\": {\"port_rcv_data\": 5}}},"
	" \"accelerators\": {\"vendor\": \"nvidia\", \"devices\": {"
	"  \"0000:1b:00.0\": {\"index\": 0, \"ecc_corrected_volatile\": 4,"
	"   \"ecc_uncorrected_volatile\": null, \"pcie_replay_counter\": 2,"
	"   \"nvlink\": {\"10\": {\"replay\": 1, \"recovery\": 0, \"crc_flit\": 0, \"crc_data\": 0},"
	"               \"2\": {\"replay\": 3, \"recovery\": 0, \"crc_flit\": 0, \"crc_data\": null}}}}}}";

static const char *small_expected =
	"# HELP supernode_port_vl15_dropped_total RDMA port counter VL15_dropped (sysfs counters/VL15_dropped).\n"
	"# TYPE supernode_port_vl15_dropped_total counter\n"
	"supernode_port_vl15_dropped_total{device=\"mlx5_0\",port=\"1\"} 0\n"
	"# HELP supernode_port_receive_bytes_total Bytes the port received (sysfs port_rcv_data_64 if the port has it, else port_rcv_data; 4-byte words, x 4).\n"
	"# TYPE supernode_port_receive_bytes_total counter\n"
	"supernode_port_receive_bytes_total{device=\"we\\\"ird\\\\dev\",port=\"2\"} 20\n"
	"# HELP supernode_port_transmit_bytes_total Bytes the port transmitted (sysfs port_xmit_data_64 if the port has it, else port_xmit_data; 4-byte words, x 4).\n"
	"# TYPE supernode_port_transmit_bytes_total counter\n"
	"supernode_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"} 40\n"
	"# HELP supernode_port_symbol_error_total RDMA port counter symbol_error (sysfs counters/symbol_error).\n"
	"# TYPE supernode_port_symbol_error_total counter\n"
	"supernode_port_symbol_error_total{device=\"mlx5_0\",port=\"1\"} 3\n"
	"# HELP supernode_port_np_cnp_sent_total RDMA port counter np_cnp_sent (sysfs hw_counters/np_cnp_sent).\n"
	"# TYPE supernode_port_np_cnp_sent_total counter\n"
	"supernode_port_np_cnp_sent_total{device=\"mlx5_0\",port=\"1\"} 9\n"
	"# HELP supernode_gpu_ecc_corrected_errors_total Corrected ECC errors since the driver loaded (NVML volatile).\n"
	"# TYPE supernode_gpu_ecc_corrected_errors_total counter\n"
	"supernode_gpu_ecc_corrected_errors_total{bus_id=\"0000:1b:00.0\"} 4\n"
	"# HELP supernode_gpu_pcie_replays_total PCIe replays of the GPU (NVML pcie replay counter).\n"
	"# TYPE supernode_gpu_pcie_replays_total counter\n"
	"supernode_gpu_pcie_replays_total{bus_id=\"0000:1b:00.0\"} 2\n"
	"# HELP supernode_gpu_nvlink_replay_errors_total NVLink replay errors per link (NVML).\n"
	"# TYPE supernode_gpu_nvlink_replay_errors_total counter\n"
	"supernode_gpu_nvlink_replay_errors_total{bus_id=\"0000:1b:00.0\",link=\"2\"} 3\n"
	"supernode_gpu_nvlink_replay_errors_total{bus_id=\"0000:1b:00.0\",link=\"10\"} 1\n"
	"# HELP supernode_gpu_nvlink_recovery_errors_total NVLink recovery errors per link (NVML).\n"
	"# TYPE supernode_gpu_nvlink_recovery_errors_total counter\n"
	"supernode_gpu_nvlink_recovery_errors_total{bus_id=\"0000:1b:00.0\",link=\"2\"} 0\n"
	"supernode_gpu_nvlink_recovery_errors_total{bus_id=\"0000:1b:00.0\",link=\"10\"} 0\n"
	"# HELP supernode_gpu_nvlink_crc_flit_errors_total NVLink flit CRC errors per link (NVML).\n"
	"# TYPE supernode_gpu_nvlink_crc_flit_errors_total counter\n"
	"supernode_gpu_nvlink_crc_flit_errors_total{bus_id=\"0000:1b:00.0\",link=\"2\"} 0\n"
	"supernode_gpu_nvlink_crc_flit_errors_total{bus_id=\"0000:1b:00.0\",link=\"10\"} 0\n"
	"# HELP supernode_gpu_nvlink_crc_data_errors_total NVLink data CRC errors per link (NVML).\n"
	"# TYPE supernode_gpu_nvlink_crc_data_errors_total counter\n"
	"supernode_gpu_nvlink_crc_data_errors_total{bus_id=\"0000:1b:00.0\",link=\"10\"} 0\n"
	"# HELP supernode_xid_events_total NVIDIA Xid events logged during jobs, by Xid number.\n"
	"# TYPE supernode_xid_events_total counter\n"
	"supernode_xid_events_total{xid=\"13\"} 1\n"
	"supernode_xid_events_total{xid=\"79\"} 2\n"
	"# HELP supernode_epilog_jobs_total Jobs whose record the epilog wrote on this node.\n"
	"# TYPE supernode_epilog_jobs_total counter\n"
	"supernode_epilog_jobs_total 3\n"
	"# HELP supernode_epilog_drains_total Epilog runs that drained this node.\n"
	"# TYPE supernode_epilog_drains_total counter\n"
	"supernode_epilog_drains_total 1\n"
	"# HELP supernode_epilog_last_run_timestamp_seconds When the epilog last ran, seconds since the epoch.\n"
	"# TYPE supernode_epilog_last_run_timestamp_seconds gauge\n"
	"supernode_epilog_last_run_timestamp_seconds 1764430000\n";

static void test_render_small(void **state)
{
	json_object *snap = parse(small_snapshot);
	json_object *st = parse("{\"schema\": 1, \"jobs\": 3, \"drains\": 1,"
				" \"xid\": {\"79\": 2, \"13\": 1}}");
	char *text = sn_promfile_render(snap, st, 1764430000);

	(void)state;
	assert_non_null(text);
	assert_string_equal(text, small_expected);
	free(text);
	json_object_put(snap);
	json_object_put(st);
}

/*
 * Issue 9 item 6: a port with counters_ext/port_xmit_data_64 gives its
 * bytes from it (250000 words = 1000000 bytes), not from the 32-bit
 * counters/port_xmit_data (4000 words = 16000 bytes).  A port without it
 * keeps the 32-bit counter.
 */
static void test_render_wide(void **state)
{
	json_object *snap = parse(
		"{\"schema\": 1, \"time\": 5, \"ports\": {"
		" \"mlx4_0/1\": {\"counters\": {\"port_xmit_data\": 4000,"
		"   \"port_rcv_data\": 7},"
		"  \"counters_ext\": {\"port_xmit_data_64\": 250000,"
		"   \"port_rcv_data_64\": null, \"port_xmit_packets_64\": 12}},"
		" \"mlx5_0/1\": {\"counters\": {\"port_xmit_data\": 10}}}}");
	const char *ports =
		"# HELP supernode_port_transmit_bytes_total Bytes the port transmitted (sysfs port_xmit_data_64 if the port has it, else port_xmit_data; 4-byte words, x 4).\n"
		"# TYPE supernode_port_transmit_bytes_total counter\n"
		"supernode_port_transmit_bytes_total{device=\"mlx4_0\",port=\"1\"} 1000000\n"
		"supernode_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"} 40\n"
		"# HELP supernode_port_xmit_packets_64_total RDMA port counter port_xmit_packets_64 (sysfs counters_ext/port_xmit_packets_64).\n"
		"# TYPE supernode_port_xmit_packets_64_total counter\n"
		"supernode_port_xmit_packets_64_total{device=\"mlx4_0\",port=\"1\"} 12\n"
		"# HELP supernode_xid_events_total ";
	char *text = sn_promfile_render(snap, NULL, 1);

	(void)state;
	assert_non_null(text);
	/* port_rcv_data_64 unreadable: no receive sample, not the 32-bit one */
	if (strncmp(text, ports, strlen(ports)))
		fail_msg("got:\n%s", text);
	free(text);
	json_object_put(snap);
}

static void test_render_empty(void **state)
{
	char *text = sn_promfile_render(NULL, NULL, 7);

	(void)state;
	assert_non_null(text);
	assert_string_equal(
		text,
		"# HELP supernode_xid_events_total NVIDIA Xid events logged during jobs, by Xid number.\n"
		"# TYPE supernode_xid_events_total counter\n"
		"# HELP supernode_epilog_jobs_total Jobs whose record the epilog wrote on this node.\n"
		"# TYPE supernode_epilog_jobs_total counter\n"
		"supernode_epilog_jobs_total 0\n"
		"# HELP supernode_epilog_drains_total Epilog runs that drained this node.\n"
		"# TYPE supernode_epilog_drains_total counter\n"
		"supernode_epilog_drains_total 0\n"
		"# HELP supernode_epilog_last_run_timestamp_seconds When the epilog last ran, seconds since the epoch.\n"
		"# TYPE supernode_epilog_last_run_timestamp_seconds gauge\n"
		"supernode_epilog_last_run_timestamp_seconds 7\n");
	free(text);
}

static void test_state_add(void **state)
{
	json_object *rec = parse(
		"{\"drain_reason\": \"supernode: XID79 ...\", \"xid_events\": ["
		"{\"xid\": 79}, {\"xid\": 94}, {\"xid\": 94}]}");
	json_object *rec2 =
		parse("{\"drain_reason\": null, \"xid_events\": []}");
	json_object *s1, *s2, *s3;

	(void)state;
	s1 = sn_promfile_state_add(NULL, rec);
	assert_string_equal(
		json_object_to_json_string_ext(s1, JSON_C_TO_STRING_PLAIN),
		"{\"schema\":1,\"jobs\":1,\"drains\":1,\"xid\":{\"79\":1,\"94\":2}}");
	s2 = sn_promfile_state_add(s1, rec2);
	assert_string_equal(
		json_object_to_json_string_ext(s2, JSON_C_TO_STRING_PLAIN),
		"{\"schema\":1,\"jobs\":2,\"drains\":1,\"xid\":{\"79\":1,\"94\":2}}");
	/* a run without a record changes no count; junk state starts at 0 */
	s3 = sn_promfile_state_add(rec2, NULL);
	assert_string_equal(
		json_object_to_json_string_ext(s3, JSON_C_TO_STRING_PLAIN),
		"{\"schema\":1,\"jobs\":0,\"drains\":0,\"xid\":{}}");
	json_object_put(s1);
	json_object_put(s2);
	json_object_put(s3);
	json_object_put(rec);
	json_object_put(rec2);
}

static void tmpdir(char *dir)
{
	strcpy(dir, "/tmp/sn-prom-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void rmdir_all(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static char *read_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sn_file_read(path, 1 << 24, &buf) < 0)
		return NULL;
	return buf;
}

static void test_update(void **state)
{
	json_object *snap = parse(small_snapshot);
	json_object *rec = parse(
		"{\"drain_reason\": null, \"xid_events\": [{\"xid\": 13}]}");
	struct sn_error err;
	char dir[64], *text;

	(void)state;
	tmpdir(dir);
	assert_int_equal(sn_promfile_update(dir, snap, rec, 100, &err), 0);
	assert_int_equal(sn_promfile_update(dir, snap, rec, 200, &err), 0);
	text = read_file(dir, SN_PROM_STATE_FILE);
	assert_string_equal(
		text,
		"{\"schema\":1,\"jobs\":2,\"drains\":0,\"xid\":{\"13\":2}}");
	free(text);
	text = read_file(dir, SN_PROM_FILE);
	assert_contains(text, "supernode_epilog_jobs_total 2\n");
	assert_contains(text, "supernode_xid_events_total{xid=\"13\"} 2\n");
	assert_contains(text,
			"supernode_epilog_last_run_timestamp_seconds 200\n");
	free(text);
	/* a corrupt state starts again from zero */
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, SN_PROM_STATE_FILE);
		assert_int_equal(unit_write_file(path, "{\"jobs\": ", 9, 0644),
				 0);
	}
	assert_int_equal(sn_promfile_update(dir, snap, NULL, 300, &err), 0);
	text = read_file(dir, SN_PROM_FILE);
	assert_contains(text, "supernode_epilog_jobs_total 0\n");
	free(text);
	/* a folder that cannot be made (a file in its way): an error, no crash */
	{
		char path[PATH_MAX], want[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s/sub", dir, SN_PROM_FILE);
		err_reset(&err);
		assert_int_equal(sn_promfile_update(path, snap, rec, 1, &err),
				 -1);
		snprintf(want, sizeof(want),
			 "not a folder (regular file): %s/%s", dir,
			 SN_PROM_FILE);
		assert_string_equal(err.msg, want);
	}
	rmdir_all(dir);
	json_object_put(snap);
	json_object_put(rec);
}

/* A PID that was a child a moment ago and is gone now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

/*
 * Issue 9 items 7 and 9: textfile_dir through a user's link is refused and its
 * target untouched; a killed epilog's temporaries go (under the lock), a
 * live one's and other tools' files stay.
 */
static void test_update_trusted_folder(void **state)
{
	json_object *snap = parse(small_snapshot);
	char dir[64], link[128], victim[128], want[256];
	char name[64], live[64], other[64];
	const char *const made[] = { name, live, other };
	struct sn_error err;
	FILE *f;

	(void)state;
	tmpdir(dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/textfile", dir);
	assert_int_equal(mkdir(victim, 0755), 0);
	/* planted where users write (a link in root's own folder is followed) */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(symlink(victim, link), 0);
	err_reset(&err);
	assert_int_equal(sn_promfile_update(link, snap, NULL, 1, &err), -1);
	snprintf(want, sizeof(want), "a symbolic link, not followed: %s", link);
	assert_string_equal(err.msg, want);
	assert_false(exists(victim, SN_PROM_FILE));
	assert_false(exists(victim, SN_PROM_LOCK_FILE));
	/* temporaries: a dead epilog's of both files go, the others stay */
	snprintf(name, sizeof(name), "%s.%d.tmp", SN_PROM_FILE,
		 (int)dead_pid());
	snprintf(live, sizeof(live), "%s.%d.tmp", SN_PROM_STATE_FILE,
		 (int)getppid());
	snprintf(other, sizeof(other), "node.prom.%d.tmp", (int)dead_pid());
	for (size_t i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "%s/%s", victim, made[i]);
		f = fopen(want, "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(sn_promfile_update(victim, snap, NULL, 1, &err), 0);
	assert_false(exists(victim, name));
	assert_true(exists(victim, live));
	assert_true(exists(victim, other)); /* not ours: another exporter's */
	assert_true(exists(victim, SN_PROM_FILE));
	rmdir_all(dir);
	json_object_put(snap);
}

/* promtool is there; if not, says why the test skips (tests/skips). */
static bool have_promtool(void)
{
	if (access("/usr/bin/promtool", X_OK) == 0)
		return true;
	print_message("no /usr/bin/promtool (Debian: prometheus)\n");
	return false;
}

/* promtool check metrics < file: exit 0 and nothing printed. */
static void promtool_ok(const char *path)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	char line[512];
	int lines = 0;

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/promtool check metrics < '%s' 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "promtool: %s", line);
		lines++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(lines, 0);
}

/* The real sysfs counters of an H100 node (all ports) through promtool. */
static void test_promtool(void **state)
{
	json_object *snap = parse("{\"ports\": {}}"), *ports, *small;
	json_object *rec = parse(
		"{\"drain_reason\": \"x\", \"xid_events\": [{\"xid\": 79}]}");
	static const char *const devs[] = { "mlx5_0", "mlx5_1", "mlx5_4",
					    "mlx5_5", "mlx5_6", "mlx5_7",
					    "mlx5_8", "mlx5_9" };
	struct sn_error err;
	char dir[64], path[PATH_MAX];

	(void)state;
	if (!have_promtool())
		skip();
	json_object_object_get_ex(snap, "ports", &ports);
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		json_object *c = sn_ib_port_counters_json(IB_TREE, devs[i], 1);
		char key[32];

		assert_non_null(c);
		snprintf(key, sizeof(key), "%s/1", devs[i]);
		json_object_object_add(ports, key, c);
	}
	small = parse(small_snapshot);
	json_object_object_add(
		snap, "accelerators",
		json_object_get(json_object_object_get(small, "accelerators")));
	json_object_put(small);
	tmpdir(dir);
	assert_int_equal(sn_promfile_update(dir, snap, rec, 1764430000, &err),
			 0);
	snprintf(path, sizeof(path), "%s/%s", dir, SN_PROM_FILE);
	promtool_ok(path);
	rmdir_all(dir);
	json_object_put(snap);
	json_object_put(rec);
}

static void test_promtool_small(void **state)
{
	json_object *snap = parse(small_snapshot);
	struct sn_error err;
	char dir[64], path[PATH_MAX];

	(void)state;
	if (!have_promtool())
		skip();
	tmpdir(dir);
	assert_int_equal(sn_promfile_update(dir, snap, NULL, 1, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, SN_PROM_FILE);
	promtool_ok(path);
	rmdir_all(dir);
	json_object_put(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_small),
		cmocka_unit_test(test_render_wide),
		cmocka_unit_test(test_render_empty),
		cmocka_unit_test(test_state_add),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_update_trusted_folder),
		cmocka_unit_test(test_promtool_small),
		cmocka_unit_test(test_promtool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
