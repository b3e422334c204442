/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of `report JOBID`: one per node and fabric port, one per node
 * and accelerator, each with the deltas that are non-zero or unknown, the
 * traffic, and the verdicts that name it.  A verdict or Xid that names no
 * port or accelerator of its record gets a row of its own, so that nothing
 * a record judges is hidden.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_counters.h"
#include "report.h"

/* json_object_get_string that never gives NULL. */
static const char *text_of(json_object *v)
{
	return v ? json_object_get_string(v) : "?";
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *member_str(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	return v && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) :
		       NULL;
}

/* Append "text" to buf with a space separator; "..." once it is full. */
static void append(char *buf, size_t size, const char *text)
{
	size_t len = strlen(buf), add = strlen(text) + (len ? 1 : 0);

	if (len + add + 4 >= size) {
		if (len + 4 < size && (len < 3 || strcmp(buf + len - 3, "...")))
			strcat(buf, " ...");
		return;
	}
	if (len)
		strcat(buf, " ");
	strcat(buf, text);
}

/* append(), unless text is already one of buf's words. */
static void append_once(char *buf, size_t size, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = buf; (p = strstr(p, text)); p += n)
		if ((p == buf || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return;
	append(buf, size, text);
}

static struct report_row *row_new(struct report_rows *rows,
				  const struct snctl_record *rec,
				  const char *device)
{
	struct report_row *r;

	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 16;

		r = realloc(rows->v, cap * sizeof(*r));
		if (!r)
			return NULL;
		rows->v = r;
		rows->cap = cap;
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof(*r));
	r->rec = rec;
	snprintf(r->device, sizeof(r->device), "%s", device);
	snprintf(r->traffic, sizeof(r->traffic), "-");
	return r;
}

/*
 * The deltas: "name=N" when non-zero, "name=?(why)" when unknown; a
 * counter the record lists under "information" (issue 12: corrected
 * events, e.g. Hopper's legacy NVLink counters) is "name=N(info)" and not
 * summed as errors.
 */
static void row_deltas(struct report_row *r, json_object *item)
{
	json_object *deltas = member(item, "deltas");
	json_object *unknown = member(item, "unknown");
	json_object *info = member(item, "information");
	char text[160];

	if (deltas && json_object_is_type(deltas, json_type_object)) {
		json_object_object_foreach(deltas, key, val)
		{
			const char *why = member_str(unknown, key);

			if (!val || !json_object_is_type(val, json_type_int)) {
				snprintf(text, sizeof(text), "%s=?%s%s%s", key,
					 why ? "(" : "", why ? why : "",
					 why ? ")" : "");
				r->n_unknown++;
			} else if (json_object_get_uint64(val)) {
				uint64_t d = json_object_get_uint64(val);
				bool is_info = member(info, key) != NULL;

				snprintf(text, sizeof(text), "%s=%" PRIu64 "%s",
					 key, d, is_info ? "(info)" : "");
				if (sn_counter_is_error(key) && !is_info)
					r->err_total += d;
			} else {
				continue;
			}
			append(r->errors, sizeof(r->errors), text);
		}
	}
	if (!unknown || !json_object_is_type(unknown, json_type_object))
		return;
	json_object_object_foreach(unknown, ukey, uval)
	{
		if (json_object_object_get_ex(deltas, ukey, NULL))
			continue;
		snprintf(text, sizeof(text), "%s=?(%s)", ukey,
			 uval ? json_object_get_string(uval) : "unknown");
		append(r->errors, sizeof(r->errors), text);
		r->n_unknown++;
	}
}

static void row_port(struct report_rows *rows, size_t first,
		     const struct snctl_record *rec, json_object *p)
{
	char dev[96], tx[24], rx[24], rt[24], rr[24];
	const char *name = member_str(p, "device");
	json_object *port = member(p, "port");
	struct report_row *r;

	(void)first;
	snprintf(dev, sizeof(dev), "%s/%s", name ? name : "?", text_of(port));
	r = row_new(rows, rec, dev);
	if (!r)
		return;
	row_deltas(r, p);
	snctl_fmt_bytes(member(p, "bytes_sent"), tx, sizeof(tx));
	snctl_fmt_bytes(member(p, "bytes_received"), rx, sizeof(rx));
	snctl_fmt_rate(member(p, "mean_tx_gbps"), rt, sizeof(rt));
	snctl_fmt_rate(member(p, "mean_rx_gbps"), rr, sizeof(rr));
	snprintf(r->traffic, sizeof(r->traffic), "tx %s rx %s, %s/%s Gb/s", tx,
		 rx, rt, rr);
}

static void row_accel(struct report_rows *rows, size_t first,
		      const struct snctl_record *rec, json_object *a)
{
	const char *bus = member_str(a, "bus_id");
	json_object *idx = member(a, "index");
	struct report_row *r;
	char dev[96];

	(void)first;
	snprintf(dev, sizeof(dev), "gpu%s %s", text_of(idx), bus ? bus : "?");
	r = row_new(rows, rec, dev);
	if (r)
		row_deltas(r, a);
}

/* The row of rec whose device is (or names) dev, from index first on. */
static struct report_row *row_find(struct report_rows *rows, size_t first,
				   const char *dev)
{
	for (size_t i = first; dev && i < rows->n; i++) {
		const char *rd = rows->v[i].device;
		const char *bus = strchr(rd, ' ');

		if (!strcmp(rd, dev) || (bus && !strcmp(bus + 1, dev)))
			return &rows->v[i];
		if (bus && !strncmp(rd, dev, (size_t)(bus - rd)) &&
		    strlen(dev) == (size_t)(bus - rd))
			return &rows->v[i]; /* "gpu0" */
	}
	return NULL;
}

static void row_grade(struct report_row *r, enum sn_grade g, const char *note)
{
	r->grade = sn_grade_worse(r->grade, g);
	if (g != SN_OK && note)
		append_once(r->verdict, sizeof(r->verdict), note);
}

/* "/h" or "/TB" from a verdict's "unit" (issue 12); "" for a count. */
static const char *rate_unit(const char *unit)
{
	return unit && (!strcmp(unit, "/h") || !strcmp(unit, "/TB")) ? unit :
								       "";
}

static void row_verdict(struct report_rows *rows, size_t first,
			const struct snctl_record *rec, json_object *v)
{
	const char *dev = member_str(v, "device");
	const char *counter = member_str(v, "counter");
	int g = snctl_grade_parse(member_str(v, "grade"));
	json_object *limit = member(v, g == SN_CRIT ? "crit" : "warn");
	struct report_row *r = row_find(rows, first, dev);
	char note[160];

	if (g < 0)
		return;
	if (!r) {
		r = row_new(rows, rec, dev ? dev : "?");
		if (!r)
			return;
		snprintf(note, sizeof(note), "%s=%s", counter ? counter : "?",
			 text_of(member(v, "delta")));
		append(r->errors, sizeof(r->errors), note);
	}
	if (counter && !strcmp(counter, "xid")) /* an Xid event's verdict */
		snprintf(note, sizeof(note), "xid%s",
			 text_of(member(v, "xid")));
	else if (member_str(v, "reason")) /* xid_scan, xid_lost: UNKNOWN */
		snprintf(note, sizeof(note), "%s: %s", counter ? counter : "?",
			 member_str(v, "reason"));
	else if (counter && !strcmp(counter, "recovery_action"))
		snprintf(note, sizeof(note), "recovery_action=%s",
			 text_of(member(v, "action")));
	else /* a rate's unit after its limit: symbol_error>=120/h */
		snprintf(note, sizeof(note), "%s>=%s%s",
			 counter ? counter : "?", text_of(limit),
			 rate_unit(member_str(v, "unit")));
	row_grade(r, (enum sn_grade)g, note);
}

static void row_xid(struct report_rows *rows, size_t first,
		    const struct snctl_record *rec, json_object *x)
{
	const char *bus = member_str(x, "bus_id");
	const char *sev = member_str(x, "severity");
	struct report_row *r = row_find(rows, first, bus);
	enum sn_grade g = SN_OK;
	char text[64];

	if (!r && !(r = row_new(rows, rec, bus ? bus : "?")))
		return;
	snprintf(text, sizeof(text), "xid%s(%s)", text_of(member(x, "xid")),
		 sev ? sev : "?");
	append(r->errors, sizeof(r->errors), text);
	if (sev && !strcmp(sev, "drain"))
		g = SN_CRIT;
	else if (sev && !strcmp(sev, "warn"))
		g = SN_WARN;
	snprintf(text, sizeof(text), "xid%s", text_of(member(x, "xid")));
	row_grade(r, g, text);
}

typedef void (*row_fn)(struct report_rows *rows, size_t first,
		       const struct snctl_record *rec, json_object *item);

/* Call fn for each element of the array rec->doc[key] (if it is one). */
static void each(struct report_rows *rows, size_t first,
		 const struct snctl_record *rec, const char *key, row_fn fn)
{
	json_object *arr = member(rec->doc, key);

	if (!arr || !json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		fn(rows, first, rec, json_object_array_get_idx(arr, i));
}

int report_rows_add(struct report_rows *rows, const struct snctl_record *rec)
{
	size_t first = rows->n;

	each(rows, first, rec, "ports", row_port);
	each(rows, first, rec, "accelerators", row_accel);
	each(rows, first, rec, "verdicts", row_verdict);
	each(rows, first, rec, "xid_events", row_xid);
	if (rows->n == first && !row_new(rows, rec, "-"))
		return -1;
	return 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;
	int c;

	if (a->grade != b->grade)
		return sn_grade_severity(a->grade) >
				       sn_grade_severity(b->grade) ?
			       -1 :
			       1;
	if (a->err_total != b->err_total)
		return a->err_total > b->err_total ? -1 : 1;
	if (a->n_unknown != b->n_unknown)
		return a->n_unknown > b->n_unknown ? -1 : 1;
	c = strcmp(a->rec->node, b->rec->node);
	return c ? c : strcmp(a->device, b->device);
}

void report_rows_sort(struct report_rows *rows)
{
	if (rows->n > 1)
		qsort(rows->v, rows->n, sizeof(*rows->v), row_cmp);
}

static int width(int w, const char *s)
{
	return (int)strlen(s) > w ? (int)strlen(s) : w;
}

void report_rows_print(FILE *f, const struct report_rows *rows)
{
	int wn = 4, ws = 9, wd = 6, we = 6, wt = 7;

	for (size_t i = 0; i < rows->n; i++) {
		const struct report_row *r = &rows->v[i];

		wn = width(wn, r->rec->node);
		ws = width(ws, r->rec->supernode);
		wd = width(wd, r->device);
		we = width(we, r->errors[0] ? r->errors : "-");
		wt = width(wt, r->traffic);
	}
	fprintf(f, "%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wn, "NODE", ws,
		"SUPERNODE", wd, "DEVICE", we, "ERRORS", wt, "TRAFFIC",
		"VERDICT");
	for (size_t i = 0; i < rows->n; i++) {
		const struct report_row *r = &rows->v[i];

		fprintf(f, "%-*s  %-*s  %-*s  %-*s  %-*s  %s%s%s\n", wn,
			r->rec->node, ws, r->rec->supernode, wd, r->device, we,
			r->errors[0] ? r->errors : "-", wt, r->traffic,
			sn_grade_name(r->grade), r->verdict[0] ? " " : "",
			r->verdict);
	}
}

void report_rows_free(struct report_rows *rows)
{
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
