/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vendors' management libraries: loading, the backend table and the
 * reading child (see sn_vendor_lib.h).  The per-call watchdog the child
 * arms, and the helpers the backends call, are in vendor_call.c: the
 * backends call down to it, never back into this file (tests/layout/
 * check_calls: no call cycle).  The parent's own kill at the deadline
 * stays as the last resort, for a child stuck in the kernel.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"
#include "util/sn_safedir.h"

#define CHILD_MARGIN_MS \
	150 /* the child's watchdog fires this before the
			     * parent's kill */
#define DEFAULT_BUDGET_MS 10000

extern const struct sn_vendor_backend sn_vendor_ascend, sn_vendor_hygon,
	sn_vendor_cambricon, sn_vendor_mthreads, sn_vendor_metax,
	sn_vendor_kunlunxin;

static const struct sn_vendor_backend *const backends[SN_ACCEL_VENDOR_COUNT] = {
	[SN_ACCEL_ASCEND] = &sn_vendor_ascend,
	[SN_ACCEL_HYGON] = &sn_vendor_hygon,
	[SN_ACCEL_CAMBRICON] = &sn_vendor_cambricon,
	[SN_ACCEL_MTHREADS] = &sn_vendor_mthreads,
	[SN_ACCEL_METAX] = &sn_vendor_metax,
	[SN_ACCEL_KUNLUNXIN] = &sn_vendor_kunlunxin,
};

const struct sn_vendor_backend *sn_vendor_backend_of(enum sn_accel_vendor v)
{
	if ((unsigned)v >= SN_ACCEL_VENDOR_COUNT)
		return NULL;
	return backends[v];
}

const char *sn_vendor_health_name(enum sn_vendor_health h)
{
	static const char *const names[] = { "unread", "ok", "warn", "crit" };

	return (unsigned)h < 4 ? names[h] : "?";
}

const char *sn_vendor_link_state_name(enum sn_vendor_link_state s)
{
	static const char *const names[] = { "unread", "up", "down", "degraded",
					     "unused" };

	return (unsigned)s < 5 ? names[s] : "?";
}

/* ---- loading ------------------------------------------------------------ */

/* Open the configured library, or the first default that opens. */
static void *lib_open(const struct sn_check_ctx *ctx, const struct sn_vendor *v,
		      struct sn_vendor_node *out)
{
	char tried[SN_VENDOR_TEXT] = "";
	const char *last = NULL;
	bool missing = true;
	struct sn_error err;
	void *dl;

	if (ctx->accel_lib[0]) {
		SN_VSET(out->library, "%s", ctx->accel_lib);
		dl = sn_safedir_dlopen(ctx->accel_lib, RTLD_NOW | RTLD_LOCAL,
				       &err);
		if (!dl && errno == ENOENT)
			sn_vendor_lib_missing(v, ctx->accel_lib, out->error,
					      sizeof(out->error));
		else if (!dl)
			SN_VSET(out->error, "%s (paths.%s): %s", v->library,
				v->lib_key, err.msg);
		return dl;
	}
	for (unsigned i = 0; v->lib_defaults[i]; i++) {
		const char *path = v->lib_defaults[i];
		size_t len = strlen(tried);

		last = path;
		if (path[0] == '/' && access(path, F_OK))
			continue; /* not installed there: no message */
		SN_VSET(out->library, "%s", path);
		dl = sn_safedir_dlopen(path, RTLD_NOW | RTLD_LOCAL, &err);
		if (dl)
			return dl;
		missing = missing && errno == ENOENT;
		sn_vendor_set(tried + len, sizeof(tried) - len, "%s%s: %s",
			      len ? "; " : "", path, err.msg);
	}
	/* Nothing there at all: what to install; else what each one said. */
	if (missing)
		sn_vendor_lib_missing(v, last, out->error, sizeof(out->error));
	else
		SN_VSET(out->error,
			"%s library not found (set paths.%s; tried %s)",
			v->library, v->lib_key, tried);
	return NULL;
}

int sn_vendor_lib_read_here(const struct sn_check_ctx *ctx,
			    struct sn_vendor_node *out)
{
	enum sn_accel_vendor vendor = ctx->cfg->node.accel.vendor;
	const struct sn_vendor_backend *b = sn_vendor_backend_of(vendor);
	const struct sn_vendor *v = sn_vendor_of(vendor);
	void *dl;
	int rc;

	memset(out, 0, sizeof(*out));
	out->vendor = vendor;
	if (!b) {
		SN_VSET(out->error,
			"vendor %s has no management library backend", v->name);
		return -1;
	}
	dl = lib_open(ctx, v, out);
	if (!dl)
		return 0;
	rc = b->read(dl, out);
	if (rc && !out->error[0])
		SN_VSET(out->error, "%s: read failed", v->library);
	/* Left loaded: some vendor libraries start threads that a
	 * dlclose() would pull the code from under. */
	return 0;
}

/* ---- the child ------------------------------------------------------------ */

struct read_arg {
	const struct sn_check_ctx *ctx;
	struct sn_vendor_node *node;
	int64_t deadline;
};

static int read_child(void *arg, int fd)
{
	struct read_arg *a = arg;
	const char *p = (const char *)a->node;
	size_t left = sizeof(*a->node);

	sn_vcall_arm(a->node, fd, a->deadline - CHILD_MARGIN_MS);
	sn_vendor_lib_read_here(a->ctx, a->node);
	sn_vcall_end();
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int sn_vendor_lib_read(const struct sn_check_ctx *ctx, int64_t deadline_ms,
		       struct sn_vendor_node *out)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);
	struct read_arg a = { ctx, out, deadline_ms };
	int64_t now = sn_now_ms();
	char *buf = NULL;
	size_t len = 0;
	int st;

	if (!sn_vendor_backend_of(v->id))
		return sn_vendor_lib_read_here(ctx, out);
	if (!a.deadline)
		a.deadline = now + DEFAULT_BUDGET_MS;
	if (a.deadline - now < 2 * CHILD_MARGIN_MS)
		a.deadline = now + 2 * CHILD_MARGIN_MS;
	memset(out, 0, sizeof(*out));
	st = sn_run_in_child(read_child, &a, (uint32_t)(a.deadline - now),
			     sizeof(*out), &buf, &len);
	if (len == sizeof(*out)) {
		memcpy(out, buf, sizeof(*out));
		free(buf);
		return 0;
	}
	free(buf);
	memset(out, 0, sizeof(*out));
	out->vendor = v->id;
	SN_VSET(out->error, "%s: the reading process %s", v->library,
		st == -1 ? "did not finish by the check's deadline" :
		st == -2 ? "died of a signal (a crash in the library)" :
		st == -3 ? "could not be started" :
			   "ended without an answer");
	return st == -3 ? -1 : 0;
}
