/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus textfile of the epilog (see sn_promfile.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_counters.h"
#include "config/sn_manifest.h"
#include "records/sn_delta.h"
#include "util/sn_file.h"
#include "records/sn_promfile.h"
#include "util/sn_safedir.h"
#include "util/sn_strbuf.h"

#define MAX_PORTS 512
#define MAX_NAMES 1024 /* distinct counter names over all ports */
#define FAMILY_MAX 128

/* A label value, escaped per the exposition format: \\, \" and \n. */
static void sb_label(struct sn_strbuf *s, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			sn_strbuf_append(s, "\\\\");
		else if (*v == '"')
			sn_strbuf_append(s, "\\\"");
		else if (*v == '\n')
			sn_strbuf_append(s, "\\n");
		else
			sn_strbuf_appendn(s, v, 1);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Numbers first by value ("2" < "10"), then other strings. */
static int cmp_num(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strspn(x, "0123456789"), ly = strspn(y, "0123456789");

	if (lx && ly && !x[lx] && !y[ly] && lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/* Sorted keys of o (at most max); strings belong to o. */
static size_t keys_sorted(const json_object *o, const char **out, size_t max,
			  int (*cmp)(const void *, const void *))
{
	size_t n = 0;

	if (!o || !json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach((json_object *)o, key, val)
	{
		(void)val;
		if (n >= max)
			break;
		out[n++] = key;
	}
	qsort(out, n, sizeof(*out), cmp);
	return n;
}

/* Add the keys of o not yet in names (unsorted). */
static size_t names_merge(const json_object *o, const char **names, size_t n,
			  size_t max)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return n;
	json_object_object_foreach((json_object *)o, key, val)
	{
		size_t i;

		(void)val;
		for (i = 0; i < n && strcmp(names[i], key); i++)
			;
		if (i == n && n < max)
			names[n++] = key;
	}
	return n;
}

/*
 * The family of a port counter: its row's Prometheus name, else (a counter
 * not in the table, e.g. a newer hw_counters/ file) supernode_port_<name>_total
 * with <name> in lower case, [a-z0-9_], without a "port_" prefix.
 */
static void family_name(const char *counter, char *buf, size_t size)
{
	const struct sn_counter *row = sn_counter_find(counter);
	char base[96];
	size_t i;

	if (row && row->source != SN_COUNTER_ACCEL) {
		snprintf(buf, size, "%s", row->prom);
		return;
	}
	if (!strncmp(counter, "port_", 5))
		counter += 5;
	snprintf(base, sizeof(base), "%s", counter);
	for (i = 0; base[i]; i++) {
		char c = base[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '_';
		base[i] = c;
	}
	snprintf(buf, size, "supernode_port_%s_total", base);
}

static void family_head(struct sn_strbuf *s, const char *name, const char *type,
			const char *help)
{
	sn_strbuf_appendf(s, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			  type);
}

struct ports {
	const char *keys[MAX_PORTS];
	json_object *objs[MAX_PORTS];
	size_t n;
};

static const char *const port_groups[] = { "counters", "counters_ext",
					   "hw_counters" };

/* counter in the first group of port that has it, else MISSING. */
static struct sn_sample any_group(const json_object *port, const char *counter)
{
	struct sn_sample v = { SN_SAMPLE_MISSING, 0 };

	for (size_t g = 0; g < 3 && v.state == SN_SAMPLE_MISSING; g++)
		v = sn_sample_get(sn_json_get(port, port_groups[g],
					      json_type_object),
				  counter);
	return v;
}

/*
 * A port's sample of counter in group.  For the data counters (4-byte
 * words) the port's port_{xmit,rcv}_data_64 wins, in whichever group it
 * is: the 32-bit file saturates after 16 GiB.
 */
static struct sn_sample port_sample(const json_object *port, const char *group,
				    const char *counter)
{
	/* port_{xmit,rcv}_data(_64): the only counters counted in words */
	const char *base = strstr(counter, "xmit") ? "port_xmit_data" :
						     "port_rcv_data";
	struct sn_sample v;

	if (sn_counter_word_bytes(counter) == 1)
		return sn_sample_get(sn_json_get(port, group, json_type_object),
				     counter);
	v = any_group(port, sn_counter_wide(base));
	return v.state == SN_SAMPLE_MISSING ? any_group(port, base) : v;
}

/* One port family: every port with a number for counter in group. */
static void port_family(struct sn_strbuf *s, const struct ports *p,
			const char *group, const char *counter,
			const char *family)
{
	unsigned k = sn_counter_word_bytes(counter);
	bool head = false;
	char help[256];

	if (k > 1)
		snprintf(
			help, sizeof(help),
			"Bytes the port %s (sysfs port_%s_data_64 if the port has it, else port_%s_data; 4-byte words, x 4).",
			strstr(counter, "xmit") ? "transmitted" : "received",
			strstr(counter, "xmit") ? "xmit" : "rcv",
			strstr(counter, "xmit") ? "xmit" : "rcv");
	else
		snprintf(help, sizeof(help),
			 "RDMA port counter %s (sysfs %s/%s).", counter, group,
			 counter);
	for (size_t i = 0; i < p->n; i++) {
		struct sn_sample v = port_sample(p->objs[i], group, counter);
		const char *slash = strrchr(p->keys[i], '/');
		char dev[128];

		if (v.state != SN_SAMPLE_OK || !slash ||
		    v.value > UINT64_MAX / k)
			continue;
		if (!head)
			family_head(s, family, "counter", help);
		head = true;
		snprintf(dev, sizeof(dev), "%.*s", (int)(slash - p->keys[i]),
			 p->keys[i]);
		sn_strbuf_appendf(s, "%s{device=\"", family);
		sb_label(s, dev);
		sn_strbuf_append(s, "\",port=\"");
		sb_label(s, slash + 1);
		sn_strbuf_appendf(s, "\"} %llu\n",
				  (unsigned long long)(v.value * k));
	}
}

/* Families of one group; done holds family names already written. */
static void port_group(struct sn_strbuf *s, const struct ports *p,
		       const char *group, char (*done)[FAMILY_MAX],
		       size_t *ndone)
{
	const char **names = calloc(MAX_NAMES, sizeof(*names));
	size_t n = 0;

	if (!names) {
		sn_strbuf_fail(s, ENOMEM);
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		n = names_merge(sn_json_get(p->objs[i], group,
					    json_type_object),
				names, n, MAX_NAMES);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char family[FAMILY_MAX];
		size_t j;

		family_name(names[i], family, sizeof(family));
		for (j = 0; j < *ndone && strcmp(done[j], family); j++)
			;
		if (j < *ndone || *ndone >= MAX_NAMES)
			continue;
		snprintf(done[(*ndone)++], FAMILY_MAX, "%s", family);
		port_family(s, p, group, names[i], family);
	}
	free(names);
}

static void render_ports(struct sn_strbuf *s, const json_object *snapshot)
{
	json_object *all = sn_json_get(snapshot, "ports", json_type_object);
	char(*done)[FAMILY_MAX] = calloc(MAX_NAMES, FAMILY_MAX);
	struct ports *p = calloc(1, sizeof(*p));
	size_t ndone = 0;

	if (!done || !p) {
		sn_strbuf_fail(s, ENOMEM);
		goto cleanup;
	}
	p->n = keys_sorted(all, p->keys, MAX_PORTS, cmp_str);
	for (size_t i = 0; i < p->n; i++)
		json_object_object_get_ex(all, p->keys[i], &p->objs[i]);
	for (size_t g = 0; g < 3; g++)
		port_group(s, p, port_groups[g], done, &ndone);
cleanup:
	free(done);
	free(p);
}

static void gpu_sample(struct sn_strbuf *s, bool *head,
		       const struct sn_counter *c, const char *bus,
		       const char *link, struct sn_sample v)
{
	if (v.state != SN_SAMPLE_OK)
		return;
	if (!*head)
		family_head(s, c->prom, "counter", c->help);
	*head = true;
	sn_strbuf_appendf(s, "%s{bus_id=\"", c->prom);
	sb_label(s, bus);
	if (link) {
		sn_strbuf_append(s, "\",link=\"");
		sb_label(s, link);
	}
	sn_strbuf_appendf(s, "\"} %llu\n", (unsigned long long)v.value);
}

/* The family of accelerator counter c: one sample per GPU (or link). */
static void gpu_family(struct sn_strbuf *s, const struct sn_counter *c,
		       json_object *devs, const char **bus, size_t n)
{
	const char *links[SN_MANIFEST_MAX_NVLINKS];
	bool head = false;

	for (size_t i = 0; i < n; i++) {
		json_object *d = sn_json_get(devs, bus[i], json_type_object);
		json_object *nv = sn_json_get(d, "nvlink", json_type_object);
		size_t nl;

		if (!c->per_link) {
			gpu_sample(s, &head, c, bus[i], NULL,
				   sn_sample_get(d, c->key));
			continue;
		}
		nl = keys_sorted(nv, links, SN_MANIFEST_MAX_NVLINKS, cmp_num);
		for (size_t l = 0; l < nl; l++)
			gpu_sample(s, &head, c, bus[i], links[l],
				   sn_sample_get(sn_json_get(nv, links[l],
							     json_type_object),
						 c->key));
	}
}

static void render_gpus(struct sn_strbuf *s, const json_object *snapshot)
{
	json_object *devs = sn_json_get(sn_json_get(snapshot, "accelerators",
						    json_type_object),
					"devices", json_type_object);
	const char *bus[SN_MANIFEST_MAX_ACCELS];
	size_t n = keys_sorted(devs, bus, SN_MANIFEST_MAX_ACCELS, cmp_str);

	for (size_t i = 0; i < sn_counters_count; i++)
		if (sn_counters[i].source == SN_COUNTER_ACCEL)
			gpu_family(s, &sn_counters[i], devs, bus, n);
}

static uint64_t state_u64(const json_object *state, const char *key)
{
	struct sn_sample v = sn_sample_get(state, key);

	return v.state == SN_SAMPLE_OK ? v.value : 0;
}

static void render_state(struct sn_strbuf *s, const json_object *state,
			 int64_t now)
{
	json_object *xid = sn_json_get(state, "xid", json_type_object);
	const char **keys = calloc(SN_PROM_MAX_XIDS, sizeof(*keys));
	size_t n;

	if (!keys) {
		sn_strbuf_fail(s, ENOMEM);
		return;
	}
	n = keys_sorted(xid, keys, SN_PROM_MAX_XIDS, cmp_num);
	family_head(s, "supernode_xid_events_total", "counter",
		    "NVIDIA Xid events logged during jobs, by Xid number.");
	for (size_t i = 0; i < n; i++) {
		sn_strbuf_append(s, "supernode_xid_events_total{xid=\"");
		sb_label(s, keys[i]);
		sn_strbuf_appendf(s, "\"} %llu\n",
				  (unsigned long long)state_u64(xid, keys[i]));
	}
	family_head(s, "supernode_epilog_jobs_total", "counter",
		    "Jobs whose record the epilog wrote on this node.");
	sn_strbuf_appendf(s, "supernode_epilog_jobs_total %llu\n",
			  (unsigned long long)state_u64(state, "jobs"));
	family_head(s, "supernode_epilog_drains_total", "counter",
		    "Epilog runs that drained this node.");
	sn_strbuf_appendf(s, "supernode_epilog_drains_total %llu\n",
			  (unsigned long long)state_u64(state, "drains"));
	family_head(s, "supernode_epilog_last_run_timestamp_seconds", "gauge",
		    "When the epilog last ran, seconds since the epoch.");
	sn_strbuf_appendf(s,
			  "supernode_epilog_last_run_timestamp_seconds %lld\n",
			  (long long)now);
	free(keys);
}

char *sn_promfile_render(const json_object *snapshot, const json_object *state,
			 int64_t now)
{
	struct sn_strbuf s;

	sn_strbuf_init(&s, SN_PROM_MAX_BYTES);
	render_ports(&s, snapshot);
	render_gpus(&s, snapshot);
	render_state(&s, state, now);
	if (!s.buf) /* failed (ENOMEM, E2BIG: text dropped) */
		return NULL;
	return sn_strbuf_take(&s, NULL);
}

static int set_u64(json_object *o, const char *key, uint64_t v)
{
	json_object *n = json_object_new_uint64(v);

	if (!n || json_object_object_add(o, key, n)) {
		json_object_put(n);
		return -1;
	}
	return 0;
}

/* xid[N] + 1 for each event of the record. */
static int add_xids(json_object *xid, const json_object *record)
{
	json_object *evs = sn_json_get(record, "xid_events", json_type_array);
	int bad = 0;

	for (size_t i = 0; evs && i < json_object_array_length(evs); i++) {
		json_object *x = sn_json_get(json_object_array_get_idx(evs, i),
					     "xid", json_type_int);
		json_object *cnt;
		char key[24];

		if (!x || json_object_get_int64(x) < 0)
			continue;
		snprintf(key, sizeof(key), "%lld",
			 (long long)json_object_get_int64(x));
		if (!json_object_object_get_ex(xid, key, NULL) &&
		    json_object_object_length(xid) >= SN_PROM_MAX_XIDS)
			continue;
		cnt = sn_json_get(json_object_array_get_idx(evs, i), "count",
				  json_type_int);
		bad |= set_u64(
			xid, key,
			state_u64(xid, key) +
				(cnt && json_object_get_int64(cnt) > 0 ?
					 (uint64_t)json_object_get_int64(cnt) :
					 1));
	}
	return bad;
}

json_object *sn_promfile_state_add(const json_object *state,
				   const json_object *record)
{
	json_object *out = json_object_new_object(), *xid = NULL, *old;
	json_object *reason = NULL;
	int bad = 0;

	if (!out)
		return NULL;
	old = sn_json_get(state, "xid", json_type_object);
	if (old ? json_object_deep_copy(old, &xid, NULL) :
		  !(xid = json_object_new_object()))
		goto fail;
	bad |= set_u64(out, "schema", 1);
	bad |= set_u64(out, "jobs",
		       state_u64(state, "jobs") + (record ? 1 : 0));
	json_object_object_get_ex(record, "drain_reason", &reason);
	bad |= set_u64(out, "drains",
		       state_u64(state, "drains") +
			       (record &&
				json_object_is_type(reason, json_type_string)));
	bad |= add_xids(xid, record);
	if (json_object_object_add(out, "xid", xid)) {
		json_object_put(xid);
		goto fail;
	}
	if (bad)
		goto fail;
	return out;
fail:
	json_object_put(out);
	return NULL;
}

/* The cross-job state in the trusted folder fd; NULL when absent or bad. */
static json_object *state_read(int fd, const char *dir)
{
	json_tokener *tok = json_tokener_new_ex(SN_PROM_STATE_DEPTH);
	json_object *st = NULL;
	struct sn_error err;
	size_t len = 0;
	char *buf = sn_safedir_load(fd, dir, SN_PROM_STATE_FILE,
				    SN_PROM_STATE_MAX_BYTES, &len, &err);

	if (buf && tok)
		st = json_tokener_parse_ex(tok, buf, (int)len);
	if (st && !json_object_is_type(st, json_type_object)) {
		json_object_put(st);
		st = NULL;
	}
	if (tok)
		json_tokener_free(tok);
	free(buf);
	return st;
}

int sn_promfile_update(const char *textfile_dir, const json_object *snapshot,
		       const json_object *record, int64_t now,
		       struct sn_error *err)
{
	static const char *const ours[] = { SN_PROM_FILE ".",
					    SN_PROM_STATE_FILE ".", NULL };
	json_object *old = NULL, *st = NULL;
	int fd = -1, lock = -1, rc = -1;
	const char *text;
	char *out = NULL;

	fd = sn_safedir_open(textfile_dir, 0755, true, err);
	if (fd < 0)
		goto cleanup;
	lock = sn_safedir_lock(fd, textfile_dir, SN_PROM_LOCK_FILE,
			       SN_PROM_LOCK_WAIT_MS, err);
	if (lock < 0)
		goto cleanup;
	/* Under the lock: temporaries of epilogs killed while writing. */
	sn_safedir_sweep(fd, ours);
	old = state_read(fd, textfile_dir);
	if (!(st = sn_promfile_state_add(old, record)) ||
	    !(out = sn_promfile_render(snapshot, st, now))) {
		sn_error_set(err, "out of memory or over %u bytes: %s/%s",
			     SN_PROM_MAX_BYTES, textfile_dir, SN_PROM_FILE);
		goto cleanup;
	}
	text = json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN);
	if (sn_safedir_write(fd, textfile_dir, SN_PROM_STATE_FILE, text,
			     strlen(text), 0644, err) ||
	    sn_safedir_write(fd, textfile_dir, SN_PROM_FILE, out, strlen(out),
			     0644, err))
		goto cleanup;
	rc = 0;
cleanup:
	if (lock >= 0)
		close(lock);
	if (fd >= 0)
		close(fd);
	json_object_put(old);
	json_object_put(st);
	free(out);
	return rc;
}
