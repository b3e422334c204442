/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The epilog's verdicts on real traffic (issue 12): the 2x H200 capture
 * before and after 12 s of 4 GiB all-reduce (fixtures/nvidia/
 * traffic-h200x2), read through the fake libnvidia-ml.so.1 into the
 * accelerator snapshots the prolog and epilog take, then judged with the
 * default thresholds:
 *  - the capture gives no WARN and no CRIT (the legacy crc_data/ecc_data
 *    that rose are information on NVLink 4.0), nor do the same rates
 *    stretched to a 24-hour job;
 *  - real faults on top of it are CRIT with the right reason: the DL
 *    replay and recovery counters rising, an uncorrectable ECC error, an
 *    NVLink 5 recovery that failed, an InfiniBand link that went down, a
 *    GPU recovery action other than NONE; and the legacy counters are
 *    judged on a GPU before NVLink 4.0.
 */
#include <math.h>
#include <unistd.h>

#include "unit.h"

#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "inventory/sn_accel.h"
#include "records/sn_record.h"

#define TRAFFIC SN_FIXTURES "/nvidia/traffic-h200x2"
#define BEFORE TRAFFIC "/nvml-h200x2-before-traffic.json"
#define AFTER TRAFFIC "/nvml-h200x2-after-traffic.json"
#define GPU0 "0000:00:06.0"
#define GPU1 "0000:00:07.0"
#define T0 1796120406 /* the baseline's time */
#define DAY 86400
#define STRETCH 7200 /* 24 h / 12 s */

#ifdef SN_FAKE_NVML
static const char *const fake_lib = SN_FAKE_NVML;
#else
static const char *const fake_lib = NULL;
#endif

static struct sn_config *cfg;
static struct sn_config *record_cfg; /* record()'s, when not cfg */
static json_object *before, *after;  /* accelerator snapshots */

/* The test's config, with extra (YAML sections) after it. */
static struct sn_config *config_with(const char *extra)
{
	static const char fmt[] =
		"supernodes:\n  - name: sn01\n    nodes: h200-[1-2]\n"
		"paths:\n  nvml: %s\n"
		"node:\n  accelerators:\n    vendor: nvidia\n    count: 2\n%s";
	struct sn_config *c;
	struct sn_error err;
	char yaml[1024];

	snprintf(yaml, sizeof(yaml), fmt, fake_lib, extra);
	err_reset(&err);
	c = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!c)
		fail_msg("%s", err.msg);
	return c;
}

static struct sn_config *config(void)
{
	return config_with("");
}

/* sn_accel_counters_json() with the fake NVML serving fixture. */
static json_object *snapshot(const char *fixture)
{
	struct sn_check_ctx ctx;
	struct sn_error err;
	json_object *o;

	if (sn_check_ctx_init(&ctx, cfg, "h200-1", &err))
		fail_msg("%s", err.msg);
	setenv("SN_FAKE_NVML_FIXTURE", fixture, 1);
	o = sn_accel_counters_json(&ctx);
	unsetenv("SN_FAKE_NVML_FIXTURE");
	if (!o)
		fail_msg("no snapshot");
	return o;
}

static int setup(void **state)
{
	(void)state;
	if (!fake_lib)
		return 0;
	cfg = config();
	before = snapshot(BEFORE);
	after = snapshot(AFTER);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(before);
	json_object_put(after);
	sn_config_free(cfg);
	return 0;
}

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

static json_object *copy(json_object *o)
{
	json_object *c = NULL;

	if (json_object_deep_copy(o, &c, NULL))
		fail_msg("out of memory");
	return c;
}

/* A snapshot document: accelerators, and ports (may be NULL: none). */
static json_object *doc(json_object *accel, int64_t time, const char *ports)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "schema", json_object_new_int(1));
	json_object_object_add(d, "job_id", json_object_new_int(4242));
	json_object_object_add(d, "time", json_object_new_int64(time));
	json_object_object_add(d, "kmsg_seq", json_object_new_int(0));
	json_object_object_add(d, "ports",
			       ports ? json_tokener_parse(ports) :
				       json_object_new_object());
	json_object_object_add(d, "accelerators", copy(accel));
	return d;
}

/* The record of a job from start to end that ended at end_time. */
static json_object *record(json_object *start, json_object *end,
			   int64_t end_time)
{
	struct sn_record_input in = {
		.job_id = 4242,
		.node = "h200-1",
		.supernode = "sn01",
		.end_time = end_time,
		.baseline_status = SN_BASELINE_OK,
		.baseline = start,
		.end = end,
		.xid_rc = 0,
	};
	json_object *rec = sn_record_build(record_cfg ? record_cfg : cfg, &in);

	assert_non_null(rec);
	return rec;
}

/* Every verdict OK; returns how many there were. */
static size_t all_ok(json_object *rec)
{
	json_object *v = at(rec, "verdicts");
	size_t n = json_object_array_length(v);

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (strcmp(json_object_get_string(at(e, "grade")), "OK"))
			fail_msg("%s", json_object_to_json_string(e));
	}
	assert_string_equal(json_object_get_string(at(rec, "worst")), "OK");
	assert_null(at(rec, "drain_reason"));
	return n;
}

/* A GPU's object in a snapshot document (bus ids hold dots: no at()). */
static json_object *dev(json_object *snap_doc, const char *bus)
{
	json_object *d = NULL;

	json_object_object_get_ex(at(snap_doc, "accelerators.devices"), bus,
				  &d);
	if (!d)
		fail_msg("no GPU %s", bus);
	return d;
}

static void set_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static uint64_t u64(json_object *o, const char *key)
{
	return (uint64_t)json_object_get_int64(at(o, key));
}

/* The captured 12 s: nothing to judge, the rising legacy counters kept. */
static void test_capture(void **state)
{
	json_object *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 12, NULL);
	rec = record(s, e, T0 + 12);
	/* 2 GPUs x (pcie_replay, 4 legacy judged below NVLink 4.0 only, the
	 * 3 DL counters, ecc_uncorrected) */
	assert_int_equal(all_ok(rec), 2 * 5);
	assert_int_equal(u64(rec, "accelerators.0.nvlink_version"), 6);
	assert_true(u64(rec, "accelerators.0.nvlink_bytes") ==
		    6949471438848ULL);
	assert_int_equal(u64(rec, "accelerators.0.deltas.nvlink_crc_data"), 27);
	assert_int_equal(u64(rec, "accelerators.1.deltas.nvlink_crc_data"), 61);
	assert_int_equal(u64(rec, "accelerators.0.deltas.nvlink_ecc_data"),
			 5933);
	assert_int_equal(u64(rec, "accelerators.0.deltas.nvlink_dl_crc"), 0);
	assert_contains(
		json_object_get_string(
			at(rec, "accelerators.0.information.nvlink_crc_data")),
		"counts corrected events, not judged");
	assert_non_null(at(rec, "accelerators.1.information.nvlink_ecc_data"));
	assert_non_null(at(rec, "accelerators.1.information.nvlink_replay"));
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* end' = start + (end - start) x k for every counter of a GPU's object. */
static void stretch(json_object *sdev, json_object *edev, uint64_t k)
{
	static const char *const keep[] = { "index", "nvlink_version",
					    "recovery_action" };

	json_object_object_foreach(edev, key, val)
	{
		json_object *sv = at(sdev, key);
		bool skip_key = false;

		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			skip_key |= !strcmp(key, keep[i]);
		if (!strcmp(key, "nvlink")) {
			json_object_object_foreach(val, link, lv)
				stretch(at(sv, link), lv, k);
			continue;
		}
		if (skip_key || !json_object_is_type(val, json_type_int))
			continue;
		set_u64(edev, key,
			(uint64_t)json_object_get_int64(sv) +
				((uint64_t)json_object_get_int64(val) -
				 (uint64_t)json_object_get_int64(sv)) *
					k);
	}
}

/* The same rates for 24 hours: still nothing (they were 3x10^5 per day). */
static void test_stretched_day(void **state)
{
	json_object *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + DAY, NULL);
	stretch(dev(s, GPU0), dev(e, GPU0), STRETCH);
	stretch(dev(s, GPU1), dev(e, GPU1), STRETCH);
	rec = record(s, e, T0 + DAY);
	assert_int_equal(all_ok(rec), 2 * 5);
	assert_int_equal(u64(rec, "accelerators.1.deltas.nvlink_crc_data"),
			 61 * STRETCH);
	assert_int_equal(u64(rec, "accelerators.0.deltas.nvlink_ecc_data"),
			 5933ULL * STRETCH);
	assert_true(u64(rec, "accelerators.0.nvlink_bytes") ==
		    6949471438848ULL * STRETCH);
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* The verdict of counter on device; fails when there is none. */
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
	fail_msg("no verdict %s on %s", counter, device);
	return NULL;
}

/*
 * One fault on GPU 0 over the captured 12 s: key (of the GPU object) set
 * to start + step at the end (and to start where the start lacks it);
 * the record must be CRIT with reason.
 */
static void fault(const char *key, uint64_t step, const char *counter,
		  const char *reason)
{
	json_object *s = doc(before, T0, NULL), *e = doc(after, T0 + 12, NULL);
	json_object *sd = dev(s, GPU0), *ed = dev(e, GPU0), *rec;
	uint64_t base = at(sd, key) ? u64(sd, key) : 0;

	set_u64(sd, key, base);
	set_u64(ed, key, base + step);
	rec = record(s, e, T0 + 12);
	assert_string_equal(json_object_get_string(
				    at(verdict(rec, counter, GPU0), "grade")),
			    "CRIT");
	assert_string_equal(json_object_get_string(at(rec, "worst")), "CRIT");
	assert_string_equal(json_object_get_string(at(rec, "drain_reason")),
			    reason);
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

static void test_faults(void **state)
{
	(void)state;
	if (!fake_lib)
		skip();
	/* Replays rising: 50 in 12 s is 50/h over the one-hour floor. */
	fault("nvlink_dl_replay", 50, "nvlink_dl_replay",
	      "supernode: EPILOG_NVLINK_DL_REPLAY " GPU0
	      " +50 in 12 s = 50/h (crit 10/h)");
	/* One recovery (DCGM fails on the first): a count per job. */
	fault("nvlink_dl_recovery", 1, "nvlink_dl_recovery",
	      "supernode: EPILOG_NVLINK_DL_RECOVERY " GPU0 " +1 (crit 1)");
	/* CRC errors growing with traffic: 800 over 6.95 TB. */
	fault("nvlink_dl_crc", 800, "nvlink_dl_crc",
	      "supernode: EPILOG_NVLINK_DL_CRC " GPU0
	      " +800 in 6.95 TB = 115.1/TB (crit 100/TB)");
	/* Fatal on the first step: absolute floors. */
	fault("ecc_uncorrected_volatile", 1, "ecc_uncorrected",
	      "supernode: EPILOG_ECC_UNCORRECTED " GPU0 " +1 (crit 1)");
	fault("nvlink_recovery_failed", 1, "nvlink_recovery_failed",
	      "supernode: EPILOG_NVLINK_RECOVERY_FAILED " GPU0 " +1 (crit 1)");
	/* The GPU asks for a node reboot. */
	fault("recovery_action", 2, "recovery_action",
	      "supernode: GPU_RECOVERY_ACTION " GPU0 " node reboot");
	/* NVLink 5's effective BER above DCGM's 1e-12: 2 x 10^-12. */
	fault("nvlink_effective_ber", (2 << 8) | 12, "nvlink_effective_ber",
	      "supernode: EPILOG_NVLINK_EFFECTIVE_BER " GPU0
	      " 2e-12 (crit 1e-12)");
	fault("nvlink_effective_ber", (11 << 8) | 13, "nvlink_effective_ber",
	      "supernode: EPILOG_NVLINK_EFFECTIVE_BER " GPU0
	      " 1.1e-12 (crit 1e-12)");
	fault("recovery_action", 5, "recovery_action",
	      "supernode: GPU_RECOVERY_ACTION " GPU0
	      " recover the IMEX domain");
}

/*
 * A day of NVLink recoveries: 23 in 24 h were 0.96/h under the old crit
 * 1/h and passed.  A recovery is a failure on its first step (DCGM): CRIT
 * per job, the DL counter on NVLink 4.0 and the legacy one where it is
 * judged (NVLink 3.0, code 4), the capture's traffic around them.
 */
static void test_recoveries_day(void **state)
{
	json_object *s, *e, *rec, *v, *l0;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + DAY, NULL);
	set_u64(dev(s, GPU0), "nvlink_dl_recovery", 0);
	set_u64(dev(e, GPU0), "nvlink_dl_recovery", 23);
	set_u64(dev(s, GPU1), "nvlink_version", 4);
	set_u64(dev(e, GPU1), "nvlink_version", 4);
	l0 = at(dev(e, GPU1), "nvlink.0");
	set_u64(l0, "recovery", u64(l0, "recovery") + 23);
	rec = record(s, e, T0 + DAY);
	v = verdict(rec, "nvlink_dl_recovery", GPU0);
	assert_string_equal(json_object_get_string(at(v, "unit")), "count");
	assert_int_equal(u64(v, "delta"), 23);
	assert_string_equal(json_object_get_string(at(v, "grade")), "CRIT");
	v = verdict(rec, "nvlink_recovery", GPU1);
	assert_string_equal(json_object_get_string(at(v, "unit")), "count");
	assert_string_equal(json_object_get_string(at(v, "grade")), "CRIT");
	/* the same count on NVLink 4.0 is information there */
	assert_non_null(at(rec, "accelerators.0.information.nvlink_recovery"));
	assert_string_equal(json_object_get_string(at(rec, "drain_reason")),
			    "supernode: EPILOG_NVLINK_DL_RECOVERY " GPU0
			    " +23 (crit 1) (+1 more)");
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* NVLinks 3 and 7 of GPU 1 went down during the job: CRIT, both named. */
static void test_nvlink_down(void **state)
{
	json_object *s, *e, *rec, *v, *links;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 12, NULL);
	links = at(dev(e, GPU1), "nvlink");
	json_object_object_add(at(links, "3"), "active",
			       json_object_new_boolean(0));
	json_object_object_add(at(links, "7"), "active",
			       json_object_new_boolean(0));
	/* unreadable at the end: not counted as down */
	json_object_object_add(at(links, "9"), "active", NULL);
	rec = record(s, e, T0 + 12);
	v = verdict(rec, "nvlink_down", GPU1);
	assert_string_equal(json_object_get_string(at(v, "grade")), "CRIT");
	assert_int_equal(u64(v, "delta"), 2);
	assert_string_equal(json_object_to_json_string(at(v, "links")),
			    "[ 3, 7 ]");
	assert_string_equal(json_object_get_string(at(rec, "drain_reason")),
			    "supernode: EPILOG_NVLINK_DOWN " GPU1
			    " +2 (crit 1)");
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* A drop below the limits stays below: 9 replays in 12 s is a WARN. */
static void test_warn_only(void **state)
{
	json_object *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 12, NULL);
	set_u64(dev(e, GPU1), "nvlink_dl_replay", 9);
	rec = record(s, e, T0 + 12);
	assert_string_equal(
		json_object_get_string(
			at(verdict(rec, "nvlink_dl_replay", GPU1), "grade")),
		"WARN");
	assert_string_equal(json_object_get_string(at(rec, "worst")), "WARN");
	assert_null(at(rec, "drain_reason"));
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/*
 * NVLink 5 without the throughput fields: the bytes come from its byte
 * counters (fields 202/204).  800 effective errors over 200 TB are 4/TB:
 * WARN (warn 1/TB, crit 8/TB), not the CRIT of 800 over the one-TB floor.
 */
static void test_nvlink5_bytes(void **state)
{
	static const char *const gone[] = { "nvlink_data_tx_kib",
					    "nvlink_data_rx_kib" };
	json_object *s, *e, *rec, *v;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 3600, NULL);
	for (int i = 0; i < 2; i++) {
		json_object_object_del(dev(s, GPU0), gone[i]);
		json_object_object_del(dev(e, GPU0), gone[i]);
	}
	set_u64(dev(s, GPU0), "nvlink_xmit_bytes", 1000);
	set_u64(dev(s, GPU0), "nvlink_rcv_bytes", 2000);
	set_u64(dev(e, GPU0), "nvlink_xmit_bytes", 1000 + 100000000000000ULL);
	set_u64(dev(e, GPU0), "nvlink_rcv_bytes", 2000 + 100000000000000ULL);
	set_u64(dev(s, GPU0), "nvlink_effective_errors", 5);
	set_u64(dev(e, GPU0), "nvlink_effective_errors", 805);
	rec = record(s, e, T0 + 3600);
	assert_true(u64(rec, "accelerators.0.nvlink_bytes") ==
		    200000000000000ULL);
	v = verdict(rec, "nvlink_effective_errors", GPU0);
	assert_true(fabs(json_object_get_double(at(v, "rate")) - 4.0) < 1e-9);
	assert_string_equal(json_object_get_string(at(v, "grade")), "WARN");
	assert_null(at(rec, "drain_reason"));
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* An effective BER at DCGM's limit (1 x 10^-12, 10 x 10^-13) passes. */
static void test_ber_at_limit(void **state)
{
	static const uint64_t raw[] = { (1 << 8) | 12, (10 << 8) | 13,
					(9 << 8) | 13 };

	(void)state;
	if (!fake_lib)
		skip();
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		json_object *s = doc(before, T0, NULL);
		json_object *e = doc(after, T0 + 12, NULL), *rec;

		set_u64(dev(e, GPU1), "nvlink_effective_ber", raw[i]);
		rec = record(s, e, T0 + 12);
		assert_int_equal(all_ok(rec), 2 * 5 + 1);
		assert_string_equal(
			json_object_get_string(
				at(verdict(rec, "nvlink_effective_ber", GPU1),
				   "unit")),
			"BER");
		json_object_put(rec);
		json_object_put(s);
		json_object_put(e);
	}
}

/*
 * A raw BER with bits outside nvml.h's mantissa (4 bits) and exponent (8
 * bits): no verdict, named in the GPU's "unknown".  Unmasked, 0x100c read
 * as 16 x 10^-12 and drained the node.
 */
static void test_ber_garbage(void **state)
{
	json_object *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 12, NULL);
	set_u64(dev(e, GPU1), "nvlink_effective_ber", 0x100c);
	rec = record(s, e, T0 + 12);
	assert_int_equal(all_ok(rec), 2 * 5);
	assert_string_equal(
		json_object_get_string(
			at(rec, "accelerators.1.unknown.nvlink_effective_ber")),
		"raw value 0x100c is not a BER (above 0xfff)");
	assert_null(at(rec, "accelerators.0.unknown.nvlink_effective_ber"));
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* An InfiniBand link that went down once during the job. */
static void test_ib_link_down(void **state)
{
	json_object *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0,
		"{\"mlx5_0/1\": {\"counters\": {\"link_downed\": 3,"
		" \"symbol_error\": 0}}}");
	e = doc(after, T0 + 12,
		"{\"mlx5_0/1\": {\"counters\": {\"link_downed\": 4,"
		" \"symbol_error\": 3}}}");
	rec = record(s, e, T0 + 12);
	assert_string_equal(
		json_object_get_string(
			at(verdict(rec, "link_downed", "mlx5_0/1"), "grade")),
		"CRIT");
	/* 3 symbol errors in 12 s are 3/h: OK. */
	assert_string_equal(
		json_object_get_string(
			at(verdict(rec, "symbol_error", "mlx5_0/1"), "grade")),
		"OK");
	assert_string_equal(
		json_object_get_string(at(rec, "drain_reason")),
		"supernode: EPILOG_LINK_DOWNED mlx5_0/1 +1 (crit 1)");
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* A port's verdict on counter in rec as "GRADE rate traffic". */
static void port_verdict(json_object *rec, const char *counter,
			 const char *grade, double rate, const char *traffic)
{
	json_object *v = verdict(rec, counter, "mlx5_0/1");

	assert_string_equal(json_object_get_string(at(v, "unit")), "/TB");
	assert_string_equal(json_object_get_string(at(v, "grade")), grade);
	assert_true(fabs(json_object_get_double(at(v, "rate")) - rate) < 1e-9);
	assert_string_equal(json_object_get_string(at(v, "traffic")), traffic);
}

/*
 * Receive errors per TB the port received: asymmetric traffic, 8 TB sent
 * and 2 TB received (counters_ext/ words x 4).  40 port_rcv_errors are
 * 20/TB of what arrived, WARN (warn 10/TB); over the 10 TB moved they
 * were 4/TB and passed.  With the data counters unknown the 40 are judged
 * over one TB.
 */
static void test_ib_per_tb(void **state)
{
	static const char start[] =
		"{\"mlx5_0/1\": {\"counters\": {\"port_rcv_errors\": 0},"
		" \"counters_ext\": {\"port_xmit_data_64\": 0,"
		" \"port_rcv_data_64\": 0}}}";
	static const char end[] =
		"{\"mlx5_0/1\": {\"counters\": {\"port_rcv_errors\": 40},"
		" \"counters_ext\": {\"port_xmit_data_64\": 2000000000000,"
		" \"port_rcv_data_64\": 500000000000}}}";

	(void)state;
	if (!fake_lib)
		skip();
	for (int k = 0; k < 2; k++) {
		json_object *s = doc(before, T0, start);
		json_object *e = doc(after, T0 + 100, end), *rec;

		if (k) { /* the data counters unreadable at the end */
			json_object *ext = at(e, "ports");

			json_object_object_get_ex(ext, "mlx5_0/1", &ext);
			json_object_object_add(at(ext, "counters_ext"),
					       "port_xmit_data_64", NULL);
			json_object_object_add(at(ext, "counters_ext"),
					       "port_rcv_data_64", NULL);
		}
		rec = record(s, e, T0 + 100);
		port_verdict(rec, "port_rcv_errors", "WARN", k ? 40.0 : 20.0,
			     "received");
		json_object_put(rec);
		json_object_put(s);
		json_object_put(e);
	}
}

/*
 * A transmit-side counter given a per-TB limit by the config is taken
 * over what the port sent: 24 port_xmit_discards over the 8 TB sent are
 * 3/TB, at crit 3/TB; over the 10 TB moved they would be 2.4/TB.  The same
 * traffic reversed (2 TB sent): 12/TB.  Graded WARN: any user's traffic
 * can raise port_xmit_discards (congestion) and no physical-layer counter
 * of the port moved (issue 17 item 4, test_record's
 * test_roce_user_counters).
 */
static void test_ib_per_tb_sent(void **state)
{
	static const char start[] =
		"{\"mlx5_0/1\": {\"counters\": {\"port_xmit_discards\": 0},"
		" \"counters_ext\": {\"port_xmit_data_64\": 0,"
		" \"port_rcv_data_64\": 0}}}";
	static const char *const end[2] = {
		"{\"mlx5_0/1\": {\"counters\": {\"port_xmit_discards\": 24},"
		" \"counters_ext\": {\"port_xmit_data_64\": 2000000000000,"
		" \"port_rcv_data_64\": 500000000000}}}",
		"{\"mlx5_0/1\": {\"counters\": {\"port_xmit_discards\": 24},"
		" \"counters_ext\": {\"port_xmit_data_64\": 500000000000,"
		" \"port_rcv_data_64\": 2000000000000}}}",
	};

	(void)state;
	if (!fake_lib)
		skip();
	record_cfg = config_with(
		"epilog:\n  thresholds:\n"
		"    port_xmit_discards: {warn: 1/TB, crit: 3/TB}\n");
	for (int k = 0; k < 2; k++) {
		json_object *s = doc(before, T0, start);
		json_object *e = doc(after, T0 + 100, end[k]), *rec;

		rec = record(s, e, T0 + 100);
		port_verdict(rec, "port_xmit_discards", "WARN", k ? 12.0 : 3.0,
			     "sent");
		json_object_put(rec);
		json_object_put(s);
		json_object_put(e);
	}
	sn_config_free(record_cfg);
	record_cfg = NULL;
}

/*
 * The same capture on a GPU before NVLink 4.0 (an A100's NVLink 3.0,
 * version code 4): the legacy counters are judged there.  crc_data 61 over
 * 6.95 TB is 8.8/TB, under warn 10/TB; legacy replays rising are CRIT.
 */
static void test_legacy_generation(void **state)
{
	json_object *s, *e, *rec, *l0;

	(void)state;
	if (!fake_lib)
		skip();
	s = doc(before, T0, NULL);
	e = doc(after, T0 + 12, NULL);
	set_u64(dev(s, GPU1), "nvlink_version", 4);
	set_u64(dev(e, GPU1), "nvlink_version", 4);
	l0 = at(dev(e, GPU1), "nvlink.0");
	set_u64(l0, "replay", u64(l0, "replay") + 20);
	rec = record(s, e, T0 + 12);
	assert_string_equal(
		json_object_get_string(
			at(verdict(rec, "nvlink_crc_data", GPU1), "grade")),
		"OK");
	assert_true(
		fabs(json_object_get_double(at(
			     verdict(rec, "nvlink_crc_data", GPU1), "rate")) -
		     61 / 6.949471438848) < 1e-6);
	assert_string_equal(
		json_object_get_string(
			at(verdict(rec, "nvlink_replay", GPU1), "grade")),
		"CRIT");
	assert_null(at(rec, "accelerators.1.information.nvlink_crc_data"));
	assert_string_equal(json_object_get_string(at(rec, "drain_reason")),
			    "supernode: EPILOG_NVLINK_REPLAY " GPU1
			    " +20 in 12 s = 20/h (crit 10/h)");
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
}

/* An NVML error as the fake's fixture writes it. */
static json_object *nvml_error(const char *text)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "nvml_error", json_object_new_string(text));
	return o;
}

/* How a fixture's GPU is edited before it is read (edit_gpu). */
enum version_edit {
	NO_FIELD = 1,	  /* link 0's version field removed */
	FIELD_ERROR = 2,  /* link 0's version field answers an error */
	LINK0_ERROR = 4,  /* nvmlDeviceGetNvLinkVersion(0) errors */
	LINKS_ERROR = 8,  /* nvmlDeviceGetNvLinkVersion errors on every link */
	FIELD_LINK3 = 16, /* the version field of link 3 answers 6 */
	NO_TRAFFIC = 32,  /* the throughput fields removed: bytes unknown */
};

static void edit_gpu(json_object *gpu, unsigned edits)
{
	static const char version[] = "NVML_FI_DEV_NVLINK_GET_VERSION";
	json_object *fv = at(gpu, "nvml_field_values"), *links;

	if (edits & NO_FIELD)
		json_object_object_del(fv, version);
	if (edits & FIELD_ERROR)
		json_object_object_add(fv, version,
				       nvml_error("Unknown Error"));
	if (edits & FIELD_LINK3)
		json_object_object_add(fv,
				       "NVML_FI_DEV_NVLINK_GET_VERSION@link3",
				       json_object_new_int(6));
	if (edits & NO_TRAFFIC) {
		json_object_object_del(
			fv, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX@all_links");
		json_object_object_del(
			fv, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX@all_links");
	}
	links = at(gpu, "nvlink");
	for (size_t l = 0; l < json_object_array_length(links); l++)
		if ((edits & LINKS_ERROR) || (!l && (edits & LINK0_ERROR)))
			json_object_object_add(
				json_object_array_get_idx(links, l), "version",
				nvml_error("Unknown Error"));
}

/* The snapshot of fixture with every GPU edited (edit_gpu). */
static json_object *snapshot_edited(const char *fixture, unsigned edits)
{
	char path[] = "/tmp/sn-traffic-XXXXXX";
	json_object *root, *gpus, *snap;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	root = json_object_from_file(fixture);
	assert_non_null(root);
	gpus = at(root, "gpus");
	for (size_t i = 0; i < json_object_array_length(gpus); i++)
		edit_gpu(json_object_array_get_idx(gpus, i), edits);
	assert_int_equal(json_object_to_file(path, root), 0);
	json_object_put(root);
	snap = snapshot(path);
	unlink(path);
	return snap;
}

/*
 * A driver whose NVLINK_GET_VERSION field does not answer: the generation
 * comes from nvmlDeviceGetNvLinkVersion, and the legacy counters stay
 * information.
 */
static void test_version_without_field(void **state)
{
	json_object *snap, *s, *e, *rec;

	(void)state;
	if (!fake_lib)
		skip();
	snap = snapshot_edited(AFTER, NO_FIELD);
	s = doc(before, T0, NULL);
	e = doc(snap, T0 + 12, NULL);
	assert_int_equal(u64(dev(e, GPU0), "nvlink_version"), 6);
	rec = record(s, e, T0 + 12);
	assert_int_equal(all_ok(rec), 2 * 5);
	assert_non_null(at(rec, "accelerators.0.information.nvlink_crc_data"));
	json_object_put(rec);
	json_object_put(s);
	json_object_put(e);
	json_object_put(snap);
}

/*
 * Link 0 does not tell its version (down, or an error), and the traffic is
 * not known: the version comes from another link (its
 * nvmlDeviceGetNvLinkVersion, or its field), so the legacy counters stay
 * information.  Judged instead over the one-TB floor, the captured
 * crc_data 61 in 12 s was WARN (61/TB).
 */
static void test_version_link0_error(void **state)
{
	static const unsigned edits[] = {
		NO_FIELD | LINK0_ERROR | NO_TRAFFIC,
		FIELD_ERROR | LINK0_ERROR | NO_TRAFFIC,
		FIELD_ERROR | LINKS_ERROR | FIELD_LINK3 | NO_TRAFFIC,
	};

	(void)state;
	if (!fake_lib)
		skip();
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		json_object *sn = snapshot_edited(BEFORE, edits[i]);
		json_object *en = snapshot_edited(AFTER, edits[i]);
		json_object *s = doc(sn, T0, NULL), *e = doc(en, T0 + 12, NULL);
		json_object *rec;

		assert_int_equal(u64(dev(s, GPU1), "nvlink_version"), 6);
		assert_int_equal(u64(dev(e, GPU1), "nvlink_version"), 6);
		rec = record(s, e, T0 + 12);
		assert_int_equal(all_ok(rec), 2 * 5);
		assert_null(at(rec, "accelerators.1.nvlink_bytes"));
		assert_int_equal(
			u64(rec, "accelerators.1.deltas.nvlink_crc_data"), 61);
		assert_contains(
			json_object_get_string(at(
				rec,
				"accelerators.1.information.nvlink_crc_data")),
			"on NVLink version 6");
		json_object_put(rec);
		json_object_put(s);
		json_object_put(e);
		json_object_put(sn);
		json_object_put(en);
	}
}

/*
 * No link tells its version and the traffic is not known: the legacy
 * counters are information, with the reason, over 12 s and over the same
 * rates stretched to 24 h (crc_data 439200 judged over one TB was CRIT
 * and drained a healthy node).
 */
static void test_version_unknown(void **state)
{
	const unsigned edits = FIELD_ERROR | LINKS_ERROR | NO_TRAFFIC;
	json_object *sn, *en;

	(void)state;
	if (!fake_lib)
		skip();
	sn = snapshot_edited(BEFORE, edits);
	en = snapshot_edited(AFTER, edits);
	for (int day = 0; day < 2; day++) {
		int64_t secs = day ? DAY : 12;
		json_object *s = doc(sn, T0, NULL),
			    *e = doc(en, T0 + secs, NULL);
		json_object *rec;

		assert_null(at(dev(e, GPU0), "nvlink_version"));
		if (day) {
			stretch(dev(s, GPU0), dev(e, GPU0), STRETCH);
			stretch(dev(s, GPU1), dev(e, GPU1), STRETCH);
		}
		rec = record(s, e, T0 + secs);
		assert_int_equal(all_ok(rec), 2 * 5);
		assert_null(at(rec, "accelerators.1.nvlink_version"));
		assert_null(at(rec, "accelerators.1.nvlink_bytes"));
		assert_int_equal(u64(rec,
				     "accelerators.1.deltas.nvlink_crc_data"),
				 61 * (day ? STRETCH : 1));
		assert_contains(
			json_object_get_string(at(
				rec,
				"accelerators.1.information.nvlink_crc_data")),
			"NVLink version not known");
		assert_non_null(
			at(rec, "accelerators.0.information.nvlink_replay"));
		json_object_put(rec);
		json_object_put(s);
		json_object_put(e);
	}
	json_object_put(sn);
	json_object_put(en);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_stretched_day),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_recoveries_day),
		cmocka_unit_test(test_nvlink_down),
		cmocka_unit_test(test_warn_only),
		cmocka_unit_test(test_ber_at_limit),
		cmocka_unit_test(test_ber_garbage),
		cmocka_unit_test(test_nvlink5_bytes),
		cmocka_unit_test(test_ib_link_down),
		cmocka_unit_test(test_ib_per_tb),
		cmocka_unit_test(test_ib_per_tb_sent),
		cmocka_unit_test(test_legacy_generation),
		cmocka_unit_test(test_version_without_field),
		cmocka_unit_test(test_version_link0_error),
		cmocka_unit_test(test_version_unknown),
	};

	return cmocka_run_group_tests_name("record_traffic", tests, setup,
					   teardown);
}
