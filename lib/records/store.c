/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the records live: paths, bounded scans, the writer (sn_store.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_config.h"
#include "records/sn_store.h"
#include "util/sn_number.h"
#include "util/sn_safedir.h"

/* --- paths ------------------------------------------------------------ */

int sn_store_dir(const char *record_dir, const char *node, const char *host,
		 char *buf, size_t size)
{
	return sn_path_expand(record_dir, node, host, buf, size);
}

int sn_store_job_dir(const char *dir, int64_t job, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%lld", dir, (long long)job);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int sn_store_path(const char *dir, int64_t job, const char *node, char *buf,
		  size_t size)
{
	int n = snprintf(buf, size, "%s/%lld/%s" SN_STORE_SUFFIX, dir,
			 (long long)job, node);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool sn_store_node_ok(const char *node)
{
	size_t n = strlen(node);

	if (!n || n > SN_STORE_NODE_MAX || node[0] == '.' || node[0] == '-')
		return false;
	return strspn(node,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.-") == n;
}

bool sn_store_node_of(const char *file, char *node, size_t size)
{
	size_t len = strlen(file), k = strlen(SN_STORE_SUFFIX);

	if (file[0] == '.' || len <= k || len - k >= size ||
	    strcmp(file + len - k, SN_STORE_SUFFIX))
		return false; /* ".", "..", temporaries, other files */
	memcpy(node, file, len - k);
	node[len - k] = '\0';
	return sn_store_node_ok(node);
}

/* --- bounded scans ---------------------------------------------------- */

long sn_store_scan_job(const char *dir, int64_t job, size_t max_entries,
		       sn_store_visit_fn fn, void *arg, bool *truncated)
{
	char jobdir[PATH_MAX], path[PATH_MAX], node[SN_STORE_NODE_MAX + 1];
	struct dirent *de;
	size_t seen = 0;
	long visited = 0;
	DIR *d;

	if (truncated)
		*truncated = false;
	if (sn_store_job_dir(dir, job, jobdir, sizeof(jobdir))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!(d = opendir(jobdir)))
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		if (seen++ >= max_entries) {
			if (truncated)
				*truncated = true;
			break;
		}
		if (!sn_store_node_of(de->d_name, node, sizeof(node)) ||
		    sn_store_path(dir, job, node, path, sizeof(path)))
			continue;
		visited++;
		if (fn(path, node, arg) < 0)
			break;
	}
	closedir(d);
	return visited;
}

static int id_desc(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a == b ? 0 : (a > b ? -1 : 1);
}

static int ids_push(int64_t **ids, size_t *n, size_t *cap, int64_t id)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		int64_t *v = realloc(*ids, c * sizeof(*v));

		if (!v)
			return -1;
		*ids = v;
		*cap = c;
	}
	(*ids)[(*n)++] = id;
	return 0;
}

int sn_store_jobs(const char *dir, size_t max, int64_t **ids, size_t *n,
		  bool *truncated)
{
	struct dirent *de;
	size_t cap = 0;
	long long id;
	DIR *d;

	*ids = NULL;
	*n = 0;
	*truncated = false;
	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		if (!sn_number_parse(de->d_name, &id) || id < 1)
			continue;
		if (*n >= max) {
			*truncated = true;
			break;
		}
		if (ids_push(ids, n, &cap, id)) {
			closedir(d);
			free(*ids);
			*ids = NULL;
			*n = 0;
			errno = ENOMEM;
			return -1;
		}
	}
	closedir(d);
	if (*n)
		qsort(*ids, *n, sizeof(**ids), id_desc);
	return 0;
}

/* --- writing ---------------------------------------------------------- */

/* A decimal number of n digits (no sign, no leading zero) into *v. */
static bool digits_u32(const char *s, size_t n, uint32_t *v)
{
	uint64_t x = 0;

	if (!n || n > 10 || s[0] == '0' || strspn(s, "0123456789") < n)
		return false;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (uint64_t)(s[i] - '0');
	if (x > INT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* A note "<jobid>.<pid>" of state_dir/records-pending; false otherwise. */
static bool note_parse(const char *name, uint32_t *job, pid_t *pid)
{
	size_t j = strspn(name, "0123456789");
	uint32_t p;

	if (name[j] != '.' || !digits_u32(name, j, job) ||
	    !digits_u32(name + j + 1, strlen(name + j + 1), &p))
		return false;
	*pid = (pid_t)p;
	return true;
}

/* This node's stale temporaries in record_dir/<job> (it may be gone). */
static void job_sweep(int rfd, const char *record_dir, uint32_t job,
		      const char *node)
{
	char name[16], prefix[NAME_MAX + 8];
	const char *prefixes[] = { prefix, NULL };
	struct sn_error err;
	int jfd;

	snprintf(name, sizeof(name), "%u", job);
	snprintf(prefix, sizeof(prefix), "%s" SN_STORE_SUFFIX ".", node);
	jfd = sn_safedir_sub(rfd, record_dir, name, 0, false, &err);
	if (jfd < 0)
		return;
	sn_safedir_sweep(jfd, prefixes);
	close(jfd);
}

/*
 * The notes whose writer is gone (a killed epilog): sweep their job's
 * folder, drop the note.  At most SN_STORE_PENDING_MAX entries looked at.
 */
static void notes_sweep(int pfd, int rfd, const char *record_dir,
			const char *node)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d;
	int fd;

	sn_safedir_sweep(pfd, NULL); /* a note killed while written */
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while (seen < SN_STORE_PENDING_MAX && (de = readdir(d))) {
		uint32_t job;
		pid_t pid;

		seen++;
		if (!note_parse(de->d_name, &job, &pid) || pid == getpid() ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		job_sweep(rfd, record_dir, job, node);
		unlinkat(pfd, de->d_name, 0);
	}
	closedir(d);
}

/* state_dir/records-pending, a trusted folder (created 0700); -1 if not. */
static int notes_open(const char *state_dir, char *dir, size_t size)
{
	struct sn_error err;
	int sfd, fd;

	if (!state_dir || (size_t)snprintf(dir, size, "%s/%s", state_dir,
					   SN_STORE_PENDING_DIR) >= size)
		return -1;
	sfd = sn_safedir_open(state_dir, 0700, true, &err);
	if (sfd < 0)
		return -1;
	fd = sn_safedir_sub(sfd, state_dir, SN_STORE_PENDING_DIR, 0700, true,
			    &err);
	close(sfd);
	return fd;
}

int sn_store_write(const json_object *record, const char *record_dir,
		   const char *state_dir, uint32_t job_id, const char *node,
		   struct sn_error *err)
{
	char job[16], name[NAME_MAX + 1], note[32], prefix[NAME_MAX + 8];
	char jdir[PATH_MAX], ndir[PATH_MAX];
	const char *prefixes[] = { prefix, NULL };
	int rfd = -1, jfd = -1, pfd, rc = -1;
	struct sn_error nerr;
	const char *text;

	snprintf(job, sizeof(job), "%u", job_id);
	snprintf(note, sizeof(note), "%u.%d", job_id, (int)getpid());
	if ((size_t)snprintf(name, sizeof(name), "%s" SN_STORE_SUFFIX, node) >=
		    sizeof(name) ||
	    sn_store_job_dir(record_dir, job_id, jdir, sizeof(jdir))) {
		sn_error_set(err,
			     "record path too long: %s/%s/%s" SN_STORE_SUFFIX,
			     record_dir, job, node);
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "%s.", name);
	pfd = notes_open(state_dir, ndir, sizeof(ndir));
	rfd = sn_safedir_open(record_dir, 0755, true, err);
	if (rfd < 0)
		goto out;
	if (pfd >= 0)
		notes_sweep(pfd, rfd, record_dir, node);
	jfd = sn_safedir_sub(rfd, record_dir, job, 0755, true, err);
	if (jfd < 0)
		goto out;
	sn_safedir_sweep(jfd, prefixes); /* a requeued job's killed epilog */
	if (pfd >= 0)
		sn_safedir_write(pfd, ndir, note, "", 0, 0600, &nerr);
	text = json_object_to_json_string_ext(
		(json_object *)record,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	rc = text ? sn_safedir_write(jfd, jdir, name, text, strlen(text), 0644,
				     err) :
		    -1;
	if (!text)
		sn_error_set(err, "out of memory: %s/%s", jdir, name);
	if (pfd >= 0)
		unlinkat(pfd, note, 0);
out:
	if (jfd >= 0)
		close(jfd);
	if (rfd >= 0)
		close(rfd);
	if (pfd >= 0)
		close(pfd);
	return rc;
}
