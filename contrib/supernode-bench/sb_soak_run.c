// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_soak_run.c: the soak loop.  A window starts every --interval until
 * --duration has passed (the next one at once when a window took longer);
 * each runs the selected operations' sweep once on the hooked backend
 * (sb_hook.c: one operation at a time under the watchdog), then records
 * the largest size's busbw, host memory (VmRSS summed over the processes)
 * and device memory (NVML: memory used on the GPUs of rank 0's node; NAN
 * with the MPI backend or without NVML), and judges (sb_soak.c).  Rank 0
 * writes a JSON line per window (--json), the summary, and --plot.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_hook.h"
#include "sb_out.h"
#include "sb_soak.h"

/* What the watchdog's hang report needs: the run in progress. */
static struct {
	struct sb_soak_series s;
	const struct sb_opts *o;
	const struct sb_soak_opts *so;
	FILE *json;
	FILE *txt; /* the table: stdout, or stderr when the JSON lines are */
	bool print;
} soak;

/* This process's resident memory, MiB; NAN when /proc cannot tell. */
static double host_rss_mib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kib = NAN;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6)) {
			kib = strtod(line + 6, NULL);
			break;
		}
	fclose(f);
	return kib / 1024;
}

/* Memory used on this node's GPUs (NVML, loaded at run time), MiB. */
static double device_used_mib(void)
{
	static void *h;
	static int (*init)(void), (*count)(unsigned *);
	static int (*handle)(unsigned, void **), (*mem)(void *, void *);
	unsigned long long info[3]; /* nvmlMemory_t: total, free, used */
	unsigned n;
	double used = 0;

	if (!h) {
		h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!h || !(init = dlsym(h, "nvmlInit_v2")) ||
		    !(count = dlsym(h, "nvmlDeviceGetCount_v2")) ||
		    !(handle = dlsym(h, "nvmlDeviceGetHandleByIndex_v2")) ||
		    !(mem = dlsym(h, "nvmlDeviceGetMemoryInfo")) || init())
			return NAN;
	}
	if (!count || count(&n))
		return NAN;
	for (unsigned i = 0; i < n; i++) {
		void *dev;

		if (handle(i, &dev) || mem(dev, info))
			return NAN;
		used += info[2] / 1048576.0;
	}
	return used;
}

/* The watchdog saw a hang: the flag, the line and the summary, then exit. */
static void soak_hang(const char *what, size_t bytes, double waited_s)
{
	soak.s.flags |= SB_FLAG_HANG;
	soak.s.flag_window[2] = soak.s.n ? (long long)soak.s.n - 1 : 0;
	if (!soak.print)
		return;
	fprintf(soak.txt,
		"# FLAG hang: %s of %zu B still running after %.1f s (limit %.1f s)\n",
		what, bytes, waited_s, soak.so->op_timeout_s);
	sb_soak_write_summary(soak.txt, &soak.s, soak.o->ops, soak.so, false);
	if (soak.json) {
		fprintf(soak.json,
			"{\"flag\": \"hang\", \"window\": %lld, \"op\": \"%s\", \"bytes\": %zu, \"waited_s\": %.1f}\n",
			soak.s.flag_window[2], what, bytes, waited_s);
		sb_soak_write_summary(soak.json, &soak.s, soak.o->ops, soak.so,
				      true);
	}
}

/* The selected operations once; busbw of the largest size into window w. */
static int run_window(struct sb_backend *b, size_t w)
{
	for (int op = 0; op < SB_NOPS; op++) {
		struct sb_result r = { 0 };
		int rc;

		if (!soak.o->ops[op] || (b->nranks < 2 && op != SB_BROADCAST))
			continue;
		rc = sb_measure(b, soak.o, op, "all", false, &r);
		if (!rc && r.nrows) {
			soak.s.busbw[op][w] =
				sb_row_busbw(&r.rows[r.nrows - 1]);
			soak.s.wrong += sb_total_wrong(&r);
		}
		free(r.rows);
		if (rc)
			return -1;
	}
	return 0;
}

/* Memory of window w: host summed over the processes, device rank 0's. */
static int sample_memory(struct sb_backend *b, size_t w, bool gpu)
{
	double v[2] = { host_rss_mib(), 0 };

	if (b->ctl->prank == 0)
		v[1] = gpu ? device_used_mib() : NAN;
	if (b->ctl->sum(b->ctl, v, 2))
		return -1;
	soak.s.host_mib[w] = v[0];
	soak.s.dev_mib[w] = v[1];
	return 0;
}

static void report_window(size_t w, unsigned raised)
{
	if (!soak.print)
		return;
	fprintf(soak.txt, "# window %zu at %.1f s:", w, soak.s.t_s[w]);
	for (int op = 0; op < SB_NOPS; op++)
		if (soak.o->ops[op])
			fprintf(soak.txt, " %s %.3f GB/s", sb_op_name(op),
				soak.s.busbw[op][w]);
	fprintf(soak.txt, ", host %.1f MiB\n", soak.s.host_mib[w]);
	for (unsigned f = SB_FLAG_BUSBW_DROP; f <= SB_FLAG_MEM_GROWTH; f <<= 1)
		if (raised & f)
			fprintf(stderr, SB_PREFIX "FLAG %s at window %zu\n",
				sb_soak_flag_name(f), w);
	if (soak.json)
		sb_soak_write_line(soak.json, &soak.s, w, soak.o->ops,
				   soak.o->max_bytes);
	fflush(soak.txt);
}

static int soak_loop(struct sb_backend *b, bool gpu)
{
	double t0 = sb_now_us(), iv = soak.so->interval_s * 1e6;

	for (size_t w = 0; w == 0 || w * iv < soak.so->duration_s * 1e6; w++) {
		double start = t0 + w * iv, now;
		int k;

		while ((now = sb_now_us()) < start) /* at most 1 s a sleep */
			usleep((useconds_t)fmin(start - now, 1e6));
		k = sb_soak_series_add(&soak.s, (sb_now_us() - t0) / 1e6);
		if (k < 0)
			return -1;
		sb_hook_window();
		if (run_window(b, (size_t)k) ||
		    sample_memory(b, (size_t)k, gpu))
			return -1;
		report_window((size_t)k,
			      sb_soak_judge(&soak.s, soak.o->ops, soak.so));
	}
	return 0;
}

static int write_plot(const struct sb_opts *o, const struct sb_soak_opts *so)
{
	FILE *f;

	if (!o->plot)
		return 0;
	f = fopen(o->plot, "w");
	if (!f || sb_soak_write_svg(f, &soak.s, o->ops, so->fraction) ||
	    fclose(f)) {
		fprintf(stderr, SB_PREFIX "cannot write %s\n", o->plot);
		return -1;
	}
	return 0;
}

/**
 * sb_soak_run - the soak on backend @b (world rank @world_rank) with the
 * options of @o (operations, sizes, --json for the JSON lines, --plot)
 * and @so.  Returns the exit status (sb_soak_exit), 3 when it could not
 * run; a hang ends the process from the watchdog with SB_EXIT_HANG.
 */
int sb_soak_run(struct sb_backend *b, const struct sb_opts *o,
		const struct sb_soak_opts *so, int world_rank)
{
	int rc = 3;

	soak.o = o;
	soak.so = so;
	soak.print = b->ctl->prank == 0;
	if (sb_hook_init(world_rank, so->op_timeout_s, soak_hang))
		return 2;
	sb_hook_backend(b);
	if (soak.print && o->json)
		soak.json = strcmp(o->json, "-") ?
				    sb_out_stream(o->json, "--json") :
				    stdout;
	if (soak.print && o->json && !soak.json)
		return 3;
	soak.txt = soak.json == stdout ? stderr : stdout;
	if (soak.print)
		fprintf(soak.txt,
			"# soak: %.0f s, a window every %.0f s, %d ranks, busbw drop below %.2f x the first window, memory growth above %.0f MiB, %.0f s per operation\n",
			so->duration_s, so->interval_s, b->nranks, so->fraction,
			so->mem_growth_mib, so->op_timeout_s);
	if (!soak_loop(b, !strcmp(b->name, "nccl"))) {
		rc = sb_soak_exit(soak.s.flags, soak.s.wrong);
		if (soak.print) {
			sb_soak_write_summary(soak.txt, &soak.s, o->ops, so,
					      false);
			if (soak.json)
				sb_soak_write_summary(soak.json, &soak.s,
						      o->ops, so, true);
			if (write_plot(o, so))
				rc = 3;
		}
	}
	if (soak.json && soak.json != stdout)
		fclose(soak.json);
	soak.json = NULL;
	sb_soak_series_free(&soak.s);
	return rc;
}
