/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The job's task environment cache (sn_taskenv_cache.h): one node
 * snapshot per job and node in STATE_DIR/taskenv/, written by the prolog
 * or the first step that needed more, read by every later step; and the
 * node's topology file beside them, one per boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/sn_checkctx.h"
#include "util/sn_number.h"
#include "util/sn_safedir.h"
#include "config/sn_config_snapshot.h"
#include "env/sn_taskenv_cache.h"
#include "env/taskenv_private.h"

/* The whole file: header, then the snapshot. */
struct cache_file {
	struct sn_taskenv_cache_head head;
	struct sn_taskenv_node node;
};

uint64_t sn_taskenv_cache_stamp(const char *config_path)
{
	return sn_config_stamp(config_path);
}

uint64_t sn_taskenv_boot_stamp(void)
{
	char id[64];
	ssize_t n;
	int fd = open("/proc/sys/kernel/random/boot_id",
		      O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t h;

	if (fd < 0)
		return 0;
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n < 32) /* a UUID: 36 characters and a newline */
		return 0;
	h = sn_fnv64(SN_FNV64_BASIS, id, (size_t)n);
	return h ? h : 1;
}

int sn_taskenv_cache_name(uint32_t job_id, const char *node, char *buf,
			  size_t size)
{
	int n;

	if (!node || !*node || strchr(node, '/'))
		return -1;
	if (job_id)
		n = snprintf(buf, size, "%u.%s", job_id, node);
	else
		n = snprintf(buf, size, SN_TASKENV_TOPO_PREFIX "%s", node);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* STATE_DIR/taskenv opened through the trusted walk; -1 with err set. */
static int cache_dir(const char *state_dir, bool create, char *shown,
		     size_t size, struct sn_error *err)
{
	int top, fd;

	snprintf(shown, size, "%s/%s", state_dir, SN_TASKENV_CACHE_DIR);
	top = sn_safedir_open(state_dir, 0700, create, err);
	if (top < 0)
		return -1;
	fd = sn_safedir_sub(top, state_dir, SN_TASKENV_CACHE_DIR, 0700, create,
			    err);
	close(top);
	return fd;
}

int sn_taskenv_cache_write(const char *state_dir,
			   const struct sn_taskenv_cache_key *key,
			   const char *writer,
			   const struct sn_taskenv_node *node,
			   struct sn_error *err)
{
	struct cache_file *f = calloc(1, sizeof(*f));
	char name[NAME_MAX + 1], dir[PATH_MAX];
	int fd, rc = -1;

	if (!f) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	if (sn_taskenv_cache_name(key->job_id, key->node, name, sizeof(name))) {
		sn_error_set(err, "no cache file name for job %u, node '%s'",
			     key->job_id, key->node);
		goto out;
	}
	memcpy(f->head.magic, SN_TASKENV_CACHE_MAGIC, sizeof(f->head.magic));
	f->head.version = SN_TASKENV_CACHE_VERSION;
	f->head.node_size = sizeof(f->node);
	f->head.job_id = key->job_id;
	f->head.config_stamp = key->config_stamp;
	f->head.boot_stamp = key->boot_stamp;
	f->head.written = (int64_t)time(NULL);
	snprintf(f->head.writer, sizeof(f->head.writer), "%s", writer);
	snprintf(f->head.node, sizeof(f->head.node), "%s", key->node);
	f->node = *node;
	/* per step: the job's topology file, the config's supernode */
	f->node.topo_file_note[0] = '\0';
	f->node.in_supernode = false;
	f->node.supernode = 0;
	fd = cache_dir(state_dir, true, dir, sizeof(dir), err);
	if (fd < 0)
		goto out;
	rc = sn_safedir_write(fd, dir, name, f, sizeof(*f), 0600, err);
	close(fd);
out:
	free(f);
	return rc;
}

/* The file's checks before it is read; 0 or -1 with err set. */
static int cache_stat(int fd, const char *path, struct sn_error *err)
{
	struct stat st;

	if (fstat(fd, &st)) {
		sn_error_set(err, "cannot stat: %s: %s", strerror(errno), path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		sn_error_set(err, "not a regular file: %s", path);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		sn_error_set(err, "owned by uid %lu, not by root: %s",
			     (unsigned long)st.st_uid, path);
		return -1;
	}
	if (st.st_mode & 022) {
		sn_error_set(err, "writable by group or others: %s", path);
		return -1;
	}
	if (st.st_nlink != 1) {
		sn_error_set(err, "file with %lu links (a hard link?): %s",
			     (unsigned long)st.st_nlink, path);
		return -1;
	}
	if ((size_t)st.st_size != sizeof(struct cache_file)) {
		sn_error_set(
			err,
			"%lld bytes, expected %zu (truncated, or another format): %s",
			(long long)st.st_size, sizeof(struct cache_file), path);
		return -1;
	}
	return 0;
}

/* size bytes at offset off of fd into buf, whole; 0 or -1. */
static int read_exact_at(int fd, void *buf, size_t size, off_t off)
{
	char *p = buf;

	while (size) {
		ssize_t n = pread(fd, p, size, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += n;
		size -= (size_t)n;
	}
	return 0;
}

/* The header against key and this build; 0 or -1 with err set. */
static int head_check(const struct sn_taskenv_cache_head *h,
		      const struct sn_taskenv_cache_key *key, const char *path,
		      struct sn_error *err)
{
	if (memcmp(h->magic, SN_TASKENV_CACHE_MAGIC, sizeof(h->magic)))
		sn_error_set(err, "not a task environment cache: %s", path);
	else if (h->version != SN_TASKENV_CACHE_VERSION)
		sn_error_set(err, "format version %u, this plugin reads %u: %s",
			     h->version, SN_TASKENV_CACHE_VERSION, path);
	else if (h->node_size != sizeof(struct sn_taskenv_node))
		sn_error_set(err,
			     "snapshot of %u bytes, this plugin's is %zu: %s",
			     h->node_size, sizeof(struct sn_taskenv_node),
			     path);
	else if (h->job_id != key->job_id)
		sn_error_set(err, "written for job %u, not %u: %s", h->job_id,
			     key->job_id, path);
	else if (strncmp(h->node, key->node, sizeof(h->node)) ||
		 !memchr(h->node, '\0', sizeof(h->node)))
		sn_error_set(err, "written for node %.64s, not %s: %s",
			     memchr(h->node, '\0', sizeof(h->node)) ? h->node :
								      "?",
			     key->node, path);
	else if (h->config_stamp != key->config_stamp)
		sn_error_set(
			err,
			h->job_id ?
				"written under another config file (changed since): %s" :
				"written under another config or hwloc XML file (changed since): %s",
			path);
	else if (h->boot_stamp != key->boot_stamp)
		sn_error_set(err, "written before the node's last boot: %s",
			     path);
	else
		return 0;
	return -1;
}

/* A snapshot's strings must end inside their arrays. */
static bool strings_ended(const struct sn_taskenv_node *n)
{
#define ENDED(a) (memchr((a), '\0', sizeof(a)) != NULL)
	if (n->n_ports > SN_TASKENV_MAX_PORTS ||
	    n->topo.n_accels > SN_MANIFEST_MAX_ACCELS ||
	    n->gpus.n > SN_MANIFEST_MAX_ACCELS || !ENDED(n->operstate) ||
	    !ENDED(n->if_ipv4) || !ENDED(n->ports_note) ||
	    !ENDED(n->topo_note) || !ENDED(n->gpus.from))
		return false;
	for (size_t i = 0; i < n->n_ports; i++)
		if (!ENDED(n->ports[i].dev) || !ENDED(n->ports[i].state))
			return false;
	for (unsigned i = 0; i < n->topo.n_accels; i++) {
		if (n->topo.n_near[i] > SN_TASKENV_NEAR_MAX)
			return false;
		for (unsigned k = 0; k < n->topo.n_near[i]; k++)
			if (!ENDED(n->topo.nics[i][k]))
				return false;
	}
	for (unsigned i = 0; i < n->gpus.n; i++)
		if (!ENDED(n->gpus.busid[i]))
			return false;
	return true;
#undef ENDED
}

enum sn_taskenv_cache_rc
sn_taskenv_cache_read(const char *state_dir,
		      const struct sn_taskenv_cache_key *key,
		      struct sn_taskenv_node *node,
		      struct sn_taskenv_cache_head *head, struct sn_error *err)
{
	char name[NAME_MAX + 1], dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	enum sn_taskenv_cache_rc rc = SN_TASKENV_CACHE_BAD;
	struct sn_taskenv_cache_head h;
	int dfd = -1, fd = -1;

	if (sn_taskenv_cache_name(key->job_id, key->node, name, sizeof(name))) {
		sn_error_set(err, "no cache file name for job %u, node '%s'",
			     key->job_id, key->node);
		goto out;
	}
	dfd = cache_dir(state_dir, false, dir, sizeof(dir), err);
	if (dfd < 0) {
		if (errno == ENOENT)
			rc = SN_TASKENV_CACHE_MISSING;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			rc = SN_TASKENV_CACHE_MISSING;
		else if (errno == ELOOP)
			sn_error_set(err, "a symbolic link, not followed: %s",
				     path);
		else
			sn_error_set(err, "cannot open: %s: %s",
				     strerror(errno), path);
		goto out;
	}
	if (cache_stat(fd, path, err))
		goto out;
	/*
	 * The header, checked, then the snapshot straight into node: no
	 * second copy (the snapshot is about 50 KB, and every page of memory
	 * a step touches for the first time is a page fault).
	 */
	if (read_exact_at(fd, &h, sizeof(h), 0)) {
		sn_error_set(err, "cannot read (truncated?): %s", path);
		goto out;
	}
	if (head_check(&h, key, path, err))
		goto out;
	if (read_exact_at(fd, node, sizeof(*node),
			  (off_t)offsetof(struct cache_file, node))) {
		sn_error_set(err, "cannot read (truncated?): %s", path);
		goto out;
	}
	if (!strings_ended(node)) {
		sn_error_set(err, "a count or string out of bounds: %s", path);
		goto out;
	}
	if (head)
		*head = h;
	rc = SN_TASKENV_CACHE_HIT;
out:
	if (rc != SN_TASKENV_CACHE_HIT)
		memset(node, 0, sizeof(*node));
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

int sn_taskenv_cache_remove(const char *state_dir, uint32_t job_id,
			    const char *node, struct sn_error *err)
{
	char name[NAME_MAX + 1], dir[PATH_MAX];
	const char *prefixes[] = { name, NULL };
	int fd, rc = 0;

	if (sn_taskenv_cache_name(job_id, node, name, sizeof(name))) {
		sn_error_set(err, "no cache file name for job %u, node '%s'",
			     job_id, node ? node : "");
		return -1;
	}
	fd = cache_dir(state_dir, false, dir, sizeof(dir), err);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = sn_safedir_remove(fd, dir, name, err);
	sn_safedir_sweep(fd, prefixes);
	close(fd);
	return rc;
}

int sn_taskenv_cache_save(const struct sn_config *cfg, const char *sysfs,
			  const char *state_dir,
			  const struct sn_taskenv_cache_key *key,
			  struct sn_error *err)
{
	struct sn_taskenv_node *node = malloc(sizeof(*node));
	int rc;

	if (!node) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	/* want_topo 0: never hwloc, so nothing of HWLOC_* is read here */
	sn_taskenv_node_gather(cfg, sysfs, NULL, 0, node);
	rc = sn_taskenv_cache_write(state_dir, key, "prolog", node, err);
	free(node);
	return rc;
}

/* What the job's file gave (cache_take). */
enum take {
	TAKE_NONE,  /* nothing usable: gather the ports */
	TAKE_PORTS, /* its ports; the topology wanted is not in it */
	TAKE_ALL,   /* everything wanted */
};

/* The cache's part of sn_taskenv_node_prepare_cached. */
static enum take cache_take(const char *state_dir,
			    const struct sn_taskenv_cache_key *key,
			    unsigned want_topo, struct sn_taskenv_node *node,
			    struct sn_taskenv_cache_use *use)
{
	struct sn_taskenv_cache_head head;
	struct sn_error why;

	switch (sn_taskenv_cache_read(state_dir, key, node, &head, &why)) {
	case SN_TASKENV_CACHE_HIT:
		snprintf(use->writer, sizeof(use->writer), "%s", head.writer);
		if (want_topo & ~node->topo_done)
			return TAKE_PORTS; /* the topology not in it yet */
		use->hit = true;
		return TAKE_ALL;
	case SN_TASKENV_CACHE_BAD:
		snprintf(use->note, sizeof(use->note),
			 "the job's node cache ignored: %s", why.msg);
		return TAKE_NONE;
	default:
		return TAKE_NONE;
	}
}

/* The node's topology file's key: the job's, with job 0 and hwloc_xml. */
static void topo_key(const struct sn_taskenv_cache_key *key,
		     const char *hwloc_xml, struct sn_taskenv_cache_key *tk)
{
	*tk = *key;
	tk->job_id = 0;
	if (hwloc_xml && *hwloc_xml)
		tk->config_stamp = sn_fnv64(
			key->config_stamp ^ 0x9e3779b97f4a7c15ull,
			&(uint64_t){ sn_taskenv_cache_stamp(hwloc_xml) },
			sizeof(uint64_t));
}

/* The topology of t into node, as a gather that loaded it leaves it. */
static void topo_merge(struct sn_taskenv_node *node,
		       const struct sn_taskenv_node *t)
{
	node->topo = t->topo;
	node->gpus = t->gpus;
	node->topo_note[0] = '\0';
	node->topo_done = SN_TASKENV_TOPO_NICS | SN_TASKENV_TOPO_GPUS;
}

/*
 * The node's topology file into *t when valid for tk; a file refused is
 * noted (the step then discovers and writes a good one).
 */
static bool topo_take(const char *state_dir,
		      const struct sn_taskenv_cache_key *tk,
		      struct sn_taskenv_node *t,
		      struct sn_taskenv_cache_use *use)
{
	struct sn_error why;

	if (!tk->boot_stamp)
		return false;
	switch (sn_taskenv_cache_read(state_dir, tk, t, NULL, &why)) {
	case SN_TASKENV_CACHE_HIT:
		if (t->topo.valid)
			return true;
		snprintf(use->note, sizeof(use->note),
			 "the node's topology file ignored: no topology in it");
		return false;
	case SN_TASKENV_CACHE_BAD:
		snprintf(use->note, sizeof(use->note),
			 "the node's topology file ignored: %s", why.msg);
		return false;
	default:
		return false;
	}
}

/* The topology of node (valid) into the node's topology file; t: scratch. */
static void topo_save(const char *state_dir,
		      const struct sn_taskenv_cache_key *tk,
		      const struct sn_taskenv_node *node,
		      struct sn_taskenv_node *t,
		      struct sn_taskenv_cache_use *use)
{
	struct sn_error why;

	if (!tk->boot_stamp || !node->topo.valid)
		return;
	memset(t, 0, sizeof(*t));
	topo_merge(t, node); /* the topology alone: no ports */
	if (!sn_taskenv_cache_write(state_dir, tk, "step", t, &why))
		use->topo_written = true;
	else if (!use->note[0])
		snprintf(use->note, sizeof(use->note),
			 "the node's topology file not written: %s", why.msg);
}

enum sn_taskenv_ready sn_taskenv_node_prepare_cached(
	const struct sn_config *cfg, const char *self, unsigned want_topo,
	const struct sn_taskenv_cache_key *key, struct sn_taskenv_node *node,
	struct sn_taskenv_cache_use *use, struct sn_error *err)
{
	struct sn_taskenv_cache_key tk;
	struct sn_taskenv_node *t = NULL;
	struct sn_check_ctx *ctx;
	enum take take;
	struct sn_error why;
	int rc = 0;

	memset(use, 0, sizeof(*use));
	if (!key)
		return sn_taskenv_node_prepare(cfg, self, want_topo, node, err);
	ctx = malloc(sizeof(*ctx)); /* 6 paths: heap */
	if (!ctx) {
		sn_error_set(err, "out of memory");
		return SN_TASKENV_UNREAD;
	}
	if (sn_check_ctx_init(ctx, cfg, self, err)) {
		free(ctx);
		return SN_TASKENV_UNREAD;
	}
	take = cache_take(ctx->state_dir, key, want_topo, node, use);
	if (take == TAKE_ALL) /* every step after the first: no more work */
		goto out;
	t = malloc(sizeof(*t)); /* the topology file's snapshot: 49 KiB */
	if (!t) {
		sn_error_set(err, "out of memory");
		free(ctx);
		return SN_TASKENV_UNREAD;
	}
	topo_key(key, ctx->hwloc_xml, &tk);
	if (want_topo && topo_take(ctx->state_dir, &tk, t, use)) {
		use->topo_hit = true;
		use->ports_hit = take == TAKE_PORTS;
		if (take == TAKE_NONE) /* the ports alone: no hwloc */
			rc = sn_taskenv_node_gather_bounded(
				cfg, ctx->sysfs, ctx->hwloc_xml, 0,
				SN_TASKENV_GATHER_TIMEOUT_MS, node);
		topo_merge(node, t);
	} else {
		rc = sn_taskenv_node_gather_bounded(
			cfg, ctx->sysfs, ctx->hwloc_xml, want_topo,
			SN_TASKENV_GATHER_TIMEOUT_MS, node);
		if (!rc && node->topo.valid)
			topo_save(ctx->state_dir, &tk, node, t, use);
	}
	if (!rc && sn_taskenv_cache_write(ctx->state_dir, key, "step", node,
					  &why) == 0)
		use->written = true;
	else if (!rc && !use->note[0])
		snprintf(use->note, sizeof(use->note),
			 "the job's node cache not written: %s", why.msg);
out:
	free(ctx);
	free(t);
	taskenv_node_place(cfg, self, node);
	return taskenv_ready(rc, want_topo, node, err);
}
