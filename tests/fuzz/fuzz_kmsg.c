/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_kmsg: kernel log sources and the Xid lines in them.
 *  - As a file (a /dev/kmsg record dump or dmesg/journal text, decided by
 *    its first line): sn_kmsg_position, sn_kmsg_read_since from 0 and from
 *    a middle position, and the epilog's Xid collection
 *    (sn_record_collect_xids: sn_xid_scan_line, sn_record_xid_event).
 *  - As a character device: the same bytes cut at NUL bytes are the
 *    records read(2) returns one by one (an empty one plays EPIPE: records
 *    overwritten), behind /dev/null through sn_kmsg_set_read_hook.
 *  - Every record and line also straight into sn_xid_parse and
 *    sn_xid_event_info.
 * Properties: every record handed out has a seq above the position asked
 * for and its length; a parsed Xid has a NUL-terminated, lower-case bus id.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "inventory/sn_kmsg.h"
#include "records/sn_record.h"
#include "records/sn_xid.h"

#define MAX_RECORDS 256

static struct sn_config *fz_cfg;
static char fz_file[PATH_MAX];

/* The device: parts[] handed out by read(2), then EAGAIN. */
static char *dev_parts[MAX_RECORDS];
static size_t dev_n, dev_next;

static ssize_t dev_read(int fd, void *buf, size_t len)
{
	size_t n;

	(void)fd;
	if (dev_next >= dev_n) {
		errno = EAGAIN;
		return -1;
	}
	n = strlen(dev_parts[dev_next]);
	if (!n) {
		dev_next++;
		errno = EPIPE;
		return -1;
	}
	if (n > len) {
		errno = EINVAL; /* the kernel: buffer too small for the record */
		return -1;
	}
	memcpy(buf, dev_parts[dev_next++], n);
	return (ssize_t)n;
}

struct walk {
	uint64_t since, last;
	struct sn_xid_scan scan;
};

static int on_record(const struct sn_kmsg_record *rec, void *arg)
{
	struct walk *w = arg;
	struct sn_xid_event ev;

	FZ_ASSERT(rec->seq > w->since);
	FZ_ASSERT(rec->len == strlen(rec->msg) &&
		  rec->len <= SN_KMSG_RECORD_MAX);
	w->last = rec->seq;
	if (!sn_xid_parse(rec->msg, &ev)) {
		FZ_ASSERT(memchr(ev.busid, 0, sizeof(ev.busid)));
		for (const char *c = ev.busid; *c; c++)
			FZ_ASSERT(!(*c >= 'A' && *c <= 'Z'));
		FZ_ASSERT(sn_xid_event_info(&ev)->meaning);
	}
	if (!sn_xid_scan_line(&w->scan, rec->msg, &ev))
		FZ_ASSERT(sn_xid_event_info(&ev));
	return 0;
}

static void setup(void)
{
	static const char yaml[] =
		"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
		"epilog:\n  xid: {drain: [13], warn: [79], record: [94]}\n";
	struct sn_error err;

	fz_cfg = sn_config_load_buffer("fuzz.yaml", yaml, strlen(yaml), &err);
	if (!fz_cfg) {
		fprintf(stderr, "fuzz_kmsg: %s\n", err.msg);
		abort();
	}
	fz_path(fz_file, sizeof(fz_file), "kmsg");
}

static void as_file(const uint8_t *data, size_t size)
{
	json_object *baseline, *events = NULL;
	struct walk w = { 0 };
	uint64_t pos = 0;
	struct sn_xid_counts counts;
	int rc;

	fz_write(fz_file, data, size);
	rc = sn_kmsg_position(fz_file, &pos);
	FZ_ASSERT(rc <= 0);
	rc = sn_kmsg_read_since(fz_file, 0, on_record, &w);
	if (rc >= 0 && pos > 1) {
		memset(&w, 0, sizeof(w));
		w.since = pos / 2;
		sn_kmsg_read_since(fz_file, w.since, on_record, &w);
	}
	baseline = json_object_new_object();
	json_object_object_add(baseline, "kmsg_seq",
			       json_object_new_int64((int64_t)(pos / 2)));
	sn_record_collect_xids(fz_cfg, fz_file, baseline, NULL, &events,
			       &counts);
	FZ_ASSERT(events && json_object_is_type(events, json_type_array));
	FZ_ASSERT(json_object_array_length(events) <=
		  SN_RECORD_MAX_XID + SN_RECORD_MAX_XID_SEVERE);
	json_object_put(events);
	json_object_put(baseline);
}

static void as_device(const uint8_t *data, size_t size)
{
	struct walk w = { 0 };
	uint64_t pos = 0;
	char *copy = fz_split(data, size, dev_parts, MAX_RECORDS, &dev_n);

	sn_kmsg_set_read_hook(dev_read);
	dev_next = 0;
	sn_kmsg_position("/dev/null", &pos);
	dev_next = 0;
	sn_kmsg_read_since("/dev/null", 0, on_record, &w);
	sn_kmsg_set_read_hook(NULL);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fz_cfg)
		setup();
	as_file(data, size);
	as_device(data, size);
	return 0;
}
