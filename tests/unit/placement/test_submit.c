/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * placement/submit.c: the decisions of spank/job_submit/ over a job
 * description's string arrays (forged SPANK entries stripped, the client
 * told, SLURM_NTASKS/SLURM_NPROCS rewritten) and its refusals, with the
 * exact messages slurmctld logs and returns.
 */
#include "unit.h"

#include "placement/sn_option.h"
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
		cmocka_unit_test(test_tasks_env),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_reshape_features),
		cmocka_unit_test(test_reshape_refuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
