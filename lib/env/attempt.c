/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job's attempt, from the prolog to the steps (sn_attempt.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env/sn_attempt.h"
#include "util/sn_number.h"
#include "util/sn_safedir.h"
#include "util/sn_slurm_env.h"

/* state_dir/attempt opened as a trusted folder; -1 with err (and errno). */
static int attempt_dir(const char *state_dir, bool create, struct sn_error *err)
{
	char dir[PATH_MAX];
	int sfd, fd;

	sfd = sn_safedir_open(state_dir, 0700, create, err);
	if (sfd < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s", state_dir);
	fd = sn_safedir_sub(sfd, dir, SN_ATTEMPT_DIR, 0700, create, err);
	close(sfd);
	return fd;
}

int sn_attempt_save(const char *state_dir, uint32_t job_id,
		    uint32_t restart_count, struct sn_error *err)
{
	char dir[PATH_MAX], name[16], text[16];
	int fd, n, rc;

	fd = attempt_dir(state_dir, true, err);
	if (fd < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/" SN_ATTEMPT_DIR, state_dir);
	snprintf(name, sizeof(name), "%u", job_id);
	n = snprintf(text, sizeof(text), "%u\n", restart_count);
	sn_safedir_sweep(fd, NULL);
	rc = sn_safedir_write(fd, dir, name, text, (size_t)n, 0600, err);
	close(fd);
	return rc;
}

int sn_attempt_load(const char *state_dir, uint32_t job_id,
		    uint32_t *restart_count, struct sn_error *err)
{
	char dir[PATH_MAX], name[16];
	size_t len = 0;
	long long v;
	char *text;
	int fd;

	fd = attempt_dir(state_dir, false, err);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	snprintf(dir, sizeof(dir), "%s/" SN_ATTEMPT_DIR, state_dir);
	snprintf(name, sizeof(name), "%u", job_id);
	text = sn_safedir_load(fd, dir, name, SN_ATTEMPT_FILE_MAX, &len, err);
	close(fd);
	if (!text)
		return errno == ENOENT ? 1 : -1;
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	if (strlen(text) != len - 1 || !sn_number_parse(text, &v) || v < 0 ||
	    v > SN_RESTART_COUNT_MAX) {
		sn_error_set(err, "not a restart count: %s/%s", dir, name);
		free(text);
		return -1;
	}
	*restart_count = (uint32_t)v;
	free(text);
	return 0;
}

int sn_attempt_failed_save(const char *state_dir, uint32_t job_id,
			   const char *reason, struct sn_error *err)
{
	char dir[PATH_MAX], name[32], text[SN_ATTEMPT_REASON_MAX + 2];
	int fd, rc;

	fd = attempt_dir(state_dir, true, err);
	if (fd < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/" SN_ATTEMPT_DIR, state_dir);
	snprintf(name, sizeof(name), "%u.failed", job_id);
	snprintf(text, sizeof(text), "%.*s\n",
		 (int)strcspn(reason, "\n") < SN_ATTEMPT_REASON_MAX ?
			 (int)strcspn(reason, "\n") :
			 SN_ATTEMPT_REASON_MAX,
		 reason);
	rc = sn_safedir_write(fd, dir, name, text, strlen(text), 0600, err);
	close(fd);
	return rc;
}

int sn_attempt_failed_load(const char *state_dir, uint32_t job_id, char *buf,
			   size_t size)
{
	char dir[PATH_MAX], name[32];
	struct sn_error err;
	size_t len = 0;
	char *text;
	int fd;

	buf[0] = '\0';
	fd = attempt_dir(state_dir, false, &err);
	if (fd < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/" SN_ATTEMPT_DIR, state_dir);
	snprintf(name, sizeof(name), "%u.failed", job_id);
	text = sn_safedir_load(fd, dir, name, SN_ATTEMPT_REASON_MAX + 2, &len,
			       &err);
	close(fd);
	if (!text)
		return -1;
	snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	return 0;
}

int sn_attempt_remove(const char *state_dir, uint32_t job_id,
		      struct sn_error *err)
{
	char name[2][32], dir[PATH_MAX];
	int fd, rc = 0;

	fd = attempt_dir(state_dir, false, err);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	snprintf(dir, sizeof(dir), "%s/" SN_ATTEMPT_DIR, state_dir);
	snprintf(name[0], sizeof(name[0]), "%u", job_id);
	snprintf(name[1], sizeof(name[1]), "%u.failed", job_id);
	for (int i = 0; i < 2; i++)
		if (sn_safedir_remove(fd, dir, name[i], err))
			rc = -1;
	close(fd);
	return rc;
}
