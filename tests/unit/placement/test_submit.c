/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * placement/submit.c: the decisions of spank/job_submit/ over a job
 * description's string arrays (forged SPANK entries stripped, the client
 * told, SLURM_NTASKS/SLURM_NPROCS rewritten) and its refusals, with the
 * exact messages slurmctld logs and returns.
 */
#include "unit.h"

#include "placement/sn_option.h"
#include "placement/sn_placement.h"
#include "placement/sn_submit.h"

static char logged[1024];
static int frees;

static void fake_free(void **p)
{
	free(*p);
	*p = NULL;
	frees++;
}

static void fake_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

static const struct sn_submit_ops ops = {
	.strdup = strdup,
	.free = fake_free,
	.info = fake_info,
};

static void test_strip_forged(void **state)
{
	char *env[] = { strdup("SPANK_SUPERNODE=1"), strdup("SUPERNODE=2"),
			NULL, strdup("SPANK_SUPERNODE_X=3"), strdup("A=b") };
	uint32_t size = 5;

	(void)state;
	frees = 0;
	sn_submit_strip_forged(env, &size, 1234, &ops);
	assert_int_equal(size, 4);
	assert_int_equal(frees, 1);
	assert_string_equal(env[0], "SUPERNODE=2");
	assert_null(env[1]);
	assert_string_equal(env[2], "SPANK_SUPERNODE_X=3");
	assert_string_equal(env[3], "A=b");
	assert_null(env[4]);
	assert_string_equal(
		logged,
		"job_submit/supernode: uid 1234: dropped the job's own SPANK environment entry 'SPANK_SUPERNODE=1' (only SUPERNODE= from supernode.so counts)");
	for (int i = 0; i < 5; i++)
		free(env[i]);
	size = 3;
	sn_submit_strip_forged(NULL, &size, 0, &ops); /* no array: nothing */
	assert_int_equal(size, 3);
}

static void test_client(void **state)
{
	char *spank_env[] = { "SUPERNODE=1", SN_SPANK_SRUN_MARK "=1" };

	(void)state;
	assert_int_equal(sn_submit_client(true, spank_env, 2), SN_CLIENT_BATCH);
	assert_int_equal(sn_submit_client(false, spank_env, 2), SN_CLIENT_SRUN);
	assert_int_equal(sn_submit_client(false, spank_env, 1),
			 SN_CLIENT_ALLOC);
	assert_int_equal(sn_submit_client(false, NULL, 0), SN_CLIENT_ALLOC);
}

/* The plan job_submit makes of spank_env (n entries) for an srun/salloc. */
static struct sn_job_plan plan_of(const struct sn_config *cfg, char **env,
				  uint32_t n, enum sn_job_client *client)
{
	struct sn_job_request req = {
		.min_nodes = SN_UNSET32,
		.max_nodes = SN_UNSET32,
		.shared = SN_UNSET16,
		.req_switch = SN_UNSET32,
		.num_tasks = 8,
		.ntasks_per_node = SN_UNSET16,
	};
	struct sn_job_plan plan = { 0 };
	struct sn_error err;
	const char *value;

	sn_submit_strip_forged(env, &n, 1234, &ops);
	value = sn_option_env_value(env, n, "SUPERNODE");
	assert_non_null(value);
	req.client = *client = sn_submit_client(false, env, n);
	assert_int_equal(
		sn_supernode_count_parse(value, 4, &req.supernodes, &err), 0);
	if (sn_placement_plan(cfg, &req, &plan, &err))
		fail_msg("%s", err.msg);
	return plan;
}

/*
 * Mixed versions (issue 19 item 2; etc/README.md, "Upgrading: mixed
 * versions"): the spank job env's entries keep their names and meanings;
 * one added later is optional.  A SPANK plugin of 9a454df..915e4bf^ sends
 * SUPERNODE=N alone: accepted, the same rewrite, the client salloc's.  A
 * newer plugin's SUPERNODE_* entries that this job_submit does not know
 * pass untouched and change nothing; a forged SPANK_SUPERNODE= still goes.
 */
static void test_mixed_versions(void **state)
{
	static const char yaml[] =
		"supernodes:\n  - {name: sn01, nodes: \"a[1-4]\"}\n"
		"  - {name: sn02, nodes: \"b[1-4]\"}\n"
		"placement: {method: feature}\n";
	char *today[] = { strdup("SUPERNODE=1"),
			  strdup(SN_SPANK_SRUN_MARK "=1") };
	char *old[] = { strdup("SUPERNODE=1") };
	char *newer[] = { strdup("SUPERNODE=1"),
			  strdup(SN_SPANK_SRUN_MARK "=1"),
			  strdup("SUPERNODE_FORMAT=2"),
			  strdup("SUPERNODE_FUTURE=x"),
			  strdup("SPANK_SUPERNODE=1") };
	struct sn_job_plan p_today, p_old, p_newer;
	enum sn_job_client c_today, c_old, c_newer;
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	cfg = sn_config_load_buffer("mixed.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	frees = 0;
	p_today = plan_of(cfg, today, 2, &c_today);
	p_old = plan_of(cfg, old, 1, &c_old);
	p_newer = plan_of(cfg, newer, 5, &c_newer);
	assert_int_equal(frees, 1); /* the forged entry, nothing else */
	assert_string_equal(newer[2], "SUPERNODE_FORMAT=2");
	assert_string_equal(newer[3], "SUPERNODE_FUTURE=x");
	assert_null(newer[4]);
	assert_int_equal(c_today, SN_CLIENT_SRUN);
	assert_int_equal(c_old, SN_CLIENT_ALLOC);
	assert_int_equal(c_newer, SN_CLIENT_SRUN);
	assert_int_equal(p_today.nodes, 4);
	assert_string_equal(p_today.features, "[sn01|sn02]");
	assert_int_equal(p_today.num_tasks, SN_UNSET32);
	for (int i = 0; i < 2; i++) {
		const struct sn_job_plan *p = i ? &p_newer : &p_old;

		assert_int_equal(p->nodes, p_today.nodes);
		assert_int_equal(p->shared, p_today.shared);
		assert_string_equal(p->features, p_today.features);
		assert_int_equal(p->req_switch, p_today.req_switch);
		assert_int_equal(p->num_tasks, p_today.num_tasks);
	}
	free(p_today.features);
	free(p_old.features);
	free(p_newer.features);
	for (int i = 0; i < 5; i++) {
		free(newer[i]);
		if (i < 2)
			free(today[i]);
		if (i < 1)
			free(old[i]);
	}
	sn_config_free(cfg);
}

static void test_tasks_env(void **state)
{
	char *env[] = { strdup("SLURM_NTASKS=2"), NULL,
			strdup("SLURM_NPROCS=2"),
			strdup("SLURM_NTASKS_PER_NODE=2"), strdup("X=1") };

	(void)state;
	frees = 0;
	sn_submit_tasks_env(env, 5, 16, &ops);
	assert_int_equal(frees, 2);
	assert_string_equal(env[0], "SLURM_NTASKS=16");
	assert_null(env[1]);
	assert_string_equal(env[2], "SLURM_NPROCS=16");
	assert_string_equal(env[3], "SLURM_NTASKS_PER_NODE=2");
	assert_string_equal(env[4], "X=1");
	for (int i = 0; i < 5; i++)
		free(env[i]);
	sn_submit_tasks_env(NULL, 5, 16, &ops); /* no array: nothing */
}

/* sn_submit_check's verdict and the message it leaves in *err_msg. */
static void check(bool het, const struct sn_config *cfg, bool segments,
		  enum sn_submit_refusal want, const char *msg)
{
	struct sn_error cfg_err = { "cannot open: No such file: /x.yaml" };
	char *err_msg = strdup("earlier");

	assert_int_equal(sn_submit_check(het, cfg, &cfg_err, segments, &err_msg,
					 &ops),
			 want);
	assert_string_equal(err_msg, msg);
	free(err_msg);
}

static void test_check(void **state)
{
	struct sn_config cfg = { .method = SN_PLACE_SWITCH };

	(void)state;
	check(true, NULL, true, SN_SUBMIT_REFUSED_LAYOUT,
	      "supernode: --supernode cannot be used in a heterogeneous job: Slurm would apply it to every component; submit the supernode part as a job of its own");
	check(false, NULL, true, SN_SUBMIT_REFUSED_FEATURE,
	      "supernode: --supernode cannot be used now: the site config does not load (cannot open: No such file: /x.yaml); tell your admin");
	check(false, &cfg, false, SN_SUBMIT_OK, "earlier");
	cfg.method = SN_PLACE_BLOCK;
	check(false, &cfg, true, SN_SUBMIT_OK, "earlier");
	check(false, &cfg, false, SN_SUBMIT_REFUSED_FEATURE,
	      "supernode: placement.method 'block' needs Slurm 24.05 or later (topology/block with --segment); this plugin was built for an older Slurm");
	/* No err_msg to fill: the verdict alone. */
	assert_int_equal(sn_submit_check(true, &cfg, NULL, true, NULL, &ops),
			 SN_SUBMIT_REFUSED_LAYOUT);
}

/* A --supernode=2 job of 2-node supernodes, block method, as job_modify sees it. */
static const struct sn_job_shape placed = {
	.min_nodes = 4,
	.max_nodes = 4,
	.features = NULL,
	.req_nodes = NULL,
	.shared = SN_SHARED_NONE,
	.segment_size = 2,
	.req_switch = SN_UNSET32,
};

/* An update that asks for nothing (slurm_init_job_desc_msg's values). */
static struct sn_job_shape nothing(void)
{
	return (struct sn_job_shape){ .min_nodes = SN_UNSET32,
				      .max_nodes = SN_UNSET32,
				      .shared = SN_UNSET16,
				      .segment_size = SN_UNSET16,
				      .req_switch = SN_UNSET32 };
}

static void test_reshape(void **state)
{
	struct sn_job_shape u = nothing();

	(void)state;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u.segment_size = 0; /* pre-26.11 clients: 0 is "not given" */
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u.min_nodes = 2;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NODES);
	u.min_nodes = 4; /* the job's own count: no change */
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u.max_nodes = 6;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NODES);
	u = nothing();
	u.features = "sn01";
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_FEATURES);
	u.features = ""; /* clearing what the job does not have */
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u = nothing();
	u.req_nodes = "sna1";
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NODELIST);
	u = nothing();
	u.shared = SN_SHARED_OK;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_SHARED);
	u.shared = SN_SHARED_NONE;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u.segment_size = 1;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_SEGMENT);
	u.segment_size = 2;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NONE);
	u.req_switch = 1;
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_SWITCHES);
	/* The first reshaping field in the order of the enum is named. */
	u.min_nodes = 2;
	u.features = "x";
	assert_int_equal(sn_submit_reshape(&placed, &u), SN_RESHAPE_NODES);
}

static void test_reshape_features(void **state)
{
	struct sn_job_shape job = placed, u = nothing();

	(void)state;
	job.features = "[sn01|sn02]";
	u.features = "[sn01|sn02]";
	assert_int_equal(sn_submit_reshape(&job, &u), SN_RESHAPE_NONE);
	u.features = "";
	assert_int_equal(sn_submit_reshape(&job, &u), SN_RESHAPE_FEATURES);
	job.req_nodes = "sna[1-2]";
	u = nothing();
	u.req_nodes = "sna[1-2]";
	assert_int_equal(sn_submit_reshape(&job, &u), SN_RESHAPE_NONE);
	u.req_nodes = "";
	assert_int_equal(sn_submit_reshape(&job, &u), SN_RESHAPE_NODELIST);
}

static void test_reshape_refuse(void **state)
{
	char *err_msg = NULL;

	(void)state;
	sn_submit_reshape_refuse(SN_RESHAPE_NODES, "2", &err_msg, &ops);
	assert_string_equal(
		err_msg,
		"supernode: NumNodes cannot change on a --supernode=2 job: it was placed as whole, exclusive supernodes; cancel it and submit it again with the new request");
	sn_submit_reshape_refuse(SN_RESHAPE_SHARED, NULL, &err_msg, &ops);
	assert_string_equal(
		err_msg,
		"supernode: OverSubscribe cannot change on a --supernode=? job: it was placed as whole, exclusive supernodes; cancel it and submit it again with the new request");
	free(err_msg);
	assert_string_equal(sn_submit_reshape_field(SN_RESHAPE_FEATURES),
			    "Features");
	assert_string_equal(sn_submit_reshape_field(SN_RESHAPE_NODELIST),
			    "ReqNodeList");
	assert_string_equal(sn_submit_reshape_field(SN_RESHAPE_SEGMENT),
			    "Segment");
	assert_string_equal(sn_submit_reshape_field(SN_RESHAPE_SWITCHES),
			    "Switches");
	assert_string_equal(sn_submit_reshape_field((enum sn_reshape)42), "?");
	/* No err_msg (22.05's job_modify): nothing written, no crash. */
	sn_submit_reshape_refuse(SN_RESHAPE_NODES, "1", NULL, &ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_forged),
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_mixed_versions),
		cmocka_unit_test(test_tasks_env),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_reshape_features),
		cmocka_unit_test(test_reshape_refuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
