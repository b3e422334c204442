/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NVLink fabric gate, IMEX and the supernode identity guard (issue 12
 * items 2 and 3): the check group "fabric".
 *
 * - node.accelerators.nvlink_domain: NVML must see a GPU (none is CRIT
 *   FABRIC_NO_GPU), and every GPU's nvmlDeviceGetGpuFabricInfoV must be
 *   COMPLETED (IN_PROGRESS is asked again until half of the group's time,
 *   then UNKNOWN: a GPU still registering is not broken), with status
 *   SUCCESS, a non-zero cluster UUID, and all GPUs in one (uuid, clique).
 *   healthMask is judged per sub-field: only TRUE in a boolean one, and
 *   "incorrect configuration" 2 or more, are faults
 *   (sites drained healthy nodes by reading any non-zero mask as a fault:
 *   FALSE is 2 and NONE is 1).  PARTITION_ASSIGNED TRUE is the healthy
 *   state, so it is not judged; a GPU without a partition shows as
 *   incorrect configuration NO_PARTITION.  healthSummary UNHEALTHY is CRIT,
 *   LIMITED_CAPACITY WARN.
 * - node.accelerators.imex: /dev/nvidia-caps-imex-channels/channelN is a
 *   character device (lstat: a link is never followed), and
 *   `nvidia-imex-ctl -q` answers READY within what is left of the group's
 *   time.  N is imex_channel from the config, the site's channel: Slurm's
 *   switch/nvidia_imex gives a prolog no channel (no variable; the number
 *   lives in the job's switch info, sent to slurmstepd) and creates the
 *   job's device only when a step starts, in the step's own mount
 *   namespace on a tmpfs over the folder (imex_device.c
 *   setup_imex_channel), so the job's channel does not exist where the
 *   prolog looks.  The verdicts say "site channel N".
 * - supernodes[].identity: the node's hardware identity must be it, else
 *   SUPERNODE_MISMATCH (a tray moved, a hostlist typo).  An identity the
 *   configured accelerators cannot read (ascend: without
 *   node.accelerators) is UNKNOWN SUPERNODE_IDENTITY naming the key.
 *
 * Time: the group has until ctx->deadline_ms (the runner's limit for it:
 * min(check_timeout, what is left of the prolog)), else check_timeout from
 * its start.  IN_PROGRESS is retried until half of that; IMEX gets what is
 * left less FABRIC_MARGIN_MS, so a slow fabric and a slow nvidia-imex-ctl
 * end UNKNOWN, never CRIT CHECK_TIMEOUT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks/sn_check_groups.h"
#include "config/sn_vendor.h"
#include "checks/sn_runner.h"
#include "util/sn_child.h"
#include "inventory/sn_identity.h"
#include "util/sn_safedir.h"

#define CHECK_FABRIC "nvlink_fabric"
#define CHECK_IMEX "imex"
#define CHECK_IDENTITY "supernode_identity"
#define FABRIC_RETRY_MS 250
/* Kept back for the results' write and the exit after nvidia-imex-ctl. */
#define FABRIC_MARGIN_MS 200
/* Below this, nvidia-imex-ctl is not started at all. */
#define IMEX_CTL_MIN_MS 50
#define IMEX_CTL_MAX_MS 5000u
#define IMEX_CTL_MAX_BYTES 4096

/* healthMask sub-fields (sn_nvml.h quotes nvml.h). */
struct mask_field {
	unsigned int shift, width;
	const char *code; /* CRIT code when TRUE */
	const char *what;
};

static const struct mask_field bool_fields[] = {
	{ 0, 0x3, "FABRIC_DEGRADED_BW", "bandwidth degraded" },
	{ 2, 0x3, "FABRIC_ROUTE_RECOVERY", "route recovery in progress" },
	{ 4, 0x3, "FABRIC_ROUTE_UNHEALTHY", "route unhealthy" },
	{ 6, 0x3, "FABRIC_ACCESS_TIMEOUT",
	  "access timeout recovery in progress" },
};

#define MASK_TRUE 1u
#define MASK_CONFIG_SHIFT 8
#define MASK_CONFIG_WIDTH 0xfu

static const char *const config_causes[] = {
	[2] = "incorrect SysGUID",
	[3] = "incorrect chassis serial number",
	[4] = "no partition",
	[5] = "insufficient NVLinks",
	[6] = "incompatible GPU firmware",
	[7] = "invalid location",
	[8] = "GPU state invalid",
};

struct fabric_run {
	const struct sn_check_ctx *ctx;
	struct sn_results *out;
	struct sn_nvml *nvml;
	int64_t retry_end; /* IN_PROGRESS is asked again until (ms) */
	uint32_t retry_ms; /* how long that is from the group's start */
	unsigned int count;
	struct sn_nvml_fabric f[SN_MANIFEST_MAX_ACCELS];
};

/* ---- reading ------------------------------------------------------------ */

static bool any_in_progress(const struct fabric_run *r)
{
	for (unsigned int i = 0; i < r->count; i++)
		if (r->f[i].rc == SN_NVML_SUCCESS &&
		    r->f[i].state == SN_NVML_FABRIC_STATE_IN_PROGRESS)
			return true;
	return false;
}

static void read_all(struct fabric_run *r)
{
	for (unsigned int i = 0; i < r->count; i++)
		sn_nvml_fabric_read(r->nvml, i, &r->f[i]);
}

/* Read every GPU; while one is IN_PROGRESS, again until r->retry_end. */
static void read_with_retry(struct fabric_run *r)
{
	struct timespec pause = { 0, FABRIC_RETRY_MS * 1000000L };

	read_all(r);
	while (any_in_progress(r) &&
	       sn_now_ms() + FABRIC_RETRY_MS < r->retry_end) {
		nanosleep(&pause, NULL);
		read_all(r);
	}
}

static int open_nvml(struct fabric_run *r)
{
	struct sn_error err;
	sn_nvml_return_t rc;

	if (sn_nvml_open(r->ctx->nvml, &r->nvml, &err)) {
		sn_results_add(r->out, SN_UNKNOWN, CHECK_FABRIC, "NVML_OPEN",
			       "node", "NVML loaded", "%s", err.msg);
		return -1;
	}
	rc = sn_nvml_device_count(r->nvml, &r->count);
	if (rc != SN_NVML_SUCCESS) {
		sn_results_add(r->out, SN_UNKNOWN, CHECK_FABRIC, "NVML_QUERY",
			       "node", "GPU count", "nvmlDeviceGetCount_v2: %s",
			       sn_nvml_error_string(r->nvml, rc));
		return -1;
	}
	if (r->count > SN_MANIFEST_MAX_ACCELS)
		r->count = SN_MANIFEST_MAX_ACCELS;
	return 0;
}

/* ---- judging one GPU ---------------------------------------------------- */

/* The call and the state: true when the rest of the answer may be read. */
static bool judge_answer(struct fabric_run *r, const struct sn_nvml_fabric *f,
			 const char *gpu)
{
	const char *e = sn_nvml_error_string(r->nvml, f->rc);

	if (f->rc == SN_NVML_ERROR_FUNCTION_NOT_FOUND)
		sn_results_add(r->out, SN_UNKNOWN, CHECK_FABRIC,
			       "FABRIC_NO_API", gpu, "fabric info",
			       "NVML lacks nvmlDeviceGetGpuFabricInfoV");
	else if (sn_nvml_rc_is_failure(f->rc))
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC, "GPU_LOST", gpu,
			       "fabric info", "%s (%d)", e, f->rc);
	else if (f->rc == SN_NVML_ERROR_NOT_SUPPORTED ||
		 (f->rc == SN_NVML_SUCCESS &&
		  f->state == SN_NVML_FABRIC_STATE_NOT_SUPPORTED))
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC,
			       "FABRIC_UNSUPPORTED", gpu, "in an NVLink domain",
			       "no NVLink fabric");
	else if (f->rc != SN_NVML_SUCCESS)
		sn_results_add(r->out, SN_UNKNOWN, CHECK_FABRIC, "NVML_QUERY",
			       gpu, "fabric info",
			       "nvmlDeviceGetGpuFabricInfoV: %s (%d)", e,
			       f->rc);
	else if (f->state == SN_NVML_FABRIC_STATE_IN_PROGRESS)
		sn_results_add(r->out, SN_UNKNOWN, CHECK_FABRIC,
			       "FABRIC_IN_PROGRESS", gpu, "state COMPLETED",
			       "still registering after %u ms", r->retry_ms);
	else if (f->state != SN_NVML_FABRIC_STATE_COMPLETED)
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC,
			       "FABRIC_NOT_STARTED", gpu, "state COMPLETED",
			       "state %u: not registered with the fabric",
			       f->state);
	else
		return true;
	return false;
}

/* The health mask and summary; returns how many faults were reported. */
static int judge_health(struct fabric_run *r, const struct sn_nvml_fabric *f,
			const char *gpu)
{
	unsigned int cfg = (f->health_mask >> MASK_CONFIG_SHIFT) &
			   MASK_CONFIG_WIDTH;
	int faults = 0;

	for (size_t k = 0; k < sizeof(bool_fields) / sizeof(bool_fields[0]);
	     k++) {
		const struct mask_field *m = &bool_fields[k];

		if (((f->health_mask >> m->shift) & m->width) != MASK_TRUE)
			continue;
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC, m->code, gpu,
			       "healthy fabric", "%s (healthMask 0x%x)",
			       m->what, f->health_mask);
		faults++;
	}
	if (cfg >= 2) {
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC,
			       "FABRIC_BAD_CONFIG", gpu,
			       "correct configuration",
			       "incorrect configuration: %s (%u)",
			       cfg < 9 ? config_causes[cfg] : "unknown cause",
			       cfg);
		faults++;
	}
	if (f->health_summary == SN_NVML_FABRIC_SUMMARY_UNHEALTHY) {
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC,
			       "FABRIC_UNHEALTHY", gpu, "summary healthy",
			       "summary unhealthy");
		faults++;
	} else if (f->health_summary ==
		   SN_NVML_FABRIC_SUMMARY_LIMITED_CAPACITY) {
		sn_results_add(r->out, SN_WARN, CHECK_FABRIC, "FABRIC_LIMITED",
			       gpu, "summary healthy",
			       "summary limited capacity");
		faults++;
	}
	return faults;
}

static void judge_gpu(struct fabric_run *r, unsigned int i)
{
	const struct sn_nvml_fabric *f = &r->f[i];
	char gpu[16], uuid[SN_NVML_FABRIC_UUID_STR];
	int faults = 0;

	snprintf(gpu, sizeof(gpu), "gpu%u", i);
	if (!judge_answer(r, f, gpu))
		return;
	sn_nvml_fabric_uuid_format(f, uuid, sizeof(uuid));
	if (f->status != SN_NVML_SUCCESS) {
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC,
			       "FABRIC_PROBE_FAILED", gpu, "status Success",
			       "status %s (%d)",
			       sn_nvml_error_string(r->nvml, f->status),
			       f->status);
		faults++;
	}
	if (sn_nvml_fabric_uuid_zero(f)) {
		sn_results_add(
			r->out, SN_CRIT, CHECK_FABRIC, "FABRIC_NO_DOMAIN", gpu,
			"a non-zero cluster UUID",
			"cluster UUID %s, clique %u: in no NVLink domain", uuid,
			f->clique_id);
		faults++;
	}
	faults += judge_health(r, f, gpu);
	if (!faults)
		sn_results_add(r->out, SN_OK, CHECK_FABRIC, "OK", gpu,
			       "in an NVLink domain", "domain %s/%u", uuid,
			       f->clique_id);
}

/* ---- identity ----------------------------------------------------------- */

static const struct sn_supernode *my_supernode(const struct sn_check_ctx *ctx)
{
	const struct sn_node *n = sn_config_find_node(ctx->cfg, ctx->nodename);

	return n ? &ctx->cfg->supernodes[n->supernode] : NULL;
}

static void judge_identity(const struct sn_supernode *sn,
			   const struct sn_identity *id, struct sn_results *out)
{
	char want[SN_VALUE_MAX];

	snprintf(want, sizeof(want), "%s (%s)", sn->identity, sn->name);
	if ((id->kind == SN_IDENTITY_NVLINK ||
	     id->kind == SN_IDENTITY_ASCEND) &&
	    !strcmp(id->key, sn->identity))
		sn_results_add(out, SN_OK, CHECK_IDENTITY, "OK", "node", want,
			       "%s", id->key);
	else if (id->kind == SN_IDENTITY_NVLINK ||
		 id->kind == SN_IDENTITY_ASCEND)
		sn_results_add(out, SN_CRIT, CHECK_IDENTITY,
			       "SUPERNODE_MISMATCH", "node", want, "%s",
			       id->key);
	else if (id->kind == SN_IDENTITY_NONE)
		sn_results_add(out, SN_CRIT, CHECK_IDENTITY,
			       "SUPERNODE_MISMATCH", "node", want,
			       "in no domain: %s", id->why);
	else
		sn_results_add(out, SN_UNKNOWN, CHECK_IDENTITY,
			       "SUPERNODE_IDENTITY", "node", want,
			       "cannot tell: %s", id->why);
}

/*
 * The recorded identity is of a kind the configured accelerators cannot
 * read (an ascend: identity without node.accelerators, which makes the
 * node NVML's): UNKNOWN SUPERNODE_IDENTITY naming the key to fix, instead
 * of a failed read of the wrong library.  Returns true when said.
 */
static bool identity_unreadable(const struct sn_check_ctx *ctx,
				const struct sn_supernode *sn,
				struct sn_results *out)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);
	enum sn_vendor_identity want = sn_vendor_identity_of(sn->identity);
	enum sn_vendor_identity have =
		v->id == SN_ACCEL_NONE ? SN_VENDOR_ID_NVML : v->identity;
	const struct sn_vendor *w = sn_vendor_by_identity(want);
	char expected[SN_VALUE_MAX];
	size_t n;

	if (want == have || !w)
		return false;
	n = strcspn(sn->identity, ":") + 1;
	snprintf(expected, sizeof(expected), "%s (%s)", sn->identity, sn->name);
	if (v->id == SN_ACCEL_NONE)
		sn_results_add(
			out, SN_UNKNOWN, CHECK_IDENTITY, "SUPERNODE_IDENTITY",
			"node", expected,
			"node.accelerators is missing: add it with vendor: %s (%s reads %.*s)",
			w->name, w->library, (int)n, sn->identity);
	else
		sn_results_add(
			out, SN_UNKNOWN, CHECK_IDENTITY, "SUPERNODE_IDENTITY",
			"node", expected,
			"%.*s is read by %s, but node.accelerators.vendor is %s",
			(int)n, sn->identity, w->library, v->name);
	return true;
}

static bool fabric_answered(const struct sn_nvml_fabric *f)
{
	return f->rc == SN_NVML_SUCCESS &&
	       f->state == SN_NVML_FABRIC_STATE_COMPLETED;
}

/* One node-level verdict when GPUs that answered are in two domains. */
static void judge_split(struct fabric_run *r)
{
	char a[SN_NVML_FABRIC_UUID_STR], b[SN_NVML_FABRIC_UUID_STR];
	const struct sn_nvml_fabric *first = NULL, *f;
	char want[SN_VALUE_MAX];

	for (unsigned int i = 0; i < r->count; i++) {
		f = &r->f[i];
		if (!fabric_answered(f))
			continue;
		if (!first) {
			first = f;
			continue;
		}
		if (!memcmp(f->cluster_uuid, first->cluster_uuid,
			    sizeof(f->cluster_uuid)) &&
		    f->clique_id == first->clique_id)
			continue;
		sn_nvml_fabric_uuid_format(first, a, sizeof(a));
		sn_nvml_fabric_uuid_format(f, b, sizeof(b));
		snprintf(want, sizeof(want), "one domain: gpu%u's %s/%u",
			 (unsigned int)(first - r->f), a, first->clique_id);
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC, "FABRIC_SPLIT",
			       "node", want, "gpu%u in %s/%u", i, b,
			       f->clique_id);
		return;
	}
}

/* A node in an NVLink domain with no GPU that NVML sees is broken. */
static void judge_gpus(struct fabric_run *r)
{
	if (!r->count) {
		sn_results_add(r->out, SN_CRIT, CHECK_FABRIC, "FABRIC_NO_GPU",
			       "node", "GPUs in an NVLink domain",
			       "NVML sees no GPU");
		return;
	}
	for (unsigned int i = 0; i < r->count; i++)
		judge_gpu(r, i);
	judge_split(r);
}

/* start, deadline: the group's (sn_now_ms); retries end half way. */
static void fabric_gate(const struct sn_check_ctx *ctx,
			const struct sn_supernode *sn, int64_t start,
			int64_t deadline, struct sn_results *out)
{
	struct fabric_run *r = calloc(1, sizeof(*r));
	struct sn_identity id;

	if (!r) {
		sn_results_add(out, SN_UNKNOWN, CHECK_FABRIC, "NO_MEMORY",
			       "node", "memory", "out of memory");
		return;
	}
	r->ctx = ctx;
	r->out = out;
	r->retry_ms = deadline > start ? (uint32_t)((deadline - start) / 2) : 0;
	r->retry_end = start + r->retry_ms;
	if (open_nvml(r))
		goto out;
	read_with_retry(r);
	sn_identity_from_fabric(r->f, r->count, &id);
	if (ctx->cfg->node.accel.nvlink_domain)
		judge_gpus(r);
	if (sn && sn->identity)
		judge_identity(sn, &id, out);
out:
	sn_nvml_close_deferred(r->nvml);
	free(r);
}

/* ---- IMEX --------------------------------------------------------------- */

/*
 * The site's channel N only: the job's own channel, when Slurm's
 * switch/nvidia_imex gives one, is made after the prolog (see the top).
 */
static void imex_channel(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	unsigned int n = ctx->cfg->node.accel.imex_channel;
	char path[PATH_MAX + 32], dev[32], want[SN_VALUE_MAX];
	struct stat st;

	snprintf(dev, sizeof(dev), "channel%u", n);
	snprintf(path, sizeof(path), "%s/%s", ctx->imex_channels, dev);
	snprintf(want, sizeof(want),
		 "site channel %u, a character device (a job's own is made "
		 "after the prolog)",
		 n);
	if (lstat(path, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			sn_results_add(out, SN_CRIT, CHECK_IMEX,
				       "IMEX_CHANNEL_MISSING", dev, want,
				       "missing: %s", path);
		else
			sn_results_add(out, SN_UNKNOWN, CHECK_IMEX,
				       "IMEX_CHANNEL_UNREADABLE", dev, want,
				       "%s: %s", strerror(errno), path);
	} else if (S_ISLNK(st.st_mode)) {
		sn_results_add(out, SN_CRIT, CHECK_IMEX, "IMEX_CHANNEL_LINK",
			       dev, want, "a symbolic link (not followed): %s",
			       path);
	} else if (!S_ISCHR(st.st_mode)) {
		sn_results_add(out, SN_CRIT, CHECK_IMEX,
			       "IMEX_CHANNEL_NOT_DEVICE", dev, want,
			       "not a character device: %s", path);
	} else {
		sn_results_add(out, SN_OK, CHECK_IMEX, "OK", dev, want,
			       "present");
	}
}

/* In the child: run paths.imex_ctl -q with stdout and stderr into fd. */
static int imex_ctl_exec(void *arg, int fd)
{
	const char *ctl = arg;
	char *const argv[] = { (char *)ctl, "-q", NULL };
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

	if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		return 127;
	execve(ctl, argv, envp);
	return 127;
}

/* The first line of what the ctl printed, printable, in buf. */
static void first_line(const char *s, size_t len, char *buf, size_t size)
{
	size_t i = 0;

	while (len && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')) {
		s++;
		len--;
	}
	for (; i + 1 < size && i < len && s[i] != '\n' && s[i] != '\r'; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	while (i && buf[i - 1] == ' ')
		i--;
	buf[i] = '\0';
}

/* What is left before deadline, less the margin, at most IMEX_CTL_MAX_MS. */
static uint32_t imex_ctl_limit(int64_t deadline)
{
	int64_t left = deadline - sn_now_ms() - FABRIC_MARGIN_MS;

	if (left <= 0)
		return 0;
	return left > IMEX_CTL_MAX_MS ? IMEX_CTL_MAX_MS : (uint32_t)left;
}

static void imex_daemon(const struct sn_check_ctx *ctx, int64_t deadline,
			struct sn_results *out)
{
	uint32_t limit = imex_ctl_limit(deadline);
	char *buf = NULL, line[SN_VALUE_MAX];
	struct sn_error err;
	size_t len = 0;
	int rc;

	if (access(ctx->imex_ctl, X_OK)) {
		sn_results_add(out, SN_UNKNOWN, CHECK_IMEX, "IMEX_CTL_MISSING",
			       "nvidia-imex", "READY", "cannot ask: %s: %s",
			       strerror(errno), ctx->imex_ctl);
		return;
	}
	if (sn_safedir_program(ctx->imex_ctl, &err)) {
		sn_results_add(out, SN_UNKNOWN, CHECK_IMEX,
			       "IMEX_CTL_UNTRUSTED", "nvidia-imex", "READY",
			       "not run: %s", err.msg);
		return;
	}
	if (limit < IMEX_CTL_MIN_MS) {
		sn_results_add(out, SN_UNKNOWN, CHECK_IMEX, "IMEX_CTL_TIMEOUT",
			       "nvidia-imex", "READY",
			       "not asked: no time left within check_timeout");
		return;
	}
	rc = sn_run_in_child(imex_ctl_exec, (void *)ctx->imex_ctl, limit,
			     IMEX_CTL_MAX_BYTES, &buf, &len);
	first_line(buf ? buf : "", buf ? len : 0, line, sizeof(line));
	free(buf);
	if (rc == 0 && !strcmp(line, "READY"))
		sn_results_add(out, SN_OK, CHECK_IMEX, "OK", "nvidia-imex",
			       "READY", "READY");
	else if (rc == -1)
		sn_results_add(out, SN_UNKNOWN, CHECK_IMEX, "IMEX_CTL_TIMEOUT",
			       "nvidia-imex", "READY",
			       "no answer within %u ms: %s -q", limit,
			       ctx->imex_ctl);
	else if (rc < 0 || rc == 127)
		sn_results_add(out, SN_UNKNOWN, CHECK_IMEX, "IMEX_CTL_FAILED",
			       "nvidia-imex", "READY",
			       "could not run %s -q (%d)", ctx->imex_ctl, rc);
	else
		sn_results_add(out, SN_CRIT, CHECK_IMEX, "IMEX_NOT_READY",
			       "nvidia-imex", "READY", "'%s' (exit %d)",
			       line[0] ? line : "(nothing)", rc);
}

/* ---- the group ---------------------------------------------------------- */

/* The runner's deadline for this group, else check_timeout from start. */
static int64_t group_deadline(const struct sn_check_ctx *ctx, int64_t start)
{
	if (ctx->deadline_ms > 0)
		return ctx->deadline_ms;
	return start + (int64_t)ctx->cfg->prolog.check_timeout_s * 1000;
}

int sn_check_fabric(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	const struct sn_accel_manifest *a = &ctx->cfg->node.accel;
	const struct sn_supernode *sn = my_supernode(ctx);
	bool guard = sn && sn->identity && !identity_unreadable(ctx, sn, out);
	int64_t start = sn_now_ms();
	int64_t deadline = group_deadline(ctx, start);
	const struct sn_vendor *v = sn_vendor_of(a->vendor);
	struct sn_identity id;

	/* NVLink identity (and CPU nodes, which may sit in a domain too). */
	if (a->nvlink_domain || (guard && (v->identity == SN_VENDOR_ID_NVML ||
					   v->id == SN_ACCEL_NONE))) {
		fabric_gate(ctx, guard ? sn : NULL, start, deadline, out);
	} else if (guard) {
		sn_identity_read(ctx, &id);
		judge_identity(sn, &id, out);
	}
	if (a->imex) {
		imex_channel(ctx, out);
		imex_daemon(ctx, deadline, out);
	}
	return 0;
}
