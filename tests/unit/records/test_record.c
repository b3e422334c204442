/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_record_*: the per-job record from a baseline and an end snapshot.
 * Port counters come from a copy of the real sysfs tree in
 * fixtures/sysfs-infiniband/gpud-h100 (read through
 * sn_ib_port_counters_json, raised between the two snapshots); Xid events
 * from our kmsg fixture and the real logs in fixtures/nvidia/kmsg.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "helpers/fake_sysfs.h"

#include "records/sn_baseline.h"
#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_kmsg.h"
#include "records/sn_record.h"

#define IB_TREE SN_FIXTURES "/sysfs-infiniband/gpud-h100/sys"
#define REAL_KMSG SN_FIXTURES "/nvidia/kmsg/"
#define OWN_KMSG SN_FIXTURES "/kmsg/records.kmsg"

#define CFG_HEAD "supernodes:\n  - name: sn01\n    nodes: gpu-a[001-002]\n"

static struct sn_config *config(const char *extra)
{
	char yaml[2048];
	struct sn_error err;
	struct sn_config *cfg;

	snprintf(yaml, sizeof(yaml), "%s%s", CFG_HEAD, extra ? extra : "");
	cfg = sn_config_load_buffer("test.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("config: %s", err.msg);
	return cfg;
}

static json_object *parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	if (!o)
		fail_msg("bad JSON in test: %s", text);
	return o;
}

static struct tree copied; /* the current test's copy of a fixture tree */

/* Copy the fixture tree src into a new temporary tree; its sys into dir. */
static void copy_fixture(const char *src, char *dir)
{
	tree_new(&copied);
	tree_copy(&copied, "sys", src);
	tree_path(&copied, "sys", dir);
}

/* A temporary copy of the real tree; path into dir (PATH_MAX). */
static void copy_tree(char *dir)
{
	copy_fixture(IB_TREE, dir);
}

/* Remove the copy whose sys is sys. */
static void remove_tree(const char *sys)
{
	(void)sys;
	tree_free(&copied);
}

static void set_counter(const char *sys, const char *dev, const char *group,
			const char *name, const char *value)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/%s/%s",
		 sys, dev, group, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

/* A snapshot as sn_baseline_collect() makes it, for ports mlx5_0/1, mlx5_1/1. */
static json_object *snapshot(const char *sys, int64_t time, const char *accel)
{
	json_object *doc = json_object_new_object();
	json_object *ports = json_object_new_object();
	static const char *const devs[] = { "mlx5_0", "mlx5_1" };

	json_object_object_add(doc, "schema", json_object_new_int(1));
	json_object_object_add(doc, "job_id", json_object_new_int(42));
	json_object_object_add(doc, "node", json_object_new_string("gpu-a001"));
	json_object_object_add(doc, "time", json_object_new_int64(time));
	json_object_object_add(doc, "kmsg_seq", json_object_new_int(102));
	for (size_t i = 0; i < 2; i++) {
		char key[32];
		json_object *c = sn_ib_port_counters_json(sys, devs[i], 1);

		assert_non_null(c);
		snprintf(key, sizeof(key), "%s/1", devs[i]);
		json_object_object_add(ports, key, c);
	}
	json_object_object_add(doc, "ports", ports);
	json_object_object_add(doc, "accelerators",
			       accel ? parse(accel) : NULL);
	return doc;
}

#define ACCEL_START                                                               \
	"{\"vendor\": \"nvidia\", \"driver\": \"550.90.07\", \"error\": null, "   \
	"\"devices\": {\"0000:19:00.0\": {\"index\": 0, \"error\": null, "        \
	"\"nvlink_version\": 4, "                                                 \
	"\"ecc_corrected_volatile\": 3, \"ecc_uncorrected_volatile\": 0, "        \
	"\"pcie_replay_counter\": 0, \"remapped_rows\": {\"correctable\": 0, "    \
	"\"uncorrectable\": 0, \"pending\": false, \"failure\": false}, "         \
	"\"nvlink\": {\"0\": {\"active\": true, \"replay\": 0, \"recovery\": 0, " \
	"\"crc_flit\": 0, \"crc_data\": 0}}}}}"
#define ACCEL_END                                                                   \
	"{\"vendor\": \"nvidia\", \"driver\": \"550.90.07\", \"error\": null, "     \
	"\"devices\": {\"0000:19:00.0\": {\"index\": 0, \"error\": null, "          \
	"\"nvlink_version\": 4, "                                                   \
	"\"ecc_corrected_volatile\": 5, \"ecc_uncorrected_volatile\": 2, "          \
	"\"pcie_replay_counter\": 0, \"remapped_rows\": {\"correctable\": 0, "      \
	"\"uncorrectable\": 1, \"pending\": true, \"failure\": false}, "            \
	"\"nvlink\": {\"0\": {\"active\": true, \"replay\": 150, \"recovery\": 0, " \
	"\"crc_flit\": 0, \"crc_data\": 0}}}}}"

/* o.path (dot-separated; array index as a number) or NULL. */
static json_object *at(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o;
	     k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	}
	return o;
}

static void assert_path_int(json_object *o, const char *path, int64_t v)
{
	json_object *x = at(o, path);

	if (!x || !json_object_is_type(x, json_type_int))
		fail_msg("%s: not an integer", path);
	if (json_object_get_int64(x) != v)
		fail_msg("%s: %lld, expected %lld", path,
			 (long long)json_object_get_int64(x), (long long)v);
}

static void assert_path_str(json_object *o, const char *path, const char *v)
{
	json_object *x = at(o, path);

	if (!x || !json_object_is_type(x, json_type_string))
		fail_msg("%s: not a string", path);
	assert_string_equal(json_object_get_string(x), v);
}

static void assert_path_null(json_object *o, const char *path)
{
	json_object *x = (json_object *)1;

	if (!json_object_is_type(o, json_type_object) &&
	    !json_object_is_type(o, json_type_array))
		fail_msg("not a container");
	x = at(o, path);
	if (x)
		fail_msg("%s: not null: %s", path,
			 json_object_to_json_string(x));
}

/* The verdict for counter on device, or NULL. */
static json_object *verdict(json_object *rec, const char *counter,
			    const char *device)
{
	json_object *v = at(rec, "verdicts");

	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!strcmp(json_object_get_string(at(e, "counter")),
			    counter) &&
		    !strcmp(json_object_get_string(at(e, "device")), device))
			return e;
	}
	return NULL;
}

static json_object *build(const struct sn_config *cfg, json_object *base,
			  enum sn_baseline_status st, json_object *end,
			  json_object *xids, int64_t end_time)
{
	struct sn_record_input in = {
		.job_id = 42,
		.user = "alice",
		.node = "gpu-a001",
		.supernode = "sn01",
		.has_exit_code = true,
		.exit_code = 0,
		.end_time = end_time,
		.baseline_status = st,
		.baseline = base,
		.end = end,
		.xid_events = xids,
	};
	json_object *rec = sn_record_build(cfg, &in);

	assert_non_null(rec);
	return rec;
}

/* The real counters, raised during the "job": exact deltas and verdicts. */
static void test_real_ports(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *base, *end, *rec;
	char sys[PATH_MAX], reason[256];

	(void)state;
	copy_tree(sys);
	base = snapshot(sys, 1000, ACCEL_START);
	/* mlx5_0: real 230442669431839 / 230539874932483 words */
	set_counter(sys, "mlx5_0", "counters", "port_xmit_data",
		    "230442694431839");
	set_counter(sys, "mlx5_0", "counters", "port_rcv_data",
		    "230539874932483");
	set_counter(sys, "mlx5_0", "counters", "port_xmit_packets",
		    "315487951081");
	set_counter(sys, "mlx5_0", "counters", "symbol_error", "12");
	set_counter(sys, "mlx5_0", "counters", "link_downed", "1");
	set_counter(sys, "mlx5_0", "counters", "port_rcv_errors", "30");
	set_counter(sys, "mlx5_0", "hw_counters", "out_of_sequence", "7");
	/* mlx5_1: a reset and a vanished counter */
	set_counter(sys, "mlx5_1", "counters", "port_rcv_errors", "2");
	set_counter(sys, "mlx5_1", "counters", "symbol_error", "N/A (no PMA)");
	end = snapshot(sys, 0, ACCEL_END);
	rec = build(cfg, base, SN_BASELINE_OK, end, NULL, 1100);

	assert_path_int(rec, "schema", 1);
	assert_path_int(rec, "job_id", 42);
	assert_path_str(rec, "user", "alice");
	assert_path_str(rec, "supernode", "sn01");
	assert_path_int(rec, "start", 1000);
	assert_path_int(rec, "end", 1100);
	assert_path_int(rec, "exit_code", 0);
	assert_path_str(rec, "baseline", "ok");
	assert_int_equal(json_object_array_length(at(rec, "ports")), 2);
	assert_path_str(rec, "ports.0.device", "mlx5_0");
	assert_path_int(rec, "ports.0.port", 1);
	assert_path_null(rec, "ports.0.link_layer");
	assert_path_int(rec, "ports.0.deltas.port_xmit_data", 25000000);
	assert_path_int(rec, "ports.0.bytes_sent", 100000000);
	assert_path_int(rec, "ports.0.bytes_received", 0);
	assert_path_int(rec, "ports.0.packets_sent", 10000);
	assert_path_int(rec, "ports.0.packets_received", 0);
	/* 1e8 bytes x 8 / 100 s / 1e9 = 0.008 Gb/s */
	assert_true(
		fabs(json_object_get_double(at(rec, "ports.0.mean_tx_gbps")) -
		     0.008) < 1e-12);
	assert_true(json_object_get_double(at(rec, "ports.0.mean_rx_gbps")) ==
		    0.0);
	assert_path_int(rec, "ports.0.deltas.symbol_error", 12);
	assert_path_int(rec, "ports.0.deltas.link_downed", 1);
	assert_path_int(rec, "ports.0.deltas.port_rcv_errors", 16);
	assert_path_int(rec, "ports.0.deltas.out_of_sequence", 7);
	/* real value 15 at both ends: the 4-bit counter is stuck at its max */
	assert_path_null(rec, "ports.0.deltas.excessive_buffer_overrun_errors");
	assert_path_str(rec, "ports.0.unknown.excessive_buffer_overrun_errors",
			"saturated at its 4-bit maximum");
	/* mlx5_1: real link_downed 255 (8-bit max), a reset, a bad read */
	assert_path_str(rec, "ports.1.unknown.link_downed",
			"saturated at its 8-bit maximum");
	assert_path_str(rec, "ports.1.unknown.port_rcv_errors",
			"counter reset during the job (end < start)");
	assert_path_str(rec, "ports.1.unknown.symbol_error",
			"unreadable at end");
	assert_path_int(rec, "ports.1.bytes_sent", 0);
	/* verdicts with the default thresholds */
	assert_path_str(verdict(rec, "symbol_error", "mlx5_0/1"), "grade",
			"WARN");
	assert_path_int(verdict(rec, "symbol_error", "mlx5_0/1"), "warn", 10);
	assert_path_int(verdict(rec, "symbol_error", "mlx5_0/1"), "crit", 120);
	assert_path_str(verdict(rec, "symbol_error", "mlx5_0/1"), "unit", "/h");
	assert_path_str(verdict(rec, "link_downed", "mlx5_0/1"), "unit",
			"count");
	assert_path_str(verdict(rec, "link_downed", "mlx5_0/1"), "grade",
			"CRIT");
	assert_path_null(verdict(rec, "link_downed", "mlx5_0/1"), "warn");
	assert_path_str(verdict(rec, "port_rcv_errors", "mlx5_0/1"), "grade",
			"WARN");
	assert_path_str(verdict(rec, "out_of_sequence", "mlx5_0/1"), "grade",
			"OK");
	assert_null(verdict(rec, "link_downed",
			    "mlx5_1/1")); /* unknown: no verdict */
	assert_null(
		verdict(rec, "port_xmit_data", "mlx5_0/1")); /* no threshold */
	/* accelerators */
	assert_path_str(rec, "accelerators.0.bus_id", "0000:19:00.0");
	assert_path_int(rec, "accelerators.0.index", 0);
	assert_path_int(rec, "accelerators.0.deltas.ecc_corrected", 2);
	assert_path_int(rec, "accelerators.0.deltas.ecc_uncorrected", 2);
	assert_path_int(rec, "accelerators.0.deltas.nvlink_replay", 150);
	assert_path_str(verdict(rec, "ecc_uncorrected", "0000:19:00.0"),
			"grade", "CRIT");
	/*
	 * NVLink 3.0 (version code 4, an A100): the legacy counters are
	 * judged, as rates since issue 12: 150 replays in a job under an hour
	 * are 150/h, over crit 10/h (they were WARN against a per-job 100000).
	 * Without a version they would be information (unit_record_traffic).
	 */
	assert_path_int(rec, "accelerators.0.nvlink_version", 4);
	assert_path_str(verdict(rec, "nvlink_replay", "0000:19:00.0"), "grade",
			"CRIT");
	/* Corrected ECC events: information, no verdict by default. */
	assert_null(verdict(rec, "ecc_corrected", "0000:19:00.0"));
	assert_path_str(rec, "worst", "CRIT");
	/* nvlink_replay 150/h / 10/h beats ecc_uncorrected 2 / 1 */
	assert_path_str(
		rec, "drain_reason",
		"supernode: EPILOG_NVLINK_REPLAY 0000:19:00.0 +150 in 100 s = 150/h (crit 10/h) (+2 more)");
	assert_int_equal(
		sn_record_drain_reason(rec, "tag:", reason, sizeof(reason)), 3);
	assert_string_equal(
		reason,
		"tag: EPILOG_NVLINK_REPLAY 0000:19:00.0 +150 in 100 s = 150/h (crit 10/h) (+2 more)");
	json_object_put(rec);
	json_object_put(base);
	json_object_put(end);
	remove_tree(sys);
	sn_config_free(cfg);
}

static const char *small_end =
	"{\"schema\": 1, \"job_id\": 42, \"time\": 2000, \"kmsg_seq\": 7, "
	"\"ports\": {\"mlx5_2/1\": {\"link_layer\": \"Ethernet\", "
	"\"counters\": {\"symbol_error\": 5, \"port_xmit_data\": 100}, "
	"\"hw_counters\": {\"np_cnp_sent\": 9}}}, "
	"\"accelerators\": {\"vendor\": \"nvidia\", \"devices\": "
	"{\"0000:1b:00.0\": {\"index\": 3, \"ecc_corrected_volatile\": 1}}}}";

static void assert_all_unknown(json_object *rec, const char *why,
			       const char *status)
{
	assert_path_str(rec, "baseline", status);
	assert_path_null(rec, "start");
	assert_path_str(rec, "ports.0.device", "mlx5_2");
	assert_path_str(rec, "ports.0.link_layer", "Ethernet");
	assert_path_null(rec, "ports.0.deltas.symbol_error");
	assert_path_null(rec, "ports.0.deltas.port_xmit_data");
	assert_path_null(rec, "ports.0.deltas.np_cnp_sent");
	assert_path_str(rec, "ports.0.unknown.symbol_error", why);
	assert_path_str(rec, "ports.0.unknown.np_cnp_sent", why);
	assert_path_null(rec, "ports.0.bytes_sent");
	assert_path_null(rec, "ports.0.mean_tx_gbps");
	assert_path_null(rec, "accelerators.0.deltas.ecc_corrected");
	assert_path_str(rec, "accelerators.0.unknown.ecc_corrected", why);
	assert_int_equal(json_object_array_length(at(rec, "verdicts")), 0);
	assert_int_equal(json_object_array_length(at(rec, "xid_events")), 0);
	assert_path_str(rec, "worst", "OK");
	assert_path_null(rec, "drain_reason");
	assert_path_str(rec, "xid_scan", "no baseline");
}

static void test_missing_and_corrupt_baseline(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *end = parse(small_end), *rec, *bad;
	json_object *xids = parse(
		"[{\"bus_id\": \"0000:1b:00.0\", \"xid\": 79, "
		"\"severity\": \"drain\", \"meaning\": \"m\", \"text\": \"t\"}]");

	(void)state;
	rec = build(cfg, NULL, SN_BASELINE_MISSING, end, xids, 2100);
	assert_all_unknown(rec, "baseline missing", "missing");
	json_object_put(rec);
	/* a baseline handed over as OK that is not one counts as corrupt */
	bad = parse("{\"schema\": 7}");
	rec = build(cfg, bad, SN_BASELINE_OK, end, xids, 2100);
	assert_all_unknown(rec, "baseline corrupt", "corrupt");
	json_object_put(rec);
	rec = build(cfg, NULL, SN_BASELINE_CORRUPT, end, xids, 2100);
	assert_all_unknown(rec, "baseline corrupt", "corrupt");
	json_object_put(rec);
	json_object_put(bad);
	json_object_put(xids);
	json_object_put(end);
	sn_config_free(cfg);
}

/*
 * Issue 20 item 2: the record says which attempt it is (Slurm's restart
 * count + 1), the job's nodes and what ended it; the prolog's failure when
 * the baseline is missing for it.  Without a restart count the attempt
 * fields are left out (read as attempt 1).
 */
static void test_attempt_fields(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *end = parse(small_end), *rec;
	struct sn_record_input in = {
		.job_id = 42,
		.has_restart_count = true,
		.restart_count = 1,
		.node = "gpu-a001",
		.nodes = "gpu-a[001-002]",
		.prolog_failed = "supernode: IB_PORT_DOWN mlx5_0/1",
		.has_exit_code = true,
		.exit_code = 3,
		.signal = 0,
		.has_derived = true,
		.derived_exit = 0,
		.derived_signal = 9,
		.end_time = 2100,
		.baseline_status = SN_BASELINE_MISSING,
		.end = end,
	};

	(void)state;
	rec = sn_record_build(cfg, &in);
	assert_non_null(rec);
	assert_int_equal(json_object_get_int(at(rec, "attempt")), 2);
	assert_int_equal(json_object_get_int(at(rec, "restart_count")), 1);
	assert_path_str(rec, "nodes", "gpu-a[001-002]");
	assert_int_equal(json_object_get_int(at(rec, "exit_code")), 3);
	assert_int_equal(json_object_get_int(at(rec, "signal")), 0);
	assert_int_equal(json_object_get_int(at(rec, "derived_exit_code")), 0);
	assert_int_equal(json_object_get_int(at(rec, "derived_signal")), 9);
	assert_path_str(rec, "prolog_failed",
			"supernode: IB_PORT_DOWN mlx5_0/1");
	json_object_put(rec);
	/* no restart count, no nodes, a baseline: no attempt, no failure */
	in.has_restart_count = false;
	in.nodes = NULL;
	in.has_derived = false;
	in.baseline_status = SN_BASELINE_CORRUPT;
	rec = sn_record_build(cfg, &in);
	assert_false(json_object_object_get_ex(rec, "attempt", NULL));
	assert_false(json_object_object_get_ex(rec, "restart_count", NULL));
	assert_false(json_object_object_get_ex(rec, "prolog_failed", NULL));
	assert_path_null(rec, "nodes");
	assert_path_null(rec, "derived_exit_code");
	json_object_put(rec);
	json_object_put(end);
	sn_config_free(cfg);
}

static enum sn_baseline_status parse_text(const char *text)
{
	json_object *o = NULL;
	enum sn_baseline_status st =
		sn_baseline_parse(text, strlen(text), 0, &o);

	assert_true((st != SN_BASELINE_CORRUPT) == (o != NULL));
	json_object_put(o);
	return st;
}

static void test_baseline_parse(void **state)
{
	const char *ok =
		"{\"schema\": 1, \"job_id\": 42, \"time\": 5, \"ports\": {}}\n";
	json_object *o = NULL;
	char path[] = "/tmp/sn-baseline-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(sn_baseline_parse(ok, strlen(ok), 42, &o),
			 SN_BASELINE_OK);
	assert_non_null(o);
	json_object_put(o);
	assert_int_equal(sn_baseline_parse(ok, strlen(ok), 0, &o),
			 SN_BASELINE_OK);
	json_object_put(o);
	assert_int_equal(sn_baseline_parse(ok, strlen(ok), 43, &o),
			 SN_BASELINE_CORRUPT);
	assert_null(o);
	assert_int_equal(sn_baseline_parse(ok, strlen(ok) - 3, 42, &o),
			 SN_BASELINE_CORRUPT);
	/* a newer prolog's format (mixed versions); 0 and "2" are no format */
	assert_int_equal(parse_text("{\"schema\": 2, \"time\": 5}"),
			 SN_BASELINE_NEWER);
	assert_int_equal(
		parse_text("{\"schema\": 0, \"time\": 5, \"ports\": {}}"),
		SN_BASELINE_CORRUPT);
	assert_int_equal(
		parse_text("{\"schema\": \"2\", \"time\": 5, \"ports\": {}}"),
		SN_BASELINE_CORRUPT);
	assert_int_equal(
		parse_text("{\"schema\": 1, \"time\": 5, \"ports\": {}} x"),
		SN_BASELINE_CORRUPT);
	assert_int_equal(
		parse_text("{\"schema\": 1, \"time\": 5, \"ports\": []}"),
		SN_BASELINE_CORRUPT);
	assert_int_equal(parse_text("[1]"), SN_BASELINE_CORRUPT);
	assert_int_equal(
		parse_text("{\"schema\": 1, \"time\": 5, \"ports\": {}}"),
		SN_BASELINE_OK);
	assert_int_equal(sn_baseline_parse("", 0, 0, &o), SN_BASELINE_CORRUPT);
	assert_int_equal(sn_baseline_load("/nonexistent/42.json", 42, &o),
			 SN_BASELINE_MISSING);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"schema\": 1, \"ti", 17), 17);
	close(fd);
	assert_int_equal(sn_baseline_load(path, 42, &o), SN_BASELINE_CORRUPT);
	assert_null(o);
	unlink(path);
	assert_string_equal(sn_baseline_status_name(SN_BASELINE_MISSING),
			    "missing");
}

/* The record of baseline text (parsed as the epilog does) against end. */
static json_object *record_of_text(const struct sn_config *cfg,
				   const char *text, json_object *end,
				   enum sn_baseline_status want)
{
	json_object *base = NULL, *rec;

	assert_int_equal(sn_baseline_parse(text, strlen(text), 42, &base),
			 want);
	rec = build(cfg, base, want, end, NULL, 1100);
	json_object_put(base);
	return rec;
}

/*
 * Mixed versions (issue 19 item 2): the baseline's format is its "schema".
 * Every release since 6de1aec wrote "schema": 1; one without it reads as
 * format 1, unknown fields are ignored (same record, byte for byte), and
 * a newer format is UNKNOWN with the upgrade message, never a drain.
 */
static void test_baseline_mixed_versions(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *base, *end, *rec, *newer;
	char sys[PATH_MAX], today[8192], other[8192];
	const char *text;

	(void)state;
	copy_tree(sys);
	base = snapshot(sys, 1000, ACCEL_START);
	set_counter(sys, "mlx5_0", "counters", "symbol_error", "12");
	end = snapshot(sys, 0, ACCEL_END);
	text = json_object_to_json_string_ext(base, JSON_C_TO_STRING_PLAIN);
	rec = record_of_text(cfg, text, end, SN_BASELINE_OK);
	snprintf(today, sizeof(today), "%s",
		 json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	assert_path_int(rec, "ports.0.deltas.symbol_error", 12);
	assert_path_str(rec, "worst", "CRIT");
	json_object_put(rec);

	/* no "schema": read as format 1, the same record */
	json_object_object_del(base, "schema");
	text = json_object_to_json_string_ext(base, JSON_C_TO_STRING_PLAIN);
	rec = record_of_text(cfg, text, end, SN_BASELINE_OK);
	snprintf(other, sizeof(other), "%s",
		 json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	assert_string_equal(other, today);
	json_object_put(rec);

	/* format 1 with fields this epilog does not know: ignored */
	json_object_object_add(base, "schema", json_object_new_int(1));
	json_object_object_add(base, "future_field", parse("{\"x\": [1, 2]}"));
	json_object_object_add(base, "format_minor", json_object_new_int(3));
	text = json_object_to_json_string_ext(base, JSON_C_TO_STRING_PLAIN);
	rec = record_of_text(cfg, text, end, SN_BASELINE_OK);
	snprintf(other, sizeof(other), "%s",
		 json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	assert_string_equal(other, today);
	json_object_put(rec);

	/* format 2: nothing judged, UNKNOWN with the upgrade message */
	json_object_object_add(base, "schema", json_object_new_int(2));
	text = json_object_to_json_string_ext(base, JSON_C_TO_STRING_PLAIN);
	rec = record_of_text(cfg, text, end, SN_BASELINE_NEWER);
	assert_path_str(rec, "baseline", "newer");
	assert_path_null(rec, "start");
	assert_path_null(rec, "ports.0.deltas.symbol_error");
	assert_path_str(rec, "ports.0.unknown.symbol_error",
			"baseline of a newer format");
	assert_int_equal(json_object_array_length(at(rec, "verdicts")), 1);
	newer = verdict(rec, "baseline_format", "baseline");
	assert_non_null(newer);
	assert_path_str(newer, "grade", "UNKNOWN");
	assert_path_str(
		newer, "reason",
		"baseline written by a newer supernode-prolog (format 2), this epilog reads format 1: upgrade the epilog");
	assert_path_str(rec, "worst", "UNKNOWN");
	assert_path_null(rec, "drain_reason");
	json_object_put(rec);

	json_object_put(base);
	json_object_put(end);
	remove_tree(sys);
	sn_config_free(cfg);
}

static void test_config_thresholds(void **state)
{
	struct sn_config *cfg =
		config("epilog:\n  thresholds:\n"
		       "    symbol_error: {warn: 2/h, crit: 5/h}\n"
		       "    np_cnp_sent: {warn: 3/TB}\n");
	json_object *base = parse(
		"{\"schema\": 1, \"job_id\": 42, \"time\": 2000, \"kmsg_seq\": 7, "
		"\"ports\": {\"mlx5_2/1\": {\"counters\": {\"symbol_error\": 0, "
		"\"port_xmit_data\": 0}, \"hw_counters\": {\"np_cnp_sent\": 0}}}}");
	json_object *end = parse(small_end), *rec;

	(void)state;
	rec = build(cfg, base, SN_BASELINE_OK, end, NULL, 2000);
	assert_path_int(verdict(rec, "symbol_error", "mlx5_2/1"), "delta", 5);
	assert_path_int(verdict(rec, "symbol_error", "mlx5_2/1"), "crit", 5);
	assert_path_str(verdict(rec, "symbol_error", "mlx5_2/1"), "grade",
			"CRIT");
	assert_path_str(verdict(rec, "np_cnp_sent", "mlx5_2/1"), "grade",
			"WARN");
	assert_path_null(verdict(rec, "np_cnp_sent", "mlx5_2/1"), "crit");
	/* duration 0: no mean throughput, bytes known */
	assert_path_int(rec, "ports.0.bytes_sent", 400);
	assert_path_null(rec, "ports.0.mean_tx_gbps");
	/* GPU absent from the baseline */
	assert_path_str(rec, "accelerators.0.unknown.ecc_corrected",
			"missing at start");
	assert_path_int(rec, "accelerators.0.index", 3);
	assert_path_str(
		rec, "drain_reason",
		"supernode: EPILOG_SYMBOL_ERROR mlx5_2/1 +5 in 0 s = 5/h (crit 5/h)");
	assert_path_str(rec, "worst", "CRIT");
	json_object_put(rec);
	json_object_put(base);
	json_object_put(end);
	sn_config_free(cfg);
}

/*
 * Issue 9 item 4: symbol_error going from 0 to 2^64-1 was recorded as a
 * delta of 18446744073709551615 and drained the node.  It is unknown with
 * the reason, and nothing drains.
 */
static void test_absurd_values_never_drain(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *base = parse(
		"{\"schema\": 1, \"job_id\": 42, \"time\": 1000, \"kmsg_seq\": 7, "
		"\"ports\": {\"mlx5_0/1\": {\"rate_gbps\": 400.0, "
		"\"counters\": {\"symbol_error\": 0, \"link_downed\": 0, "
		"\"port_xmit_data\": 0}, "
		"\"hw_counters\": {\"out_of_sequence\": 0}}}}");
	json_object *end = parse(
		"{\"schema\": 1, \"job_id\": 42, \"time\": 1100, \"kmsg_seq\": 7, "
		"\"ports\": {\"mlx5_0/1\": {\"rate_gbps\": 400.0, "
		"\"counters\": {\"symbol_error\": 18446744073709551615, "
		"\"link_downed\": 4294967295, \"port_xmit_data\": 2550000000001}, "
		"\"hw_counters\": {\"out_of_sequence\": 18446744073709551615}}}}");
	json_object *rec;

	(void)state;
	rec = build(cfg, base, SN_BASELINE_OK, end, NULL, 1100);
	assert_path_null(rec, "ports.0.deltas.symbol_error");
	assert_path_str(
		rec, "ports.0.unknown.symbol_error",
		"value 18446744073709551615 at end exceeds the counter's "
		"16-bit width (all-ones: a dead device read)");
	assert_path_null(rec, "ports.0.deltas.link_downed");
	assert_path_str(rec, "ports.0.unknown.link_downed",
			"value 4294967295 at end exceeds the counter's 8-bit "
			"width (all-ones: a dead device read)");
	assert_path_null(rec, "ports.0.deltas.out_of_sequence");
	assert_path_str(rec, "ports.0.unknown.out_of_sequence",
			"value 18446744073709551615 at end is all-ones (a dead "
			"device read)");
	/* 102 s at 400 Gb/s x 2 carries 2550000000000 words, not one more */
	assert_path_null(rec, "ports.0.deltas.port_xmit_data");
	assert_path_str(
		rec, "ports.0.unknown.port_xmit_data",
		"delta 2550000000001 words in 100 s is more than a 400 Gb/s "
		"line can carry (physically impossible)");
	assert_true(json_object_get_double(at(rec, "ports.0.rate_gbps")) ==
		    400.0);
	assert_path_null(rec, "ports.0.bytes_sent");
	assert_path_null(rec, "ports.0.mean_tx_gbps");
	/* unknown is never judged: no verdict, no drain */
	assert_null(verdict(rec, "symbol_error", "mlx5_0/1"));
	assert_null(verdict(rec, "link_downed", "mlx5_0/1"));
	assert_int_equal(json_object_array_length(at(rec, "verdicts")), 0);
	assert_path_str(rec, "worst", "OK");
	assert_path_null(rec, "drain_reason");
	json_object_put(rec);
	json_object_put(base);
	json_object_put(end);
	sn_config_free(cfg);
}

/*
 * Issue 17 item 4: a RoCE port's transport counters count every QP on the
 * port, a user's too.  rnr_nak_retry_err +200000 in 30 min (2 x crit
 * 100000/h) drained the node; alone it is WARN now, with why, and CRIT
 * only when a physical-layer counter of the same port moved too.
 */
#define ROCE_BASE                                                           \
	"{\"schema\": 1, \"job_id\": 42, \"time\": 1000, \"kmsg_seq\": 7, " \
	"\"ports\": {\"mlx5_bond_0/1\": {\"link_layer\": \"Ethernet\", "    \
	"\"counters\": {\"symbol_error\": 0, \"link_downed\": 0, "          \
	"\"port_rcv_errors\": 14}, \"hw_counters\": "                       \
	"{\"rnr_nak_retry_err\": 0}}}}"
#define ROCE_END(symbol_error)                                              \
	"{\"schema\": 1, \"job_id\": 42, \"time\": 2800, \"kmsg_seq\": 7, " \
	"\"ports\": {\"mlx5_bond_0/1\": {\"link_layer\": \"Ethernet\", "    \
	"\"counters\": {\"symbol_error\": " symbol_error ", "               \
	"\"link_downed\": 0, \"port_rcv_errors\": 14}, \"hw_counters\": "   \
	"{\"rnr_nak_retry_err\": 200000}}}}"

static json_object *roce_record(const struct sn_config *cfg, const char *end)
{
	json_object *base = parse(ROCE_BASE), *e = parse(end), *rec;

	rec = build(cfg, base, SN_BASELINE_OK, e, NULL, 2800);
	json_object_put(base);
	json_object_put(e);
	return rec;
}

static void test_roce_user_counters(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *rec, *v;

	(void)state;
	/* alone: WARN, no drain */
	rec = roce_record(cfg, ROCE_END("0"));
	v = verdict(rec, "rnr_nak_retry_err", "mlx5_bond_0/1");
	assert_non_null(v);
	assert_path_int(v, "delta", 200000);
	assert_true(json_object_get_double(at(v, "rate")) == 200000.0);
	assert_path_int(v, "crit", 100000);
	assert_path_str(v, "grade", "WARN");
	assert_path_str(v, "raised_by", "user");
	assert_path_null(v, "physical");
	assert_path_str(v, "capped",
			"over crit, but any user's traffic can raise "
			"rnr_nak_retry_err and no physical-layer counter of "
			"mlx5_bond_0/1 moved");
	assert_path_str(verdict(rec, "symbol_error", "mlx5_bond_0/1"),
			"raised_by", "hardware");
	assert_path_str(rec, "worst", "WARN");
	assert_path_null(rec, "drain_reason");
	json_object_put(rec);

	/* with one symbol error on the port: CRIT, drained */
	rec = roce_record(cfg, ROCE_END("1"));
	v = verdict(rec, "rnr_nak_retry_err", "mlx5_bond_0/1");
	assert_path_str(v, "grade", "CRIT");
	assert_path_str(v, "physical", "symbol_error");
	assert_false(json_object_object_get_ex(v, "capped", NULL));
	assert_path_str(verdict(rec, "symbol_error", "mlx5_bond_0/1"), "grade",
			"OK");
	assert_path_str(rec, "worst", "CRIT");
	assert_path_str(rec, "drain_reason",
			"supernode: EPILOG_RNR_NAK_RETRY_ERR mlx5_bond_0/1 "
			"+200000 in 1800 s = 2e+05/h (crit 100000/h)");
	json_object_put(rec);
	sn_config_free(cfg);
}

/* The baseline document of node gpu-a001 whose sysfs is sys, parsed. */
static json_object *collect_doc(const char *sys)
{
	char extra[PATH_MAX + 64];
	struct sn_check_ctx ctx;
	struct sn_config *cfg;
	struct sn_error err;
	json_object *doc = NULL;
	char *text;

	snprintf(extra, sizeof(extra),
		 "paths:\n  sysfs: %s\n  kmsg: /nonexistent\n", sys);
	cfg = config(extra);
	if (sn_check_ctx_init(&ctx, cfg, "gpu-a001", &err))
		fail_msg("%s", err.msg);
	text = sn_baseline_collect(&ctx, 42);
	assert_non_null(text);
	assert_int_equal(sn_baseline_parse(text, strlen(text), 42, &doc),
			 SN_BASELINE_OK);
	free(text);
	sn_config_free(cfg);
	return doc;
}

/*
 * Issue 9 item 6: the real mlx4 port of node_exporter's fixture has
 * counters_ext/port_xmit_data_64 beside counters/port_xmit_data.  The
 * 32-bit counter moved 4000 words, the 64-bit one 250000: the bytes are
 * 1000000 (16000 was recorded from the 32-bit counter).
 */
static void test_bytes_from_64bit_counters(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *base, *end, *rec;
	char sys[PATH_MAX];
	int64_t t;

	(void)state;
	copy_fixture(SN_FIXTURES "/sysfs-mlx4/sys", sys);
	base = collect_doc(sys);
	/* real values 3733440 words in both, 4631917 received */
	set_counter(sys, "mlx4_0", "counters", "port_xmit_data", "3737440");
	set_counter(sys, "mlx4_0", "counters_ext", "port_xmit_data_64",
		    "3983440");
	set_counter(sys, "mlx4_0", "counters_ext", "port_xmit_packets_64",
		    "125");
	end = collect_doc(sys);
	t = json_object_get_int64(at(base, "time"));
	rec = build(cfg, base, SN_BASELINE_OK, end, NULL, t + 100);

	assert_path_str(rec, "ports.0.device", "mlx4_0");
	assert_path_str(rec, "ports.0.link_layer", "InfiniBand");
	assert_true(json_object_get_double(at(rec, "ports.0.rate_gbps")) ==
		    40.0);
	assert_path_int(rec, "ports.0.deltas.port_xmit_data", 4000);
	assert_path_int(rec, "ports.0.deltas.port_xmit_data_64", 250000);
	assert_path_int(rec, "ports.0.bytes_sent", 1000000);
	assert_path_int(rec, "ports.0.deltas.port_rcv_data_64", 0);
	assert_path_int(rec, "ports.0.bytes_received", 0);
	assert_path_int(rec, "ports.0.packets_sent",
			125); /* port_xmit_packets_64 */
	/* 1e6 bytes x 8 / 100 s / 1e9 */
	assert_true(
		fabs(json_object_get_double(at(rec, "ports.0.mean_tx_gbps")) -
		     8e-5) < 1e-15);
	/* the 64-bit counter moved more than 40 Gb/s can carry: unknown bytes */
	json_object_put(rec);
	json_object_put(end);
	set_counter(sys, "mlx4_0", "counters_ext", "port_xmit_data_64",
		    "300003733440");
	end = collect_doc(sys);
	rec = build(cfg, base, SN_BASELINE_OK, end, NULL, t + 100);
	assert_path_str(
		rec, "ports.0.unknown.port_xmit_data_64",
		"delta 300000000000 words in 100 s is more than a 40 Gb/s "
		"line can carry (physically impossible)");
	assert_path_null(rec, "ports.0.bytes_sent");
	json_object_put(rec);
	json_object_put(base);
	json_object_put(end);
	remove_tree(sys);
	sn_config_free(cfg);
}

/* ---- sn_baseline_read: the loader refuses what is not a baseline file ---- */

static void expect_read(const char *path, uint32_t job,
			enum sn_baseline_status want, const char *phrase)
{
	char msg[PATH_MAX + 128];
	struct sn_error err;
	json_object *o = (json_object *)1;

	err_reset(&err);
	alarm(10); /* a FIFO must not block: fail rather than hang */
	assert_int_equal(sn_baseline_read(path, job, &o, &err), want);
	alarm(0);
	assert_null(o);
	if (!phrase)
		return;
	snprintf(msg, sizeof(msg), "%s: %s", phrase, path);
	assert_string_equal(err.msg, msg);
}

static void test_baseline_read_refuses(void **state)
{
	char dir[] = "/tmp/sn-baseline-XXXXXX", path[PATH_MAX],
	     target[PATH_MAX];
	char cmd[PATH_MAX + 16];
	json_object *o = NULL;
	struct sn_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/42.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"schema\": 1, \"job_id\": 42, \"time\": 5, \"ports\": {}}\n",
	      f);
	fclose(f);
	assert_int_equal(sn_baseline_read(path, 42, &o, &err), SN_BASELINE_OK);
	json_object_put(o);
	expect_read(path, 43, SN_BASELINE_CORRUPT, "another job's baseline");
	/* a link to it: not followed */
	snprintf(target, sizeof(target), "%s", path);
	snprintf(path, sizeof(path), "%s/43.json", dir);
	assert_int_equal(symlink(target, path), 0);
	expect_read(path, 43, SN_BASELINE_CORRUPT,
		    "a symbolic link, not followed");
	/* a FIFO, a folder */
	snprintf(path, sizeof(path), "%s/44.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_read(path, 44, SN_BASELINE_CORRUPT, "not a regular file (fifo)");
	snprintf(path, sizeof(path), "%s/45.json", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	expect_read(path, 45, SN_BASELINE_CORRUPT,
		    "not a regular file (folder)");
	/* garbage, cut short, oversized */
	snprintf(path, sizeof(path), "%s/46.json", dir);
	f = fopen(path, "w");
	fputs("{\"schema\": 1, \"time\": @}", f);
	fclose(f);
	expect_read(path, 46, SN_BASELINE_CORRUPT,
		    "not JSON: unexpected character (at byte 22)");
	f = fopen(path, "w");
	fputs("{\"schema\": 1, \"ti", f);
	fclose(f);
	expect_read(path, 46, SN_BASELINE_CORRUPT,
		    "not JSON: cut short (at byte 17)");
	f = fopen(path, "w");
	fputs("{\"schema\": 1, \"time\": 5, \"ports\": {}} {}", f);
	fclose(f);
	expect_read(path, 46, SN_BASELINE_CORRUPT,
		    "text after the JSON document (at byte 38)");
	assert_int_equal(truncate(path, SN_BASELINE_MAX_BYTES + 1), 0);
	expect_read(path, 46, SN_BASELINE_CORRUPT,
		    "4194305 bytes, more than the limit of 4194304");
	/* missing: the file, or its folder */
	snprintf(path, sizeof(path), "%s/47.json", dir);
	expect_read(path, 47, SN_BASELINE_MISSING, NULL);
	expect_read("/nonexistent/baseline/47.json", 47, SN_BASELINE_MISSING,
		    NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * xid numbers and severities of an events array, "79:drain 94:record",
 * " xN" after an entry that counts N events.
 */
static void events_text(json_object *evs, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(evs) && off < size;
	     i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		int64_t n = json_object_get_int64(at(e, "count"));

		off += (size_t)snprintf(
			buf + off, size - off, "%s%lld:%s", i ? " " : "",
			(long long)json_object_get_int64(at(e, "xid")),
			json_object_get_string(at(e, "severity")));
		if (n != 1 && off < size)
			off += (size_t)snprintf(buf + off, size - off, " x%lld",
						(long long)n);
	}
}

static int collect(const struct sn_config *cfg, const char *log, int64_t seq,
		   const char *end_text, char *buf, size_t size,
		   json_object **evs)
{
	char base_text[128];
	json_object *base, *end = end_text ? parse(end_text) : NULL;
	struct sn_xid_counts counts;
	int rc;

	snprintf(
		base_text, sizeof(base_text),
		"{\"schema\": 1, \"time\": 1, \"ports\": {}, \"kmsg_seq\": %lld}",
		(long long)seq);
	base = parse(base_text);
	rc = sn_record_collect_xids(cfg, log, base, end, evs, &counts);
	assert_int_equal(counts.dropped, 0);
	events_text(*evs, buf, size);
	json_object_put(base);
	json_object_put(end);
	return rc;
}

/* Field case 12: Xids logged before the job's baseline are not the job's. */
static void test_xid_since_baseline(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *evs = NULL;
	char buf[512];

	(void)state;
	assert_int_equal(collect(cfg, OWN_KMSG, 100, small_end, buf,
				 sizeof(buf), &evs),
			 0);
	assert_string_equal(buf, "79:drain 94:record");
	assert_path_str(evs, "0.bus_id", "0000:1b:00.0");
	assert_path_str(evs, "0.meaning", "GPU has fallen off the bus");
	assert_path_str(evs, "0.kind", "xid");
	assert_path_str(evs, "0.text", "GPU has fallen off the bus.");
	json_object_put(evs);
	/* baseline after the Xid 79: only the 94 is this job's */
	assert_int_equal(collect(cfg, OWN_KMSG, 102, small_end, buf,
				 sizeof(buf), &evs),
			 0);
	assert_string_equal(buf, "94:record");
	json_object_put(evs);
	/* no position in the baseline; an unreadable log */
	{
		json_object *base = parse(
			"{\"schema\": 1, \"time\": 1, \"ports\": {}, \"kmsg_seq\": null}");
		struct sn_xid_counts counts;

		assert_int_equal(sn_record_collect_xids(cfg, OWN_KMSG, base,
							NULL, &evs, &counts),
				 -ENODATA);
		assert_int_equal(json_object_array_length(evs), 0);
		json_object_put(evs);
		json_object_put(base);
		assert_int_equal(collect(cfg, "/nonexistent/kmsg", 1, NULL, buf,
					 sizeof(buf), &evs),
				 -ENOENT);
		assert_string_equal(buf, "");
		json_object_put(evs);
	}
	sn_config_free(cfg);
}

#define REMAP_PENDING                                                              \
	"{\"accelerators\": {\"devices\": {\"0000:19:00.0\": {\"remapped_rows\": " \
	"{\"correctable\": 0, \"uncorrectable\": 1, \"pending\": true, \"failure\": false}}}}}"
#define REMAP_FAILURE                                                              \
	"{\"accelerators\": {\"devices\": {\"0000:19:00.0\": {\"remapped_rows\": " \
	"{\"correctable\": 0, \"uncorrectable\": 1, \"pending\": false, \"failure\": true}}}}}"
#define REMAP_CLEAN                                                                \
	"{\"accelerators\": {\"devices\": {\"0000:19:00.0\": {\"remapped_rows\": " \
	"{\"correctable\": 0, \"uncorrectable\": 0, \"pending\": false, \"failure\": false}}}}}"
#define NINE_94                                                        \
	"94:record 94:record 94:record 94:record 94:record 94:record " \
	"94:record 94:record 94:record"

/* The real H100 log: Xid 48, 63 (row remap), then nine 94s; lines = seq. */
static void test_xid_real_log(void **state)
{
	const char *log = REAL_KMSG "gpud-dmesg-time-format-iso.log";
	struct sn_config *cfg = config(NULL);
	json_object *evs = NULL;
	char buf[512];

	(void)state;
	assert_int_equal(collect(cfg, log, 12, NULL, buf, sizeof(buf), &evs),
			 0);
	assert_string_equal(buf, NINE_94);
	json_object_put(evs);
	assert_int_equal(collect(cfg, log, 10, NULL, buf, sizeof(buf), &evs),
			 0);
	assert_string_equal(buf, "48:drain 63:record " NINE_94);
	assert_path_str(evs, "0.bus_id", "0000:19:00.0");
	assert_path_str(evs, "1.meaning", "row remap or page retirement event");
	json_object_put(evs);
	/* Xid 63 drains only when NVML shows the remap pending or failed */
	assert_int_equal(collect(cfg, log, 11, REMAP_PENDING, buf, sizeof(buf),
				 &evs),
			 0);
	assert_string_equal(buf, "63:drain " NINE_94);
	assert_path_str(evs, "0.meaning", "row remap pending: reset the GPU");
	json_object_put(evs);
	assert_int_equal(collect(cfg, log, 11, REMAP_FAILURE, buf, sizeof(buf),
				 &evs),
			 0);
	assert_path_str(evs, "0.meaning", "row remap failure: RMA");
	assert_path_str(evs, "0.severity", "drain");
	json_object_put(evs);
	assert_int_equal(
		collect(cfg, log, 11, REMAP_CLEAN, buf, sizeof(buf), &evs), 0);
	assert_path_str(evs, "0.severity", "record");
	json_object_put(evs);
	/* everything read: nothing after the last line */
	assert_int_equal(collect(cfg, log, 41, NULL, buf, sizeof(buf), &evs),
			 0);
	assert_string_equal(buf, "");
	json_object_put(evs);
	sn_config_free(cfg);
}

/* epilog.xid overrides the default table, 63's remap rule included. */
static void test_xid_overrides(void **state)
{
	const char *log = REAL_KMSG "gpud-dmesg-time-format-iso.log";
	struct sn_config *cfg = config("epilog:\n  xid:\n    drain: [94]\n"
				       "    record: [48]\n    warn: [63]\n");
	json_object *evs = NULL;
	char buf[512];

	(void)state;
	assert_int_equal(collect(cfg, log, 10, REMAP_PENDING, buf, sizeof(buf),
				 &evs),
			 0);
	/* nine drain-level 94s on one GPU: one entry that counts them */
	assert_string_equal(buf, "48:record 63:warn 94:drain x9");
	json_object_put(evs);
	sn_config_free(cfg);
}

/* Xid events in the record: verdicts, worst, drain reason. */
static void test_record_xids(void **state)
{
	struct sn_config *cfg = config(NULL);
	json_object *base = parse(
		"{\"schema\": 1, \"job_id\": 42, \"time\": 2000, \"kmsg_seq\": 100, \"ports\": {}}");
	json_object *end = parse(small_end), *evs, *rec;
	struct sn_xid_counts counts;

	(void)state;
	assert_int_equal(sn_record_collect_xids(cfg, OWN_KMSG, base, end, &evs,
						&counts),
			 0);
	rec = build(cfg, base, SN_BASELINE_OK, end, evs, 2010);
	assert_path_str(rec, "xid_scan", "ok");
	assert_int_equal(json_object_array_length(at(rec, "xid_events")), 2);
	assert_path_int(rec, "xid_events.0.xid", 79);
	assert_path_str(rec, "xid_events.0.severity", "drain");
	assert_path_int(rec, "xid_events_dropped", 0);
	assert_path_str(verdict(rec, "xid", "0000:1b:00.0"), "grade", "CRIT");
	assert_path_int(verdict(rec, "xid", "0000:1b:00.0"), "xid", 79);
	assert_path_str(rec, "worst", "CRIT");
	/* symbol_error 5 (missing at start: unknown) does not count */
	assert_path_str(
		rec, "drain_reason",
		"supernode: XID79 0000:1b:00.0 GPU has fallen off the bus");
	json_object_put(rec);
	/* the scan's status is kept */
	{
		struct sn_record_input in = {
			.job_id = 42,
			.node = "gpu-a001",
			.end_time = 2010,
			.baseline_status = SN_BASELINE_OK,
			.baseline = base,
			.end = end,
			.xid_events = evs,
			.xid_rc = SN_KMSG_LOST,
			.xid_counts = { .dropped = 3 },
		};

		rec = sn_record_build(cfg, &in);
		assert_path_str(rec, "xid_scan",
				"records lost before they were read");
		assert_path_int(rec, "xid_events_dropped", 3);
		assert_path_null(rec, "user");
		assert_path_null(rec, "supernode");
		assert_path_null(rec, "exit_code");
		json_object_put(rec);
		in.xid_rc = -EACCES;
		rec = sn_record_build(cfg, &in);
		assert_path_str(rec, "xid_scan", "not read: Permission denied");
		json_object_put(rec);
	}
	json_object_put(evs);
	json_object_put(base);
	json_object_put(end);
	sn_config_free(cfg);
}

static void test_drain_reason_text(void **state)
{
	char buf[512], longname[300];
	json_object *rec;
	char text[1024];

	(void)state;
	rec = parse(
		"{\"verdicts\": ["
		"{\"counter\": \"symbol_error\", \"device\": \"mlx5_0/1\", \"delta\": 12000,"
		" \"warn\": 10, \"crit\": 10000, \"grade\": \"CRIT\"},"
		"{\"counter\": \"VL15_dropped\", \"device\": \"mlx5_1/1\", \"delta\": 500,"
		" \"warn\": 10, \"crit\": 100, \"grade\": \"CRIT\"},"
		"{\"counter\": \"link_downed\", \"device\": \"mlx5_1/1\", \"delta\": 1,"
		" \"warn\": null, \"crit\": 1, \"grade\": \"OK\"}]}");
	assert_int_equal(
		sn_record_drain_reason(rec, "supernode:", buf, sizeof(buf)), 2);
	assert_string_equal(
		buf,
		"supernode: EPILOG_VL15_DROPPED mlx5_1/1 +500 (crit 100) (+1 more)");
	json_object_put(rec);
	/* no crit: empty */
	rec = parse(
		"{\"verdicts\": [{\"counter\": \"a\", \"grade\": \"WARN\"}]}");
	assert_int_equal(
		sn_record_drain_reason(rec, "supernode:", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	json_object_put(rec);
	/* long and non-printable: one line of 200 bytes, cut marked, count kept */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(
		text, sizeof(text),
		"{\"verdicts\": [{\"counter\": \"xid\", \"device\": \"0000:1b:00.0\", \"xid\": 79,"
		" \"meaning\": \"bad\\nline %s\", \"grade\": \"CRIT\"},"
		"{\"counter\": \"link_downed\", \"device\": \"d\", \"delta\": 9, \"crit\": 1,"
		" \"grade\": \"CRIT\"}]}",
		longname);
	rec = parse(text);
	assert_int_equal(
		sn_record_drain_reason(rec, "supernode:", buf, sizeof(buf)), 2);
	assert_int_equal(strlen(buf), 200);
	assert_true(strncmp(buf, "supernode: XID79 0000:1b:00.0 bad line xxx",
			    42) == 0);
	assert_string_equal(buf + 200 - strlen("x... (+1 more)"),
			    "x... (+1 more)");
	json_object_put(rec);
	rec = parse(
		"{\"verdicts\": [{\"counter\": \"xid\", \"device\": \"0000:06:00.0\","
		" \"xid\": 20034, \"kind\": \"sxid\", \"meaning\": \"NVSwitch fatal\","
		" \"grade\": \"CRIT\"}]}");
	assert_int_equal(
		sn_record_drain_reason(rec, "supernode:", buf, sizeof(buf)), 1);
	assert_string_equal(buf,
			    "supernode: SXID20034 0000:06:00.0 NVSwitch fatal");
	/* a buffer too small for the tag and a cut mark: nothing, never a cut tag */
	assert_int_equal(sn_record_drain_reason(rec, "supernode:", buf, 12), 1);
	assert_string_equal(buf, "");
	json_object_put(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_ports),
		cmocka_unit_test(test_missing_and_corrupt_baseline),
		cmocka_unit_test(test_attempt_fields),
		cmocka_unit_test(test_baseline_parse),
		cmocka_unit_test(test_baseline_mixed_versions),
		cmocka_unit_test(test_config_thresholds),
		cmocka_unit_test(test_absurd_values_never_drain),
		cmocka_unit_test(test_roce_user_counters),
		cmocka_unit_test(test_bytes_from_64bit_counters),
		cmocka_unit_test(test_baseline_read_refuses),
		cmocka_unit_test(test_xid_since_baseline),
		cmocka_unit_test(test_xid_real_log),
		cmocka_unit_test(test_xid_overrides),
		cmocka_unit_test(test_record_xids),
		cmocka_unit_test(test_drain_reason_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
