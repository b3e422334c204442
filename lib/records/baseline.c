/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "inventory/sn_accel.h"
#include "records/sn_baseline.h"
#include "util/sn_file.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_kmsg.h"
#include "util/sn_child.h"
#include "util/sn_safedir.h"

#define SN_BASELINE_MAX_DEVICES 64
#define SN_BASELINE_MAX_PORTS 8

static int name_safe(const char *s)
{
	return s[0] != '.' && strlen(s) < 64 && !strchr(s, '/');
}

/*
 * "link_layer": "InfiniBand" / "Ethernet" / null and "rate_gbps": 400.0 /
 * null, for the epilog's record (the rate bounds what the counters can
 * physically count during the job).
 */
static void port_attrs_add(json_object *port, const char *sysfs,
			   const char *dev, unsigned num)
{
	struct sn_ib_port p;
	bool ok = !sn_ib_port_read(sysfs, dev, num, &p);

	json_object_object_add(
		port, "link_layer",
		!ok || p.link_layer.status != SN_ATTR_OK ?
			NULL :
			json_object_new_string(p.layer == SN_LINK_ETHERNET ?
						       "Ethernet" :
						       "InfiniBand"));
	json_object_object_add(port, "rate_gbps",
			       !ok || p.rate.status != SN_ATTR_OK ?
				       NULL :
				       json_object_new_double(p.rate_gbps));
}

/* Every port of every RDMA device in sysfs (bounded). */
static json_object *ports_collect(const struct sn_check_ctx *ctx)
{
	json_object *ports = json_object_new_object();
	char path[PATH_MAX];
	struct dirent *d;
	unsigned ndev = 0;
	DIR *dir;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/infiniband",
			     ctx->sysfs) >= sizeof(path) ||
	    !(dir = opendir(path)))
		return ports;
	while ((d = readdir(dir)) && ndev < SN_BASELINE_MAX_DEVICES) {
		if (!name_safe(d->d_name))
			continue;
		ndev++;
		for (unsigned p = 1; p <= SN_BASELINE_MAX_PORTS; p++) {
			char key[NAME_MAX + 16];
			json_object *c;

			if ((size_t)snprintf(path, sizeof(path),
					     "%s/class/infiniband/%s/ports/%u",
					     ctx->sysfs, d->d_name,
					     p) >= sizeof(path) ||
			    access(path, F_OK))
				continue;
			c = sn_ib_port_counters_json(ctx->sysfs, d->d_name, p);
			if (c)
				port_attrs_add(c, ctx->sysfs, d->d_name, p);
			snprintf(key, sizeof(key), "%s/%u", d->d_name, p);
			json_object_object_add(ports, key,
					       c ? c : json_object_new_null());
		}
	}
	closedir(dir);
	return ports;
}

/*
 * "nvswitches": the bus ids of the node's NVSwitches (sysfs), so that the
 * epilog counts an SXid only for a switch of this node.  Empty when there
 * are none or sysfs cannot be read.
 */
static json_object *nvswitches_collect(const struct sn_check_ctx *ctx)
{
	struct sn_accel_pci_list *list = malloc(sizeof(*list));
	json_object *arr = json_object_new_array();
	struct sn_error err;

	if (list && arr && !sn_accel_nvswitch_scan(ctx->sysfs, list, &err))
		for (size_t i = 0; i < list->count; i++)
			json_object_array_add(arr, json_object_new_string(
							   list->items[i].bdf));
	free(list);
	return arr;
}

/* The document without its accelerators (null): sysfs and the kernel log. */
static json_object *fabric_collect(const struct sn_check_ctx *ctx,
				   uint32_t job_id)
{
	json_object *doc = json_object_new_object();
	uint64_t seq = 0;

	json_object_object_add(doc, "schema",
			       json_object_new_int(SN_BASELINE_SCHEMA));
	json_object_object_add(doc, "job_id", json_object_new_int64(job_id));
	json_object_object_add(doc, "node",
			       json_object_new_string(ctx->nodename));
	json_object_object_add(doc, "time",
			       json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(doc, "kmsg_seq",
			       sn_kmsg_position(ctx->kmsg, &seq) ?
				       NULL :
				       json_object_new_uint64(seq));
	json_object_object_add(doc, "ports", ports_collect(ctx));
	json_object_object_add(doc, "nvswitches", nvswitches_collect(ctx));
	json_object_object_add(doc, "accelerators", NULL);
	return doc;
}

static char *doc_string(json_object *doc)
{
	char *out = strdup(
		json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));

	json_object_put(doc);
	return out;
}

char *sn_baseline_collect(const struct sn_check_ctx *ctx, uint32_t job_id)
{
	json_object *doc = fabric_collect(ctx, job_id);

	if (ctx->cfg->node.accel.vendor != SN_ACCEL_NONE)
		json_object_object_add(doc, "accelerators",
				       sn_accel_counters_json(ctx));
	return doc_string(doc);
}

int sn_baseline_path(const struct sn_check_ctx *ctx, uint32_t job_id, char *buf,
		     size_t size)
{
	return (size_t)snprintf(buf, size, "%s/baseline/%u.json",
				ctx->state_dir, job_id) >= size ?
		       -1 :
		       0;
}

enum collect_part {
	COLLECT_FABRIC, /* ports and kernel log: sysfs only */
	COLLECT_ACCEL,	/* accelerators: NVML, which can hang */
};

struct collect_arg {
	const struct sn_check_ctx *ctx;
	uint32_t job_id;
	enum collect_part part;
};

static int collect_child(void *arg, int fd)
{
	struct collect_arg *a = arg;
	char *doc;
	int rc;

	if (a->part == COLLECT_FABRIC) {
		doc = doc_string(fabric_collect(a->ctx, a->job_id));
	} else {
		json_object *acc = sn_accel_counters_json(a->ctx);

		doc = strdup(acc ? json_object_to_json_string_ext(
					   acc, JSON_C_TO_STRING_PLAIN) :
				   "null");
		json_object_put(acc);
	}
	if (!doc)
		return 1;
	rc = sn_write_all(fd, doc, strlen(doc)) ? 1 : 0;
	free(doc);
	return rc;
}

/* One part in a child; the parsed JSON or NULL with err set. */
static json_object *part_collect(const struct sn_check_ctx *ctx,
				 uint32_t job_id, enum collect_part part,
				 uint32_t timeout_ms, struct sn_error *err)
{
	struct collect_arg arg = { ctx, job_id, part };
	const char *what = part == COLLECT_FABRIC ? "fabric counters" :
						    "accelerator counters";
	json_object *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc;

	/* One byte over the limit tells a cut document from a whole one. */
	rc = sn_run_in_child(collect_child, &arg, timeout_ms,
			     SN_BASELINE_MAX_BYTES + 1, &text, &len);
	if (rc == -1)
		sn_error_set(err, "collecting %s timed out after %u ms", what,
			     timeout_ms);
	else if (rc != 0 || !len)
		sn_error_set(err, "collecting %s failed", what);
	else if (len > SN_BASELINE_MAX_BYTES)
		sn_error_set(err, "%s: document larger than %u bytes", what,
			     SN_BASELINE_MAX_BYTES);
	else if (!(doc = json_tokener_parse(text)) && strcmp(text, "null"))
		sn_error_set(err, "%s: not JSON", what);
	free(text);
	return doc;
}

char *sn_baseline_snapshot(const struct sn_check_ctx *ctx, uint32_t job_id,
			   uint32_t timeout_ms, size_t *len,
			   struct sn_error *err)
{
	int64_t end = sn_now_ms() + timeout_ms;
	json_object *doc, *acc;
	struct sn_error aerr;
	char *out;

	/*
	 * Two children: a hung NVML call must not cost the fabric counters,
	 * which sysfs gives at once.  The accelerators get what time is left.
	 */
	*len = 0;
	doc = part_collect(ctx, job_id, COLLECT_FABRIC, timeout_ms, err);
	if (!doc)
		return NULL;
	if (ctx->cfg->node.accel.vendor != SN_ACCEL_NONE) {
		int64_t left = end - sn_now_ms();

		acc = part_collect(ctx, job_id, COLLECT_ACCEL,
				   left > 100 ? (uint32_t)left : 100, &aerr);
		if (acc)
			json_object_object_add(doc, "accelerators", acc);
		else if (aerr.msg[0] && strcmp(aerr.msg, ""))
			json_object_object_add(
				doc, "accelerators_error",
				json_object_new_string(aerr.msg));
	}
	out = doc_string(doc);
	if (!out) {
		sn_error_set(err, "out of memory");
		return NULL;
	}
	*len = strlen(out);
	return out;
}

/*
 * state_dir/baseline as a trusted folder (sn_safedir: no link followed, no
 * folder of a user), created 0700 when create; its path into dir.
 */
static int baseline_dir(const struct sn_check_ctx *ctx, bool create, char *dir,
			size_t size, struct sn_error *err)
{
	int sfd, fd;

	if ((size_t)snprintf(dir, size, "%s/baseline", ctx->state_dir) >=
	    size) {
		sn_error_set(err, "baseline folder path too long: %s",
			     ctx->state_dir);
		return -1;
	}
	sfd = sn_safedir_open(ctx->state_dir, 0700, create, err);
	if (sfd < 0)
		return -1;
	fd = sn_safedir_sub(sfd, ctx->state_dir, "baseline", 0700, create, err);
	close(sfd);
	return fd;
}

int sn_baseline_save(const struct sn_check_ctx *ctx, uint32_t job_id,
		     uint32_t timeout_ms, struct sn_error *err)
{
	char dir[PATH_MAX], name[32];
	struct sn_error serr;
	size_t len = 0;
	char *doc;
	int fd, rc;

	snprintf(name, sizeof(name), "%u.json", job_id);
	fd = baseline_dir(ctx, true, dir, sizeof(dir), err);
	if (fd < 0)
		return -1;
	/* Temporaries of prologs killed while writing (their PIDs are gone). */
	sn_safedir_sweep(fd, NULL);
	/* A requeued job's old baseline must not outlive a failed save. */
	unlinkat(fd, name, 0);
	doc = sn_baseline_snapshot(ctx, job_id, timeout_ms, &len, &serr);
	if (!doc) {
		sn_error_set(err, "baseline: %s", serr.msg);
		close(fd);
		return -1;
	}
	rc = sn_safedir_write(fd, dir, name, doc, len, 0600, err);
	free(doc);
	close(fd);
	return rc;
}

int sn_baseline_remove(const struct sn_check_ctx *ctx, uint32_t job_id,
		       struct sn_error *err)
{
	char dir[PATH_MAX], name[32];
	int fd, rc = 0;

	snprintf(name, sizeof(name), "%u.json", job_id);
	fd = baseline_dir(ctx, false, dir, sizeof(dir), err);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = sn_safedir_remove(fd, dir, name, err);
	close(fd);
	return rc;
}
