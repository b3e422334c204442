/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: job_submit's cost in-process at 1,000 and 10,000 supernodes
 * (issue 20, item 4), against a baseline measured in the same run and
 * interleaved with it: the same work on a config of 16 supernodes of the
 * same shape.
 *
 * Shape: GB200/GB300 NVL72 racks, 18 compute trays of 4 GPUs each, one
 * supernode per rack, named as sites name racks and trays:
 *   - {name: nvl00042, nodes: "gb-r00042-n[01-18]"}
 * 1,000 racks are 18,000 nodes and 72,000 GPUs (the 100k-GPU class built
 * of NVL72); 10,000 racks are 180,000 nodes, the upper bound on both axes
 * (-s 2 gives 10,000 supernodes of two 4-GPU nodes: 80,000 GPUs).
 *
 * Per submission: what spank/job_submit/job_submit_supernode.c calls in
 * lib/ for one job_desc (forged entries stripped, SUPERNODE= read, the
 * config cache's stat(), sn_submit_check, the count, sn_placement_plan),
 * for --supernode=1 and =8, with and without --nodelist / --exclude, for
 * each method that applies: switch and block at every size, feature up to
 * its cap of 64 supernodes (past it the config is refused at load, and
 * every --supernode job with it).
 * Per node: sn_config_find_node; per step on each node sn_jobenv_build
 * (the SPANK plugin), per job sn_allocation_check (the controller prolog).
 * Per config load: sn_config_load_buffer beside libyaml alone, and the
 * cache's reload of a changed file.  Memory: heap held by the loaded
 * config (mallinfo2) and the peak RSS growth of the load (VmHWM).
 * Times are CPU time (the machines we run on are shared), medians of
 * ROUNDS interleaved samples of at least 20 ms each.
 *
 *   scale_bench [-s NODES] [-r ROUNDS] [-c] [SUPERNODES...]
 *
 * -c (ctest): 10,000 supernodes, few rounds; exit 1 if a submission takes
 * more than 10 ms (gross regression; the goal is 1 ms).
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <yaml.h>

#include "config/sn_config.h"
#include "config/sn_config_cache.h"
#include "env/sn_jobenv.h"
#include "placement/sn_allocation.h"
#include "placement/sn_option.h"
#include "placement/sn_placement.h"
#include "placement/sn_submit.h"

#define BASE_SUPERNODES 16
#define LIMIT_MS 10.0
#define TARGET_MS 1.0
#define SAMPLE_MS 20.0 /* each timed sample runs at least this long */
#define NSN 8	       /* --supernode=N */
#define NAMES 4096     /* node names looked up per sample */

static unsigned size = 18;
static int rounds = 7;

/*
 * The process's CPU time (user + system, page faults included): what a
 * call costs, without the time other processes of a shared machine held
 * the CPU.
 */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	fprintf(stderr, "scale_bench: %s\n", what);
	exit(2);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

static void xfree(void **p)
{
	free(*p);
	*p = NULL;
}

static void quiet(const char *fmt, ...)
{
	(void)fmt;
}

static const struct sn_submit_ops ops = { xstrdup, xfree, quiet };

/* ---- the configs ------------------------------------------------------- */

static char *yaml_make(unsigned n, const char *method, size_t *len)
{
	size_t cap = 128 + (size_t)n * 64, used = 0;
	char *buf = malloc(cap);

	if (!buf)
		die("out of memory");
	used += (size_t)snprintf(buf, cap, "supernodes:\n");
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(
			buf + used, cap - used,
			"  - {name: nvl%05u, nodes: \"gb-r%05u-n[01-%02u]\"}\n",
			i, i, size);
	used += (size_t)snprintf(buf + used, cap - used,
				 "placement: {method: %s}\n", method);
	*len = used;
	return buf;
}

static void node_name(char *out, size_t len, unsigned sn, unsigned rank)
{
	snprintf(out, len, "gb-r%05u-n%02u", sn, rank + 1);
}

/* One config under test: its YAML, file, cache and the nodes asked for. */
struct bcfg {
	unsigned n;
	const char *method;
	char *yaml;
	size_t len;
	char path[64];
	struct sn_config_cache cache;
	char nodelist1[64];  /* one node of a middle supernode */
	char nodelistN[512]; /* one node in each of NSN supernodes */
	char exclude4[128];  /* 4 nodes in 2 supernodes */
	char *exclude_row;   /* 50 whole racks (a row), ranges */
	char (*names)[32];   /* NAMES node names, spread pseudo-randomly */
	char alloc1[64];     /* a job of one whole supernode */
	char allocN[512];    /* ... of NSN whole supernodes */
};

static void bcfg_lists(struct bcfg *b)
{
	unsigned mid = b->n / 2, step = b->n / NSN, row = b->n < 50 ? b->n : 50;
	size_t used = 0, cap = (size_t)row * 32 + 1;
	char name[32];

	node_name(b->nodelist1, sizeof(b->nodelist1), mid, size > 2 ? 2 : 0);
	snprintf(b->exclude4, sizeof(b->exclude4),
		 "gb-r%05u-n[01-02],gb-r%05u-n[07-08]", 1u, b->n - 1);
	snprintf(b->alloc1, sizeof(b->alloc1), "gb-r%05u-n[01-%02u]", mid,
		 size);
	b->nodelistN[0] = b->allocN[0] = '\0';
	for (unsigned k = 0, a = 0, u = 0; k < NSN; k++) {
		node_name(name, sizeof(name), k * step, 0);
		u += (unsigned)snprintf(b->nodelistN + u,
					sizeof(b->nodelistN) - u, "%s%s",
					k ? "," : "", name);
		a += (unsigned)snprintf(b->allocN + a, sizeof(b->allocN) - a,
					"%sgb-r%05u-n[01-%02u]", k ? "," : "",
					k * step, size);
	}
	if (!(b->names = malloc(NAMES * sizeof(*b->names))))
		die("out of memory");
	for (unsigned i = 0, k = 1; i < NAMES; i++) {
		k = k * 1103515245u + 12345u;
		node_name(b->names[i], sizeof(b->names[i]), (k >> 8) % b->n,
			  (k >> 4) % size);
	}
	if (!(b->exclude_row = malloc(cap)))
		die("out of memory");
	for (unsigned k = 0; k < row; k++)
		used += (size_t)snprintf(b->exclude_row + used, cap - used,
					 "%sgb-r%05u-n[01-%02u]", k ? "," : "",
					 b->n - row + k, size);
}

/* Writes the YAML to a file and loads it through the cache; NULL: refused. */
static const char *bcfg_open(struct bcfg *b, unsigned n, const char *method)
{
	FILE *f;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->method = method;
	b->yaml = yaml_make(n, method, &b->len);
	snprintf(b->path, sizeof(b->path), "/tmp/scale_bench.%d.%s.%u.yaml",
		 (int)getpid(), method, n);
	if (!(f = fopen(b->path, "w")) ||
	    fwrite(b->yaml, 1, b->len, f) != b->len || fclose(f))
		die("cannot write the config file");
	b->cache.path = b->path;
	sn_config_cache_refresh(&b->cache);
	bcfg_lists(b);
	return b->cache.cfg ? NULL : b->cache.err.msg;
}

static void bcfg_close(struct bcfg *b)
{
	sn_config_cache_free(&b->cache);
	unlink(b->path);
	free(b->yaml);
	free(b->exclude_row);
	free(b->names);
}

/* ---- one submission, as job_submit does it ----------------------------- */

struct sub {
	const char *label;
	const char *count; /* the SUPERNODE= value */
	int nodelist;	   /* 0 none, 1 one node, 2 one in each of N */
	int exclude;	   /* 0 none, 1 4 nodes, 2 a row of racks */
};

static const struct sub subs[] = {
	{ "=1", "1", 0, 0 },
	{ "=8", "8", 0, 0 },
	{ "=1 --nodelist=1 node", "1", 1, 0 },
	{ "=8 --nodelist=8 nodes", "8", 2, 0 },
	{ "=1 --exclude=4 nodes", "1", 0, 1 },
	{ "=1 --exclude=50 racks", "1", 0, 2 },
};

#define NSUBS (sizeof(subs) / sizeof(subs[0]))

/* 0 placed, 1 refused (err holds why). */
static int submit_once(struct bcfg *b, const struct sub *s,
		       struct sn_error *err)
{
	char e0[] = "SUPERNODE=X", e1[] = "SUPERNODE_SRUN=1";
	char *env[2] = { e0, e1 };
	uint32_t n = 2;
	const char *value;
	struct sn_job_plan plan;
	struct sn_job_request req = {
		.min_nodes = SN_UNSET32,
		.max_nodes = SN_UNSET32,
		.shared = SN_UNSET16,
		.req_switch = SN_UNSET32,
		.num_tasks = SN_UNSET32,
		.ntasks_per_node = SN_UNSET16,
		.client = SN_CLIENT_BATCH,
	};
	char *msg = NULL;

	e0[10] = s->count[0];
	sn_submit_strip_forged(env, &n, 0, &ops);
	value = sn_option_env_value(env, n, "SUPERNODE");
	sn_config_cache_refresh(&b->cache);
	if (sn_submit_check(false, b->cache.cfg, &b->cache.err, true, &msg,
			    &ops)) {
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
		free(msg);
		return 1;
	}
	req.req_nodes = s->nodelist == 1 ? b->nodelist1 :
			s->nodelist == 2 ? b->nodelistN :
					   NULL;
	req.exc_nodes = s->exclude == 1 ? b->exclude4 :
			s->exclude == 2 ? b->exclude_row :
					  NULL;
	if (sn_supernode_count_parse(value,
				     sn_config_effective_max(b->cache.cfg),
				     &req.supernodes, err) ||
	    sn_placement_plan(b->cache.cfg, &req, &plan, err))
		return 1;
	free(plan.features);
	return 0;
}

/* ---- timing ------------------------------------------------------------ */

typedef void (*work_fn)(struct bcfg *b, const void *arg);

/* ms per call of fn, over enough calls to last SAMPLE_MS. */
static double sample(work_fn fn, struct bcfg *b, const void *arg)
{
	double t0 = now_ms(), t;
	long calls = 0, batch = 1;

	do {
		for (long i = 0; i < batch; i++)
			fn(b, arg);
		calls += batch;
		batch *= 2;
		t = now_ms() - t0;
	} while (t < SAMPLE_MS);
	return t / (double)calls;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median ms per call of fn on b and on base, interleaved round by round. */
static void measure(work_fn fn, struct bcfg *base, struct bcfg *b,
		    const void *arg, double *base_ms, double *ms)
{
	double vb[64], v[64];
	int r = rounds < 64 ? rounds : 64;

	for (int i = 0; i < r; i++) {
		vb[i] = sample(fn, base, arg);
		v[i] = sample(fn, b, arg);
	}
	qsort(vb, (size_t)r, sizeof(double), cmp);
	qsort(v, (size_t)r, sizeof(double), cmp);
	*base_ms = vb[r / 2];
	*ms = v[r / 2];
}

static void work_submit(struct bcfg *b, const void *arg)
{
	struct sn_error err;

	submit_once(b, arg, &err);
}

/* Looks up NAMES names of nodes spread over the whole config. */
static void work_lookup(struct bcfg *b, const void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < NAMES; i++)
		if (!sn_config_find_node(b->cache.cfg, b->names[i]))
			die("lookup failed");
}

static void work_alloc(struct bcfg *b, const void *arg)
{
	struct sn_allocation out;
	struct sn_error err;
	int many = *(const int *)arg;

	if (sn_allocation_check(b->cache.cfg, many ? b->allocN : b->alloc1,
				many ? NSN : 1, &out, &err))
		die("allocation not whole");
}

static void work_jobenv(struct bcfg *b, const void *arg)
{
	int many = *(const int *)arg;
	char self[32];
	struct sn_jobenv env;
	struct sn_error err;
	struct sn_jobenv_input in = {
		.job_nodelist = many ? b->allocN : b->alloc1,
		.step_id = 0,
		.job_id = 1234,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
	};

	node_name(self, sizeof(self), many ? 0 : b->n / 2, 1);
	in.nodename = self;
	if (sn_jobenv_build(b->cache.cfg, &in, &env, &err))
		die(err.msg);
	sn_jobenv_free(&env);
}

static void work_load(struct bcfg *b, const void *arg)
{
	struct sn_error err;
	struct sn_config *cfg;

	(void)arg;
	if (!(cfg = sn_config_load_buffer("bench.yaml", b->yaml, b->len, &err)))
		die(err.msg);
	sn_config_free(cfg);
}

static void work_libyaml(struct bcfg *b, const void *arg)
{
	yaml_parser_t p;
	yaml_document_t d;

	(void)arg;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)b->yaml,
				     b->len);
	if (!yaml_parser_load(&p, &d))
		die("libyaml");
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
}

/* A changed file (mtime bumped) reloaded by the cache, as job_submit does. */
static void work_reload(struct bcfg *b, const void *arg)
{
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };

	(void)arg;
	if (utimensat(AT_FDCWD, b->path, ts, 0) ||
	    sn_config_cache_refresh(&b->cache) != 1 || !b->cache.cfg)
		die("reload");
}

/* ---- memory ------------------------------------------------------------ */

static long status_kb(const char *key)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			kb = atol(line + strlen(key) + 1);
	fclose(f);
	return kb;
}

/* Heap held by one loaded config, and the peak RSS growth of loading it. */
static void memory(struct bcfg *b, double *held_mib, double *peak_mib)
{
	struct sn_error err;
	struct sn_config *cfg;
	size_t before;
	long rss;
	FILE *f;

	malloc_trim(0);
	if ((f = fopen("/proc/self/clear_refs", "w"))) {
		fputs("5", f); /* reset VmHWM to the current RSS */
		fclose(f);
	}
	rss = status_kb("VmRSS:");
	before = mallinfo2().uordblks;
	if (!(cfg = sn_config_load_buffer("bench.yaml", b->yaml, b->len, &err)))
		die(err.msg);
	*held_mib = (double)(mallinfo2().uordblks - before) / 1048576.0;
	*peak_mib = (double)(status_kb("VmHWM:") - rss) / 1024.0;
	sn_config_free(cfg);
}

/* ---- the report -------------------------------------------------------- */

static int worst_fail;

static void row(const char *what, double base, double v, bool submission)
{
	const char *mark = "";

	if (submission && v > TARGET_MS)
		mark = "  > 1 ms goal";
	if (submission && v > LIMIT_MS) {
		mark = "  > 10 ms: FAIL";
		worst_fail = 1;
	}
	printf("  %-38s %11.4f %11.4f %9.2fx%s\n", what, base, v, v / base,
	       mark);
}

static void submissions(struct bcfg *base, struct bcfg *b)
{
	struct sn_error err;
	double x, y;

	for (size_t i = 0; i < NSUBS; i++) {
		char what[80];
		int refused = submit_once(b, &subs[i], &err);

		measure(work_submit, base, b, &subs[i], &x, &y);
		snprintf(what, sizeof(what), "submit %s%s", subs[i].label,
			 refused ? " (refused)" : "");
		row(what, x, y, true);
		if (refused && getenv("SCALE_BENCH_VERBOSE"))
			printf("    %s\n", err.msg);
	}
}

static void per_node(struct bcfg *base, struct bcfg *b)
{
	int one = 0, many = 1;
	double x, y;

	measure(work_lookup, base, b, NULL, &x, &y);
	row("sn_config_find_node (us)", x * 1e3 / NAMES, y * 1e3 / NAMES,
	    false);
	measure(work_alloc, base, b, &one, &x, &y);
	row("allocation_check 1 supernode", x, y, false);
	measure(work_alloc, base, b, &many, &x, &y);
	row("allocation_check 8 supernodes", x, y, false);
	measure(work_jobenv, base, b, &one, &x, &y);
	row("jobenv_build, job of 1 supernode", x, y, false);
	measure(work_jobenv, base, b, &many, &x, &y);
	row("jobenv_build, job of 8 supernodes", x, y, false);
}

static void loads(struct bcfg *base, struct bcfg *b)
{
	double x, y, hb, pb, h, p;

	measure(work_libyaml, base, b, NULL, &x, &y);
	row("libyaml alone (baseline of a load)", x, y, false);
	measure(work_load, base, b, NULL, &x, &y);
	row("config load (parse, check, index)", x, y, false);
	measure(work_reload, base, b, NULL, &x, &y);
	row("cache reload of a changed file", x, y, false);
	memory(base, &hb, &pb);
	memory(b, &h, &p);
	printf("  %-38s %11.3f %11.3f %9.2fx  (%.0f bytes/node)\n",
	       "heap held by the config (MiB)", hb, h, h / hb,
	       h * 1048576.0 / ((double)b->n * size));
	printf("  %-38s %11.3f %11.3f\n", "peak RSS growth of a load (MiB)", pb,
	       p);
}

static void one_config(unsigned n, const char *method, bool check)
{
	struct bcfg base, b;
	const char *why;

	printf("\n%s, %u supernodes x %u nodes = %u nodes (baseline: %u supernodes)\n",
	       method, n, size, n * size, BASE_SUPERNODES);
	if ((why = bcfg_open(&base, BASE_SUPERNODES, method)))
		die(why);
	if ((why = bcfg_open(&b, n, method))) {
		struct sn_error err;
		double x, y;

		printf("  config refused at load: %s\n", why);
		measure(work_submit, &base, &b, &subs[0], &x, &y);
		submit_once(&b, &subs[0], &err);
		row("submit =1 (refused)", x, y, true);
		printf("    job_submit answers: %s\n", err.msg);
		bcfg_close(&base);
		bcfg_close(&b);
		return;
	}
	printf("  YAML: %zu bytes; %-21s %11s %11s %10s\n", b.len,
	       "ms per call", "baseline", "this", "ratio");
	submissions(&base, &b);
	if (!check) {
		per_node(&base, &b);
		loads(&base, &b);
	}
	bcfg_close(&base);
	bcfg_close(&b);
}

int main(int argc, char **argv)
{
	static const unsigned defaults[] = { 1000, 10000 };
	unsigned counts[16], ncounts = 0;
	bool check = false;
	int opt;

	while ((opt = getopt(argc, argv, "s:r:c")) != -1) {
		if (opt == 's')
			size = (unsigned)atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'c')
			check = true;
		else
			return 2;
	}
	if (size < 1 || size > 99 || rounds < 1)
		die("-s 1..99, -r 1 or more");
	for (; optind < argc && ncounts < 16; optind++)
		counts[ncounts++] = (unsigned)atoi(argv[optind]);
	if (!ncounts) {
		counts[0] = check ? 10000 : defaults[0];
		counts[1] = defaults[1];
		ncounts = check ? 1 : 2;
	}
	if (check)
		rounds = 3;
	one_config(64, "feature", check);
	one_config(65, "feature", true);
	for (unsigned i = 0; i < ncounts; i++) {
		one_config(counts[i], "switch", check);
		one_config(counts[i], "block", check);
	}
	return worst_fail;
}
