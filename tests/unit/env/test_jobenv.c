/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Job environment (lib/env/jobenv.c, lib/env/ownership.c): MASTER_PORT
 * from the job id, the kernel's ephemeral range, the SUPERNODE_* /
 * MASTER_* variables of one node, this node's name in a step, and the
 * ownership marker that tells our variables from the user's.
 */
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "env/sn_ownership.h"
#include "env/sn_jobenv.h"

#define CFG_YAML                                \
	"supernodes:\n"                         \
	"  - {name: sn01, nodes: 'sna[1-2]'}\n" \
	"  - {name: sn02, nodes: 'snb[1-2]'}\n" \
	"  - {name: sn03, nodes: 'snc[1-2]'}\n"

/* ---- sn_master_port ---------------------------------------------------- */

#define BATCH 0xfffffffbu	/* SLURM_BATCH_SCRIPT */
#define INTERACTIVE 0xfffffffau /* SLURM_INTERACTIVE_STEP */
#define EXTERN 0xfffffffcu	/* SLURM_EXTERN_CONT */
#define EPH 32768, 60999	/* Linux's default ephemeral range */

/*
 * Range 20000-29999 (10000 ports) in blocks of 16: job j's block is
 * j mod 625; step s takes slot s + 1, the batch step slot 0.
 */
static void test_port_known_values(void **state)
{
	(void)state;
	assert_int_equal(sn_master_port(1, 0, 20000, 29999, EPH), 20017);
	assert_int_equal(sn_master_port(1, BATCH, 20000, 29999, EPH), 20016);
	assert_int_equal(sn_master_port(1, INTERACTIVE, 20000, 29999, EPH),
			 20016);
	assert_int_equal(sn_master_port(1, EXTERN, 20000, 29999, EPH), 20016);
	assert_int_equal(sn_master_port(1, 1, 20000, 29999, EPH), 20018);
	assert_int_equal(sn_master_port(1, 14, 20000, 29999, EPH), 20031);
	/* steps s and s + 16 share a slot: 15 wraps onto the batch step's */
	assert_int_equal(sn_master_port(1, 15, 20000, 29999, EPH), 20016);
	assert_int_equal(sn_master_port(1, 16, 20000, 29999, EPH), 20017);
	assert_int_equal(sn_master_port(0, 0, 20000, 29999, EPH), 20001);
	assert_int_equal(sn_master_port(625, 0, 20000, 29999, EPH), 20001);
	assert_int_equal(sn_master_port(12345, 0, 20000, 29999, EPH), 27521);
	assert_int_equal(sn_master_port(624, 14, 20000, 29999, EPH), 29999);
	assert_int_equal(sn_master_port(UINT32_MAX, 0, 20000, 29999, EPH),
			 26721);
	/* one port: every step of every job */
	assert_int_equal(sn_master_port(77, 3, 20000, 20000, EPH), 20000);
	/* ten ports: one block of ten slots */
	assert_int_equal(sn_master_port(7, 5, 20000, 20009, EPH), 20006);
	/* a reversed ephemeral range is no window */
	assert_int_equal(sn_master_port(5, 0, 20000, 29999, 29999, 20000),
			 20081);
	/* reversed port range: no port */
	assert_int_equal(sn_master_port(5, 0, 29999, 20000, EPH), 0);
}

/*
 * Issue 17 items 11 and 14a: concurrent steps of one job, and jobs that
 * share a node (OverSubscribe), get different ports.  Before, every step
 * of job j had 20000 + j mod 10000.
 */
static void test_port_per_step_and_job(void **state)
{
	static unsigned char used[65536];
	uint32_t steps[] = { BATCH, 0, 1, 2,  3,  4,  5,  6,
			     7,	    8, 9, 10, 11, 12, 13, 14 };

	(void)state;
	assert_int_not_equal(sn_master_port(4242, 0, 20000, 29999, EPH),
			     sn_master_port(4242, 1, 20000, 29999, EPH));
	assert_int_not_equal(sn_master_port(4242, 0, 20000, 29999, EPH),
			     sn_master_port(4243, 0, 20000, 29999, EPH));
	/* 625 consecutive jobs x (batch + 15 steps): every port once */
	memset(used, 0, sizeof(used));
	for (uint32_t id = 1000; id < 1000 + 625; id++)
		for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++)
			used[sn_master_port(id, steps[s], 20000, 29999, EPH)]++;
	for (uint32_t p = 0; p < 65536; p++)
		if (used[p] != (p >= 20000 && p <= 29999))
			fail_msg("port %u used %u times", p, used[p]);
}

/* Window 25000-26000 inside 20000-29999: 8999 ports, 562 blocks. */
static void test_port_skips_window(void **state)
{
	static unsigned char used[65536];
	unsigned total = 0;

	(void)state;
	assert_int_equal(sn_master_port(0, 0, 20000, 29999, 25000, 26000),
			 20001);
	assert_int_equal(sn_master_port(312, 0, 20000, 29999, 25000, 26000),
			 24993);
	assert_int_equal(sn_master_port(313, 0, 20000, 29999, 25000, 26000),
			 26010);
	assert_int_equal(sn_master_port(561, 14, 20000, 29999, 25000, 26000),
			 29992);
	assert_int_equal(sn_master_port(562, 0, 20000, 29999, 25000, 26000),
			 20001);
	memset(used, 0, sizeof(used));
	for (uint32_t id = 0; id < 562; id++) {
		for (uint32_t s = 0; s < 15; s++)
			used[sn_master_port(id, s, 20000, 29999, 25000,
					    26000)]++;
		used[sn_master_port(id, BATCH, 20000, 29999, 25000, 26000)]++;
	}
	for (uint32_t p = 0; p < 65536; p++) {
		if (used[p] > 1 || (used[p] && (p < 20000 || p > 29999 ||
						(p >= 25000 && p <= 26000))))
			fail_msg("port %u used %u times", p, used[p]);
		total += used[p];
	}
	/* 562 x 16 = 8992: the last 7 of the 8999 ports are left over */
	assert_int_equal(total, 8992);
}

static void test_port_window_at_edges(void **state)
{
	(void)state;
	/* the window covers the bottom of the range */
	assert_int_equal(sn_master_port(0, BATCH, 20000, 29999, 10000, 20500),
			 20501);
	assert_int_equal(sn_master_port(592, 14, 20000, 29999, 10000, 20500),
			 29988);
	assert_int_equal(sn_master_port(593, BATCH, 20000, 29999, 10000, 20500),
			 20501);
	/* ... the top */
	assert_int_equal(sn_master_port(561, 14, 20000, 29999, 29000, 40000),
			 28991);
	assert_int_equal(sn_master_port(562, BATCH, 20000, 29999, 29000, 40000),
			 20000);
	/* whole port space, default window */
	assert_int_equal(sn_master_port(1983, BATCH, 1024, 65535, EPH), 32752);
	assert_int_equal(sn_master_port(1984, BATCH, 1024, 65535, EPH), 61000);
	assert_int_equal(sn_master_port(2266, 14, 1024, 65535, EPH), 65527);
	assert_int_equal(sn_master_port(2267, BATCH, 1024, 65535, EPH), 1024);
}

static void test_port_fully_covered(void **state)
{
	(void)state;
	assert_int_equal(sn_master_port(1, 0, 20000, 29999, 10000, 40000), 0);
	assert_int_equal(sn_master_port(1, 0, 20000, 29999, 20000, 29999), 0);
	assert_int_equal(sn_master_port(7, 0, 20000, 20000, 20000, 20000), 0);
	/* the default range under a 1024-65535 host (issue 17 item 3) */
	assert_int_equal(sn_master_port(7, 0, 20000, 29999, 1024, 65535), 0);
	/* one port left at either end */
	assert_int_equal(sn_master_port(7, 0, 20000, 29999, 20001, 40000),
			 20000);
	assert_int_equal(sn_master_port(7, 0, 20000, 29999, 1024, 29998),
			 29999);
}

/* ---- sn_ephemeral_range_read ------------------------------------------- */

static char tmpdir[64];

static int setup_tmpdir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/sn-unit-jobenv-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmpdir(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/range", tmpdir);
	unlink(path);
	return rmdir(tmpdir);
}

/* Write text to $tmpdir/range and read it back. */
static int range_from(const char *text, uint16_t *lo, uint16_t *hi,
		      struct sn_error *err)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/range", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return sn_ephemeral_range_read(path, lo, hi, err);
}

static void test_ephemeral_read(void **state)
{
	struct sn_error err;
	uint16_t lo = 1, hi = 1;
	char want[160];

	(void)state;
	assert_int_equal(range_from("32768\t60999\n", &lo, &hi, &err), 0);
	assert_int_equal(lo, 32768);
	assert_int_equal(hi, 60999);
	assert_int_equal(range_from("1024 65535", &lo, &hi, &err), 0);
	assert_int_equal(lo, 1024);
	assert_int_equal(hi, 65535);

	lo = hi = 7;
	assert_int_equal(range_from("abc", &lo, &hi, &err), -1);
	snprintf(want, sizeof(want),
		 "%s/range: expected two port numbers, found 'abc'", tmpdir);
	assert_string_equal(err.msg, want);
	assert_int_equal(lo, 7); /* untouched */
	assert_int_equal(hi, 7);
	assert_int_equal(range_from("", &lo, &hi, &err), -1);
	assert_contains(err.msg, "expected two port numbers");
	assert_int_equal(range_from("32768\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("1 2 3\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("60999 32768\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("0 100\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("1024 65536\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("-1 100\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("0x400 2000\n", &lo, &hi, &err), -1);
	assert_int_equal(range_from("99999999999999999999 1\n", &lo, &hi, &err),
			 -1);
	assert_int_equal(lo, 7);

	assert_int_equal(
		sn_ephemeral_range_read("/nonexistent/ip_local_port_range", &lo,
					&hi, &err),
		-1);
	assert_string_equal(
		err.msg,
		"/nonexistent/ip_local_port_range: No such file or directory");
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("sn_ephemeral_range_read blocked on a FIFO");
}

/* A FIFO in place of the procfs file: refused at once, naming it. */
static void test_ephemeral_read_fifo(void **state)
{
	char path[128], want[192];
	struct sn_error err;
	uint16_t lo, hi;

	(void)state;
	snprintf(path, sizeof(path), "%s/range", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	signal(SIGALRM, on_alarm);
	alarm(10);
	assert_int_equal(sn_ephemeral_range_read(path, &lo, &hi, &err), -1);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	snprintf(want, sizeof(want), "not a regular file (fifo): %s", path);
	assert_string_equal(err.msg, want);
}

/* The running kernel's own file, where there is one. */
static void test_ephemeral_read_proc(void **state)
{
	struct sn_error err;
	uint16_t lo, hi;

	(void)state;
	if (access(SN_EPHEMERAL_PATH, R_OK)) {
		skip();
		return;
	}
	if (sn_ephemeral_range_read(SN_EPHEMERAL_PATH, &lo, &hi, &err))
		fail_msg("%s", err.msg);
	assert_true(lo >= 1 && lo <= hi);
}

/* ---- sn_jobenv_build --------------------------------------------------- */

static int setup_cfg(void **state)
{
	struct sn_error err;

	*state = sn_config_load_buffer("jobenv.yaml", CFG_YAML,
				       strlen(CFG_YAML), &err);
	if (!*state)
		fprintf(stderr, "%s\n", err.msg);
	return *state ? 0 : -1;
}

static int teardown_cfg(void **state)
{
	sn_config_free(*state);
	return 0;
}

static const char *env_get(const struct sn_jobenv *env, const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (!strcmp(env->vars[i].name, name))
			return env->vars[i].value;
	return NULL;
}

/* Build for node on nodelist; want[] = the 8 values in their order. */
static void env_is(const struct sn_config *cfg, const char *nodelist,
		   const char *node, uint32_t job, const char *const *want)
{
	static const char *const names[] = {
		"SUPERNODE_COUNT", "SUPERNODE_NAMES", "SUPERNODE_NAME",
		"SUPERNODE_INDEX", "SUPERNODE_SIZE",  "SUPERNODE_NODE_RANK",
		"MASTER_ADDR",	   "MASTER_PORT",     "SUPERNODE_ATTEMPT",
	};
	struct sn_jobenv_input in = {
		.job_nodelist = nodelist,
		.nodename = node,
		.job_id = job,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
		.has_restart_count = true,
	};
	struct sn_jobenv env;
	struct sn_error err;

	if (sn_jobenv_build(cfg, &in, &env, &err))
		fail_msg("%s on %s: %s", nodelist, node, err.msg);
	assert_int_equal(env.count, 9);
	assert_string_equal(env.vars[8].value, "1");
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(env.vars[i].name, names[i]);
		if (strcmp(env.vars[i].value, want[i]))
			fail_msg("%s on %s: %s=%s, expected %s", nodelist, node,
				 names[i], env.vars[i].value, want[i]);
	}
	sn_jobenv_free(&env);
	assert_int_equal(env.count, 0);
	sn_jobenv_free(&env); /* twice is harmless */
}

#define ENV_IS(cfg, list, node, job, ...) \
	env_is(cfg, list, node, job, (const char *const[]){ __VA_ARGS__ })

static void test_build(void **state)
{
	/*
	 * COUNT, NAMES, NAME, INDEX, SIZE, NODE_RANK, ADDR, PORT; step 0:
	 * port 20000 + (job mod 625) * 16 + 1
	 */
	ENV_IS(*state, "sna[1-2],snb[1-2]", "snb2", 1234, "2", "sn01,sn02",
	       "sn02", "1", "2", "1", "sna1", "29745");
	ENV_IS(*state, "sna[1-2],snb[1-2]", "sna1", 1234, "2", "sn01,sn02",
	       "sn01", "0", "2", "0", "sna1", "29745");
	ENV_IS(*state, "sna[1-2],snb[1-2]", "snb1", 1234, "2", "sn01,sn02",
	       "sn02", "1", "2", "0", "sna1", "29745");
	ENV_IS(*state, "snc[1-2]", "snc2", 7, "1", "sn03", "sn03", "0", "2",
	       "1", "snc1", "20113");
}

/* Allocation order, not config order, decides names, index and address. */
static void test_build_allocation_order(void **state)
{
	ENV_IS(*state, "snb[1-2],sna[1-2]", "sna1", 1234, "2", "sn02,sn01",
	       "sn01", "1", "2", "0", "snb1", "29745");
	ENV_IS(*state, "snb[1-2],sna[1-2]", "snb2", 1234, "2", "sn02,sn01",
	       "sn02", "0", "2", "1", "snb1", "29745");
	/* rank counts only this supernode's nodes before it */
	ENV_IS(*state, "snc2,sna[1-2],snc1,snb[1-2]", "snc1", 10000, "3",
	       "sn03,sn01,sn02", "sn03", "0", "2", "1", "snc2", "20001");
}

static void build_fails(const struct sn_config *cfg,
			const struct sn_jobenv_input *in, const char *want)
{
	struct sn_jobenv env;
	struct sn_error err;

	err_reset(&err);
	env.count = 5;
	assert_int_equal(sn_jobenv_build(cfg, in, &env, &err), -1);
	assert_int_equal(env.count, 0);
	assert_string_equal(err.msg, want);
}

static void test_build_errors(void **state)
{
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2],zz1",
		.nodename = "sna1",
		.job_id = 1,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
	};

	/* a node in no supernode */
	build_fails(
		*state, &in,
		"node zz1 of the allocation is in no supernode of jobenv.yaml");
	/* field case 1: unparsable list -> error, no made-up address */
	in.job_nodelist = "sna[1-";
	build_fails(
		*state, &in,
		"cannot parse SLURM_JOB_NODELIST 'sna[1-': cannot parse nodelist 'sna[1-'");
	in.job_nodelist = "sna[1,2";
	build_fails(
		*state, &in,
		"cannot parse SLURM_JOB_NODELIST 'sna[1,2': cannot parse nodelist 'sna[1,2'");
	in.job_nodelist = NULL;
	build_fails(*state, &in,
		    "cannot parse SLURM_JOB_NODELIST '': empty nodelist");
	/* this node not in the allocation */
	in.job_nodelist = "sna[1-2]";
	in.nodename = "snb1";
	build_fails(*state, &in, "this node snb1 is not in the allocation");
	in.nodename = "";
	build_fails(*state, &in,
		    "this node's Slurm name (SLURMD_NODENAME) is unknown");
	in.nodename = NULL;
	build_fails(*state, &in,
		    "this node's Slurm name (SLURMD_NODENAME) is unknown");
}

/*
 * Issue 17 item 3: no port outside the ephemeral range leaves MASTER_PORT
 * unset and says why; every other variable is still set (before: the
 * whole environment failed with "...: no port for MASTER_PORT").
 */
static void test_build_no_port(void **state)
{
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2]",
		.nodename = "sna2",
		.job_id = 1,
		.ephemeral_lo = 1024,
		.ephemeral_hi = 65535,
		.has_restart_count = true,
		.restart_count = 2,
	};
	struct sn_jobenv env;
	struct sn_error err;

	err_reset(&err);
	if (sn_jobenv_build(*state, &in, &env, &err))
		fail_msg("refused: %s", err.msg);
	assert_int_equal(env.count, 8);
	assert_string_equal(env_get(&env, "SUPERNODE_ATTEMPT"), "3");
	assert_null(env_get(&env, "MASTER_PORT"));
	assert_string_equal(env_get(&env, "MASTER_ADDR"), "sna1");
	assert_string_equal(env_get(&env, "SUPERNODE_NODE_RANK"), "1");
	assert_int_equal(env.n_notes, 1);
	assert_string_equal(
		env.notes[0].msg,
		"MASTER_PORT not set: env.master_port_range [20000, 29999] lies inside the ephemeral port range [1024, 65535]");
	sn_jobenv_free(&env);
}

/*
 * SUPERNODE_ATTEMPT: the prolog's restart count + 1; without one (no
 * prolog of ours ran) it is left out and the step's log says why, the
 * rest still set.
 */
static void test_build_attempt(void **state)
{
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2]",
		.nodename = "sna1",
		.job_id = 7,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
		.has_restart_count = true,
		.restart_count = 1,
	};
	struct sn_jobenv env;
	struct sn_error err;

	assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
	assert_int_equal(env.count, 9);
	assert_string_equal(env_get(&env, "SUPERNODE_ATTEMPT"), "2");
	assert_int_equal(env.n_notes, 0);
	sn_jobenv_free(&env);
	in.restart_count = 65535;
	assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
	assert_string_equal(env_get(&env, "SUPERNODE_ATTEMPT"), "65536");
	sn_jobenv_free(&env);
	in.has_restart_count = false;
	assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
	assert_int_equal(env.count, 8);
	assert_null(env_get(&env, "SUPERNODE_ATTEMPT"));
	assert_string_equal(env_get(&env, "SUPERNODE_NODE_RANK"), "0");
	/* no note: the step's log says why (spank/remote.c), not the job */
	assert_int_equal(env.n_notes, 0);
	sn_jobenv_free(&env);
}

/* A fake NodeAddr table: snX -> 10.0.0.X's, "down" for unknown names. */
static int fake_addr(void *ctx, const char *node, char *out, size_t size,
		     struct sn_error *why)
{
	static const char *const table[][2] = {
		{ "sna1", "10.1.0.1" },
		{ "sna2", "10.1.0.2" },
		{ "snb1", "10.2.0.1" },
		{ "snb2", "10.2.0.2" },
	};

	(*(int *)ctx)++;
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(node, table[i][0])) {
			snprintf(out, size, "%s", table[i][1]);
			return 0;
		}
	sn_error_set(why, "slurm.conf gives %s no NodeAddr", node);
	return -1;
}

/* MASTER_ADDR (and its note) for a step of the job sna[1-2],snb[1-2]. */
static void addr_is(const struct sn_config *cfg, const char *step_list,
		    bool batch, const char *self, const char *want,
		    const char *note)
{
	int calls = 0;
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2],snb[1-2]",
		.nodename = self,
		.step_nodelist = step_list,
		.batch = batch,
		.job_id = 1,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
		.addr_of = fake_addr,
		.addr_ctx = &calls,
		.has_restart_count = true,
	};
	struct sn_jobenv env;
	struct sn_error err;
	const char *got;

	if (sn_jobenv_build(cfg, &in, &env, &err))
		fail_msg("refused: %s", err.msg);
	got = env_get(&env, "MASTER_ADDR");
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail_msg("step %s: MASTER_ADDR %s, expected %s",
			 step_list ? step_list : "(unset)",
			 got ? got : "(unset)", want ? want : "(unset)");
	assert_int_equal(env.n_notes, *note ? 1 : 0);
	if (*note)
		assert_string_equal(env.notes[0].msg, note);
	/* the rest is the allocation's, whatever the step */
	assert_string_equal(env_get(&env, "SUPERNODE_NAMES"), "sn01,sn02");
	assert_int_equal(calls, want && !*note ? 1 : calls);
	sn_jobenv_free(&env);
}

/*
 * Issue 17 item 11: MASTER_ADDR is the step's first node, by its address.
 * Before: the job's first node by its name ("sna1") for every step.
 */
static void test_build_master_addr(void **state)
{
	/* srun -w snb[1-2] in the 4-node job: the step's first node */
	addr_is(*state, "snb[1-2]", false, "snb2", "10.2.0.1", "");
	addr_is(*state, "sna2,snb1", false, "snb1", "10.1.0.2", "");
	/* the whole allocation; no step list (unset): the job's */
	addr_is(*state, "sna[1-2],snb[1-2]", false, "snb2", "10.1.0.1", "");
	addr_is(*state, NULL, false, "sna2", "10.1.0.1", "");
	/* the batch step runs on the job's first node, whatever is set */
	addr_is(*state, "snb2", true, "sna1", "10.1.0.1", "");
	/* a node without an address: its name, and why */
	{
		struct sn_jobenv_input in = {
			.job_nodelist = "snc[1-2]",
			.nodename = "snc2",
			.step_nodelist = "snc2",
			.job_id = 1,
			.ephemeral_lo = 32768,
			.ephemeral_hi = 60999,
			.addr_of = fake_addr,
			.has_restart_count = true,
		};
		int calls = 0;
		struct sn_jobenv env;
		struct sn_error err;

		in.addr_ctx = &calls;
		assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
		assert_string_equal(env_get(&env, "MASTER_ADDR"), "snc2");
		assert_int_equal(env.n_notes, 1);
		assert_string_equal(
			env.notes[0].msg,
			"MASTER_ADDR is the node name snc2: its address is unknown (slurm.conf gives snc2 no NodeAddr)");
		assert_int_equal(calls, 1);
		sn_jobenv_free(&env);
	}
	/* a step list not read whole, or not a list: unset, and why */
	addr_is(*state, sn_env_unread, false, "sna1", NULL,
		"MASTER_ADDR not set: SLURM_STEP_NODELIST could not be read");
	addr_is(*state, "sna[1-", false, "sna1", NULL,
		"MASTER_ADDR not set: SLURM_STEP_NODELIST 'sna[1-': cannot parse nodelist 'sna[1-'");
}

static void test_build_port_outside_window(void **state)
{
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2]",
		.nodename = "sna2",
		.job_id = 5000,
		.ephemeral_lo = 25000,
		.ephemeral_hi = 26000,
	};
	struct sn_jobenv env;
	struct sn_error err;

	/* 8999 ports, 562 blocks: (5000 mod 562) * 16 + 1 = 8065, past it */
	assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
	assert_string_equal(env_get(&env, "MASTER_PORT"), "29066");
	assert_string_equal(env_get(&env, "SUPERNODE_NODE_RANK"), "1");
	sn_jobenv_free(&env);
	sn_jobenv_free(NULL);
}

/* ---- ownership marker (ownership.c) ------------------------------------ */

/*
 * The hash is 32-bit FNV-1a; the standard test vectors pin it:
 * "" -> 811c9dc5, "a" -> e40c292c, "foobar" -> bf9cf968.
 */
static void test_envmark_build(void **state)
{
	char v_a[] = "a", v_foobar[] = "foobar", v_empty[] = "";
	struct sn_jobenv env = {
		.vars = { { "A", v_a }, { "B", v_foobar }, { "C", v_empty } },
		.count = 3,
	};
	bool all[] = { true, true, true }, some[] = { false, true, false };
	bool none[] = { false, false, false };
	char *m;

	(void)state;
	m = sn_envmark_build(&env, all);
	assert_string_equal(m, "A=e40c292c,B=bf9cf968,C=811c9dc5");
	free(m);
	m = sn_envmark_build(&env, some);
	assert_string_equal(m, "B=bf9cf968");
	free(m);
	m = sn_envmark_build(&env, none);
	assert_string_equal(m, "");
	free(m);
	env.count = 0;
	m = sn_envmark_build(&env, all);
	assert_string_equal(m, "");
	free(m);
}

static void test_envmark_owns(void **state)
{
	const char *m =
		"A=e40c292c,SUPERNODE_NAMES=b658c48e,MASTER_PORT=ce3d370d";

	(void)state;
	assert_true(sn_envmark_owns(m, "A", "a"));
	assert_true(sn_envmark_owns(m, "SUPERNODE_NAMES", "sn01,sn02"));
	assert_true(sn_envmark_owns(m, "MASTER_PORT", "21234"));
	/* a value the user changed is no longer ours */
	assert_false(sn_envmark_owns(m, "A", "b"));
	assert_false(sn_envmark_owns(m, "MASTER_PORT", "21235"));
	/* names match whole entries only */
	assert_false(sn_envmark_owns(m, "SUPERNODE_NAME", "sn01,sn02"));
	assert_false(sn_envmark_owns(m, "NAMES", "sn01,sn02"));
	assert_false(sn_envmark_owns("XA=e40c292c", "A", "a"));
	assert_false(sn_envmark_owns("A=e40c292cX", "A", "a"));
	assert_true(sn_envmark_owns("B=1,A=e40c292c", "A", "a"));
	/* absent, empty, or a name too long for an entry */
	assert_false(sn_envmark_owns(NULL, "A", "a"));
	assert_false(sn_envmark_owns(m, NULL, "a"));
	assert_false(sn_envmark_owns(m, "A", NULL));
	assert_false(sn_envmark_owns("", "A", "a"));
	{
		char name[100];

		memset(name, 'N', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		assert_false(sn_envmark_owns(m, name, "a"));
	}
}

/* ---- sn_env_read: a user's value is read whole, or left alone --------- */

/* A job environment of one variable, read as spank_getenv() reads it. */
struct fake_env {
	const char *value;    /* NULL: unset */
	enum sn_env_get fail; /* SN_ENV_GET_ERROR: every read fails */
	unsigned calls;
	size_t sizes[16]; /* the buffer size of each read */
};

static enum sn_env_get fake_get(void *ctx, const char *name, char *buf,
				size_t size)
{
	struct fake_env *f = ctx;
	size_t len;

	(void)name;
	if (f->calls < 16)
		f->sizes[f->calls] = size;
	f->calls++;
	if (f->fail == SN_ENV_GET_ERROR)
		return SN_ENV_GET_ERROR;
	if (!f->value)
		return SN_ENV_GET_UNSET;
	/* strlcpy(), then ESPANK_NOSPACE when it did not fit (plugstack.c) */
	len = strlen(f->value);
	snprintf(buf, size, "%s", f->value);
	return len >= size ? SN_ENV_GET_NOSPACE : SN_ENV_GET_OK;
}

/* n bytes of a varied pattern ("mlx5_0:1,mlx5_1:1,..."), NUL-terminated. */
static char *long_value(size_t n)
{
	char *v = malloc(n + 1);

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (char)('a' + (i * 7 + i / 26) % 26);
	v[n] = '\0';
	return v;
}

/*
 * Issue 9 item 12: a 120 KB UCX_NET_DEVICES is read whole (the buffer
 * doubles from 256 bytes: 10 reads), not taken for unset.
 */
static void test_env_read_whole(void **state)
{
	static const size_t want_sizes[] = {
		256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072
	};
	struct sn_envbuf eb = { 0 };
	struct fake_env f = { 0 };
	char *v = long_value(120 * 1024);
	const char *got;

	(void)state;
	f.value = v;
	got = sn_env_read(fake_get, &f, "UCX_NET_DEVICES", &eb);
	assert_ptr_equal(got, eb.buf);
	assert_int_equal(strlen(got), 122880);
	assert_memory_equal(got, v, 122881);
	assert_int_equal(f.calls, 10);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(f.sizes[i], want_sizes[i]);
	/* The buffer is kept: a short value then takes one read. */
	f.value = "29500";
	f.calls = 0;
	assert_string_equal(sn_env_read(fake_get, &f, "MASTER_PORT", &eb),
			    "29500");
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.sizes[0], 131072);
	sn_envbuf_free(&eb);
	assert_null(eb.buf);
	assert_int_equal(eb.cap, 0);
	free(v);
}

/*
 * The rule: "too long" and "could not read" mean set, never unset.  The
 * longest value execve() takes (SN_ENV_VALUE_MAX - 1 bytes) is read; one
 * byte more, a failed read: sn_env_unread.  Unset: NULL.
 */
static void test_env_read_unread_is_set(void **state)
{
	struct sn_envbuf eb = { 0 };
	struct fake_env f = { 0 };
	char *v = long_value(SN_ENV_VALUE_MAX);

	(void)state;
	f.value = v + 1; /* SN_ENV_VALUE_MAX - 1 bytes */
	assert_int_equal(strlen(sn_env_read(fake_get, &f, "V", &eb)),
			 SN_ENV_VALUE_MAX - 1);
	f.value = v; /* SN_ENV_VALUE_MAX bytes */
	assert_ptr_equal(sn_env_read(fake_get, &f, "V", &eb), sn_env_unread);
	f.fail = SN_ENV_GET_ERROR;
	assert_ptr_equal(sn_env_read(fake_get, &f, "V", &eb), sn_env_unread);
	f.fail = SN_ENV_GET_OK;
	f.value = NULL;
	assert_null(sn_env_read(fake_get, &f, "V", &eb));
	f.value = "";
	assert_string_equal(sn_env_read(fake_get, &f, "V", &eb), "");
	sn_envbuf_free(&eb);
	free(v);
}

/* A value not read whole is never ours, whatever the marker says. */
static void test_envmark_unread_not_ours(void **state)
{
	struct sn_jobenv env = { 0 };
	bool set[1] = { true };
	char copy[64], *m;

	(void)state;
	snprintf(copy, sizeof(copy), "%s", sn_env_unread);
	env.vars[0].name = "MASTER_PORT";
	env.vars[0].value = copy;
	env.count = 1;
	m = sn_envmark_build(&env, set);
	assert_non_null(m);
	assert_true(sn_envmark_owns(m, "MASTER_PORT", copy));
	assert_false(sn_envmark_owns(m, "MASTER_PORT", sn_env_unread));
	free(m);
}

/* What sn_jobenv_build sets, the marker built from it owns. */
static void test_envmark_round_trip(void **state)
{
	struct sn_jobenv_input in = {
		.job_nodelist = "sna[1-2],snb[1-2]",
		.nodename = "snb2",
		.job_id = 77, /* step 1: 20000 + 77 * 16 + 2 = 21234 */
		.step_id = 1,
		.ephemeral_lo = 32768,
		.ephemeral_hi = 60999,
	};
	bool set[SN_JOBENV_MAX];
	struct sn_jobenv env;
	struct sn_error err;
	char *m;

	assert_int_equal(sn_jobenv_build(*state, &in, &env, &err), 0);
	for (size_t i = 0; i < env.count; i++)
		set[i] = i != 6; /* MASTER_ADDR was the user's */
	m = sn_envmark_build(&env, set);
	assert_non_null(m);
	assert_string_equal(
		m, "SUPERNODE_COUNT=370cabd5,SUPERNODE_NAMES=b658c48e,"
		   "SUPERNODE_NAME=d6fb902a,SUPERNODE_INDEX=340ca71c,"
		   "SUPERNODE_SIZE=370cabd5,SUPERNODE_NODE_RANK=340ca71c,"
		   "MASTER_PORT=ce3d370d");
	for (size_t i = 0; i < env.count; i++)
		assert_int_equal(sn_envmark_owns(m, env.vars[i].name,
						 env.vars[i].value),
				 set[i]);
	free(m);
	sn_jobenv_free(&env);
}

/*
 * This node's name in a step: element nodeid of the step's list, else of
 * the job's; the batch step is the job's first node.
 */
static void test_self_name(void **state)
{
	struct sn_error err;
	char out[64];

	(void)state;
	assert_int_equal(sn_jobenv_self_name("sna[1-2],snb[1-2]", "snb[1-2]",
					     false, 1, out, sizeof(out), &err),
			 0);
	assert_string_equal(out, "snb2");
	assert_int_equal(sn_jobenv_self_name("sna[1-2],snb[1-2]", NULL, false,
					     2, out, sizeof(out), &err),
			 0);
	assert_string_equal(out, "snb1");
	assert_int_equal(sn_jobenv_self_name("sna[1-2],snb[1-2]", "snb[1-2]",
					     true, 1, out, sizeof(out), &err),
			 0);
	assert_string_equal(out, "sna1");
	err_reset(&err);
	assert_int_equal(sn_jobenv_self_name("sna[1-2]", "snb[1-2]", false, 2,
					     out, sizeof(out), &err),
			 -1);
	assert_string_equal(err.msg,
			    "node id 2 is outside the step's node list");
	err_reset(&err);
	assert_int_equal(sn_jobenv_self_name("sna[1-2]", sn_env_unread, false,
					     0, out, sizeof(out), &err),
			 -1);
	assert_string_equal(err.msg, "SLURM_STEP_NODELIST could not be read");
	err_reset(&err);
	assert_int_equal(sn_jobenv_self_name(NULL, "snb[1-2]", false, 0, out,
					     sizeof(out), &err),
			 -1);
	assert_string_equal(err.msg,
			    "SLURM_JOB_NODELIST is not set or not readable");
	assert_int_equal(sn_jobenv_self_name(sn_env_unread, NULL, true, 0, out,
					     sizeof(out), &err),
			 -1);
}

/* sn_jobenv_ephemeral: the range, or Linux's default and why. */
static void test_jobenv_ephemeral(void **state)
{
	struct sn_jobenv_input in = { 0 };
	struct sn_error err;
	char path[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/range", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("40000 50000\n", f);
	fclose(f);
	err_reset(&err);
	assert_int_equal(sn_jobenv_ephemeral(path, &in, &err), 0);
	assert_int_equal(in.ephemeral_lo, 40000);
	assert_int_equal(in.ephemeral_hi, 50000);
	assert_string_equal(err.msg, "(unset)");
	snprintf(path, sizeof(path), "%s/absent", tmpdir);
	assert_int_equal(sn_jobenv_ephemeral(path, &in, &err), -1);
	assert_int_equal(in.ephemeral_lo, 32768);
	assert_int_equal(in.ephemeral_hi, 60999);
	snprintf(path, sizeof(path),
		 "%s/absent: No such file or directory; assuming 32768-60999",
		 tmpdir);
	assert_string_equal(err.msg, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_known_values),
		cmocka_unit_test(test_port_per_step_and_job),
		cmocka_unit_test(test_port_skips_window),
		cmocka_unit_test(test_port_window_at_edges),
		cmocka_unit_test(test_port_fully_covered),
		cmocka_unit_test_setup_teardown(test_ephemeral_read,
						setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_ephemeral_read_fifo,
						setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test(test_ephemeral_read_proc),
		cmocka_unit_test_setup_teardown(test_jobenv_ephemeral,
						setup_tmpdir, teardown_tmpdir),
		cmocka_unit_test_setup_teardown(test_build, setup_cfg,
						teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_allocation_order,
						setup_cfg, teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_errors, setup_cfg,
						teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_attempt, setup_cfg,
						teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_no_port, setup_cfg,
						teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_master_addr,
						setup_cfg, teardown_cfg),
		cmocka_unit_test_setup_teardown(test_build_port_outside_window,
						setup_cfg, teardown_cfg),
		cmocka_unit_test(test_envmark_build),
		cmocka_unit_test(test_envmark_owns),
		cmocka_unit_test(test_env_read_whole),
		cmocka_unit_test(test_env_read_unread_is_set),
		cmocka_unit_test(test_envmark_unread_not_ours),
		cmocka_unit_test(test_self_name),
		cmocka_unit_test_setup_teardown(test_envmark_round_trip,
						setup_cfg, teardown_cfg),
	};

	return cmocka_run_group_tests_name("jobenv", tests, NULL, NULL);
}
