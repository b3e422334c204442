/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The epilog's per-job record (schema in sn_record.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/sn_baseline.h"
#include "records/sn_delta.h"
#include "records/sn_rate.h"
#include "checks/sn_grade.h"
#include "drain/sn_drain.h"
#include "util/sn_file.h"
#include "inventory/sn_kmsg.h"
#include "inventory/sn_nvml.h"
#include "records/sn_record.h"
#include "util/sn_safedir.h"

#define DEFAULT_TAG "supernode:"

/* Everything one build needs, passed along instead of many arguments. */
struct build {
	const struct sn_config *cfg;
	const struct sn_record_input *in;
	const char *why_no_baseline;	/* NULL when the baseline is OK */
	enum sn_baseline_status status; /* as judged here */
	int64_t start;			/* baseline time */
	json_object *verdicts;
	json_object *info; /* legacy_info()'s, for the GPU being built */
	int bad;	   /* out of memory somewhere */
};

static int put(json_object *obj, const char *key, json_object *val)
{
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

static int append(json_object *arr, json_object *val)
{
	if (!val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

const char *sn_baseline_status_name(enum sn_baseline_status s)
{
	switch (s) {
	case SN_BASELINE_OK:
		return "ok";
	case SN_BASELINE_MISSING:
		return "missing";
	case SN_BASELINE_NEWER:
		return "newer";
	case SN_BASELINE_CORRUPT:
		break;
	}
	return "corrupt";
}

int64_t sn_baseline_format(const json_object *doc)
{
	json_object *schema;

	if (!json_object_is_type(doc, json_type_object))
		return -1;
	if (!json_object_object_get_ex(doc, "schema", &schema))
		return 1; /* no release wrote one without it: read as 1 */
	if (!json_object_is_type(schema, json_type_int))
		return -1;
	return json_object_get_int64(schema);
}

/* Why doc is not a baseline of job_id (0: of any job); NULL when it is. */
static const char *baseline_invalid(const json_object *doc, uint32_t job_id)
{
	json_object *job = sn_json_get(doc, "job_id", json_type_int);
	int64_t format = sn_baseline_format(doc);

	if (!json_object_is_type(doc, json_type_object))
		return "not a JSON object";
	/* Unknown fields are ignored: a format gains fields, not meanings. */
	if (format != SN_BASELINE_SCHEMA)
		return "not schema 1";
	if (!sn_json_get(doc, "time", json_type_int))
		return "no integer \"time\"";
	if (!sn_json_get(doc, "ports", json_type_object))
		return "no \"ports\" object";
	if (job_id && (!job || json_object_get_int64(job) != job_id))
		return "another job's baseline";
	return NULL;
}

static bool baseline_valid(const json_object *doc, uint32_t job_id)
{
	return !baseline_invalid(doc, job_id);
}

size_t sn_baseline_newer_text(const json_object *doc, char *buf, size_t size)
{
	int n = snprintf(
		buf, size,
		"baseline written by a newer supernode-prolog (format %lld), this epilog reads format %d: upgrade the epilog",
		(long long)sn_baseline_format(doc), SN_BASELINE_SCHEMA);

	return n < 0 ? 0 : (size_t)n;
}

/* sn_baseline_parse() with the reason of a CORRUPT or NEWER into why. */
static enum sn_baseline_status parse_why(const char *text, size_t len,
					 uint32_t job_id, json_object **out,
					 char *why, size_t size)
{
	json_tokener *tok = json_tokener_new_ex(SN_BASELINE_JSON_DEPTH);
	enum json_tokener_error e;
	json_object *doc = NULL;
	bool newer = false;
	const char *bad;
	size_t used;

	*out = NULL;
	if (!tok) {
		snprintf(why, size, "out of memory");
		goto cleanup;
	}
	if (len > SN_BASELINE_MAX_BYTES) {
		snprintf(why, size, "%zu bytes, more than the limit of %u", len,
			 SN_BASELINE_MAX_BYTES);
		goto cleanup;
	}
	doc = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (e != json_tokener_success) {
		snprintf(why, size, "not JSON: %s (at byte %zu)",
			 e == json_tokener_continue ?
				 "cut short" :
				 json_tokener_error_desc(e),
			 used);
		goto cleanup;
	}
	while (used < len && isspace((unsigned char)text[used]))
		used++;
	if (used != len) {
		snprintf(why, size,
			 "text after the JSON document (at byte %zu)", used);
		goto cleanup;
	}
	if (sn_baseline_format(doc) > SN_BASELINE_SCHEMA) {
		sn_baseline_newer_text(doc, why, size);
		newer = true;
	} else if ((bad = baseline_invalid(doc, job_id))) {
		snprintf(why, size, "%s", bad);
		goto cleanup;
	}
	*out = doc;
	doc = NULL;
cleanup:
	json_object_put(doc);
	if (tok)
		json_tokener_free(tok);
	if (newer)
		return SN_BASELINE_NEWER;
	return *out ? SN_BASELINE_OK : SN_BASELINE_CORRUPT;
}

enum sn_baseline_status sn_baseline_parse(const char *text, size_t len,
					  uint32_t job_id, json_object **out)
{
	char why[160];

	return parse_why(text, len, job_id, out, why, sizeof(why));
}

/* path split into its folder and its file name (dir PATH_MAX bytes). */
static const char *path_split(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return NULL;
	snprintf(dir, PATH_MAX, "%.*s", slash == path ? 1 : (int)(slash - path),
		 path);
	return slash + 1;
}

enum sn_baseline_status sn_baseline_read(const char *path, uint32_t job_id,
					 json_object **out,
					 struct sn_error *err)
{
	enum sn_baseline_status st = SN_BASELINE_CORRUPT;
	char dir[PATH_MAX], why[160];
	const char *name = path_split(path, dir);
	char *buf = NULL;
	size_t len = 0;
	int fd;

	*out = NULL;
	if (!name || path[0] != '/') {
		sn_error_set(err, "not an absolute file path: %s", path);
		return st;
	}
	fd = sn_safedir_open(dir, 0, false, err);
	if (fd >= 0) {
		buf = sn_safedir_load(fd, dir, name, SN_BASELINE_MAX_BYTES,
				      &len, err);
		close(fd);
	}
	if (!buf)
		return errno == ENOENT ? SN_BASELINE_MISSING : st;
	st = parse_why(buf, len, job_id, out, why, sizeof(why));
	if (st != SN_BASELINE_OK)
		sn_error_set(err, "%s: %s", why, path);
	free(buf);
	return st;
}

enum sn_baseline_status sn_baseline_load(const char *path, uint32_t job_id,
					 json_object **out)
{
	return sn_baseline_read(path, job_id, out, NULL);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The keys of a and b (either may be NULL), sorted, without duplicates,
 * at most max.  The strings belong to the objects.  Returns the count.
 */
static size_t keys_union(const json_object *a, const json_object *b,
			 const char **out, size_t max)
{
	const json_object *objs[2] = { a, b };
	size_t n = 0, u = 0;

	for (int i = 0; i < 2; i++) {
		if (!objs[i] || !json_object_is_type(objs[i], json_type_object))
			continue;
		json_object_object_foreach((json_object *)objs[i], key, val)
		{
			(void)val;
			if (n >= max)
				break;
			out[n++] = key;
		}
	}
	qsort(out, n, sizeof(*out), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!u || strcmp(out[u - 1], out[i]))
			out[u++] = out[i];
	return u;
}

/* A limit as JSON: a whole number as an integer, else a double. */
static json_object *limit_json(bool has, double v)
{
	if (!has)
		return NULL;
	if (v == (double)(int64_t)v)
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
}

static int64_t duration(const struct build *b);

static const char *unit_text(enum sn_rate_unit u)
{
	return u == SN_UNIT_COUNT ? "count" : sn_rate_unit_name(u);
}

/*
 * The bytes a device moved during the job, known ones only (an unknown
 * direction counts as 0): sent, received, and both (their sum, or what
 * only the sum is known of, as for a GPU).
 */
struct traffic {
	uint64_t tx, rx, both;
};

/* The bytes a per-TB rate of counter is taken over (sn_counter_dir). */
static uint64_t traffic_for(const struct traffic *t, const char *counter)
{
	enum sn_counter_dir d = sn_counter_dir(counter);

	return d == SN_COUNTER_RX ? t->rx :
	       d == SN_COUNTER_TX ? t->tx :
				    t->both;
}

static const char *traffic_text(const char *counter)
{
	enum sn_counter_dir d = sn_counter_dir(counter);

	return d == SN_COUNTER_RX ? "received" :
	       d == SN_COUNTER_TX ? "sent" :
				    "sent+received";
}

/*
 * The first hardware-raised counter among a device's deltas that rose
 * during the job (a known delta above 0), or NULL: the physical-layer
 * evidence a counter any user can raise needs before it drains
 * (sn_rate_grade_raised).  An unknown delta (saturated, reset) is no
 * evidence.  The string belongs to deltas.
 */
static const char *physical_moved(json_object *deltas)
{
	json_object_object_foreach(deltas, name, val)
	{
		if (sn_counter_raised_by(name) == SN_RAISED_HARDWARE && val &&
		    json_object_is_type(val, json_type_int) &&
		    sn_sample_get(deltas, name).value > 0)
			return name;
	}
	return NULL;
}

/*
 * The fields of who can raise counter ("raised_by") and, for one any
 * user can raise, the hardware counter of the device that moved
 * ("physical", or null) and, when its grade was held at WARN for want of
 * one, why ("capped").
 */
static void raised_fields(struct build *b, json_object *o, const char *counter,
			  const char *device, const char *physical,
			  const char *plain, const char *grade)
{
	enum sn_counter_raiser by = sn_counter_raised_by(counter);
	char why[160];

	b->bad |= put(o, "raised_by",
		      json_object_new_string(sn_counter_raiser_name(by)));
	if (by != SN_RAISED_USER)
		return;
	b->bad |= put(o, "physical", str_or_null(physical));
	if (!strcmp(plain, grade))
		return;
	snprintf(why, sizeof(why),
		 "over crit, but any user's traffic can raise %s and no "
		 "physical-layer counter of %s moved",
		 counter, device);
	b->bad |= put(o, "capped", json_object_new_string(why));
}

/*
 * A verdict for a known delta v of a counter that has a threshold, judged
 * in the threshold's unit over this job (t: what the device moved; a
 * per-TB verdict says which direction in "traffic"; physical: a hardware
 * counter of the device that moved, or NULL).
 */
static void judge(struct build *b, const char *counter, const char *device,
		  uint64_t v, const struct traffic *t, const char *physical)
{
	const struct sn_threshold *th =
		sn_threshold_find(&b->cfg->epilog, counter);
	const char *plain, *grade;
	struct sn_rate r;
	json_object *o;

	if (!th)
		return;
	if (!(o = json_object_new_object())) {
		b->bad = 1;
		return;
	}
	r = sn_rate_of(th->unit, v, duration(b), traffic_for(t, counter));
	b->bad |= put(o, "counter", json_object_new_string(counter));
	b->bad |= put(o, "device", json_object_new_string(device));
	b->bad |= put(o, "delta", json_object_new_uint64(v));
	b->bad |= put(o, "unit", json_object_new_string(unit_text(th->unit)));
	b->bad |= put(o, "rate", json_object_new_double(r.value));
	b->bad |= put(o, "over",
		      th->unit == SN_UNIT_COUNT ?
			      NULL :
			      json_object_new_double(r.over));
	b->bad |= put(o, "actual",
		      th->unit == SN_UNIT_COUNT ?
			      NULL :
			      json_object_new_double(r.actual));
	b->bad |= put(o, "traffic",
		      th->unit == SN_UNIT_PER_TB ?
			      json_object_new_string(traffic_text(counter)) :
			      NULL);
	b->bad |= put(o, "warn", limit_json(th->has_warn, th->warn));
	b->bad |= put(o, "crit", limit_json(th->has_crit, th->crit));
	plain = sn_rate_grade(th, r.value);
	grade = sn_rate_grade_raised(th, r.value, sn_counter_raised_by(counter),
				     physical != NULL);
	b->bad |= put(o, "grade", json_object_new_string(grade));
	raised_fields(b, o, counter, device, physical, plain, grade);
	b->bad |= append(b->verdicts, o);
}

/* Put one delta into deltas/unknown; judged later (judge_all). */
static void add_delta(struct build *b, json_object *deltas,
		      json_object *unknown, const char *name, struct sn_delta d)
{
	if (json_object_object_get_ex(deltas, name, NULL))
		return; /* counters/ wins over hw_counters/ */
	if (!d.known) {
		b->bad |= put(deltas, name, NULL);
		b->bad |= put(unknown, name,
			      json_object_new_string(d.why_unknown));
		return;
	}
	b->bad |= put(deltas, name, json_object_new_uint64(d.value));
}

/* Judge every known delta of a device, in the order they were added. */
static void judge_all(struct build *b, json_object *deltas, const char *device,
		      const struct traffic *t)
{
	const char *physical = physical_moved(deltas);

	json_object_object_foreach(deltas, name, val)
	{
		if (val && json_object_is_type(val, json_type_int))
			judge(b, name, device,
			      sn_sample_get(deltas, name).value, t, physical);
	}
}

static struct sn_delta no_baseline(const struct build *b)
{
	return sn_delta_unknown(b->why_no_baseline);
}

/* The job's duration in seconds (0 when unknown or negative). */
static int64_t duration(const struct build *b)
{
	int64_t secs = b->in->end_time - b->start;

	return b->why_no_baseline || secs < 0 ? 0 : secs;
}

/* A port's "rate_gbps" in a snapshot; 0 when absent. */
static double rate_of(const json_object *port)
{
	json_object *v = sn_json_get(port, "rate_gbps", json_type_double);

	if (!v)
		v = sn_json_get(port, "rate_gbps", json_type_int);
	return v ? json_object_get_double(v) : 0;
}

/*
 * The line rate that bounds a port's counters: the larger of the rates read
 * at start and end (the link may have trained down during the job), or 0
 * (sn_delta_ceiling then assumes SN_PORT_MAX_GBPS).
 */
static double port_rate(const json_object *sp, const json_object *ep)
{
	double s = rate_of(sp), e = rate_of(ep);

	return s > e ? s : e;
}

/* Deltas of one counters group ("counters", "counters_ext", "hw_counters"). */
static void port_group(struct build *b, const json_object *sp,
		       const json_object *ep, const char *group,
		       json_object *deltas, json_object *unknown)
{
	double rate = port_rate(sp, ep);
	json_object *sm = sn_json_get(sp, group, json_type_object);
	json_object *em = sn_json_get(ep, group, json_type_object);
	const char **names = calloc(SN_RECORD_MAX_COUNTERS, sizeof(*names));
	size_t n;

	if (!names) {
		b->bad = 1;
		return;
	}
	n = keys_union(b->why_no_baseline ? NULL : sm, em, names,
		       SN_RECORD_MAX_COUNTERS);
	for (size_t i = 0; i < n; i++)
		add_delta(b, deltas, unknown, names[i],
			  b->why_no_baseline ?
				  no_baseline(b) :
				  sn_delta_plausible(names[i],
						     sn_delta_counter(names[i],
								      sm, em),
						     duration(b), rate));
	free(names);
}

/*
 * A counter delta from the deltas map (x word size), as JSON or null.  The
 * 64-bit form of the counter wins when the port has it at either end
 * (known or not): its 32-bit sibling saturates after 16 GiB.
 */
static json_object *moved(const json_object *deltas, const char *name,
			  uint64_t *bytes, bool *known)
{
	const char *wide = sn_counter_wide(name);
	struct sn_sample s;
	struct sn_delta d;

	if (wide && json_object_object_get_ex(deltas, wide, NULL))
		name = wide;
	s = sn_sample_get(deltas, name);
	d = sn_delta_unknown("unknown");
	if (s.state == SN_SAMPLE_OK) {
		d.known = true;
		d.value = s.value;
		d.why_unknown[0] = '\0';
	}
	d = sn_delta_bytes(name, d);
	*known = d.known;
	*bytes = d.value;
	return d.known ? json_object_new_uint64(d.value) : NULL;
}

static json_object *gbps(const struct build *b, bool known, uint64_t bytes)
{
	int64_t secs = duration(b);

	if (!known || secs <= 0)
		return NULL;
	return json_object_new_double((double)bytes * 8.0 / (double)secs / 1e9);
}

/* The traffic fields of a port; returns the bytes it moved, by direction. */
static struct traffic port_traffic(struct build *b, json_object *o,
				   json_object *deltas)
{
	uint64_t tx, rx, n;
	bool ktx, krx, k;

	b->bad |= put(o, "bytes_sent",
		      moved(deltas, "port_xmit_data", &tx, &ktx));
	b->bad |= put(o, "bytes_received",
		      moved(deltas, "port_rcv_data", &rx, &krx));
	b->bad |= put(o, "packets_sent",
		      moved(deltas, "port_xmit_packets", &n, &k));
	b->bad |= put(o, "packets_received",
		      moved(deltas, "port_rcv_packets", &n, &k));
	b->bad |= put(o, "mean_tx_gbps", gbps(b, ktx, tx));
	b->bad |= put(o, "mean_rx_gbps", gbps(b, krx, rx));
	tx = ktx ? tx : 0;
	rx = krx ? rx : 0;
	return (struct traffic){
		.tx = tx,
		.rx = rx,
		.both = tx > UINT64_MAX - rx ? UINT64_MAX : tx + rx,
	};
}

static json_object *link_layer(const json_object *sp, const json_object *ep)
{
	json_object *v = sn_json_get(ep, "link_layer", json_type_string);

	if (!v)
		v = sn_json_get(sp, "link_layer", json_type_string);
	return v ? json_object_new_string(json_object_get_string(v)) : NULL;
}

static json_object *port_entry(struct build *b, const char *key,
			       const json_object *sp, const json_object *ep)
{
	json_object *o = json_object_new_object();
	json_object *deltas = json_object_new_object();
	json_object *unknown = json_object_new_object();
	const char *slash = strrchr(key, '/');
	char dev[SN_DEVICE_MAX];
	struct traffic t;

	if (!o || !deltas || !unknown)
		goto oom;
	snprintf(dev, sizeof(dev), "%.*s",
		 slash ? (int)(slash - key) : (int)strlen(key), key);
	b->bad |= put(o, "device", json_object_new_string(dev));
	b->bad |=
		put(o, "port",
		    slash ? json_object_new_int64(strtol(slash + 1, NULL, 10)) :
			    NULL);
	b->bad |= put(o, "link_layer", link_layer(sp, ep));
	b->bad |= put(o, "rate_gbps",
		      port_rate(sp, ep) > 0 ?
			      json_object_new_double(port_rate(sp, ep)) :
			      NULL);
	port_group(b, sp, ep, "counters", deltas, unknown);
	port_group(b, sp, ep, "counters_ext", deltas, unknown);
	port_group(b, sp, ep, "hw_counters", deltas, unknown);
	b->bad |= put(o, "deltas", json_object_get(deltas));
	b->bad |= put(o, "unknown", unknown);
	t = port_traffic(b, o, deltas);
	judge_all(b, deltas, key, &t);
	json_object_put(deltas);
	return o;
oom:
	json_object_put(o);
	json_object_put(deltas);
	json_object_put(unknown);
	b->bad = 1;
	return NULL;
}

static json_object *ports_json(struct build *b)
{
	json_object *sports =
		sn_json_get(b->in->baseline, "ports", json_type_object);
	json_object *eports =
		sn_json_get(b->in->end, "ports", json_type_object);
	const char **keys = calloc(2 * SN_RECORD_MAX_PORTS, sizeof(*keys));
	json_object *arr = json_object_new_array();
	size_t n;

	if (!keys || !arr)
		goto oom;
	if (b->why_no_baseline)
		sports = NULL;
	n = keys_union(sports, eports, keys, 2 * SN_RECORD_MAX_PORTS);
	for (size_t i = 0; i < n && i < SN_RECORD_MAX_PORTS; i++) {
		json_object *sp = NULL, *ep = NULL;

		if (sports)
			json_object_object_get_ex(sports, keys[i], &sp);
		if (eports)
			json_object_object_get_ex(eports, keys[i], &ep);
		b->bad |= append(arr, port_entry(b, keys[i], sp, ep));
	}
	free(keys);
	return arr;
oom:
	free(keys);
	json_object_put(arr);
	b->bad = 1;
	return NULL;
}

static json_object *accel_devices(const json_object *snap)
{
	return sn_json_get(sn_json_get(snap, "accelerators", json_type_object),
			   "devices", json_type_object);
}

/*
 * A GPU whose NVML recovery action (field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
 * in the end snapshot) is not NONE: a CRIT verdict naming the action
 * (counter "recovery_action", "delta" the action's code, "action" its
 * name).  Absent or null (a driver before r570, a lost GPU): nothing.
 */
static void recovery_verdict(struct build *b, const char *bus,
			     const json_object *ed)
{
	struct sn_sample a = sn_sample_get(ed, "recovery_action");
	json_object *o;

	if (a.state != SN_SAMPLE_OK ||
	    a.value == SN_NVML_GPU_RECOVERY_ACTION_NONE)
		return;
	if (!(o = json_object_new_object())) {
		b->bad = 1;
		return;
	}
	b->bad |= put(o, "counter", json_object_new_string("recovery_action"));
	b->bad |= put(o, "device", json_object_new_string(bus));
	b->bad |= put(o, "delta", json_object_new_uint64(a.value));
	b->bad |= put(o, "unit", json_object_new_string("state"));
	b->bad |= put(o, "warn", NULL);
	b->bad |= put(o, "crit", NULL);
	b->bad |= put(o, "grade", json_object_new_string("CRIT"));
	b->bad |= put(
		o, "action",
		json_object_new_string(sn_nvml_recovery_action_name(a.value)));
	b->bad |= append(b->verdicts, o);
}

/*
 * NVLinks that went down during the job: active at the start and not at
 * the end (false; an unreadable state is not counted).  Fatal on its first
 * step: one such link is a CRIT verdict, counter "nvlink_down", unit
 * "count", delta the number of links, crit 1, "links" their numbers.
 */
static void link_down_verdict(struct build *b, const char *bus,
			      const json_object *sd, const json_object *ed)
{
	json_object *sl = sn_json_get(sd, "nvlink", json_type_object);
	json_object *el = sn_json_get(ed, "nvlink", json_type_object);
	json_object *links, *o;
	size_t n = 0;

	if (!sl || !el || !(links = json_object_new_array())) {
		b->bad |= sl && el;
		return;
	}
	json_object_object_foreach(sl, link, lv)
	{
		json_object *was = sn_json_get(lv, "active", json_type_boolean);
		json_object *now =
			sn_json_get(sn_json_get(el, link, json_type_object),
				    "active", json_type_boolean);

		if (was && now && json_object_get_boolean(was) &&
		    !json_object_get_boolean(now)) {
			n++;
			b->bad |=
				append(links, json_object_new_int(atoi(link)));
		}
	}
	if (!n || !(o = json_object_new_object())) {
		b->bad |= n != 0;
		json_object_put(links);
		return;
	}
	b->bad |= put(o, "counter", json_object_new_string("nvlink_down"));
	b->bad |= put(o, "device", json_object_new_string(bus));
	b->bad |= put(o, "delta", json_object_new_uint64(n));
	b->bad |= put(o, "unit", json_object_new_string("count"));
	b->bad |= put(o, "rate", json_object_new_double((double)n));
	b->bad |= put(o, "warn", NULL);
	b->bad |= put(o, "crit", json_object_new_int(1));
	b->bad |= put(o, "grade", json_object_new_string("CRIT"));
	b->bad |= put(o, "links", links);
	b->bad |= append(b->verdicts, o);
}

/*
 * NVLink 5's effective BER at the end of the job (snapshot key
 * nvlink_effective_ber, the raw field): above SN_BER_CRIT (DCGM's limit)
 * is a CRIT verdict, counter "nvlink_effective_ber", unit "BER", rate the
 * decoded BER; at or below it an OK one.  Absent or null: nothing.  A raw
 * value that is not a BER (sn_rate_ber) gives no verdict: it is named in
 * the GPU's "unknown" with the reason.
 */
static void ber_verdict(struct build *b, json_object *gpu, const char *bus,
			const json_object *ed)
{
	struct sn_sample s = sn_sample_get(ed, "nvlink_effective_ber");
	json_object *o,
		*unknown = sn_json_get(gpu, "unknown", json_type_object);
	char why[96];
	double ber;

	if (s.state != SN_SAMPLE_OK)
		return;
	if (sn_rate_ber(s.value, &ber)) {
		snprintf(why, sizeof(why),
			 "raw value %#llx is not a BER (above %#x)",
			 (unsigned long long)s.value, SN_BER_RAW_MAX);
		b->bad |= !unknown || put(unknown, "nvlink_effective_ber",
					  json_object_new_string(why));
		return;
	}
	if (!(o = json_object_new_object())) {
		b->bad = 1;
		return;
	}
	b->bad |= put(o, "counter",
		      json_object_new_string("nvlink_effective_ber"));
	b->bad |= put(o, "device", json_object_new_string(bus));
	b->bad |= put(o, "delta", json_object_new_uint64(s.value));
	b->bad |= put(o, "unit", json_object_new_string("BER"));
	b->bad |= put(o, "rate", json_object_new_double(ber));
	b->bad |= put(o, "warn", NULL);
	b->bad |= put(o, "crit", json_object_new_double(SN_BER_CRIT));
	/* x 10^-exponent is not exact in binary: 10 x 10^-13 is the limit */
	b->bad |= put(o, "grade",
		      json_object_new_string(
			      ber > SN_BER_CRIT * (1 + 1e-9) ? "CRIT" : "OK"));
	b->bad |= append(b->verdicts, o);
}

/* The sum of two keys' deltas x scale; false when either is not known. */
static bool delta_pair(const json_object *sd, const json_object *ed,
		       const char *const keys[2], uint64_t scale, uint64_t *out)
{
	uint64_t sum = 0;

	for (int i = 0; i < 2; i++) {
		struct sn_delta d = sn_delta_rule(keys[i],
						  sn_sample_get(sd, keys[i]),
						  sn_sample_get(ed, keys[i]));

		if (!d.known || d.value > (UINT64_MAX - sum) / scale)
			return false;
		sum += d.value * scale;
	}
	*out = sum;
	return true;
}

/*
 * The NVLink data a GPU moved during the job, in bytes, sent plus
 * received: the throughput fields (nvlink_data_{tx,rx}_kib, KiB), else
 * NVLink 5's byte counters (nvlink_{xmit,rcv}_bytes); 0 when neither is
 * known.  *known says whether one was.
 */
static uint64_t nvlink_bytes(const struct build *b, const json_object *sd,
			     const json_object *ed, bool *known)
{
	static const char *const kib[2] = { "nvlink_data_tx_kib",
					    "nvlink_data_rx_kib" };
	static const char *const bytes[2] = { "nvlink_xmit_bytes",
					      "nvlink_rcv_bytes" };
	uint64_t sum = 0;

	*known = !b->why_no_baseline && (delta_pair(sd, ed, kib, 1024, &sum) ||
					 delta_pair(sd, ed, bytes, 1, &sum));
	return *known ? sum : 0;
}

/*
 * The GPU's NVLink version (nvmlNvlinkVersion_t) at the end, else at the
 * start; -1 when not known (absent, null, or 0: NVML's INVALID).
 */
static int64_t nvlink_version(const json_object *sd, const json_object *ed)
{
	json_object *v = sn_json_get(ed, "nvlink_version", json_type_int);

	if (!v || json_object_get_int64(v) <= 0)
		v = sn_json_get(sd, "nvlink_version", json_type_int);
	return v && json_object_get_int64(v) > 0 ? json_object_get_int64(v) :
						   -1;
}

/* Why a legacy NVLink counter is not judged on a GPU of version. */
static void legacy_why(int64_t version, char *why, size_t size)
{
	if (version < 0)
		snprintf(
			why, size,
			"legacy NVLink counter, NVLink version not known (no link answered): not judged, as from NVLink 4.0 (Hopper) on it counts corrected events");
	else
		snprintf(
			why, size,
			"legacy NVLink counter on NVLink version %lld (4.0 or later, Hopper on): counts corrected events, not judged",
			(long long)version);
}

/*
 * Move the legacy NVLink counters of a GPU of NVLink 4.0 or later, or of
 * a GPU whose version is not known, out of judgement: they count corrected
 * events from 4.0 on (sn_counters.h), and judged per TB on a healthy
 * Hopper they drain it (the captured crc_data 61 in 12 s, 439200 a day).
 * They stay in "deltas" and are named in "information" with the reason.
 */
static json_object *legacy_info(struct build *b, json_object *deltas,
				int64_t version)
{
	json_object *info = json_object_new_object(), *judged;
	bool legacy = version < 0 || version >= SN_COUNTER_NVLINK4_VERSION;
	char why[192];

	judged = json_object_new_object();
	if (!info || !judged) {
		json_object_put(info);
		json_object_put(judged);
		b->bad = 1;
		return NULL;
	}
	legacy_why(version, why, sizeof(why));
	json_object_object_foreach(deltas, name, val)
	{
		const struct sn_counter *c = sn_counter_find(name);

		if (c && c->legacy_nvlink && legacy)
			b->bad |= put(info, name, json_object_new_string(why));
		else
			b->bad |= put(judged, name, json_object_get(val));
	}
	b->info = info;
	return judged;
}

static void accel_judge(struct build *b, json_object *o, const char *bus,
			json_object *deltas, const json_object *sd,
			const json_object *ed)
{
	int64_t version = nvlink_version(sd, ed);
	struct traffic t = { 0 }; /* GPU rows are all SN_COUNTER_BOTH */
	uint64_t bytes;
	json_object *judged;
	bool known;

	bytes = nvlink_bytes(b, sd, ed, &known);
	t.both = bytes;
	b->bad |= put(o, "nvlink_version",
		      version >= 0 ? json_object_new_int64(version) : NULL);
	b->bad |= put(o, "nvlink_bytes",
		      known ? json_object_new_uint64(bytes) : NULL);
	b->info = NULL;
	judged = legacy_info(b, deltas, version);
	b->bad |= put(o, "information",
		      b->info ? b->info : json_object_new_object());
	if (judged)
		judge_all(b, judged, bus, &t);
	json_object_put(judged);
	recovery_verdict(b, bus, ed);
	if (!b->why_no_baseline) {
		ber_verdict(b, o, bus, ed);
		link_down_verdict(b, bus, sd, ed);
	}
}

static json_object *accel_entry(struct build *b, const char *bus,
				const json_object *sd, const json_object *ed)
{
	json_object *o = json_object_new_object();
	json_object *deltas = json_object_new_object();
	json_object *unknown = json_object_new_object();
	json_object *idx = sn_json_get(ed, "index", json_type_int);

	if (!o || !deltas || !unknown)
		goto oom;
	if (!idx)
		idx = sn_json_get(sd, "index", json_type_int);
	b->bad |= put(o, "bus_id", json_object_new_string(bus));
	b->bad |= put(o, "index",
		      idx ? json_object_new_int64(json_object_get_int64(idx)) :
			    NULL);
	for (size_t i = 0; i < sn_counters_count; i++) {
		const char *name = sn_counters[i].name;
		struct sn_delta d;

		if (sn_counters[i].source != SN_COUNTER_ACCEL ||
		    !sn_delta_accel(name, b->why_no_baseline ? NULL : sd, ed,
				    &d))
			continue;
		add_delta(b, deltas, unknown, name,
			  b->why_no_baseline ?
				  no_baseline(b) :
				  sn_delta_plausible(name, d, duration(b),
						     SN_ACCEL_MAX_GBPS));
	}
	b->bad |= put(o, "deltas", json_object_get(deltas));
	b->bad |= put(o, "unknown", unknown);
	accel_judge(b, o, bus, deltas, b->why_no_baseline ? NULL : sd, ed);
	json_object_put(deltas);
	return o;
oom:
	json_object_put(o);
	json_object_put(deltas);
	json_object_put(unknown);
	b->bad = 1;
	return NULL;
}

static json_object *accels_json(struct build *b)
{
	json_object *sdevs =
		b->why_no_baseline ? NULL : accel_devices(b->in->baseline);
	json_object *edevs = accel_devices(b->in->end);
	const char **keys = calloc(2 * SN_MANIFEST_MAX_ACCELS, sizeof(*keys));
	json_object *arr = json_object_new_array();
	size_t n;

	if (!keys || !arr)
		goto oom;
	n = keys_union(sdevs, edevs, keys, 2 * SN_MANIFEST_MAX_ACCELS);
	for (size_t i = 0; i < n && i < SN_MANIFEST_MAX_ACCELS; i++)
		b->bad |=
			append(arr, accel_entry(b, keys[i],
						sn_json_get(sdevs, keys[i],
							    json_type_object),
						sn_json_get(edevs, keys[i],
							    json_type_object)));
	free(keys);
	return arr;
oom:
	free(keys);
	json_object_put(arr);
	b->bad = 1;
	return NULL;
}

static const char *str_of(const json_object *o, const char *key);
static uint64_t u64_of(const json_object *o, const char *key);

static void xid_verdict(struct build *b, const json_object *ev)
{
	json_object *sev = sn_json_get(ev, "severity", json_type_string);
	json_object *bus = sn_json_get(ev, "bus_id", json_type_string);
	json_object *xid = sn_json_get(ev, "xid", json_type_int);
	json_object *meaning = sn_json_get(ev, "meaning", json_type_string);
	const char *s = sev ? json_object_get_string(sev) : "";
	json_object *o;

	if (strcmp(s, "warn") && strcmp(s, "drain"))
		return;
	if (!(o = json_object_new_object())) {
		b->bad = 1;
		return;
	}
	b->bad |= put(o, "counter", json_object_new_string("xid"));
	b->bad |= put(o, "device",
		      json_object_new_string(bus ? json_object_get_string(bus) :
						   "?"));
	b->bad |= put(o, "delta",
		      json_object_new_uint64(u64_of(ev, "count") ?: 1));
	b->bad |= put(o, "warn", NULL);
	b->bad |= put(o, "crit", NULL);
	b->bad |= put(o, "grade",
		      json_object_new_string(strcmp(s, "drain") ? "WARN" :
								  "CRIT"));
	b->bad |= put(o, "xid",
		      json_object_new_int64(xid ? json_object_get_int64(xid) :
						  0));
	b->bad |= put(o, "meaning",
		      str_or_null(meaning ? json_object_get_string(meaning) :
					    NULL));
	b->bad |= put(o, "kind", json_object_new_string(str_of(ev, "kind")));
	b->bad |= append(b->verdicts, o);
}

static json_object *xids_json(struct build *b)
{
	json_object *arr = json_object_new_array();
	const json_object *in = b->in->xid_events;
	size_t n;

	if (!arr || b->why_no_baseline || !in ||
	    !json_object_is_type(in, json_type_array))
		return arr;
	n = json_object_array_length(in);
	for (size_t i = 0;
	     i < n && i < SN_RECORD_MAX_XID + SN_RECORD_MAX_XID_SEVERE; i++) {
		json_object *ev = json_object_array_get_idx(in, i),
			    *copy = NULL;

		if (json_object_deep_copy(ev, &copy, NULL)) {
			b->bad = 1;
			continue;
		}
		b->bad |= append(arr, copy);
	}
	return arr;
}

static const char *xid_scan_text(const struct build *b, char *buf, size_t size)
{
	int rc = b->in->xid_rc;

	if (b->why_no_baseline)
		return "no baseline";
	if (rc == -ENODATA)
		return "no log position in the baseline";
	if (rc < 0) {
		snprintf(buf, size, "not read: %s", strerror(-rc));
		return buf;
	}
	if (rc & SN_KMSG_LOST)
		return "records lost before they were read";
	if (rc & SN_KMSG_RESTARTED)
		return "log restarted since the baseline (reboot?)";
	if (rc & SN_KMSG_MORE)
		return "stopped at a bound: more records than read";
	return "ok";
}

/* The worst grade of the verdicts (sn_grade order: OK, WARN, UNKNOWN, CRIT). */
static const char *worst_of(const json_object *verdicts)
{
	enum sn_grade worst = SN_OK;
	size_t n = json_object_array_length(verdicts);

	for (size_t i = 0; i < n; i++) {
		json_object *g =
			sn_json_get(json_object_array_get_idx(verdicts, i),
				    "grade", json_type_string);
		int v = sn_grade_parse(g ? json_object_get_string(g) : NULL);

		if (v >= 0)
			worst = sn_grade_worse(worst, (enum sn_grade)v);
	}
	return sn_grade_name(worst);
}

/*
 * An UNKNOWN verdict of device (the Xid scan "kmsg", the "baseline"):
 * events or counters that were not judged.
 */
static void unknown_verdict(struct build *b, const char *counter,
			    const char *device, size_t n, const char *reason)
{
	json_object *o = json_object_new_object();

	if (!o) {
		b->bad = 1;
		return;
	}
	b->bad |= put(o, "counter", json_object_new_string(counter));
	b->bad |= put(o, "device", json_object_new_string(device));
	b->bad |= put(o, "delta", n ? json_object_new_uint64(n) : NULL);
	b->bad |= put(o, "warn", NULL);
	b->bad |= put(o, "crit", NULL);
	b->bad |= put(o, "grade", json_object_new_string("UNKNOWN"));
	b->bad |= put(o, "reason", json_object_new_string(reason));
	b->bad |= append(b->verdicts, o);
}

/*
 * Xid events lost or not read are not known to be harmless: the record is
 * at least UNKNOWN, with why (issue 17, item 2).
 */
static void scan_verdicts(struct build *b)
{
	const struct sn_xid_counts *c = &b->in->xid_counts;
	char buf[160];
	const char *scan;

	if (b->status == SN_BASELINE_NEWER) {
		/* Nothing judged: not known to be fine, not a node fault. */
		sn_baseline_newer_text(b->in->baseline, buf, sizeof(buf));
		unknown_verdict(b, "baseline_format", "baseline", 0, buf);
	}
	if (b->why_no_baseline)
		return;
	scan = xid_scan_text(b, buf, sizeof(buf));
	if (strcmp(scan, "ok"))
		unknown_verdict(b, "xid_scan", "kmsg", 0, scan);
	if (c->lost) {
		snprintf(
			buf, sizeof(buf),
			"%zu warn or drain Xid events not judged (more than %u distinct ones, or out of memory)",
			c->lost, SN_RECORD_MAX_XID_SEVERE);
		unknown_verdict(b, "xid_lost", "kmsg", c->lost, buf);
	}
}

static void header(struct build *b, json_object *rec)
{
	const struct sn_record_input *in = b->in;
	char buf[160];

	b->bad |= put(rec, "schema", json_object_new_int(SN_RECORD_SCHEMA));
	b->bad |= put(rec, "job_id", json_object_new_int64(in->job_id));
	if (in->has_restart_count) {
		b->bad |= put(
			rec, "attempt",
			json_object_new_int64((int64_t)in->restart_count + 1));
		b->bad |= put(rec, "restart_count",
			      json_object_new_int64(in->restart_count));
	}
	b->bad |= put(rec, "user", str_or_null(in->user));
	b->bad |= put(rec, "node", str_or_null(in->node));
	b->bad |= put(rec, "supernode", str_or_null(in->supernode));
	b->bad |= put(rec, "nodes", str_or_null(in->nodes));
	b->bad |= put(rec, "start",
		      b->why_no_baseline ? NULL :
					   json_object_new_int64(b->start));
	b->bad |= put(rec, "end", json_object_new_int64(in->end_time));
	b->bad |= put(rec, "exit_code",
		      in->has_exit_code ? json_object_new_int(in->exit_code) :
					  NULL);
	b->bad |=
		put(rec, "signal",
		    in->has_exit_code ? json_object_new_int(in->signal) : NULL);
	b->bad |= put(rec, "derived_exit_code",
		      in->has_derived ? json_object_new_int(in->derived_exit) :
					NULL);
	b->bad |= put(rec, "derived_signal",
		      in->has_derived ?
			      json_object_new_int(in->derived_signal) :
			      NULL);
	b->bad |=
		put(rec, "baseline",
		    json_object_new_string(sn_baseline_status_name(b->status)));
	if (b->status == SN_BASELINE_MISSING && in->prolog_failed)
		b->bad |= put(rec, "prolog_failed",
			      json_object_new_string(in->prolog_failed));
	b->bad |=
		put(rec, "xid_scan",
		    json_object_new_string(xid_scan_text(b, buf, sizeof(buf))));
}

/* What looked like an Xid and was not counted, by why. */
static json_object *ignored_json(struct build *b)
{
	const struct sn_xid_counts *c = &b->in->xid_counts;
	json_object *o = json_object_new_object();
	bool none = b->why_no_baseline;

	if (!o) {
		b->bad = 1;
		return NULL;
	}
	b->bad |= put(o, "not_kernel",
		      json_object_new_uint64(none ? 0 : c->not_kernel));
	b->bad |= put(o, "not_driver",
		      json_object_new_uint64(none ? 0 : c->not_driver));
	b->bad |= put(o, "unknown_device",
		      json_object_new_uint64(none ? 0 : c->unknown_device));
	return o;
}

static void setup(struct build *b, const struct sn_config *cfg,
		  const struct sn_record_input *in)
{
	json_object *t;

	memset(b, 0, sizeof(*b));
	b->cfg = cfg;
	b->in = in;
	b->status = in->baseline_status;
	if (b->status == SN_BASELINE_OK &&
	    (!in->baseline || !baseline_valid(in->baseline, 0)))
		b->status = SN_BASELINE_CORRUPT;
	if (b->status == SN_BASELINE_NEWER &&
	    sn_baseline_format(in->baseline) <= SN_BASELINE_SCHEMA)
		b->status = SN_BASELINE_CORRUPT;
	if (b->status == SN_BASELINE_MISSING)
		b->why_no_baseline = "baseline missing";
	else if (b->status == SN_BASELINE_NEWER)
		b->why_no_baseline = "baseline of a newer format";
	else if (b->status != SN_BASELINE_OK)
		b->why_no_baseline = "baseline corrupt";
	t = sn_json_get(in->baseline, "time", json_type_int);
	b->start = t ? json_object_get_int64(t) : 0;
}

json_object *sn_record_build(const struct sn_config *cfg,
			     const struct sn_record_input *in)
{
	json_object *rec = json_object_new_object(), *xids;
	char reason[SN_REASON_MAX + 1];
	struct build b;

	setup(&b, cfg, in);
	if (!rec || !(b.verdicts = json_object_new_array()))
		goto fail;
	header(&b, rec);
	b.bad |= put(rec, "ports", ports_json(&b));
	b.bad |= put(rec, "accelerators", accels_json(&b));
	xids = xids_json(&b);
	for (size_t i = 0; xids && i < json_object_array_length(xids); i++)
		xid_verdict(&b, json_object_array_get_idx(xids, i));
	b.bad |= put(rec, "xid_events", xids);
	b.bad |= put(rec, "xid_events_dropped",
		     json_object_new_uint64(
			     b.why_no_baseline ? 0 : in->xid_counts.dropped));
	b.bad |= put(rec, "xid_events_lost",
		     json_object_new_uint64(
			     b.why_no_baseline ? 0 : in->xid_counts.lost));
	b.bad |= put(rec, "xid_ignored", ignored_json(&b));
	scan_verdicts(&b);
	b.bad |= put(rec, "verdicts", json_object_get(b.verdicts));
	b.bad |=
		put(rec, "worst", json_object_new_string(worst_of(b.verdicts)));
	sn_record_drain_reason(rec,
			       cfg->drain_tag ? cfg->drain_tag : DEFAULT_TAG,
			       reason, sizeof(reason));
	b.bad |= put(rec, "drain_reason",
		     reason[0] ? json_object_new_string(reason) : NULL);
	if (b.bad)
		goto fail;
	json_object_put(b.verdicts);
	return rec;
fail:
	json_object_put(b.verdicts);
	json_object_put(rec);
	return NULL;
}

/* --- Xid events ------------------------------------------------------- */

static const char *action_name(enum sn_xid_action a)
{
	return a == SN_XID_ACTION_DRAIN ? "drain" :
	       a == SN_XID_ACTION_WARN	? "warn" :
					  "record";
}

static const struct sn_xid_override *xid_override(const struct sn_config *cfg,
						  unsigned xid)
{
	for (size_t i = 0; i < cfg->epilog.n_xid; i++)
		if (cfg->epilog.xid[i].xid == xid)
			return &cfg->epilog.xid[i];
	return NULL;
}

/* Xid 63: drain when the end snapshot shows a pending or failed remap. */
static const char *remap_decide(const json_object *end, const char *bus,
				const char **meaning)
{
	json_object *rr = sn_json_get(sn_json_get(accel_devices(end), bus,
						  json_type_object),
				      "remapped_rows", json_type_object);
	json_object *f = sn_json_get(rr, "failure", json_type_boolean);
	json_object *p = sn_json_get(rr, "pending", json_type_boolean);

	if (f && json_object_get_boolean(f)) {
		*meaning = "row remap failure: RMA";
		return "drain";
	}
	if (p && json_object_get_boolean(p)) {
		*meaning = "row remap pending: reset the GPU";
		return "drain";
	}
	return "record";
}

json_object *sn_record_xid_event(const struct sn_config *cfg,
				 const struct sn_xid_event *ev,
				 const json_object *end)
{
	const struct sn_xid_info *info = sn_xid_event_info(ev);
	const struct sn_xid_override *ov = NULL;
	const char *meaning = info->meaning, *sev;
	json_object *o = json_object_new_object();
	int bad = 0;

	if (!o)
		return NULL;
	if (ev->kind != SN_XID_NVSWITCH)
		ov = xid_override(cfg, ev->xid);
	if (ov)
		sev = action_name(ov->action);
	else if (info->severity == SN_XID_REMAP)
		sev = remap_decide(end, ev->busid, &meaning);
	else
		sev = sn_xid_severity_name(info->severity);
	bad |= put(o, "bus_id", json_object_new_string(ev->busid));
	bad |= put(o, "xid", json_object_new_int64(ev->xid));
	bad |= put(
		o, "kind",
		json_object_new_string(ev->kind == SN_XID_NVSWITCH ? "sxid" :
				       ev->kind == SN_XID_OFF_BUS  ? "off_bus" :
								     "xid"));
	bad |= put(o, "severity", json_object_new_string(sev));
	bad |= put(o, "meaning", json_object_new_string(meaning));
	bad |= put(o, "text", json_object_new_string(ev->text));
	bad |= put(o, "count", json_object_new_int(1));
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct xid_walk {
	const struct sn_config *cfg;
	const json_object *baseline, *end;
	struct sn_xid_scan scan;
	json_object *events;
	json_object *severe[SN_RECORD_MAX_XID_SEVERE]; /* borrowed from events */
	size_t n_severe, n_record;
	struct sn_xid_counts counts;
	uint64_t last_seq;
};

/* Whether key is a member of the array snap[name] (of strings). */
static bool listed(const json_object *snap, const char *name, const char *key)
{
	json_object *a = sn_json_get(snap, name, json_type_array);

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), key))
			return true;
	}
	return false;
}

/* The event's bus id is a GPU (NVSwitch) of the baseline or end snapshot. */
static bool device_known(const struct xid_walk *w,
			 const struct sn_xid_event *ev)
{
	const json_object *snaps[] = { w->baseline, w->end };

	for (size_t i = 0; i < 2; i++) {
		if (ev->kind == SN_XID_NVSWITCH ?
			    listed(snaps[i], "nvswitches", ev->busid) :
			    !!sn_json_get(accel_devices(snaps[i]), ev->busid,
					  json_type_object))
			return true;
	}
	return false;
}

static bool same_str(const json_object *a, const json_object *b,
		     const char *key)
{
	return !strcmp(str_of(a, key), str_of(b, key));
}

/* A kept warn/drain entry for the same event as o, or NULL. */
static json_object *severe_twin(const struct xid_walk *w, const json_object *o)
{
	for (size_t i = 0; i < w->n_severe; i++) {
		json_object *k = w->severe[i];

		if (u64_of(k, "xid") == u64_of(o, "xid") &&
		    same_str(k, o, "kind") && same_str(k, o, "bus_id") &&
		    same_str(k, o, "severity") && same_str(k, o, "meaning"))
			return k;
	}
	return NULL;
}

/*
 * Keep one judged event: record-level ones up to SN_RECORD_MAX_XID (the
 * rest counted as dropped); warn and drain ones always, one entry per
 * (kind, xid, bus, severity, meaning) whose "count" grows, up to
 * SN_RECORD_MAX_XID_SEVERE entries (the rest counted as lost).
 */
static void xid_keep(struct xid_walk *w, json_object *o)
{
	json_object *twin;

	if (!o) {
		w->counts.lost++; /* out of memory: not judged */
		return;
	}
	if (!strcmp(str_of(o, "severity"), "record")) {
		if (w->n_record >= SN_RECORD_MAX_XID ||
		    json_object_array_add(w->events, o)) {
			w->counts.dropped++;
			json_object_put(o);
			return;
		}
		w->n_record++;
		return;
	}
	if ((twin = severe_twin(w, o))) {
		json_object_object_add(
			twin, "count",
			json_object_new_uint64(u64_of(twin, "count") + 1));
		json_object_put(o);
		return;
	}
	if (w->n_severe >= SN_RECORD_MAX_XID_SEVERE ||
	    json_object_array_add(w->events, o)) {
		w->counts.lost++;
		json_object_put(o);
		return;
	}
	w->severe[w->n_severe++] = o;
}

/*
 * One log record.  A text line (facility -1) is parsed leniently; a kmsg
 * record counts only when the kernel wrote it (facility 0), it is one of
 * the driver's lines from its first byte and names a device of this node.
 */
static int xid_line(const struct sn_kmsg_record *rec, void *arg)
{
	struct xid_walk *w = arg;
	struct sn_xid_event ev;

	w->last_seq = rec->seq;
	if (rec->facility < 0) {
		if (sn_xid_scan_line(&w->scan, rec->msg, &ev))
			return 0;
	} else if (rec->facility != 0) {
		if (!sn_xid_parse(rec->msg, &ev))
			w->counts.not_kernel++;
		return 0;
	} else if (sn_xid_scan_driver(&w->scan, rec->msg, &ev)) {
		if (!sn_xid_parse(rec->msg, &ev))
			w->counts.not_driver++;
		return 0;
	} else if (!device_known(w, &ev)) {
		w->counts.unknown_device++;
		return 0;
	}
	xid_keep(w, sn_record_xid_event(w->cfg, &ev, w->end));
	return 0;
}

int sn_record_collect_xids(const struct sn_config *cfg, const char *kmsg_path,
			   const json_object *baseline, const json_object *end,
			   json_object **events, struct sn_xid_counts *counts)
{
	json_object *seq = sn_json_get(baseline, "kmsg_seq", json_type_int);
	struct xid_walk *w = calloc(1, sizeof(*w));
	int rc = -ENODATA, flags = 0;

	memset(counts, 0, sizeof(*counts));
	*events = json_object_new_array();
	if (!w || !*events) {
		free(w);
		return -ENOMEM;
	}
	if (!seq || json_object_get_int64(seq) < 0 || !kmsg_path)
		goto out;
	w->cfg = cfg;
	w->baseline = baseline;
	w->end = end;
	w->events = *events;
	w->last_seq = (uint64_t)json_object_get_int64(seq);
	for (int call = 0; call < SN_RECORD_KMSG_CALLS; call++) {
		rc = sn_kmsg_read_since(kmsg_path, w->last_seq, xid_line, w);
		if (rc < 0)
			break;
		flags |= rc & ~SN_KMSG_MORE;
		rc = flags | (rc & SN_KMSG_MORE);
		if (!(rc & SN_KMSG_MORE))
			break;
	}
	*counts = w->counts;
out:
	free(w);
	return rc;
}

/* --- drain reason ----------------------------------------------------- */

static uint64_t u64_of(const json_object *o, const char *key)
{
	json_object *v = sn_json_get(o, key, json_type_int);

	return v ? sn_sample_get(o, key).value : 0;
}

/* A number member (integer or double) as a double; 0 when absent. */
static double num_of(const json_object *o, const char *key)
{
	json_object *v = sn_json_get(o, key, json_type_double);

	if (!v)
		v = sn_json_get(o, key, json_type_int);
	return v ? json_object_get_double(v) : 0;
}

static const char *str_of(const json_object *o, const char *key)
{
	json_object *v = sn_json_get(o, key, json_type_string);

	return v ? json_object_get_string(v) : "?";
}

static bool is_crit(const json_object *v)
{
	return !strcmp(str_of(v, "grade"), "CRIT");
}

static bool is_xid(const json_object *v)
{
	return !strcmp(str_of(v, "counter"), "xid");
}

static bool is_recovery(const json_object *v)
{
	return !strcmp(str_of(v, "counter"), "recovery_action");
}

/* How far over its crit limit a counter verdict is (rate / crit). */
static double over_crit(const json_object *v)
{
	double crit = num_of(v, "crit");
	double rate = sn_json_get(v, "rate", json_type_double) ?
			      num_of(v, "rate") :
			      num_of(v, "delta");

	return crit > 0 ? rate / crit : rate;
}

/* a worse than b: Xid first, then a recovery action, then rate / crit. */
static bool worse(const json_object *a, const json_object *b)
{
	if (is_xid(a) != is_xid(b))
		return is_xid(a);
	if (is_xid(a))
		return false;
	if (is_recovery(a) != is_recovery(b))
		return is_recovery(a);
	if (is_recovery(a))
		return false;
	return over_crit(a) > over_crit(b);
}

/* "+12 in 30 s = 12/h (crit 10/h)", "+2 (crit 1)". */
static void format_counter(const json_object *v, char *buf, size_t size)
{
	const char *unit = str_of(v, "unit");
	struct sn_rate r = { .unit = SN_UNIT_COUNT };
	char what[96];
	int64_t secs;

	if (!strcmp(unit, "/h"))
		r.unit = SN_UNIT_PER_HOUR;
	else if (!strcmp(unit, "/TB"))
		r.unit = SN_UNIT_PER_TB;
	r.value = num_of(v, "rate");
	r.over = num_of(v, "over");
	r.actual = num_of(v, "actual");
	secs = (int64_t)(r.actual * 3600.0 + 0.5);
	sn_rate_format(&r, u64_of(v, "delta"), secs, what, sizeof(what));
	snprintf(buf, size, "%s (crit %g%s)", what, num_of(v, "crit"),
		 r.unit == SN_UNIT_COUNT ? "" : sn_rate_unit_name(r.unit));
}

static void format_reason(const json_object *v, const char *tag, char *buf,
			  size_t size)
{
	char counter[64], what[128];
	size_t i;

	if (is_xid(v)) {
		snprintf(buf, size, "%s %s%llu %s %s", tag,
			 strcmp(str_of(v, "kind"), "sxid") ? "XID" : "SXID",
			 (unsigned long long)u64_of(v, "xid"),
			 str_of(v, "device"), str_of(v, "meaning"));
		return;
	}
	if (is_recovery(v)) {
		snprintf(buf, size, "%s GPU_RECOVERY_ACTION %s %s", tag,
			 str_of(v, "device"), str_of(v, "action"));
		return;
	}
	if (!strcmp(str_of(v, "unit"), "BER")) {
		snprintf(buf, size,
			 "%s EPILOG_NVLINK_EFFECTIVE_BER %s %.3g (crit %g)",
			 tag, str_of(v, "device"), num_of(v, "rate"),
			 num_of(v, "crit"));
		return;
	}
	snprintf(counter, sizeof(counter), "%s", str_of(v, "counter"));
	for (i = 0; counter[i]; i++)
		counter[i] = (char)toupper((unsigned char)counter[i]);
	format_counter(v, what, sizeof(what));
	/* a reason longer than buf is cut; sn_reason_compose bounds it again */
	if (snprintf(buf, size, "%s EPILOG_%s %s %s", tag, counter,
		     str_of(v, "device"), what) >= (int)size)
		buf[size - 1] = '\0';
}

size_t sn_record_drain_reason(const json_object *record, const char *tag,
			      char *buf, size_t size)
{
	json_object *verdicts =
		sn_json_get(record, "verdicts", json_type_array);
	const json_object *first = NULL;
	char line[SN_REASON_LINE_SIZE];
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; verdicts && i < json_object_array_length(verdicts);
	     i++) {
		json_object *v = json_object_array_get_idx(verdicts, i);

		if (!is_crit(v))
			continue;
		n++;
		if (!first || worse(v, first))
			first = v;
	}
	if (!first || !size)
		return first ? n : 0;
	format_reason(first, tag ? tag : DEFAULT_TAG, line, sizeof(line));
	sn_reason_compose(buf, size, tag ? tag : DEFAULT_TAG, line, n);
	return n;
}
