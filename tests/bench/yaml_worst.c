/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: worst-case supernode.yaml files of up to 4 MiB (the loader's
 * size limit), each loaded or refused by sn_config_load_buffer().  Every
 * shape must be done within 1 s: slurmctld loads this file.  For each shape
 * it prints the time (best of RUNS, each run in the same child), the ratio
 * against libyaml's bare parse (yaml_parser_load) of an ordinary 4 MiB
 * config measured in the same run, the child's peak memory and the
 * loader's answer.  Exit status 1 if any shape takes 1 s or more.
 *
 *   yaml_worst [RUNS [SHAPE]]    (SHAPE: run only shapes whose name holds it)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yaml.h>

#include "config/sn_config.h"

#define CAP ((size_t)SN_CONFIG_MAX_BYTES)
#define LIMIT_MS 1000.0

struct out {
	char *buf;
	size_t len;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Append s if it fits within CAP (keeping room for tail bytes). */
static int put(struct out *o, const char *s, size_t tail)
{
	size_t n = strlen(s);

	if (o->len + n + tail > CAP)
		return 0;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	return 1;
}

/* prefix, open x k, close x k, suffix, as large as fits. */
static void nest(struct out *o, const char *prefix, const char *open,
		 const char *close, const char *suffix)
{
	size_t per = strlen(open) + strlen(close), k;

	put(o, prefix, 0);
	k = (CAP - o->len - strlen(suffix)) / per;
	for (size_t i = 0; i < k; i++)
		put(o, open, 0);
	for (size_t i = 0; i < k; i++)
		put(o, close, 0);
	put(o, suffix, 0);
}

/* prefix, then fmt (with a counter) repeated while it fits, then suffix. */
static void repeat_n(struct out *o, const char *prefix, const char *fmt,
		     const char *suffix, unsigned long max)
{
	char item[256];

	put(o, prefix, 0);
	for (unsigned long i = 0; i < max; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(item, sizeof(item), fmt, i, i, i);
#pragma GCC diagnostic pop
		if (!put(o, item, strlen(suffix)))
			break;
	}
	put(o, suffix, 0);
}

static void repeat(struct out *o, const char *prefix, const char *fmt,
		   const char *suffix)
{
	repeat_n(o, prefix, fmt, suffix, (unsigned long)-1);
}

/* One byte c repeated between prefix and suffix. */
static void fill(struct out *o, const char *prefix, char c, const char *suffix)
{
	size_t n;

	put(o, prefix, 0);
	n = CAP - o->len - strlen(suffix);
	memset(o->buf + o->len, c, n);
	o->len += n;
	put(o, suffix, 0);
}

/* An ordinary config: block style, comments, as many supernodes as fit. */
static void ordinary(struct out *o)
{
	repeat(o, "# site config\nplacement:\n  method: switch\nsupernodes:\n",
	       "  # rack %lu\n  - name: rack%06lu\n    nodes: \"r%06lun[01-02]\"\n",
	       "");
}

static void s_ordinary(struct out *o)
{
	ordinary(o);
}
static void s_apos_flow_seq(struct out *o)
{
	nest(o, "x: it's\ny: ", "[", "]", "\n");
}
static void s_apos_flow_map(struct out *o)
{
	nest(o, "x: it's\ny: ", "{a: ", "}", "\n");
}
static void s_all_open(struct out *o)
{
	fill(o, "", '[', "");
}
static void s_flow_lines(struct out *o)
{
	nest(o, "x: it's\ny:\n", "[\n", "]\n", "");
}
static void s_flow_spaced(struct out *o)
{
	nest(o, "y: ", "[ a, ", "]", "\n");
}
static void s_block_dash(struct out *o)
{
	nest(o, "x:\n", "- ", "", "v\n");
}
static void s_sq_brackets(struct out *o)
{
	nest(o, "x: '", "[{", "}]", "'\n");
}
static void s_dq_brackets(struct out *o)
{
	nest(o, "x: \"", "[{", "}]", "\"\n");
}
static void s_plain_huge(struct out *o)
{
	fill(o, "supernodes: ", 'a', "\n");
}
static void s_comment_huge(struct out *o)
{
	fill(o, "# ", '[', "\n");
}
static void s_short_keys(struct out *o)
{
	repeat(o, "", "k%lu: 1\n", "");
}
static void s_long_line(struct out *o)
{
	repeat(o, "x: [", "%lu,", "1]\n");
}
static void s_flow_maps(struct out *o)
{
	repeat(o, "x: [", "{a: %lu},", "{}]\n");
}
static void s_anchors(struct out *o)
{
	repeat(o, "x:\n", "- &a%lu v\n", "");
}
static void s_aliases(struct out *o)
{
	repeat(o, "x:\n- &a v\n", "- *a\n", "");
}
static void s_documents(struct out *o)
{
	repeat(o, "", "---\nx: %lu\n", "");
}
static void s_blank_lines(struct out *o)
{
	fill(o, "supernodes:\n", '\n', "x: 1\n");
}
static void s_thresholds(struct out *o)
{
	repeat(o, "epilog:\n  thresholds:\n", "    c%lu: {warn: 1}\n", "");
}
static void s_xid(struct out *o)
{
	repeat(o, "epilog:\n  xid:\n    drain: [", "%lu,", "1]\n");
}

/* A block nesting a:\n  a:\n    a: ... as deep as fits. */
static void s_block_indent(struct out *o)
{
	char line[8192];

	for (size_t d = 0; d < sizeof(line) - 8; d += 2) {
		memset(line, ' ', d);
		strcpy(line + d, "a:\n");
		if (!put(o, line, 0))
			break;
	}
}

/* The largest valid config: 100,000 supernodes of 10 nodes (10^6 nodes). */
static void s_max_supernodes(struct out *o)
{
	repeat_n(o, "placement: {method: switch}\nsupernodes:\n",
		 "- {name: s%06lu, nodes: 'n%06lu[0-9]'}\n", "",
		 SN_CONFIG_MAX_SUPERNODES);
}

/* 16 supernodes of 65,536 nodes: 2^20 nodes, the limit. */
static void s_max_hostlists(struct out *o)
{
	put(o, "placement: {method: switch}\nsupernodes:\n", 0);
	for (int i = 0; i < 16; i++) {
		char item[96];

		snprintf(item, sizeof(item),
			 "- {name: s%02d, nodes: 'n%02d-[0-65535]'}\n", i, i);
		put(o, item, 0);
	}
}

/* As many supernodes of 65,536 nodes as fit: far over 2^20 nodes. */
static void s_big_hostlists(struct out *o)
{
	repeat(o, "placement: {method: switch}\nsupernodes:\n",
	       "- {name: s%06lu, nodes: 'n%06lu-[0-65535]'}\n", "");
}

static const struct shape {
	const char *name;
	void (*make)(struct out *o);
} shapes[] = {
	{ "ordinary config (the baseline's file)", s_ordinary },
	{ "x: it's, then deep flow [", s_apos_flow_seq },
	{ "x: it's, then deep flow {a:", s_apos_flow_map },
	{ "4 MiB of [", s_all_open },
	{ "deep flow, one [ per line", s_flow_lines },
	{ "deep flow [ a, [ a, ...", s_flow_spaced },
	{ "deep block, '- - - ...' on one line", s_block_dash },
	{ "deep block by indentation", s_block_indent },
	{ "single-quoted scalar of [{", s_sq_brackets },
	{ "double-quoted scalar of [{", s_dq_brackets },
	{ "one plain scalar of 4 MiB", s_plain_huge },
	{ "one comment of 4 MiB of [", s_comment_huge },
	{ "4 MiB of blank lines", s_blank_lines },
	{ "many short keys", s_short_keys },
	{ "one long line: flow list of numbers", s_long_line },
	{ "flow list of {a: N}", s_flow_maps },
	{ "many anchors", s_anchors },
	{ "one anchor, many aliases", s_aliases },
	{ "many documents", s_documents },
	{ "epilog.thresholds: many counters", s_thresholds },
	{ "epilog.xid.drain: many numbers", s_xid },
	{ "100,000 supernodes x 10 nodes (valid)", s_max_supernodes },
	{ "16 supernodes x 65,536 nodes (valid)", s_max_hostlists },
	{ "supernodes of 65,536 nodes, as many as fit", s_big_hostlists },
};

#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* libyaml alone: parse buf into a document (best of runs). */
static double libyaml_parse(const char *buf, size_t len, int runs)
{
	double best = 1e30;

	for (int r = 0; r < runs; r++) {
		yaml_parser_t p;
		yaml_document_t d;
		double t0 = now_ms(), t;

		yaml_parser_initialize(&p);
		yaml_parser_set_input_string(&p, (const unsigned char *)buf,
					     len);
		if (!yaml_parser_load(&p, &d))
			abort();
		yaml_document_delete(&d);
		yaml_parser_delete(&p);
		t = now_ms() - t0;
		best = t < best ? t : best;
	}
	return best;
}

/* In a child: make the shape, load it runs times; report on fd. */
static void child(const struct shape *s, int runs, int fd)
{
	struct out o = { malloc(CAP + 1), 0 };
	struct sn_error err = { "" };
	double best = 1e30;
	char line[1400];

	alarm(60);
	if (!o.buf)
		_exit(2);
	s->make(&o);
	for (int r = 0; r < runs; r++) {
		struct sn_config *cfg;
		double t0 = now_ms(), t;

		cfg = sn_config_load_buffer("w.yaml", o.buf, o.len, &err);
		t = now_ms() - t0;
		best = t < best ? t : best;
		if (cfg)
			snprintf(err.msg, sizeof(err.msg),
				 "loaded: %zu supernodes, %zu nodes",
				 cfg->n_supernodes, cfg->n_nodes);
		sn_config_free(cfg);
	}
	snprintf(line, sizeof(line), "%zu %.3f %.160s", o.len, best, err.msg);
	if (write(fd, line, strlen(line) + 1) < 0)
		_exit(2);
	free(o.buf);
	_exit(0);
}

/* Run one shape in a child; print its line.  Returns its time in ms. */
static double run_shape(const struct shape *s, int runs, double base)
{
	char line[1400] = "", msg[1400] = "";
	struct rusage ru;
	size_t bytes = 0;
	double ms = -1;
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(s, runs, fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	wait4(pid, &status, 0, &ru);
	if (n <= 0 ||
	    sscanf(line, "%zu %lf %1399[^\n]", &bytes, &ms, msg) < 2) {
		printf("%-44s  child failed (status %d)\n", s->name, status);
		return 1e30;
	}
	printf("%-44s %8zu %9.2f %7.2f %6ld  %s\n", s->name, bytes, ms,
	       ms / base, ru.ru_maxrss / 1024, msg);
	return ms;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 3;
	struct out o = { malloc(CAP + 1), 0 };
	double base, worst = 0;
	const char *worst_name = "";

	if (runs < 1 || !o.buf)
		return 2;
	ordinary(&o);
	base = libyaml_parse(o.buf, o.len, runs + 2);
	printf("baseline: libyaml yaml_parser_load of an ordinary %zu-byte config: %.2f ms (best of %d)\n\n",
	       o.len, base, runs + 2);
	free(o.buf);
	printf("%-44s %8s %9s %7s %6s  %s\n", "shape", "bytes", "ms", "x base",
	       "MiB", "answer (w.yaml)");
	for (size_t i = 0; i < N_SHAPES; i++) {
		double ms;

		if (argc > 2 && !strstr(shapes[i].name, argv[2]))
			continue;
		ms = run_shape(&shapes[i], runs, base);

		if (ms > worst) {
			worst = ms;
			worst_name = shapes[i].name;
		}
	}
	printf("\nworst: %s, %.2f ms = %.2f x libyaml's parse of an ordinary config (limit %.0f ms)\n",
	       worst_name, worst, worst / base, LIMIT_MS);
	return worst < LIMIT_MS ? 0 : 1;
}
