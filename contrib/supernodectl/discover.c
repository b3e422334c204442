/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl discover [--input FILE|-] [--prolog PATH] [--timeout S]:
 * collect every node's hardware identity and print the matching
 * supernodes: section and block topology (lib/placement/discover.c
 * decides).
 *
 * Without --input: sinfo lists the nodes and their states; one step over
 * the idle ones (srun -N<n> -w <nodes> --ntasks-per-node=1
 * --supernode-env=none supernode-prolog --config PATH --identity --json)
 * gives one line each.  A node that is not idle, or gives no answer, is
 * listed as not placed, with the reason.  --input reads such lines from a
 * file (what prologs or another runner gathered; "-" is stdin).
 *
 * Exit: 0 every node placed, 1 some not, 2 usage or no answers at all.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snctl.h"
#include "checks/sn_runner.h"
#include "placement/sn_discover.h"

#ifndef SN_SCONTROL
#define SN_SCONTROL "/usr/bin/scontrol"
#endif
#ifndef SN_SBIN_FULL_DIR
#define SN_SBIN_FULL_DIR "/usr/sbin"
#endif
#define SINFO_TIMEOUT_MS 30000u
#define DISCOVER_MAX_OUTPUT (32u << 20)

struct discover_args {
	const char *input;  /* --input FILE, "-" = stdin; NULL: run srun */
	const char *prolog; /* --prolog PATH */
	unsigned timeout_s; /* --timeout for the srun step */
	char config[PATH_MAX];
	char bindir[PATH_MAX]; /* where sinfo and srun are: scontrol's */
	char **idle;	       /* idle nodes, for the step */
	size_t n_idle;
};

/* ---- running Slurm's commands ------------------------------------------ */

struct exec_req {
	const char *bindir;
	char *const *argv; /* argv[0] is the command's name */
};

static int exec_child(void *arg, int fd)
{
	const struct exec_req *r = arg;
	char path[PATH_MAX];

	if (dup2(fd, STDOUT_FILENO) < 0)
		return 126;
	snprintf(path, sizeof(path), "%s/%s", r->bindir, r->argv[0]);
	execv(path, r->argv);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", SNCTL_NAME, path,
		strerror(errno));
	return 127;
}

/* Run argv; its stdout in *out (NUL-terminated). 0, or -1 (printed). */
static int run(const struct discover_args *a, char *const *argv,
	       uint32_t timeout_ms, char **out)
{
	struct exec_req r = { a->bindir, argv };
	size_t len = 0;
	char *p;
	int rc;

	*out = NULL;
	rc = sn_run_in_child(exec_child, &r, timeout_ms, DISCOVER_MAX_OUTPUT,
			     out, &len);
	if (rc == -1 || rc < -1) {
		sn_log_stderr("%s %s", argv[0],
			      rc == -1 ? "did not answer in time" :
					 "could not be run");
		free(*out);
		*out = NULL;
		return -1;
	}
	if (rc > 0)
		sn_log_stderr("%s exited with %d (answers kept)", argv[0], rc);
	p = realloc(*out, len + 1);
	if (!p) {
		free(*out);
		*out = NULL;
		return -1;
	}
	p[len] = '\0';
	*out = p;
	return 0;
}

/* ---- the nodes --------------------------------------------------------- */

static int push_idle(struct discover_args *a, const char *node)
{
	char **p = realloc(a->idle, (a->n_idle + 1) * sizeof(*p));

	if (!p)
		return -1;
	a->idle = p;
	if (!(a->idle[a->n_idle] = strdup(node)))
		return -1;
	a->n_idle++;
	return 0;
}

static bool listed(const struct discover_args *a, const char *node)
{
	for (size_t i = 0; i < a->n_idle; i++)
		if (!strcmp(a->idle[i], node))
			return true;
	return false;
}

/* One "NODE STATE" line of sinfo: idle ones to the step, others unplaced. */
static int node_line(struct discover_args *a, struct sn_discover *d, char *line,
		     struct sn_error *err)
{
	char *state = strchr(line, ' '), why[96];

	if (!state || !*line)
		return 0;
	*state++ = '\0';
	if (!strcmp(state, "idle")) {
		if (listed(a, line))
			return 0;
		return push_idle(a, line);
	}
	snprintf(why, sizeof(why), "not idle (%.40s): not asked", state);
	return sn_discover_add_missing(d, line, why, err);
}

static int list_nodes(struct discover_args *a, struct sn_discover *d)
{
	char *const argv[] = { "sinfo", "-h", "-N", "-o", "%N %T", NULL };
	char *text, *line, *save = NULL;
	struct sn_error err;

	if (run(a, argv, SINFO_TIMEOUT_MS, &text))
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (node_line(a, d, line, &err)) {
			sn_log_stderr("sinfo: %s", err.msg);
			free(text);
			return -1;
		}
	free(text);
	return 0;
}

/* ---- the answers ------------------------------------------------------- */

static void add_lines(struct sn_discover *d, char *text)
{
	char *line, *save = NULL;
	struct sn_error err;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] == '{' && sn_discover_add_line(d, line, &err))
			sn_log_stderr("ignored: %s", err.msg);
}

/* The step: srun over the idle nodes (w: comma-separated). */
static int run_step(struct discover_args *a, char *w, char **text)
{
	char nodes_arg[24], time_arg[16];
	char *const argv[] = { "srun",
			       nodes_arg,
			       "-w",
			       w,
			       "--ntasks-per-node=1",
			       time_arg,
			       "--supernode-env=none",
			       (char *)a->prolog,
			       "--config",
			       a->config,
			       "--identity",
			       "--json",
			       NULL };

	snprintf(nodes_arg, sizeof(nodes_arg), "-N%zu", a->n_idle);
	snprintf(time_arg, sizeof(time_arg), "-t%u", (a->timeout_s + 59) / 60);
	return run(a, argv, a->timeout_s * 1000, text);
}

static int step(struct discover_args *a, struct sn_discover *d)
{
	char *text = NULL, *w;
	struct sn_error err;
	size_t len = 1;
	int rc;

	for (size_t i = 0; i < a->n_idle; i++)
		len += strlen(a->idle[i]) + 1;
	if (!(w = calloc(1, len)))
		return -1;
	for (size_t i = 0; i < a->n_idle; i++) {
		strcat(w, a->idle[i]);
		if (i + 1 < a->n_idle)
			strcat(w, ",");
	}
	rc = run_step(a, w, &text);
	free(w);
	if (!rc)
		add_lines(d, text);
	free(text);
	for (size_t i = 0; i < a->n_idle; i++)
		if (sn_discover_add_missing(d, a->idle[i],
					    "no answer from the step", &err))
			return -1;
	return rc;
}

static int read_input(const char *path, struct sn_discover *d)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char line[SN_DISCOVER_LINE_MAX + 2];
	struct sn_error err;

	if (!f) {
		sn_log_stderr("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '{' && sn_discover_add_line(d, line, &err))
			sn_log_stderr("%s: ignored: %s", path, err.msg);
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

/* ---- the command ------------------------------------------------------- */

static int args_parse(int argc, char **argv, struct discover_args *a)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "prolog", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	a->prolog = SN_SBIN_FULL_DIR "/supernode-prolog";
	a->timeout_s = 120;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i') {
			a->input = optarg;
		} else if (c == 'p') {
			a->prolog = optarg;
		} else if (c == 't') {
			errno = 0;
			a->timeout_s = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !a->timeout_s ||
			    a->timeout_s > 3600)
				return -1;
		} else {
			return -1;
		}
	}
	return optind < argc ? -1 : 0;
}

static void bindir_of_scontrol(char *buf, size_t size)
{
	const char *slash = strrchr(SN_SCONTROL, '/');

	snprintf(buf, size, "%.*s", (int)(slash - SN_SCONTROL), SN_SCONTROL);
}

static int collect(struct discover_args *a, struct sn_discover *d)
{
	if (a->input)
		return read_input(a->input, d);
	if (list_nodes(a, d))
		return -1;
	if (!a->n_idle) {
		sn_log_stderr("no idle node to ask");
		return 0;
	}
	return step(a, d);
}

int snctl_discover(const struct snctl_global *g, int argc, char **argv)
{
	struct discover_args a = { 0 };
	struct sn_discover d = { 0 };
	struct sn_config *cfg = NULL;
	struct sn_error err;
	int rc = SNCTL_EXIT_USAGE;

	if (args_parse(argc, argv, &a)) {
		fprintf(stderr,
			"usage: %s [--config PATH] discover [--input FILE|-] [--prolog PATH] [--timeout S (1-3600)]\n",
			SNCTL_NAME);
		return SNCTL_EXIT_USAGE;
	}
	if (g->config)
		snprintf(a.config, sizeof(a.config), "%s", g->config);
	else
		sn_config_default_path(a.config, sizeof(a.config));
	bindir_of_scontrol(a.bindir, sizeof(a.bindir));
	if (snctl_config_load(g, &cfg))
		goto out;
	if (collect(&a, &d) || !d.n_nodes)
		goto out;
	if (sn_discover_group(&d, cfg, &err)) {
		sn_log_stderr("%s", err.msg);
		goto out;
	}
	sn_discover_print(stdout, &d);
	rc = sn_discover_unplaced(&d) ? SNCTL_EXIT_NOTFOUND : SNCTL_EXIT_OK;
out:
	for (size_t i = 0; i < a.n_idle; i++)
		free(a.idle[i]);
	free(a.idle);
	sn_discover_free(&d);
	sn_config_free(cfg);
	return rc;
}
