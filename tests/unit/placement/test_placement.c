/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_placement_plan: a --supernode request against 3 supernodes of 2 nodes
 * (sn01 = sna[1-2], sn02 = snb[1-2], sn03 = snc[1-2]), for each method.
 */
#include "unit.h"

#include "placement/sn_placement.h"

#define SUPERNODES3                             \
	"supernodes:\n"                         \
	"  - {name: sn01, nodes: 'sna[1-2]'}\n" \
	"  - {name: sn02, nodes: 'snb[1-2]'}\n" \
	"  - {name: sn03, nodes: 'snc[1-2]'}\n"

#define ALL3 "[sn01|sn02|sn03]"

static struct sn_config *cfg_load(const char *yaml)
{
	struct sn_config *cfg;
	struct sn_error err;

	cfg = sn_config_load_buffer("placement.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

static int setup_feature(void **state)
{
	*state = cfg_load(SUPERNODES3 "placement: {method: feature}\n");
	return 0;
}

static int setup_switch(void **state)
{
	*state = cfg_load(SUPERNODES3 "placement: {method: switch}\n");
	return 0;
}

static int setup_block(void **state)
{
	*state = cfg_load(SUPERNODES3 "placement: {method: block}\n");
	return 0;
}

static int teardown(void **state)
{
	sn_config_free(*state);
	return 0;
}

/* A request for n supernodes with nothing else given. */
static struct sn_job_request req_n(uint32_t n)
{
	struct sn_job_request r = {
		.supernodes = n,
		.min_nodes = SN_UNSET32,
		.max_nodes = SN_UNSET32,
		.shared = SN_UNSET16,
		.req_switch = SN_UNSET32,
		.num_tasks = SN_UNSET32,
		.ntasks_per_node = SN_UNSET16,
	};

	return r;
}

/* Planned; the caller frees plan->features. */
static void planned(const struct sn_config *cfg,
		    const struct sn_job_request *req, struct sn_job_plan *plan)
{
	struct sn_error err;

	err_reset(&err);
	if (sn_placement_plan(cfg, req, plan, &err))
		fail_msg("refused: %s", err.msg);
}

/* Planned with exactly these features (a feature-method plan of N=1). */
static void plans_features(const struct sn_config *cfg,
			   const struct sn_job_request *req, const char *want)
{
	struct sn_job_plan plan;

	planned(cfg, req, &plan);
	assert_int_equal(plan.nodes, 2);
	assert_int_equal(plan.shared, SN_SHARED_NONE);
	assert_non_null(plan.features);
	assert_string_equal(plan.features, want);
	assert_int_equal(plan.req_switch, SN_UNSET32);
	assert_int_equal(plan.wait4switch, SN_UNSET32);
	assert_int_equal(plan.segment_size, 0);
	free(plan.features);
}

/* Refused with every fragment in the message, and no features left. */
static void refused(const struct sn_config *cfg,
		    const struct sn_job_request *req, const char *const *frags)
{
	struct sn_job_plan plan;
	struct sn_error err;

	err_reset(&err);
	memset(&plan, 0x5a, sizeof(plan));
	if (!sn_placement_plan(cfg, req, &plan, &err)) {
		fail_msg("planned: nodes %u features %s", plan.nodes,
			 plan.features ? plan.features : "(NULL)");
	}
	assert_null(plan.features);
	for (; *frags; frags++)
		assert_contains(err.msg, *frags);
}

#define REFUSED(cfg, req, ...) \
	refused(cfg, req, (const char *const[]){ __VA_ARGS__, NULL })

/* ---- feature method ---------------------------------------------------- */

static void test_plain(void **state)
{
	struct sn_job_request r = req_n(1);

	plans_features(*state, &r, ALL3);
}

static void test_n_refused(void **state)
{
	struct sn_job_request r = req_n(2);

	/* feature places one supernode per job: say where to go instead */
	REFUSED(*state, &r,
		"--supernode=2: this cluster's placement.method is 'feature', which places one supernode per job",
		"placement.method 'switch'");
	r = req_n(0);
	REFUSED(*state, &r, "--supernode=0 is out of range (allowed: 1 to 3)");
	r = req_n(4);
	REFUSED(*state, &r, "--supernode=4 is out of range (allowed: 1 to 3)");
	r = req_n(UINT32_MAX);
	REFUSED(*state, &r, "--supernode=4294967295 is out of range");
}

static void test_max_supernodes_config(void **state)
{
	struct sn_config *cfg = cfg_load(
		SUPERNODES3 "placement: {method: switch, max_supernodes: 2}\n");
	struct sn_job_request r = req_n(3);
	struct sn_job_plan plan;

	(void)state;
	REFUSED(cfg, &r, "--supernode=3 is out of range (allowed: 1 to 2)");
	r = req_n(2);
	planned(cfg, &r, &plan);
	assert_int_equal(plan.nodes, 4);
	sn_config_free(cfg);
}

static void test_nodes(void **state)
{
	struct sn_job_request r = req_n(1);

	r.min_nodes = r.max_nodes = 2; /* -N 2 */
	plans_features(*state, &r, ALL3);
	r.max_nodes = SN_UNSET32; /* min only */
	plans_features(*state, &r, ALL3);
	r.min_nodes = 1; /* -N 1-4 */
	r.max_nodes = 4;
	plans_features(*state, &r, ALL3);
	r.min_nodes = r.max_nodes = 3; /* -N 3 */
	REFUSED(*state, &r,
		"--nodes=3 cannot be combined with --supernode=1: that is 1 whole supernode(s) of 2 nodes = 2 nodes (leave out --nodes, or give --nodes=2)");
	r.min_nodes = 3; /* -N 3-4 */
	r.max_nodes = 4;
	REFUSED(*state, &r, "--nodes=3-4 cannot be combined", "--nodes=2");
	r.min_nodes = r.max_nodes = 1; /* -N 1 */
	REFUSED(*state, &r, "--nodes=1 cannot be combined", "--nodes=2");
}

/*
 * sbatch/srun turn --nodelist of k hosts without -N into -N k: that count
 * is Slurm's, and the plan grows it to the whole supernode.
 */
static void test_nodes_from_nodelist(void **state)
{
	struct sn_job_request r = req_n(1);

	r.req_nodes = "snb1";
	r.min_nodes = r.max_nodes = 1; /* derived -N 1 */
	plans_features(*state, &r, "sn02");
	r.max_nodes = SN_UNSET32;
	plans_features(*state, &r, "sn02");
	r.max_nodes = 0;
	plans_features(*state, &r, "sn02");
	r.req_nodes = "snb[1-2]"; /* -N 2: fits anyway */
	r.min_nodes = r.max_nodes = 2;
	plans_features(*state, &r, "sn02");
	/* a count that is not the nodelist's stays the user's */
	r.req_nodes = "snb1";
	r.min_nodes = r.max_nodes = 3;
	REFUSED(*state, &r, "--nodes=3 cannot be combined", "--nodes=2");
	r.req_nodes = "snb[1-2]";
	r.min_nodes = r.max_nodes = 1;
	REFUSED(*state, &r, "--nodes=1 cannot be combined", "--nodes=2");
	r.req_nodes = "snb1";
	r.min_nodes = 1;
	r.max_nodes = 3; /* -N 1-3 covers 2 */
	plans_features(*state, &r, "sn02");
}

/*
 * Tasks: srun's first job step is laid out from srun's own count, so fewer
 * tasks than nodes is refused there (slurmctld 22.05 died of SIGFPE in
 * step_create on such a step); sbatch and salloc keep the user's count,
 * and a count the client derived from --ntasks-per-node is scaled.  From
 * 26.05 slurmctld refuses fewer tasks than nodes for sbatch too.
 */
static void test_tasks(void **state)
{
	struct sn_job_request r = req_n(1);
	struct sn_job_plan plan;

	r.client = SN_CLIENT_SRUN;
	r.num_tasks = 1; /* srun -n1 */
	REFUSED(*state, &r,
		"--ntasks=1 cannot be combined with --supernode=1: that is 2 nodes, and srun would start its job step with nodes that have no task (give --ntasks=2 or more, or run this srun inside 'salloc --supernode=1')");
	r.min_nodes = r.max_nodes = 1; /* srun -n1, -N from env */
	REFUSED(*state, &r, "--ntasks=1 cannot be combined with --supernode=1");
	r.min_nodes = r.max_nodes = SN_UNSET32;
	r.num_tasks = 2; /* srun -n2 */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32); /* left as given */
	assert_int_equal(plan.nodes, 2);
	free(plan.features);
	r.num_tasks = 5; /* srun -n5 */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	free(plan.features);
	r.num_tasks = 1; /* srun --ntasks-per-node=1 */
	r.ntasks_per_node = 1;
	REFUSED(*state, &r,
		"--ntasks-per-node=1 cannot be combined with --supernode=1 here: srun counted 1 task(s) for 1 node(s) before the allocation became 2 nodes (give --nodes=2)");
	r.min_nodes = r.max_nodes = 2; /* ... -N 2 */
	r.num_tasks = 2;
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	free(plan.features);

	r = req_n(1);
	r.client = SN_CLIENT_ALLOC; /* salloc -n1 */
	r.num_tasks = 1;
	REFUSED(*state, &r,
		"--ntasks=1 cannot be combined with --supernode=1: that is 2 nodes, and Slurm raises the job's task count to its node count, so its steps would run 2 tasks (give --ntasks=2 or more, or use sbatch)");
	r.ntasks_per_node = 1; /* salloc --ntasks-per-node=1 */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, 2);
	free(plan.features);

	r = req_n(1);	 /* sbatch */
	r.num_tasks = 1; /* -n1: allowed */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	free(plan.features);
	r.few_tasks_refused = 1; /* ... but not where slurmctld refuses it */
	REFUSED(*state, &r,
		"--ntasks=1 cannot be combined with --supernode=1: that is 2 nodes, and this Slurm refuses a job with fewer tasks than nodes (give --ntasks=2 or more)");
	r.num_tasks = 2; /* -n2 there: allowed */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	free(plan.features);
	r.few_tasks_refused = 0;
	r.ntasks_per_node = 4; /* --ntasks-per-node=4 */
	r.num_tasks = 4;
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, 8); /* 2 nodes x 4 */
	free(plan.features);
	r.num_tasks = 6; /* -n6 given: the user's */
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	free(plan.features);
	r.req_nodes = "snb1"; /* -w snb1: derived -N 1 */
	r.min_nodes = r.max_nodes = 1;
	r.num_tasks = 4;
	planned(*state, &r, &plan);
	assert_int_equal(plan.num_tasks, 8);
	assert_string_equal(plan.features, "sn02");
	free(plan.features);
}

static void test_shared(void **state)
{
	struct sn_job_request r = req_n(1);

	r.shared = SN_SHARED_OK; /* --oversubscribe */
	REFUSED(*state, &r,
		"--oversubscribe cannot be combined with --supernode=1: a supernode job has its supernodes to itself (exclusive)");
	/* --exclusive=user, --exclusive=mcs, --exclusive: all become 0 */
	r.shared = SN_SHARED_USER;
	plans_features(*state, &r, ALL3);
	r.shared = SN_SHARED_MCS;
	plans_features(*state, &r, ALL3);
	r.shared = SN_SHARED_NONE;
	plans_features(*state, &r, ALL3);
}

static void test_constraint(void **state)
{
	struct sn_job_request r = req_n(1);

	r.features = "intel";
	plans_features(*state, &r, "intel&" ALL3);
	r.features = "a|b";
	plans_features(*state, &r, "(a|b)&" ALL3);
	r.features = "a&b";
	plans_features(*state, &r, "a&b&" ALL3);
	r.features = "";
	plans_features(*state, &r, ALL3);
	r.features = "[x|y]";
	REFUSED(*state, &r,
		"--constraint=[x|y] cannot be combined with --supernode: it uses brackets or counts");
	r.features = "a*2";
	REFUSED(*state, &r,
		"--constraint=a*2 cannot be combined with --supernode");
	r.features = "a]";
	REFUSED(*state, &r, "--constraint=a] cannot be combined");
}

static void test_nodelist(void **state)
{
	struct sn_job_request r = req_n(1);

	r.req_nodes = "snb1";
	plans_features(*state, &r, "sn02");
	r.req_nodes = "snb[1-2]";
	plans_features(*state, &r, "sn02");
	r.features = "intel";
	r.req_nodes = "snc2";
	plans_features(*state, &r, "intel&sn03");
	r.features = NULL;
	r.req_nodes = "";
	plans_features(*state, &r, ALL3);
	r.req_nodes = "sna1,snb1";
	REFUSED(*state, &r,
		"--nodelist=sna1,snb1 spans 2 supernodes, but --supernode=1 gets exactly one");
	r.req_nodes = "sna1,snb1,snc1";
	REFUSED(*state, &r, "spans 3 supernodes");
	r.req_nodes = "unknown1";
	REFUSED(*state, &r,
		"--nodelist: node unknown1 is in no supernode, so it cannot be part of a --supernode job");
	r.req_nodes = "sna[1-";
	REFUSED(*state, &r,
		"--nodelist=sna[1-: cannot parse nodelist 'sna[1-'");
}

static void test_exclude(void **state)
{
	struct sn_job_request r = req_n(1);

	r.exc_nodes = "sna2";
	plans_features(*state, &r, "[sn02|sn03]");
	r.exc_nodes = "sna1,snb1";
	plans_features(*state, &r, "sn03");
	/* a node in no supernode takes nothing away */
	r.exc_nodes = "login1,sna2";
	plans_features(*state, &r, "[sn02|sn03]");
	r.exc_nodes = "sna1,snb1,snc1";
	REFUSED(*state, &r,
		"--nodelist/--exclude leave no whole supernode for --supernode=1");
	r.exc_nodes = "x],y";
	REFUSED(*state, &r, "--exclude=x],y: cannot parse nodelist 'x],y'");
	/* --nodelist and --exclude together */
	r.req_nodes = "snb1";
	r.exc_nodes = "snb2";
	REFUSED(*state, &r, "leave no whole supernode");
	r.exc_nodes = "snc1";
	plans_features(*state, &r, "sn02");
}

/*
 * A list of 65536 hosts (0.5 MB with names of 8 bytes) costs slurmctld
 * 0.26-0.58 s when expanded (issue 17, item 12); lists longer than
 * the config's 6 nodes are refused by their count, before Slurm expands
 * anything (timing: tests/bench/hostlist_submit.c).
 */
static char *repeated(const char *name, size_t bytes)
{
	size_t len = strlen(name) + 1, n = bytes / len;
	char *s = malloc(n * len + 1), *p = s;

	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? "," : "", name);
	return s;
}

static void test_hostlist_bound(void **state)
{
	struct sn_job_request r = req_n(1);
	char *list = repeated("sna1", 65536 * 5);

	/* 65536 times one node of sn01: was expanded, then planned */
	r.req_nodes = list;
	REFUSED(*state, &r,
		"--nodelist names 65536 hosts, more than the 6 nodes of all supernodes in the config: a --supernode job runs only on those, so list only them");
	free(list);
	/* 0.5 MB of a node in no supernode: was expanded, then planned */
	list = repeated("cpu00001", 65536 * 9);
	assert_true(strlen(list) > 500000);
	r.req_nodes = NULL;
	r.exc_nodes = list;
	REFUSED(*state, &r,
		"--exclude names 65536 hosts, more than the 6 nodes of all supernodes in the config");
	free(list);
	/* sbatch derives -N from the list: the list is named, not -N */
	list = repeated("sn000001", 65536 * 9);
	r = req_n(1);
	r.min_nodes = r.max_nodes = 65536;
	r.req_nodes = list;
	REFUSED(*state, &r,
		"--nodelist names 65536 hosts, more than the 6 nodes");
	free(list);
	r = req_n(1);
	r.req_nodes = "sna[1-2],snb1,snb2,snc1,snc2,sna1";
	REFUSED(*state, &r, "--nodelist names 7 hosts, more than the 6 nodes");
	r.req_nodes = "sna[1-2],snb1,snb2,snc1,snc2";
	REFUSED(*state, &r, "spans 3 supernodes");
}

/*
 * Regression: supernodes of 256 nodes or more.  A per-supernode counter of
 * unsigned char wrapped to 0 at the 256th node, so --nodelist naming a whole
 * 256-node supernode left no supernode at all.
 */
static void test_big_supernodes(void **state)
{
	struct sn_config *cfg = cfg_load("supernodes:\n"
					 "  - {name: x, nodes: 'x[0-299]'}\n"
					 "  - {name: y, nodes: 'y[0-299]'}\n");
	struct sn_job_plan plan;
	struct sn_job_request r;

	(void)state;
	r = req_n(1);
	r.req_nodes = "x[0-255]";
	planned(cfg, &r, &plan);
	assert_int_equal(plan.nodes, 300);
	assert_string_equal(plan.features, "x");
	free(plan.features);
	r.req_nodes = "x[0-299]";
	planned(cfg, &r, &plan);
	assert_string_equal(plan.features, "x");
	free(plan.features);
	r.req_nodes = "x[0-299],y0";
	REFUSED(cfg, &r, "spans 2 supernodes");
	r.req_nodes = NULL;
	r.exc_nodes = "x[0-255]";
	planned(cfg, &r, &plan);
	assert_string_equal(plan.features, "y");
	free(plan.features);
	sn_config_free(cfg);
}

/* ---- switch and block methods ------------------------------------------ */

static void test_switch(void **state)
{
	struct sn_job_request r = req_n(2);
	struct sn_job_plan plan;

	planned(*state, &r, &plan);
	assert_int_equal(plan.nodes, 4);
	assert_int_equal(plan.shared, SN_SHARED_NONE);
	assert_int_equal(plan.req_switch, 2);
	assert_int_equal(plan.wait4switch, 300);
	assert_null(plan.features); /* --constraint untouched */
	assert_int_equal(plan.segment_size, 0);

	r = req_n(3);
	r.req_switch = 3;     /* the matching --switches */
	r.features = "[x|y]"; /* left to Slurm */
	planned(*state, &r, &plan);
	assert_int_equal(plan.nodes, 6);
	assert_int_equal(plan.req_switch, 3);
	assert_null(plan.features);

	r = req_n(2);
	r.req_switch = 1;
	REFUSED(*state, &r,
		"--switches=1 cannot be combined with --supernode=2: each supernode is one leaf switch, so the job needs exactly 2");
	r = req_n(1);
	r.shared = SN_SHARED_OK;
	REFUSED(*state, &r, "--oversubscribe cannot be combined");
	r = req_n(2);
	r.min_nodes = r.max_nodes = 2;
	REFUSED(*state, &r, "--nodes=2 cannot be combined with --supernode=2",
		"= 4 nodes", "--nodes=4");
	r.req_nodes = "sna1,snb1"; /* derived -N 2 from 2 hosts */
	planned(*state, &r, &plan);
	assert_int_equal(plan.nodes, 4);
	assert_int_equal(plan.req_switch, 2);
	r = req_n(1); /* 2 supernodes' hosts for 1 */
	r.req_nodes = "sna1,snb1";
	REFUSED(*state, &r,
		"--nodelist=sna1,snb1 spans 2 supernodes, but --supernode=1 gets exactly 1");
	r.req_nodes = "bogus1";
	REFUSED(*state, &r,
		"--nodelist: node bogus1 is in no supernode, so it cannot be part of a --supernode job");
}

static void test_switch_wait_config(void **state)
{
	struct sn_config *cfg = cfg_load(
		SUPERNODES3 "placement: {method: switch, switch_wait: 600}\n");
	struct sn_job_request r = req_n(1);
	struct sn_job_plan plan;

	(void)state;
	planned(cfg, &r, &plan);
	assert_int_equal(plan.nodes, 2);
	assert_int_equal(plan.req_switch, 1);
	assert_int_equal(plan.wait4switch, 600);
	sn_config_free(cfg);
}

/*
 * Block: N whole blocks of whole nodes, --exclusive (0) like the other
 * methods, not --exclusive=topo (Slurm's job_desc.shared holds one value,
 * and topo alone holds only the CPUs asked for).
 */
static void test_block(void **state)
{
	struct sn_job_request r = req_n(2);
	struct sn_job_plan plan;

	planned(*state, &r, &plan);
	assert_int_equal(plan.nodes, 4);
	assert_int_equal(plan.segment_size, 2);
	assert_int_equal(plan.shared, SN_SHARED_NONE);
	assert_int_equal(plan.shared, 0);
	assert_null(plan.features);
	assert_int_equal(plan.req_switch, SN_UNSET32);
	assert_int_equal(plan.wait4switch, SN_UNSET32);
	assert_int_equal(plan.num_tasks, SN_UNSET32);
	r.shared = SN_SHARED_USER; /* --exclusive=user becomes --exclusive */
	planned(*state, &r, &plan);
	assert_int_equal(plan.shared, 0);
	r = req_n(1);
	r.req_nodes = "snb2"; /* Slurm grows it to the block sn02 */
	r.min_nodes = 1;
	planned(*state, &r, &plan);
	assert_int_equal(plan.nodes, 2);
	assert_int_equal(plan.segment_size, 2);
	r.req_nodes = "sna1,snb1";
	r.min_nodes = 2;
	REFUSED(*state, &r,
		"--nodelist=sna1,snb1 spans 2 supernodes, but --supernode=1 gets exactly 1");
	r = req_n(2);
	r.req_nodes = "sna[1-2],snb[1-2]";
	REFUSED(*state, &r,
		"--nodelist cannot be combined with --supernode=2 under placement.method 'block': Slurm's topology/block places no segments around required nodes (give --supernode=1, or leave out --nodelist)");
	r = req_n(3);
	r.min_nodes = 4;
	REFUSED(*state, &r,
		"--nodes=4 cannot be combined with --supernode=3: that is 3 whole supernode(s) of 2 nodes = 6 nodes (leave out --nodes, or give --nodes=6)");
	r = req_n(2);
	r.shared = SN_SHARED_OK;
	REFUSED(*state, &r, "--oversubscribe cannot be combined");
}

/* Block with supernodes of 4: the segment is the supernode size. */
static void test_block_size4(void **state)
{
	const char *yaml = "supernodes:\n"
			   "  - {name: sn01, nodes: 'n[01-04]'}\n"
			   "  - {name: sn02, nodes: 'n[05-08]'}\n"
			   "placement: {method: block}\n";
	struct sn_config *cfg = cfg_load(yaml);
	struct sn_job_request r = req_n(2);
	struct sn_job_plan plan;

	(void)state;
	planned(cfg, &r, &plan);
	assert_int_equal(plan.nodes, 8);
	assert_int_equal(plan.segment_size, 4);
	assert_int_equal(plan.shared, 0);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_n_refused, setup_feature,
						teardown),
		cmocka_unit_test(test_max_supernodes_config),
		cmocka_unit_test_setup_teardown(test_nodes, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_nodes_from_nodelist,
						setup_feature, teardown),
		cmocka_unit_test_setup_teardown(test_tasks, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_shared, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_constraint, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_nodelist, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_exclude, setup_feature,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostlist_bound,
						setup_feature, teardown),
		cmocka_unit_test(test_big_supernodes),
		cmocka_unit_test_setup_teardown(test_switch, setup_switch,
						teardown),
		cmocka_unit_test(test_switch_wait_config),
		cmocka_unit_test(test_block_size4),
		cmocka_unit_test_setup_teardown(test_block, setup_block,
						teardown),
	};

	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
