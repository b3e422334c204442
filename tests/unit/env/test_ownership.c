/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who owns a variable of the job's environment (lib/env/ownership.c): the
 * one rule for step variables (SUPERNODE_*, MASTER_*) and task variables
 * (NCCL_*, UCX_*, ranks) alike, env.force on both, the Gloo rule, the
 * marker, --supernode-env modes and the show text.
 */
#include "unit.h"

#include "env/sn_ownership.h"

#define SUPERNODES "supernodes:\n  - {name: sn01, nodes: 'sna[1-2]'}\n"

static struct sn_config *cfg_load(const char *extra)
{
	char yaml[4096];
	struct sn_error err;
	struct sn_config *cfg;

	snprintf(yaml, sizeof(yaml), "%s%s", SUPERNODES, extra);
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("config: %s", err.msg);
	return cfg;
}

/* A marker that says we set name=value earlier. */
static char *marker_of(const char *name, const char *value)
{
	struct sn_ownership_var v = { .name = name,
				      .value = value,
				      .written = true };

	return sn_ownership_marker(NULL, &v, 1);
}

/* The rule for one variable (was sn_taskenv_decide; same cases). */
static void test_decide(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_config *forced = cfg_load("env:\n  force: [NCCL_IB_HCA]\n");
	char *m = marker_of("NCCL_IB_HCA", "=mlx5_0:1");
	const char *want = "=mlx5_0:1,mlx5_1:1";

	(void)state;
	assert_string_equal(m, "NCCL_IB_HCA=06be73e4");
	/* unset: set */
	assert_int_equal(sn_ownership_decide(cfg, "", "NCCL_IB_HCA", NULL,
					     want),
			 SN_OWN_SET);
	/* the user's own value stays ... */
	assert_int_equal(sn_ownership_decide(cfg, m, "NCCL_IB_HCA", "mlx5_5",
					     want),
			 SN_OWN_KEEP);
	assert_int_equal(sn_ownership_decide(cfg, NULL, "NCCL_IB_HCA", "",
					     want),
			 SN_OWN_KEEP);
	/* ... unless env.force names it */
	assert_int_equal(sn_ownership_decide(forced, m, "NCCL_IB_HCA", "mlx5_5",
					     want),
			 SN_OWN_FORCE);
	assert_int_equal(sn_ownership_decide(forced, m, "UCX_NET_DEVICES",
					     "mlx5_5:1", "mlx5_0:1"),
			 SN_OWN_KEEP);
	/* our earlier value is replaced, or removed when no longer wanted */
	assert_int_equal(sn_ownership_decide(cfg, m, "NCCL_IB_HCA", "=mlx5_0:1",
					     want),
			 SN_OWN_SET);
	assert_int_equal(sn_ownership_decide(cfg, m, "NCCL_IB_HCA", "=mlx5_0:1",
					     NULL),
			 SN_OWN_UNSET);
	assert_int_equal(sn_ownership_decide(forced, NULL, "NCCL_IB_HCA", "x",
					     NULL),
			 SN_OWN_KEEP);
	assert_int_equal(sn_ownership_decide(cfg, m, "NCCL_IB_HCA", NULL, NULL),
			 SN_OWN_NONE);
	/* set but not read whole (issue 9 item 12): it stays, even forced */
	assert_int_equal(sn_ownership_decide(cfg, m, "UCX_NET_DEVICES",
					     sn_env_unread, "mlx5_0:1"),
			 SN_OWN_KEEP);
	assert_int_equal(sn_ownership_decide(forced, m, "NCCL_IB_HCA",
					     sn_env_unread, want),
			 SN_OWN_KEEP);
	assert_int_equal(sn_ownership_decide(cfg, m, "NCCL_IB_HCA",
					     sn_env_unread, NULL),
			 SN_OWN_KEEP);
	/* the job's own value, for the adapters' "is it the user's?" */
	assert_true(sn_ownership_users(cfg, m, "NCCL_IB_HCA", "mlx5_5"));
	assert_false(sn_ownership_users(forced, m, "NCCL_IB_HCA", "mlx5_5"));
	assert_false(sn_ownership_users(cfg, m, "NCCL_IB_HCA", "=mlx5_0:1"));
	assert_false(sn_ownership_users(cfg, m, "NCCL_IB_HCA", NULL));
	assert_true(
		sn_ownership_users(forced, m, "NCCL_IB_HCA", sn_env_unread));
	free(m);
	sn_config_free(cfg);
	sn_config_free(forced);
}

/*
 * The marker: old entries of the planned names go (was
 * sn_taskenv_marker_merge), the written ones come in with their hash
 * (FNV-1a "a" = e40c292c).
 */
static void test_marker(void **state)
{
	struct sn_ownership_var v[] = {
		{ .name = "NCCL_IB_HCA", .value = "x" },
		{ .name = "RANK", .value = "a", .written = true },
	};
	char *s;

	(void)state;
	s = sn_ownership_marker(
		"SUPERNODE_NAME=00000001,NCCL_IB_HCA=00000002,MASTER_PORT=00000003",
		v, 2);
	assert_string_equal(
		s,
		"SUPERNODE_NAME=00000001,MASTER_PORT=00000003,RANK=e40c292c");
	free(s);
	v[1].written = false;
	s = sn_ownership_marker(NULL, v, 2);
	assert_string_equal(s, "");
	free(s);
	s = sn_ownership_marker("RANK=1,,bogus,NCCL_IB_HCA_X=2", v, 2);
	assert_string_equal(s, "NCCL_IB_HCA_X=2");
	free(s);
}

/*
 * A value to set that the job holds already, read whole, needs no call;
 * one that differs, is unread, or is not ours to set does.
 */
static void test_in_place(void **state)
{
	struct sn_ownership_var v[] = {
		{ .cur = "sn01", .value = "sn01", .action = SN_OWN_SET },
		{ .cur = "29500", .value = "29501", .action = SN_OWN_SET },
		{ .cur = NULL, .value = "0", .action = SN_OWN_SET },
		{ .cur = sn_env_unread, .value = "x", .action = SN_OWN_FORCE },
		{ .cur = "mlx5_0", .value = "mlx5_0", .action = SN_OWN_FORCE },
		{ .cur = "eth0", .value = "eth0", .action = SN_OWN_KEEP },
		{ .cur = "1", .value = NULL, .action = SN_OWN_UNSET },
	};
	static const bool want[] = { true, false, false, false,
				     true, false, false };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(sn_ownership_in_place(&v[i]), want[i]);
}

/*
 * Step variables (user_init): an inherited value of ours is replaced, the
 * user's stays, and env.force replaces it: the README's "the site can
 * force variables with env.force" holds for MASTER_PORT as for NCCL_*.
 * Before this rule, spank/remote_env.c never consulted env.force.
 */
static void test_plan_step(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_config *forced =
		cfg_load("env:\n  force: [MASTER_PORT, MASTER_ADDR]\n");
	char *m = marker_of("SUPERNODE_NODE_RANK", "0");
	struct sn_ownership_var v[] = {
		{ .name = "SUPERNODE_NODE_RANK", .cur = "0", .value = "1" },
		{ .name = "MASTER_PORT", .cur = "12345", .value = "21234" },
		{ .name = "MASTER_ADDR", .cur = sn_env_unread, .value = "sna1" },
		{ .name = "SUPERNODE_COUNT", .cur = NULL, .value = "1" },
	};
	char *s;

	(void)state;
	sn_ownership_plan(cfg, SN_ENV_AUTO, m, v, 4);
	assert_int_equal(v[0].action, SN_OWN_SET);
	assert_int_equal(v[1].action, SN_OWN_KEEP);
	assert_int_equal(v[2].action, SN_OWN_KEEP);
	assert_int_equal(v[3].action, SN_OWN_SET);
	sn_ownership_plan(forced, SN_ENV_AUTO, m, v, 4);
	assert_int_equal(v[0].action, SN_OWN_SET);
	assert_int_equal(v[1].action, SN_OWN_FORCE);
	assert_int_equal(v[2].action, SN_OWN_KEEP); /* unread: even forced */
	assert_int_equal(v[3].action, SN_OWN_SET);
	for (size_t i = 0; i < 4; i++)
		v[i].written = sn_ownership_writes(&v[i]);
	assert_true(v[1].written);
	assert_false(v[2].written);
	s = sn_ownership_marker(m, v, 4);
	/* FNV-1a: "1" 340ca71c, "21234" ce3d370d */
	assert_string_equal(
		s,
		"SUPERNODE_NODE_RANK=340ca71c,MASTER_PORT=ce3d370d,SUPERNODE_COUNT=340ca71c");
	/* the next step sees MASTER_PORT as ours: plain SET, no force needed */
	assert_int_equal(sn_ownership_decide(cfg, s, "MASTER_PORT", "21234",
					     "21235"),
			 SN_OWN_SET);
	free(s);
	free(m);
	sn_config_free(cfg);
	sn_config_free(forced);
}

/* Task variables (task_init): env.force, UNSET of ours, the Gloo rule. */
static void test_plan_task(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_config *forced =
		cfg_load("env:\n  force: [NCCL_IB_HCA, GLOO_SOCKET_IFNAME]\n");
	char *m = marker_of("NCCL_IB_GID_INDEX", "3");
	struct sn_ownership_var v[] = {
		{ .name = "NCCL_IB_HCA",
		  .cur = "mlx5_5",
		  .value = "=mlx5_0:1",
		  .why = "a" },
		{ .name = "NCCL_IB_GID_INDEX",
		  .cur = "3",
		  .value = NULL,
		  .why = "b" },
		{ .name = "NCCL_SOCKET_IFNAME",
		  .cur = "=eth9",
		  .value = "=bond0",
		  .why = "c" },
		{ .name = "GLOO_SOCKET_IFNAME",
		  .cur = NULL,
		  .value = "bond0",
		  .why = "d" },
	};

	(void)state;
	sn_ownership_plan(cfg, SN_ENV_SHOW, m, v, 4);
	assert_int_equal(v[0].action, SN_OWN_KEEP);
	assert_int_equal(v[1].action, SN_OWN_UNSET);
	assert_int_equal(v[2].action, SN_OWN_KEEP);
	assert_int_equal(v[3].action, SN_OWN_NONE);
	assert_string_equal(
		v[3].why, "not set: the job chose its own NCCL_SOCKET_IFNAME");
	assert_string_equal(v[1].why, "b");
	/* forced: replaced; Gloo forced over the job's own value stays forced */
	v[3].cur = "eth0";
	v[3].why = "d";
	sn_ownership_plan(forced, SN_ENV_AUTO, m, v, 4);
	assert_int_equal(v[0].action, SN_OWN_FORCE);
	assert_int_equal(v[1].action, SN_OWN_UNSET);
	assert_int_equal(v[2].action, SN_OWN_KEEP);
	assert_int_equal(v[3].action, SN_OWN_FORCE);
	assert_string_equal(v[3].why, "d");
	/* our NCCL_SOCKET_IFNAME: Gloo follows it */
	v[2].cur = NULL;
	v[3].cur = NULL;
	sn_ownership_plan(cfg, SN_ENV_AUTO, m, v, 4);
	assert_int_equal(v[2].action, SN_OWN_SET);
	assert_int_equal(v[3].action, SN_OWN_SET);
	/* --supernode-env=none: nothing, whatever the rest says */
	sn_ownership_plan(forced, SN_ENV_NONE, m, v, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(v[i].action, SN_OWN_NONE);
		assert_string_equal(v[i].why, "--supernode-env=none");
		assert_false(sn_ownership_writes(&v[i]));
	}
	free(m);
	sn_config_free(cfg);
	sn_config_free(forced);
}

static void test_mode(void **state)
{
	enum sn_env_mode mode = SN_ENV_AUTO;

	(void)state;
	assert_int_equal(sn_ownership_mode_parse("show", &mode), 0);
	assert_int_equal(mode, SN_ENV_SHOW);
	assert_int_equal(sn_ownership_mode_parse("none", &mode), 0);
	assert_int_equal(mode, SN_ENV_NONE);
	assert_int_equal(sn_ownership_mode_parse("auto", &mode), 0);
	assert_int_equal(mode, SN_ENV_AUTO);
	assert_int_equal(sn_ownership_mode_parse("Auto", &mode), -1);
	assert_int_equal(sn_ownership_mode_parse(" none", &mode), -1);
	assert_int_equal(sn_ownership_mode_parse("", &mode), -1);
	assert_int_equal(sn_ownership_mode_parse(NULL, &mode), -1);
	assert_int_equal(mode, SN_ENV_AUTO);
	assert_string_equal(sn_ownership_mode_name(SN_ENV_SHOW), "show");
	assert_string_equal(sn_ownership_mode_name((enum sn_env_mode)7), "?");
	assert_true(sn_ownership_active(true, SN_ENV_AUTO));
	assert_true(sn_ownership_active(true, SN_ENV_SHOW));
	assert_false(sn_ownership_active(true, SN_ENV_NONE));
	assert_false(sn_ownership_active(false, SN_ENV_AUTO));
}

/* --supernode-env=MODE at submission (refused) and in a step (auto). */
static void test_mode_option(void **state)
{
	enum sn_env_mode mode = SN_ENV_AUTO;
	struct sn_error err;

	(void)state;
	assert_int_equal(sn_ownership_mode_option("show", false, &mode, &err),
			 0);
	assert_int_equal(mode, SN_ENV_SHOW);
	assert_int_equal(sn_ownership_mode_option("none", true, &mode, &err),
			 0);
	assert_int_equal(mode, SN_ENV_NONE);
	assert_int_equal(sn_ownership_mode_option("Show", false, &mode, &err),
			 -1);
	assert_string_equal(
		err.msg, "--supernode-env=Show: expected auto, none or show");
	assert_int_equal(sn_ownership_mode_option("x", true, &mode, &err), 1);
	assert_string_equal(
		err.msg,
		"--supernode-env=x: expected auto, none or show; using auto");
	assert_int_equal(sn_ownership_mode_option(NULL, false, &mode, &err),
			 -1);
	assert_string_equal(err.msg,
			    "--supernode-env=: expected auto, none or show");
	assert_int_equal(mode, SN_ENV_NONE); /* refusals leave it */
}

/* A step's mode from SLURM_SPANK_SUPERNODE_ENV, unless its own was given. */
static void test_mode_inherit(void **state)
{
	enum sn_env_mode mode = SN_ENV_AUTO;
	char long_value[100];
	struct sn_error err;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_ownership_mode_inherit(false, NULL, &mode, &err),
			 0);
	assert_int_equal(mode, SN_ENV_AUTO);
	assert_int_equal(sn_ownership_mode_inherit(true, "show", &mode, &err),
			 0);
	assert_int_equal(mode, SN_ENV_AUTO); /* the step's own stands */
	assert_int_equal(sn_ownership_mode_inherit(true, "bad", &mode, &err),
			 0);
	assert_string_equal(err.msg, "(unset)");
	assert_int_equal(sn_ownership_mode_inherit(false, "show", &mode, &err),
			 0);
	assert_int_equal(mode, SN_ENV_SHOW);
	assert_int_equal(sn_ownership_mode_inherit(false, "bad", &mode, &err),
			 -1);
	assert_int_equal(mode, SN_ENV_SHOW);
	assert_string_equal(
		err.msg,
		"SLURM_SPANK_SUPERNODE_ENV=bad: expected auto, none or show; using auto");
	memset(long_value, 'y', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	assert_int_equal(
		sn_ownership_mode_inherit(false, long_value, &mode, &err), -1);
	assert_int_equal(
		strlen(err.msg),
		strlen("SLURM_SPANK_SUPERNODE_ENV=") + 64 +
			strlen(": expected auto, none or show; using auto"));
}

static void show_is(const struct sn_ownership_var *v, const char *want)
{
	char *s = sn_ownership_show(v);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_show(void **state)
{
	struct sn_ownership_var v = { .name = "NCCL_IB_HCA",
				      .cur = "mlx5_5",
				      .value = "=mlx5_0:1",
				      .why = "ports" };
	char *m = marker_of("MASTER_PORT", "21234");
	char long_cur[1000];

	(void)state;
	v.action = SN_OWN_SET;
	show_is(&v, "NCCL_IB_HCA==mlx5_0:1 (ports)");
	v.action = SN_OWN_FORCE;
	show_is(&v,
		"NCCL_IB_HCA==mlx5_0:1 (ports; env.force: replaced the job's 'mlx5_5')");
	v.action = SN_OWN_KEEP;
	show_is(&v, "NCCL_IB_HCA=mlx5_5 (kept: user set it)");
	v.action = SN_OWN_UNSET;
	show_is(&v, "NCCL_IB_HCA not set (ports)");
	v.action = SN_OWN_NONE;
	show_is(&v, "NCCL_IB_HCA not set (ports)");
	/* a kept value is shown up to 400 bytes */
	memset(long_cur, 'x', sizeof(long_cur) - 1);
	long_cur[sizeof(long_cur) - 1] = '\0';
	v.cur = long_cur;
	v.action = SN_OWN_KEEP;
	{
		char *s = sn_ownership_show(&v);

		assert_int_equal(strlen(s),
				 strlen("NCCL_IB_HCA=") + 400 +
					 strlen(" (kept: user set it)"));
		free(s);
	}
	/* step variables as a task sees them */
	v = (struct sn_ownership_var){ .name = "MASTER_PORT", .cur = "21234" };
	sn_ownership_observe(m, "the port", &v);
	show_is(&v, "MASTER_PORT=21234 (the port)");
	v.cur = "4000";
	sn_ownership_observe(m, "the port", &v);
	show_is(&v, "MASTER_PORT=4000 (kept: user set it)");
	v.cur = NULL;
	sn_ownership_observe(m, "the port", &v);
	show_is(&v,
		"MASTER_PORT not set (see the plugin's error in the job's output or slurmd log)");
	assert_string_equal(sn_ownership_step_vars[7][0], "MASTER_PORT");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_marker),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_plan_step),
		cmocka_unit_test(test_plan_task),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_mode_option),
		cmocka_unit_test(test_mode_inherit),
		cmocka_unit_test(test_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
