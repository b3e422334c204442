// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_prom.c: --prom FILE, a score per supernode as a Prometheus textfile
 * (node_exporter's textfile collector; text exposition format 0.0.4: a
 * HELP and a TYPE line before each family, the samples of one family
 * together, label values escaped \\, \" and \n).  Families, all gauges:
 *
 *   supernode_bench_busbw_gbps{supernode,op,size}   GB/s (1e9 B/s), the
 *       better of out-of-place and in-place, per message size in bytes
 *   supernode_bench_pass{supernode,op}             1 pass, 0 fail
 *   supernode_bench_wrong_elements{supernode,op}   over the whole sweep
 *   supernode_bench_last_run_timestamp_seconds{supernode}
 *
 * The file keeps the last result per supernode and operation: samples of
 * other supernodes already in it stay (one file can collect the runs on
 * each supernode in turn), this run's supernodes are replaced.  A line
 * that is not one of these families' samples with the supernode label
 * first (as written here) is dropped.  The file is replaced atomically
 * and read whole, up to SB_PROM_MAX_BYTES, through lib/util's trusted
 * folders (sb_out.c); an old file that cannot be read so (a link, another
 * owner, larger than the limit) is an error, not silently replaced.
 *
 * Which supernode a result scores (sb_prom_write_results()): the group
 * "all" is the job's supernodes, $SUPERNODE_NAMES ("sn01,sn02"), else
 * $SUPERNODE_NAME, else this host's name (a run outside --supernode); the
 * group "intra" (--groups supernode) is $SUPERNODE_NAME; "across" scores
 * no supernode and is left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sb_out.h"
#include "sb_prom.h"

static const struct {
	const char *name, *help;
} families[] = {
	{ "supernode_bench_busbw_gbps",
	  "Bus bandwidth of the last supernode-bench run in GB/s (1e9 B/s), "
	  "the better of out-of-place and in-place, by message size in bytes." },
	{ "supernode_bench_pass",
	  "1 when the last run had no wrong element and met its busbw "
	  "threshold at the largest size, else 0." },
	{ "supernode_bench_wrong_elements",
	  "Wrong elements in the last run's data check, over all sizes." },
	{ "supernode_bench_last_run_timestamp_seconds",
	  "When the last run of this supernode ended, seconds since the epoch." },
};

#define NFAM (sizeof(families) / sizeof(families[0]))

/* @v as a label value: \\, \" and \n escaped. */
static void put_label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/** sb_prom_pass - @r passes: no wrong element, largest size >= @min_busbw. */
bool sb_prom_pass(const struct sb_result *r, double min_busbw)
{
	const struct sb_row *last = r->nrows ? &r->rows[r->nrows - 1] : NULL;

	if (sb_total_wrong(r))
		return false;
	return min_busbw <= 0 || (last && sb_row_busbw(last) >= min_busbw);
}

/* Score @i is the last for its supernode and op (earlier ones give way). */
static bool is_last(const struct sb_prom_score *s, size_t n, size_t i)
{
	for (size_t j = i + 1; j < n; j++)
		if (s[j].r->op == s[i].r->op &&
		    !strcmp(s[j].supernode, s[i].supernode))
			return false;
	return true;
}

/* First score of its supernode: one timestamp per supernode. */
static bool first_of(const struct sb_prom_score *s, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(s[j].supernode, s[i].supernode))
			return false;
	return true;
}

static void head(FILE *f, const struct sb_prom_score *s, size_t i,
		 const char *family)
{
	fprintf(f, "%s{supernode=\"", family);
	put_label(f, s[i].supernode);
	fputc('"', f);
}

/* This run's samples of family @fam. */
static void our_samples(FILE *f, size_t fam, const struct sb_prom_score *s,
			size_t n, double min_busbw, long long now)
{
	for (size_t i = 0; i < n; i++) {
		const struct sb_result *r = s[i].r;
		const char *op = sb_op_name(r->op);

		if (fam == 3 && first_of(s, i)) {
			head(f, s, i, families[fam].name);
			fprintf(f, "} %lld\n", now);
		}
		if (fam == 3 || !is_last(s, n, i))
			continue;
		for (size_t k = 0; fam == 0 && k < r->nrows; k++) {
			if (!r->rows[k].ran[0] && !r->rows[k].ran[1])
				continue;
			head(f, s, i, families[fam].name);
			fprintf(f, ",op=\"%s\",size=\"%zu\"} %.4f\n", op,
				r->rows[k].bytes, sb_row_busbw(&r->rows[k]));
		}
		if (fam == 0)
			continue;
		head(f, s, i, families[fam].name);
		fprintf(f, ",op=\"%s\"} %lld\n", op,
			fam == 1 ? (long long)sb_prom_pass(r, min_busbw) :
				   (long long)sb_total_wrong(r));
	}
}

/* " VALUE" after a sample's labels: one number as the format writes it. */
static bool valid_value(const char *v, size_t len)
{
	char buf[64], *end;

	if (len < 2 || len >= sizeof(buf) || v[0] != ' ')
		return false;
	memcpy(buf, v + 1, len - 1);
	buf[len - 1] = '\0';
	if (!strcmp(buf, "NaN") || !strcmp(buf, "+Inf") || !strcmp(buf, "-Inf"))
		return true;
	strtod(buf, &end);
	return end != buf && !*end;
}

/*
 * The supernode of an old sample of family @fam, escaped as in the file,
 * in @sn (@size bytes); false when @line (@len bytes) is not such a
 * sample: NAME{supernode="...",...} VALUE.
 */
static bool old_sample(const char *line, size_t len, size_t fam, char *sn,
		       size_t size)
{
	static const char key[] = "{supernode=\"";
	size_t nl = strlen(families[fam].name), start = nl + sizeof(key) - 1;
	size_t i, close;

	if (len <= start || strncmp(line, families[fam].name, nl) ||
	    strncmp(line + nl, key, sizeof(key) - 1))
		return false;
	for (i = start; i < len && line[i] != '"'; i++)
		if (line[i] == '\\')
			i++;
	if (i >= len || i - start >= size)
		return false;
	for (close = len; close > i && line[close - 1] != '}'; close--)
		;
	if (close == i || !valid_value(line + close, len - close))
		return false;
	memcpy(sn, line + start, i - start);
	sn[i - start] = '\0';
	return true;
}

/* @esc, a label value as escaped in the file, is @raw. */
static bool esc_equal(const char *esc, const char *raw)
{
	for (; *raw; raw++, esc++) {
		if (*raw == '\\' || *raw == '"' || *raw == '\n') {
			if (*esc++ != '\\')
				return false;
			if (*esc != (*raw == '\n' ? 'n' : *raw))
				return false;
		} else if (*esc != *raw) {
			return false;
		}
	}
	return !*esc;
}

/* @sn (escaped) is one of this run's supernodes. */
static bool ours(const struct sb_prom_score *s, size_t n, const char *sn)
{
	for (size_t i = 0; i < n; i++)
		if (esc_equal(sn, s[i].supernode))
			return true;
	return false;
}

/* The old samples of family @fam that belong to other supernodes. */
static void old_samples(FILE *f, size_t fam, const char *old,
			const struct sb_prom_score *s, size_t n)
{
	char sn[SB_PROM_LABEL_MAX];

	while (old && *old) {
		const char *end = strchr(old, '\n');
		size_t len = end ? (size_t)(end - old) : strlen(old);

		if (old_sample(old, len, fam, sn, sizeof(sn)) &&
		    !ours(s, n, sn))
			fprintf(f, "%.*s\n", (int)len, old);
		old += len + (end ? 1 : 0);
	}
}

/**
 * sb_prom_render - the textfile for this run's @n scores @s (threshold
 * @min_busbw GB/s, 0: none; the run ended at @now) merged with the old
 * file's text @old (NULL: none).  Returns a malloc()ed string (caller
 * frees), or NULL when out of memory.
 */
char *sb_prom_render(const struct sb_prom_score *s, size_t n, double min_busbw,
		     long long now, const char *old)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (size_t fam = 0; fam < NFAM; fam++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n",
			families[fam].name, families[fam].help,
			families[fam].name);
		old_samples(f, fam, old, s, n);
		our_samples(f, fam, s, n, min_busbw, now);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/**
 * sb_prom_write - render and write --prom @path (see sb_prom_render()).
 * Returns 0, or -1 with a message printed.
 */
int sb_prom_write(const char *path, const struct sb_prom_score *s, size_t n,
		  double min_busbw, long long now)
{
	int missing;
	char *old = sb_out_load(path, SB_PROM_MAX_BYTES, "--prom", &missing);
	char *text;
	int rc;

	/* An old file that cannot be read safely is not merged over. */
	if (!old && !missing)
		return -1;
	text = sb_prom_render(s, n, min_busbw, now, old);
	free(old);
	if (!text) {
		fprintf(stderr, SB_PREFIX "--prom %s: out of memory\n", path);
		return -1;
	}
	rc = sb_out_write(path, text, strlen(text), "--prom");
	free(text);
	return rc;
}

/* The supernode of group @group's result; NULL: none. */
static const char *group_supernode(const char *group, char *host, size_t size)
{
	const char *names = getenv("SUPERNODE_NAMES");
	const char *name = getenv("SUPERNODE_NAME");

	if (!strcmp(group, "intra"))
		return name && *name ? name : NULL;
	if (strcmp(group, "all"))
		return NULL;
	if (names && *names)
		return names;
	if (name && *name)
		return name;
	if (gethostname(host, size - 1))
		return NULL;
	host[size - 1] = '\0';
	return host;
}

/**
 * sb_prom_write_results - --prom @path for a run's @nres results @res,
 * each scoring the supernode its group names (see the file comment), the
 * run ending now.  Returns 0, or -1 with a message printed.
 */
int sb_prom_write_results(const char *path, const struct sb_result *res,
			  size_t nres, double min_busbw)
{
	struct sb_prom_score *s = calloc(nres ? nres : 1, sizeof(*s));
	char host[256];
	size_t n = 0;
	int rc;

	if (!s) {
		fprintf(stderr, SB_PREFIX "--prom %s: out of memory\n", path);
		return -1;
	}
	for (size_t i = 0; i < nres; i++) {
		s[n].supernode =
			group_supernode(res[i].group, host, sizeof(host));
		s[n].r = &res[i];
		n += s[n].supernode != NULL;
	}
	rc = sb_prom_write(path, s, n, min_busbw, (long long)time(NULL));
	free(s);
	return rc;
}
