/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl discover [--input FILE|-] [--prolog PATH] [--timeout S]:
 * collect every node's hardware identity and print the matching
 * supernodes: section and block topology (lib/placement/discover.c
 * decides).
 *
 * Without --input: sinfo lists each node's partitions and state; the idle
 * ones are asked, one step per partition (lib/placement/discover_plan.c
 * picks one partition per node: the default one when the node is in it),
 * one after the other, each under --timeout: srun -p PART -N<n> -w <nodes>
 * --ntasks-per-node=1 --supernode-env=none supernode-prolog --config PATH
 * --identity --json gives one line each.  Nodes still completing a job
 * (the steps of a discover just before) are waited for, up to --timeout.
 * A step that times out or fails
 * keeps every answer it printed; only the nodes that gave none are listed
 * as not placed, with the reason, as are the nodes not asked (not idle,
 * in no partition that is up).  --input reads such lines from a file
 * (what prologs or another runner gathered; "-" is stdin).
 *
 * Exit: 0 every node placed, 1 some not, 2 usage, sinfo failed, or no
 * node at all.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snctl.h"
#include "util/sn_child.h"
#include "placement/sn_discover.h"
#include "placement/sn_discover_plan.h"

#ifndef SN_SCONTROL
#define SN_SCONTROL "/usr/bin/scontrol"
#endif
#ifndef SN_SBIN_FULL_DIR
#define SN_SBIN_FULL_DIR "/usr/sbin"
#endif
#define SINFO_TIMEOUT_MS 30000u
#define DISCOVER_MAX_OUTPUT (32u << 20) /* bytes kept of one command */

struct discover_args {
	const char *input;  /* --input FILE, "-" = stdin; NULL: run srun */
	const char *prolog; /* --prolog PATH */
	unsigned timeout_s; /* --timeout for each srun step */
	char config[PATH_MAX];
	char bindir[PATH_MAX]; /* where sinfo and srun are: scontrol's */
	char job_name[64];     /* the steps' job name, for scancel */
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

/*
 * Run argv for at most timeout_ms; what it printed, whatever happened, in
 * *out (malloc()ed, NUL-terminated, *len bytes, at most max).  Returns
 * sn_run_in_child's status: 0-255, -1 timed out, -2 killed by a signal,
 * -3 not started; -4 out of memory.
 */
static int run(const struct discover_args *a, char *const *argv,
	       uint32_t timeout_ms, size_t max, char **out, size_t *len)
{
	struct exec_req r = { a->bindir, argv };
	char *p;
	int rc;

	rc = sn_run_in_child(exec_child, &r, timeout_ms, max, out, len);
	p = realloc(*out, *len + 1);
	if (!p) {
		free(*out);
		*out = NULL;
		*len = 0;
		return -4;
	}
	p[*len] = '\0';
	*out = p;
	return rc;
}

/* sinfo and scancel: 0 with the output, or -1 (printed). */
static int run_tool(const struct discover_args *a, char *const *argv,
		    char **out)
{
	size_t len;
	int rc = run(a, argv, SINFO_TIMEOUT_MS, DISCOVER_MAX_OUTPUT, out, &len);

	if (!rc)
		return 0;
	if (rc > 0)
		sn_log_stderr("%s exited with %d", argv[0], rc);
	else
		sn_log_stderr("%s %s", argv[0],
			      rc == -1 ? "did not answer in time" :
					 "could not be run");
	free(*out);
	*out = NULL;
	return -1;
}

/* ---- the nodes --------------------------------------------------------- */

/* sinfo's node lines into p (not finished). */
static int read_nodes(struct discover_args *a, struct sn_discover_plan *p)
{
	char *const argv[] = { "sinfo", "-h",	       "-N", "-a",
			       "-o",	"%N %P %a %T", NULL };
	char *text, *line, *save = NULL;
	struct sn_error err;

	if (run_tool(a, argv, &text))
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sn_discover_plan_line(p, line, &err))
			sn_log_stderr("sinfo: ignored: %s", err.msg);
	free(text);
	return 0;
}

/*
 * Nodes still completing a job (a discover run just before leaves its
 * nodes COMPLETING while their epilogs run) are waited for, asking sinfo
 * every second, for at most --timeout: they are then asked like the
 * others; the ones still completing at the end are listed as not asked
 * (not idle (completing)).  Said on stderr either way.
 */
static int list_nodes(struct discover_args *a, struct sn_discover_plan *p,
		      struct sn_discover *d)
{
	int64_t start = sn_now_ms(), left;
	struct sn_error err;
	char *busy = NULL;
	size_t n = 0;
	bool said = false;

	for (;;) {
		free(busy);
		busy = NULL;
		if (read_nodes(a, p))
			return -1;
		busy = sn_discover_plan_completing(p, &n, &err);
		left = start + (int64_t)a->timeout_s * 1000 - sn_now_ms();
		if (!n || left <= 0)
			break;
		if (!said)
			sn_log_stderr(
				"%zu node(s) completing a job (%s): waiting up to %u s",
				n, busy ? busy : "?", a->timeout_s);
		said = true;
		sn_discover_plan_free(p);
		usleep(left < 1000 ? (useconds_t)left * 1000 : 1000000);
	}
	if (n)
		sn_log_stderr(
			"%zu node(s) still completing after %u s, not asked: %s",
			n, a->timeout_s, busy ? busy : "?");
	else if (said)
		sn_log_stderr("every node done completing after %lld s",
			      (long long)((sn_now_ms() - start + 999) / 1000));
	free(busy);
	if (sn_discover_plan_finish(p, d, &err)) {
		sn_log_stderr("sinfo: %s", err.msg);
		return -1;
	}
	return 0;
}

/* ---- the steps --------------------------------------------------------- */

/* Why a node of partition part gave no answer, after the step's rc. */
static void no_answer_why(int rc, const char *part, unsigned timeout_s,
			  char *buf, size_t size)
{
	if (rc == 0)
		snprintf(buf, size, "no answer from the step in partition %s",
			 part);
	else if (rc == -1)
		snprintf(
			buf, size,
			"no answer: the step in partition %s did not finish in %u s",
			part, timeout_s);
	else if (rc > 0)
		snprintf(buf, size,
			 "no answer: the step in partition %s exited with %d",
			 part, rc);
	else
		snprintf(buf, size, "no answer: the step in partition %s %s",
			 part,
			 rc == -2 ? "was killed by a signal" :
				    "could not be run");
}

/* The step over nodes (a hostlist, n of them) in partition part. */
static int run_step(const struct discover_args *a, const char *part,
		    char *nodes, size_t n, char **text, size_t *len)
{
	char part_arg[SN_DISCOVER_PART_MAX + 4], nodes_arg[24], time_arg[16];
	char name_arg[sizeof(a->job_name) + 4];
	char *const argv[] = { "srun",
			       part_arg,
			       nodes_arg,
			       "-w",
			       nodes,
			       name_arg,
			       "--ntasks-per-node=1",
			       time_arg,
			       "--supernode-env=none",
			       (char *)a->prolog,
			       "--config",
			       (char *)a->config,
			       "--identity",
			       "--json",
			       NULL };
	size_t max = n * (SN_DISCOVER_LINE_MAX + 1) + 65536;

	snprintf(part_arg, sizeof(part_arg), "-p%s", part);
	snprintf(nodes_arg, sizeof(nodes_arg), "-N%zu", n);
	snprintf(name_arg, sizeof(name_arg), "-J%s", a->job_name);
	snprintf(time_arg, sizeof(time_arg), "-t%u", (a->timeout_s + 59) / 60);
	return run(a, argv, a->timeout_s * 1000,
		   max < DISCOVER_MAX_OUTPUT ? max : DISCOVER_MAX_OUTPUT, text,
		   len);
}

/* A step that did not finish leaves its job: cancel it by its name. */
static void cancel_step(const struct discover_args *a)
{
	char name_arg[sizeof(a->job_name) + 8];
	char *const argv[] = { "scancel", name_arg, NULL };
	char *out;

	snprintf(name_arg, sizeof(name_arg), "--name=%s", a->job_name);
	if (!run_tool(a, argv, &out))
		free(out);
}

/* Every node of part that gave no answer: not placed, with why. */
static int step_missing(const struct sn_discover_plan *p, const char *part,
			const char *why, struct sn_discover *d)
{
	struct sn_error err;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->t[i].part, part) &&
		    sn_discover_add_missing(d, p->t[i].node, why, &err)) {
			sn_log_stderr("%s", err.msg);
			return -1;
		}
	return 0;
}

static void step_report(const char *part, size_t n, int rc,
			const struct sn_discover_output *o, const char *why)
{
	if (o->refused)
		sn_log_stderr(
			"partition %s: %zu line(s) ignored, the first: %s",
			part, o->refused, o->first.msg);
	if (o->cut)
		sn_log_stderr("partition %s: the last line was cut short",
			      part);
	sn_log_stderr("partition %s: %zu node(s) asked, %zu answer(s)%s%s",
		      part, n, o->taken, rc ? "; " : "",
		      rc ? why + strlen("no answer: ") : "");
}

/* One partition's step; its answers, whole or partial, into d. */
static int step(const struct discover_args *a, const struct sn_discover_plan *p,
		const char *part, struct sn_discover *d)
{
	struct sn_discover_output o;
	char *nodes, *text = NULL, why[SN_DISCOVER_PART_MAX + 96];
	struct sn_error err;
	size_t n, len = 0;
	int rc;

	if (!(nodes = sn_discover_plan_nodes(p, part, &n, &err))) {
		sn_log_stderr("partition %s: %s", part, err.msg);
		return -1;
	}
	rc = run_step(a, part, nodes, n, &text, &len);
	free(nodes);
	sn_discover_add_output(d, text ? text : "", len, &o);
	free(text);
	if (rc == -1)
		cancel_step(a);
	no_answer_why(rc, part, a->timeout_s, why, sizeof(why));
	step_report(part, n, rc, &o, why);
	return step_missing(p, part, why, d);
}

/* The rest of a line longer than buf: read and dropped, up to its '\n'. */
static void skip_rest(FILE *f)
{
	int c;

	while ((c = getc(f)) != EOF && c != '\n')
		;
}

/*
 * --input: each line that starts with '{' is an answer; one refused is
 * named as FILE:LINE (1-based), as a compiler does, and skipped.
 */
static int read_input(const char *path, struct sn_discover *d)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *name = f == stdin ? "<stdin>" : path;
	char line[SN_DISCOVER_LINE_MAX + 2];
	struct sn_error err;
	size_t no = 0;

	if (!f) {
		sn_log_stderr("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		no++;
		if (!line[len] && !feof(f)) {
			skip_rest(f);
			if (line[0] == '{')
				sn_log_stderr(
					"%s:%zu: ignored: line longer than %d bytes",
					path, no, SN_DISCOVER_LINE_MAX);
			continue;
		}
		line[len] = '\0';
		if (line[0] == '{' && sn_discover_add_line(d, line, &err))
			sn_log_stderr("%s:%zu: ignored: %s", name, no, err.msg);
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
	struct sn_discover_plan p = { 0 };
	int rc = 0;

	if (a->input)
		return read_input(a->input, d);
	if (list_nodes(a, &p, d)) {
		sn_discover_plan_free(&p);
		return -1;
	}
	if (!p.n)
		sn_log_stderr("no idle node to ask");
	snprintf(a->job_name, sizeof(a->job_name), "supernodectl-discover.%d",
		 (int)getpid());
	for (size_t i = 0; i < p.n_parts && !rc; i++)
		rc = step(a, &p, p.parts[i], d);
	sn_discover_plan_free(&p);
	return rc;
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
	sn_discover_free(&d);
	sn_config_free(cfg);
	return rc;
}
