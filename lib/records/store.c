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

uint32_t sn_store_attempt_of(const char *name)
{
	size_t k = strlen(SN_STORE_ATTEMPT_PREFIX), n;
	uint64_t v = 0;

	if (strncmp(name, SN_STORE_ATTEMPT_PREFIX, k))
		return 0;
	name += k;
	n = strlen(name);
	if (!n || n > 5 || name[0] == '0' || strspn(name, "0123456789") != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(name[i] - '0');
	return v >= 2 && v <= SN_STORE_ATTEMPT_MAX ? (uint32_t)v : 0;
}

/* --- bounded scans ---------------------------------------------------- */

/* What one scan of a job's folders shares. */
struct scan {
	size_t seen, max;
	long visited;
	bool truncated, stopped;
	sn_store_visit_fn fn;
	void *arg;
};

/*
 * The record files of folder (a job's, or one of its attempt-N folders);
 * its attempt-N entries into attempts (at most SN_STORE_ATTEMPT_SCAN)
 * when attempts is not NULL.  -1 when the folder cannot be listed.
 */
#define SN_STORE_ATTEMPT_SCAN 64 /* attempt folders visited per job */
static int scan_dir(struct scan *sc, const char *folder, uint32_t *attempts,
		    size_t *n_attempts)
{
	char path[PATH_MAX], node[SN_STORE_NODE_MAX + 1];
	struct dirent *de;
	uint32_t a;
	DIR *d;

	if (!(d = opendir(folder)))
		return errno == ENOENT ? 0 : -1;
	while (!sc->stopped && (de = readdir(d))) {
		if (sc->seen++ >= sc->max) {
			sc->truncated = sc->stopped = true;
			break;
		}
		if (attempts && (a = sn_store_attempt_of(de->d_name))) {
			if (*n_attempts < SN_STORE_ATTEMPT_SCAN)
				attempts[(*n_attempts)++] = a;
			else
				sc->truncated = true;
			continue;
		}
		if (!sn_store_node_of(de->d_name, node, sizeof(node)) ||
		    (size_t)snprintf(path, sizeof(path),
				     "%s/%s" SN_STORE_SUFFIX, folder,
				     node) >= sizeof(path))
			continue;
		sc->visited++;
		if (sc->fn(path, node, sc->arg) < 0)
			sc->stopped = true;
	}
	closedir(d);
	return 0;
}

long sn_store_scan_job(const char *dir, int64_t job, size_t max_entries,
		       sn_store_visit_fn fn, void *arg, bool *truncated)
{
	struct scan sc = { .max = max_entries, .fn = fn, .arg = arg };
	uint32_t attempts[SN_STORE_ATTEMPT_SCAN];
	char jobdir[PATH_MAX], sub[PATH_MAX];
	size_t n_attempts = 0;

	if (truncated)
		*truncated = false;
	if (sn_store_job_dir(dir, job, jobdir, sizeof(jobdir))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (scan_dir(&sc, jobdir, attempts, &n_attempts))
		return -1;
	for (size_t i = 0; i < n_attempts && !sc.stopped; i++) {
		if ((size_t)snprintf(sub, sizeof(sub),
				     "%s/" SN_STORE_ATTEMPT_PREFIX "%u", jobdir,
				     attempts[i]) < sizeof(sub))
			scan_dir(&sc, sub, NULL, NULL);
	}
	if (truncated)
		*truncated = sc.truncated;
	return sc.visited;
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

/*
 * The folder an attempt's records go to, below the job's folder jfd (path
 * jdir): jfd itself (a new descriptor) for attempts 0 and 1, else its
 * attempt-N (created 0755); its path into adir.  -1 with err set.
 */
static int attempt_open(int jfd, const char *jdir, uint32_t attempt, char *adir,
			size_t size, struct sn_error *err)
{
	char name[32];

	if (attempt <= 1) {
		snprintf(adir, size, "%s", jdir);
		return openat(jfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	snprintf(name, sizeof(name), SN_STORE_ATTEMPT_PREFIX "%u", attempt);
	if ((size_t)snprintf(adir, size, "%s/%s", jdir, name) >= size) {
		sn_error_set(err, "record path too long: %s/%s", jdir, name);
		return -1;
	}
	return sn_safedir_sub(jfd, jdir, name, 0755, true, err);
}

int sn_store_write(const json_object *record, const char *record_dir,
		   const char *state_dir, uint32_t job_id, uint32_t attempt,
		   const char *node, struct sn_error *err)
{
	char job[16], name[NAME_MAX + 1], note[32], prefix[NAME_MAX + 8];
	char jdir[PATH_MAX], ndir[PATH_MAX], adir[PATH_MAX];
	const char *prefixes[] = { prefix, NULL };
	int rfd = -1, jfd = -1, afd = -1, pfd, rc = -1;
	struct sn_error nerr;
	const char *text;

	if (attempt > SN_STORE_ATTEMPT_MAX) {
		sn_error_set(err, "attempt %u beyond %u: %s/%u", attempt,
			     SN_STORE_ATTEMPT_MAX, record_dir, job_id);
		return -1;
	}
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
	afd = attempt_open(jfd, jdir, attempt, adir, sizeof(adir), err);
	if (afd < 0)
		goto out;
	if (attempt > 1)
		sn_safedir_sweep(afd, prefixes);
	if (!attempt && !faccessat(afd, name, F_OK, AT_SYMLINK_NOFOLLOW)) {
		sn_error_set(
			err,
			"a record of an earlier attempt is there, kept: %s/%s",
			adir, name);
		goto out;
	}
	if (pfd >= 0)
		sn_safedir_write(pfd, ndir, note, "", 0, 0600, &nerr);
	text = json_object_to_json_string_ext(
		(json_object *)record,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	rc = text ? sn_safedir_write(afd, adir, name, text, strlen(text), 0644,
				     err) :
		    -1;
	if (!text)
		sn_error_set(err, "out of memory: %s/%s", adir, name);
	if (pfd >= 0)
		unlinkat(pfd, note, 0);
out:
	if (afd >= 0)
		close(afd);
	if (jfd >= 0)
		close(jfd);
	if (rfd >= 0)
		close(rfd);
	if (pfd >= 0)
		close(pfd);
	return rc;
}
