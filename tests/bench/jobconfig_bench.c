/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark: what a job step pays on each node to get its config, the
 * whole supernode.yaml (sn_config_load) against the job's config
 * (sn_config_snapshot_load, config/sn_config_snapshot.h), in a fresh
 * process each time, as slurmstepd is: the mapping of libyaml and every
 * page touched for the first time count.
 *
 * Configs of S supernodes shaped as scale_bench's (NVL72 racks of 18
 * nodes, flow style); the job holds one rack in the middle.  Each sample
 * is one exec of this program that loads once and reports its CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) and minor page faults around the load,
 * after a warm-up of what every slurmstepd has done by then (warm_up); the
 * two kinds alternate, ROUNDS samples each, medians printed, with the
 * ratio job/whole.  The whole file at 16 supernodes is the baseline the
 * other rows are compared with too.
 *
 *   jobconfig_bench [-r ROUNDS] [-c] [SUPERNODES...]   (default 16 1000 10000)
 *
 * -c (ctest): 16 and 1,000 supernodes, 9 rounds; exit 1 unless the job's
 * config costs less than the whole file at 1,000 supernodes (a gross
 * regression: it should be far below).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/sn_config.h"
#include "config/sn_config_snapshot.h"

#define JOB_ID 7u
#define RACK 18u

static int rounds = 21;

static void die(const char *what)
{
	fprintf(stderr, "jobconfig_bench: %s\n", what);
	exit(2);
}

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/*
 * What any slurmstepd has done before our plugin runs, so that neither
 * kind is charged for it: the heap set up, stdio's formatting, files
 * opened, stat()ed, read and closed (their libc entry points bound).
 */
static void warm_up(void)
{
	char buf[4096], text[64];
	struct stat st;
	void *p = malloc(1 << 16);
	FILE *f = fopen("/proc/self/status", "r");

	if (f) {
		if (fstat(fileno(f), &st) == 0 && fread(buf, 1, sizeof(buf), f))
			snprintf(text, sizeof(text), "%.3f %.8s", 1.5, buf);
		fclose(f);
	}
	free(p);
}

/* Child: one load of kind ("whole" or "job"); prints "US FAULTS". */
static int one_load(const char *kind, const char *yaml, const char *state,
		    const char *node)
{
	struct sn_config_snapshot_key key = { .job_id = JOB_ID, .node = node };
	struct sn_config *cfg;
	struct sn_error err;
	double t0;
	long f0;

	warm_up();
	key.config_stamp = sn_config_stamp(yaml);
	f0 = minflt();
	t0 = cpu_us();
	if (!strcmp(kind, "job"))
		cfg = sn_config_snapshot_load(state, yaml, &key, &err);
	else
		cfg = sn_config_load(yaml, &err);
	printf("%.1f %ld\n", cpu_us() - t0, minflt() - f0);
	if (!cfg)
		die(err.msg);
	return 0;
}

/* The config file of n racks in dir; its path in out. */
static void yaml_write(const char *dir, unsigned n, char *out, size_t size)
{
	FILE *f;

	snprintf(out, size, "%s/sn%u.yaml", dir, n);
	if (!(f = fopen(out, "w")))
		die("cannot write the config");
	fprintf(f, "supernodes:\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f,
			"  - {name: nvl%05u, nodes: \"gb-r%05u-n[01-%02u]\"}\n",
			i, i, RACK);
	fprintf(f, "placement: {method: block}\npaths: {state_dir: %s}\n", dir);
	if (fclose(f))
		die("cannot write the config");
}

/* One exec of self: the child's CPU us and faults. */
static void sample(const char *self, const char *kind, const char *yaml,
		   const char *state, const char *node, double *us,
		   long *faults)
{
	int fd[2], status;
	char line[128] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl("/proc/self/exe", self, "-x", kind, yaml, state, node,
		      (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	n = read(fd[0], line, sizeof(line) - 1);
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n <= 0 ||
	    sscanf(line, "%lf %ld", us, faults) != 2)
		die("a sample failed");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct figures {
	double whole_us, job_us;
	long whole_faults, job_faults;
};

static void measure(const char *self, const char *dir, unsigned n,
		    struct figures *out)
{
	char yaml[512], node[64], rack[64];
	double w[128], j[128];
	long wf = 0, jf = 0;
	struct sn_config *cfg;
	struct sn_error err;
	struct sn_config_snapshot_key key = { .job_id = JOB_ID, .node = node };
	int r = rounds < 128 ? rounds : 128;

	yaml_write(dir, n, yaml, sizeof(yaml));
	snprintf(node, sizeof(node), "gb-r%05u-n01", n / 2);
	snprintf(rack, sizeof(rack), "gb-r%05u-n[01-%02u]", n / 2, RACK);
	if (!(cfg = sn_config_load(yaml, &err)))
		die(err.msg);
	key.config_stamp = sn_config_stamp(yaml);
	if (sn_config_snapshot_save(cfg, dir, rack, &key, &err))
		die(err.msg);
	sn_config_free(cfg);
	for (int i = 0; i < r; i++) {
		sample(self, "whole", yaml, dir, node, &w[i], &wf);
		sample(self, "job", yaml, dir, node, &j[i], &jf);
	}
	qsort(w, (size_t)r, sizeof(double), cmp);
	qsort(j, (size_t)r, sizeof(double), cmp);
	out->whole_us = w[r / 2];
	out->job_us = j[r / 2];
	out->whole_faults = wf;
	out->job_faults = jf;
}

int main(int argc, char **argv)
{
	unsigned counts[16] = { 16, 1000, 10000 }, n_counts = 3;
	char dir[] = "/tmp/sn-jobconfig-bench-XXXXXX", cmd[600];
	struct figures base = { 0 }, f;
	bool check = false;
	int opt, rc = 0;

	if (argc == 6 && !strcmp(argv[1], "-x"))
		return one_load(argv[2], argv[3], argv[4], argv[5]);
	while ((opt = getopt(argc, argv, "r:c")) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'c')
			check = true;
		else
			return 2;
	}
	if (rounds < 1)
		die("-r 1 or more");
	if (check) {
		rounds = 9;
		counts[1] = 1000;
		n_counts = 2;
	}
	if (optind < argc)
		for (n_counts = 0; optind < argc && n_counts < 16; optind++)
			counts[n_counts++] = (unsigned)atoi(argv[optind]);
	if (!mkdtemp(dir))
		die("mkdtemp");
	printf("a step's config load on one node, fresh process, CPU us (median of %d), minor faults\n",
	       rounds);
	printf("%12s %12s %8s %12s %8s %10s %14s\n", "supernodes", "whole file",
	       "faults", "job's", "faults", "job/whole", "job/whole@16");
	for (unsigned i = 0; i < n_counts; i++) {
		measure(argv[0], dir, counts[i], &f);
		if (i == 0)
			base = f;
		printf("%12u %12.1f %8ld %12.1f %8ld %9.3fx %13.3fx\n",
		       counts[i], f.whole_us, f.whole_faults, f.job_us,
		       f.job_faults, f.job_us / f.whole_us,
		       f.job_us / base.whole_us);
		if (check && counts[i] >= 1000 && f.job_us >= f.whole_us) {
			printf("FAIL: the job's config costs no less than the whole file\n");
			rc = 1;
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		rc = rc ? rc : 2;
	return rc;
}
