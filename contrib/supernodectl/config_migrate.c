/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl [--config PATH] config migrate [FILE] [--write]: FILE (else
 * the --config one) in today's form (lib/config/sn_config_migrate.h: only
 * the deprecated bytes change, comments kept) on stdout, or with --write
 * in place: FILE.orig keeps the old file (refused if it exists), the new
 * text replaces FILE by rename(2) from FILE.migrate in the same folder.
 * Exit 0 done (nothing to
 * change, or migrated), 1 invalid config (or a write failed), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/sn_config_migrate.h"
#include "util/sn_file.h"

#include "snctl_config.h"

/* text into FILE.migrate (FILE's mode), then FILE.orig, then rename. */
static int migrate_write(const char *file, const char *text, size_t len)
{
	char tmp[PATH_MAX], orig[PATH_MAX];
	struct stat st;
	size_t done = 0;
	int fd;

	if (stat(file, &st) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.migrate", file) >=
		    sizeof(tmp) ||
	    (size_t)snprintf(orig, sizeof(orig), "%s.orig", file) >=
		    sizeof(orig)) {
		sn_log_stderr("%s: %s", file,
			      strerror(errno ? errno : ENAMETOOLONG));
		return -1;
	}
	if (!access(orig, F_OK) || errno != ENOENT) {
		sn_log_stderr(
			"%s: exists: not overwritten (move it away first)",
			orig);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  st.st_mode & 07777);
	if (fd < 0) {
		sn_log_stderr("%s: %s", tmp, strerror(errno));
		return -1;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (done < len || fsync(fd) || close(fd)) {
		sn_log_stderr("%s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	/* link(2) refuses an existing FILE.orig, even one made just now. */
	if (link(file, orig)) {
		sn_log_stderr("%s: %s", orig, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, file)) {
		sn_log_stderr("%s: %s", file, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int migrate_args(int argc, char **argv, const char **file, bool *write)
{
	static const struct option opts[] = {
		{ "write", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'w')
			return -1;
		*write = true;
	}
	if (optind < argc)
		*file = argv[optind++];
	if (optind < argc) {
		sn_log_stderr("config migrate: unexpected argument '%s'",
			      argv[optind]);
		return -1;
	}
	return 0;
}

int snctl_config_migrate(const struct snctl_global *g, int argc, char **argv)
{
	struct sn_strbuf out = SN_STRBUF_INIT;
	char path[PATH_MAX];
	const char *file = NULL;
	struct sn_error err;
	bool write = false;
	size_t len, changed;
	char *buf;
	int rc = SNCTL_EXIT_NOTFOUND;

	if (migrate_args(argc, argv, &file, &write))
		return SNCTL_EXIT_USAGE;
	if (!file && g->config)
		file = g->config;
	if (!file) {
		sn_config_default_path(path, sizeof(path));
		file = path;
	}
	if (!(buf = sn_file_load(file, SN_CONFIG_MAX_BYTES, &len, &err))) {
		sn_log_stderr("%s", err.msg);
		return SNCTL_EXIT_NOTFOUND;
	}
	if (sn_config_migrate(file, buf, len, &out, &changed, &err)) {
		sn_log_stderr("%s", err.msg);
		goto out;
	}
	if (!write) {
		fwrite(sn_strbuf_str(&out), 1, out.len, stdout);
		rc = fflush(stdout) ? SNCTL_EXIT_NOTFOUND : SNCTL_EXIT_OK;
		goto out;
	}
	if (!changed) {
		printf("%s: already in today's form: not rewritten\n", file);
		rc = SNCTL_EXIT_OK;
		goto out;
	}
	if (migrate_write(file, sn_strbuf_str(&out), out.len))
		goto out;
	printf("%s: %zu deprecated form%s rewritten; the old file is %s.orig\n",
	       file, changed, changed == 1 ? "" : "s", file);
	rc = SNCTL_EXIT_OK;
out:
	sn_strbuf_free(&out);
	free(buf);
	return rc;
}
