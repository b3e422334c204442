/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sn_number.h"
#include "placement/sn_option.h"

/* All digits after an optional '-': a number, even if it overflows. */
static int looks_numeric(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	return strspn(s, "0123456789") == strlen(s);
}

bool sn_option_count_form(const char *arg, uint32_t *n)
{
	long long v;

	if (!arg || !*arg || !looks_numeric(arg) || !sn_number_parse(arg, &v) ||
	    v < 1 || v > (long long)UINT32_MAX)
		return false;
	*n = (uint32_t)v;
	return true;
}

int sn_supernode_count_parse(const char *arg, uint32_t max, uint32_t *out,
			     struct sn_error *err)
{
	uint32_t v;

	if (!arg) {
		sn_error_set(
			err,
			"--supernode requires a value: a whole number from 1 to %u",
			max);
		return -1;
	}
	if (!*arg) {
		sn_error_set(
			err,
			"--supernode= is empty: give a whole number from 1 to %u",
			max);
		return -1;
	}
	if (!looks_numeric(arg)) {
		sn_error_set(
			err,
			"--supernode=%.40s is not a whole number (allowed: 1 to %u)",
			arg, max);
		return -1;
	}
	if (!sn_option_count_form(arg, &v) || v > max) {
		sn_error_set(
			err,
			"--supernode=%.40s is out of range (allowed: 1 to %u)",
			arg, max);
		return -1;
	}
	*out = v;
	return 0;
}

#define CMDLINE_FIRST (64u << 10) /* the buffer's first size */

/*
 * Read fd to its end into a buffer grown up to SN_CMDLINE_MAX bytes (and
 * one more, to see the end: a longer file is E2BIG).
 */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = CMDLINE_FIRST, used = 0;
	char *b = malloc(cap + 1), *grown;
	ssize_t n;

	while (b) {
		if (used == cap) {
			if (cap >= SN_CMDLINE_MAX) {
				/* Full: one byte more is too long. */
				n = read(fd, b + used, 1);
				if (n < 0 && errno == EINTR)
					continue;
				if (n > 0)
					errno = E2BIG;
				if (n)
					break;
				goto done;
			}
			cap = cap * 2 < SN_CMDLINE_MAX ? cap * 2 :
							 SN_CMDLINE_MAX;
			if (!(grown = realloc(b, cap + 1)))
				break;
			b = grown;
		}
		n = read(fd, b + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0)
			goto done;
		used += (size_t)n;
	}
	free(b);
	return -1;
done:
	b[used] = '\0';
	*buf = b;
	*len = used;
	return 0;
}

int sn_cmdline_read(const char *path, char **buf, size_t *len,
		    struct sn_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int rc;

	*buf = NULL;
	*len = 0;
	if (fd < 0) {
		sn_error_set(err, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	rc = read_all(fd, buf, len);
	if (rc)
		sn_error_set(err, "cannot read %s: %s", path,
			     errno == E2BIG ? "longer than any command line" :
					      strerror(errno));
	close(fd);
	return rc;
}

const char *sn_cmdline_supernode_find(const char *args, size_t len)
{
	const char *end = args + len, *found = NULL;
	const char *p = args;

	/* argv[0] is the program. */
	p += strnlen(p, (size_t)(end - p)) + 1;
	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		const char *next = p + n + 1;

		if (!strcmp(p, "--"))
			break;
		if (!strncmp(p, "--supernode=", 12)) {
			found = p + 12;
		} else if (!strcmp(p, "--supernode")) {
			found = next < end ? next : "";
			if (next < end)
				next += strnlen(next, (size_t)(end - next)) + 1;
		}
		p = next;
	}
	return found;
}

int sn_cmdline_supernode(const char *path, char **value, struct sn_error *err)
{
	const char *found;
	char *args;
	size_t len;

	*value = NULL;
	if (sn_cmdline_read(path, &args, &len, err))
		return -1;
	found = sn_cmdline_supernode_find(args, len);
	if (found && !(*value = strdup(found))) {
		sn_error_set(err, "out of memory");
		free(args);
		return -1;
	}
	free(args);
	return found ? 1 : 0;
}

int sn_option_count_check(const struct sn_config *cfg,
			  const struct sn_error *cfg_err, const char *arg,
			  const char *source, uint32_t *n, struct sn_error *err)
{
	struct sn_error why;

	if (!cfg) {
		sn_error_set(err, "%s--supernode cannot be used: %s", source,
			     cfg_err->msg);
		return -1;
	}
	if (sn_supernode_count_parse(arg, sn_config_effective_max(cfg), n,
				     &why)) {
		sn_error_set(err, "%s%s", source, why.msg);
		return -1;
	}
	if (cfg->method == SN_PLACE_FEATURE && *n > 1) {
		sn_error_set(
			err,
			"%s--supernode=%u: this cluster's placement.method is 'feature', which places one supernode per job: use --supernode=1 (the admin can switch to placement.method 'switch' for jobs of several supernodes)",
			source, *n);
		return -1;
	}
	return 0;
}

const char *sn_option_env_name(bool srun, const char *program)
{
	if (srun)
		return "SLURM_SUPERNODE";
	if (program && !strcmp(program, "sbatch"))
		return "SBATCH_SUPERNODE";
	if (program && !strcmp(program, "salloc"))
		return "SALLOC_SUPERNODE";
	return NULL;
}

const char *sn_option_env_value(char *const *env, size_t n, const char *name)
{
	const char *found = NULL;
	size_t len = strlen(name);

	for (size_t i = 0; env && i < n; i++)
		if (env[i] && !strncmp(env[i], name, len) && env[i][len] == '=')
			found = env[i] + len + 1;
	return found;
}

bool sn_option_env_forged(const char *entry)
{
	return entry && !strncmp(entry, "SPANK_SUPERNODE=", 16);
}

/* One PATH argument into dst (PATH_MAX); 0 or -1 with err set. */
static int arg_path(const char *arg, size_t key_len, int *given, char *dst,
		    struct sn_error *err)
{
	const char *val = arg + key_len + 1;
	char probe[PATH_MAX];

	if ((*given)++) {
		sn_error_set(err, "plugstack.conf: %.*s= given twice",
			     (int)key_len, arg);
		return -1;
	}
	if (val[0] != '/') {
		sn_error_set(err,
			     "plugstack.conf: %.64s: expected an absolute path",
			     arg);
		return -1;
	}
	if ((size_t)snprintf(dst, PATH_MAX, "%s", val) >= PATH_MAX) {
		sn_error_set(err,
			     "plugstack.conf: %.64s...: longer than %d bytes",
			     arg, PATH_MAX - 1);
		return -1;
	}
	/* state_dir may name the node; the same rule as the config's paths */
	if (!strncmp(arg, "state_dir=", 10) &&
	    sn_path_expand(val, "n", "h", probe, sizeof(probe))) {
		sn_error_set(
			err,
			"plugstack.conf: %.64s: only %%n, %%h and %%%% may follow a %%",
			arg);
		return -1;
	}
	return 0;
}

int sn_option_args_parse(int ac, char *const *av, struct sn_plugin_args *out,
			 struct sn_error *err)
{
	int have_config = 0, have_state = 0;

	snprintf(out->config, sizeof(out->config), "%s",
		 SN_CONFIG_DEFAULT_PATH);
	snprintf(out->state_dir, sizeof(out->state_dir), "%s",
		 SN_CONFIG_DEFAULT_STATE_DIR);
	for (int i = 0; i < ac; i++) {
		int rc;

		if (!strncmp(av[i], "config=", 7))
			rc = arg_path(av[i], 6, &have_config, out->config, err);
		else if (!strncmp(av[i], "state_dir=", 10))
			rc = arg_path(av[i], 9, &have_state, out->state_dir,
				      err);
		else {
			sn_error_set(
				err,
				"plugstack.conf: unknown argument '%.64s' (allowed: config=PATH, state_dir=PATH)",
				av[i]);
			rc = -1;
		}
		if (rc)
			return -1;
	}
	return 0;
}

bool sn_option_env_applies(const char *value, bool option_given,
			   const char *cmdline, struct sn_error *err)
{
	struct sn_error why;
	char *found;
	int rc;

	err->msg[0] = '\0';
	if (!value)
		return false;
	if (!option_given)
		return true;
	rc = sn_cmdline_supernode(cmdline, &found, &why);
	free(found);
	if (rc < 0)
		sn_error_set(
			err,
			"%s: taking --supernode for given on the command line",
			why.msg);
	return rc == 0;
}
