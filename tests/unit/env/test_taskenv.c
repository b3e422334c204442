/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-task environment (lib/taskenv.c): nearest NICs per local rank on
 * real hwloc exports (fixtures/hwloc),
 * field cases 4 (NCCL_IB_HCA exact form) and 5 (NCCL_SOCKET_IFNAME exact
 * form), the RoCE GID index, CUDA_VISIBLE_DEVICES (the ownership rule: test_ownership.c).
 */
#include <unistd.h>

#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "env/sn_taskenv.h"

#define HWLOC SN_FIXTURES "/hwloc/"
#define JUWELS HWLOC "jwb0001-juwels-booster-4xA100-4xCX6.xml"
#define IPA20 HWLOC "ipa20-4xH100-4xCX6-CX7.xml"

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

/* n ACTIVE InfiniBand HCAs mlx5_0..mlx5_<n-1>, port 1. */
static void hcas(const struct tree *t, unsigned n)
{
	char dev[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%u", i);
		ib_port_files(t, dev, 1, "4: ACTIVE", "5: LinkUp",
			      "200 Gb/sec (4X HDR)", "InfiniBand");
	}
}

static void gather(const struct sn_config *cfg, const struct tree *t,
		   const char *xml, struct sn_taskenv_node *node)
{
	sn_taskenv_node_gather(cfg, t->root, xml, xml != NULL, node);
	if (xml && !node->topo.valid)
		fail_msg("%s", node->topo_note);
}

static struct sn_taskenv_task task_of(uint32_t local, uint32_t local_size)
{
	struct sn_taskenv_task t = { 0 };

	t.local_rank = local;
	t.local_size = local_size;
	t.global_rank = 10 + local;
	t.world_size = 16;
	return t;
}

/* The value of name ("(unset)" when not set). */
static const char *val(const struct sn_taskenv *env, const char *name)
{
	const struct sn_taskenv_var *v = sn_taskenv_find(env, name);

	return v && v->value ? v->value : "(unset)";
}

static const char *why(const struct sn_taskenv *env, const char *name)
{
	const struct sn_taskenv_var *v = sn_taskenv_find(env, name);

	return v ? v->why : "(no entry)";
}

static void build(const struct sn_config *cfg,
		  const struct sn_taskenv_node *node,
		  const struct sn_taskenv_task *task, struct sn_taskenv *env)
{
	assert_int_equal(sn_taskenv_build(cfg, node, task, env), 0);
	assert_null(sn_taskenv_find(env, "NCCL_TOPO_FILE"));
	assert_null(sn_taskenv_find(env, "NCCL_GRAPH_FILE"));
}

/* ---- nearest NIC per local rank ------------------------------------------ */

/* JUWELS Booster: 4 A100, 4 HDR HCAs, one under each GPU's PCIe switch. */
static void test_juwels_local_ranks(void **state)
{
	static const char *const want[] = { "mlx5_1:1", "mlx5_0:1", "mlx5_3:1",
					    "mlx5_2:1" };
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 4);
	gather(cfg, &t, JUWELS, &node);
	assert_int_equal(node.topo.n_accels, 4);
	for (uint32_t r = 0; r < 4; r++) {
		struct sn_taskenv_task task = task_of(r, 4);
		char s[16];

		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), want[r]);
		assert_string_equal(val(&env, "NCCL_IB_HCA"),
				    "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
		assert_contains(why(&env, "NCCL_IB_HCA"),
				"ACTIVE InfiniBand/RoCE ports of this node");
		snprintf(s, sizeof(s), "%u", r);
		assert_string_equal(val(&env, "LOCAL_RANK"), s);
		snprintf(s, sizeof(s), "%u", 10 + r);
		assert_string_equal(val(&env, "RANK"), s);
		assert_string_equal(val(&env, "WORLD_SIZE"), "16");
		assert_string_equal(val(&env, "LOCAL_WORLD_SIZE"), "4");
		assert_contains(env.accels_why, "one per task");
		/* InfiniBand only: no GID index, no entry */
		assert_null(sn_taskenv_find(&env, "NCCL_IB_GID_INDEX"));
		assert_null(sn_taskenv_find(&env, "NCCL_MNNVL_ENABLE"));
		sn_taskenv_free(&env);
	}
	/* Every task sees all four (--gpus-per-node=4): still one each. */
	{
		struct sn_taskenv_task task = task_of(2, 4);

		task.visible = "0,1,2,3";
		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), "mlx5_3:1");
		sn_taskenv_free(&env);
	}
	/* Bound to GPU 3 by Slurm (--gpus-per-task=1). */
	{
		struct sn_taskenv_task task = task_of(0, 2);

		task.visible = "3";
		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), "mlx5_2:1");
		assert_string_equal(env.accels_why, "CUDA_VISIBLE_DEVICES=3");
		sn_taskenv_free(&env);
	}
	/* Two tasks on four GPUs: each uses all, so all four NICs. */
	{
		struct sn_taskenv_task task = task_of(1, 2);

		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"),
				    "mlx5_1:1,mlx5_0:1,mlx5_3:1,mlx5_2:1");
		sn_taskenv_free(&env);
	}
	/* A DOWN nearest NIC: UCX_NET_DEVICES is not set, NCCL skips it. */
	ib_port_files(&t, "mlx5_1", 1, "1: DOWN", "2: Polling",
		      "10 Gb/sec (4X SDR)", "InfiniBand");
	gather(cfg, &t, JUWELS, &node);
	{
		struct sn_taskenv_task task = task_of(0, 4);

		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), "(unset)");
		assert_contains(why(&env, "UCX_NET_DEVICES"), "0->mlx5_1");
		assert_string_equal(val(&env, "NCCL_IB_HCA"),
				    "=mlx5_0:1,mlx5_2:1,mlx5_3:1");
		assert_contains(why(&env, "NCCL_IB_HCA"),
				"left out: mlx5_1:1 (DOWN)");
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(cfg);
}

/* ipa20: 4 H100, gpu0 shares a switch with two HCAs, gpu2 with none. */
static void test_ipa20_local_ranks(void **state)
{
	static const char *const want[] = { "mlx5_0:1,mlx5_1:1", "mlx5_2:1",
					    "mlx5_3:1", "mlx5_3:1" };
	struct sn_config *cfg = cfg_load("env:\n  mnnvl: true\n");
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 4);
	gather(cfg, &t, IPA20, &node);
	for (uint32_t r = 0; r < 4; r++) {
		struct sn_taskenv_task task = task_of(r, 4);

		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), want[r]);
		assert_string_equal(val(&env, "NCCL_MNNVL_ENABLE"), "1");
		sn_taskenv_free(&env);
	}
	/* gpu0 and gpu1 in one task. */
	{
		struct sn_taskenv_task task = task_of(0, 1);

		task.visible = "0,1";
		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"),
				    "mlx5_0:1,mlx5_1:1,mlx5_2:1");
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(cfg);
}

/* No topology: what needs it is not set, the rest is. */
static void test_no_topology(void **state)
{
	struct sn_config *cfg = cfg_load("env:\n  socket_ifname: bond0\n");
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 2);
	net_operstate(&t, "bond0", "up");
	sn_taskenv_node_gather(cfg, t.root, SN_FIXTURES "/topo/broken.xml",
			       true, &node);
	assert_false(node.topo.valid);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "UCX_NET_DEVICES"), "(unset)");
	assert_contains(why(&env, "UCX_NET_DEVICES"), "topology not loaded");
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
	assert_string_equal(val(&env, "NCCL_SOCKET_IFNAME"), "=bond0");
	assert_string_equal(val(&env, "RANK"), "10");
	sn_taskenv_free(&env);
	tree_free(&t);
	sn_config_free(cfg);
}

/* ---- field case 4: NCCL_IB_HCA ------------------------------------------ */

static void test_case4_hca_exact(void **state)
{
	struct sn_config *cfg = cfg_load("env:\n  hca: [mlx5_1, mlx5_3]\n");
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 12); /* mlx5_10, mlx5_11: the prefix trap */
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_1:1,mlx5_3:1");
	assert_string_equal(why(&env, "NCCL_IB_HCA"),
			    "ACTIVE ports allowed by env.hca");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* A DOWN port of the allow list is left out, and said so. */
	cfg = cfg_load("env:\n  hca: [mlx5_1, mlx5_2, mlx5_3]\n");
	ib_port_files(&t, "mlx5_2", 1, "1: DOWN", "3: Disabled",
		      "200 Gb/sec (4X HDR)", "InfiniBand");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_1:1,mlx5_3:1");
	assert_string_equal(
		why(&env, "NCCL_IB_HCA"),
		"ACTIVE ports allowed by env.hca; left out: mlx5_2:1 (DOWN)");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* No allow list: every ACTIVE port, in natural order. */
	cfg = cfg_load("");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(
		val(&env, "NCCL_IB_HCA"),
		"=mlx5_0:1,mlx5_1:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1,mlx5_10:1,mlx5_11:1");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* node.ports is the default allow list (exactly its ports). */
	cfg = cfg_load(
		"node:\n  ports:\n"
		"    - {device: mlx5_10, port: 1, link_layer: InfiniBand}\n"
		"    - {device: mlx5_1, port: 1, link_layer: InfiniBand}\n");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_10:1,mlx5_1:1");
	assert_string_equal(why(&env, "NCCL_IB_HCA"),
			    "ACTIVE ports of node.ports");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* Nothing usable: not set, with the reason. */
	cfg = cfg_load("env:\n  hca: [mlx5_2]\n");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "(unset)");
	assert_string_equal(
		why(&env, "NCCL_IB_HCA"),
		"no ACTIVE ports allowed by env.hca; left out: mlx5_2:1 (DOWN)");
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* ---- field case 5: NCCL_SOCKET_IFNAME ----------------------------------- */

static void ifname_case(const struct tree *t, const char *ifname,
			const char *nccl, const char *gloo)
{
	char yaml[256];
	struct sn_config *cfg;
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;

	snprintf(yaml, sizeof(yaml), "env:\n  socket_ifname: %s\n", ifname);
	cfg = cfg_load(yaml);
	sn_taskenv_node_gather(cfg, t->root, NULL, false, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_SOCKET_IFNAME"), nccl);
	assert_string_equal(val(&env, "GLOO_SOCKET_IFNAME"), gloo);
	assert_null(sn_taskenv_find(&env, "HCCL_SOCKET_IFNAME"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
}

static void test_case5_socket_ifname(void **state)
{
	struct tree t;
	struct sn_config *cfg;
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;

	(void)state;
	tree_new(&t);
	net_operstate(&t, "lo", "unknown");
	net_operstate(&t, "docker0", "down");
	net_operstate(&t, "bond0", "up");
	net_operstate(&t, "bond0.2973", "up");
	net_operstate(&t, "bond0.2973.1", "up");
	net_operstate(&t, "ib0", "up");
	net_operstate(&t, "eth-data.100", "up");
	ifname_case(&t, "bond0", "=bond0", "bond0");
	ifname_case(&t, "bond0.2973", "=bond0.2973", "bond0.2973");
	ifname_case(&t, "bond0.2973.1", "=bond0.2973.1", "bond0.2973.1");
	ifname_case(&t, "eth-data.100", "=eth-data.100", "eth-data.100");
	/* missing or down: not exported, and why */
	ifname_case(&t, "bond1", "(unset)", "(unset)");
	ifname_case(&t, "docker0", "(unset)", "(unset)");
	cfg = cfg_load("env:\n  socket_ifname: bond1\n");
	sn_taskenv_node_gather(cfg, t.root, NULL, false, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(
		why(&env, "NCCL_SOCKET_IFNAME"),
		"env.socket_ifname bond1: no such interface on this node");
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	cfg = cfg_load("env:\n  socket_ifname: docker0\n");
	sn_taskenv_node_gather(cfg, t.root, NULL, false, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(why(&env, "GLOO_SOCKET_IFNAME"),
			    "env.socket_ifname docker0 is down on this node");
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	/* not configured */
	cfg = cfg_load("");
	sn_taskenv_node_gather(cfg, t.root, NULL, false, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_SOCKET_IFNAME"), "(unset)");
	assert_string_equal(why(&env, "NCCL_SOCKET_IFNAME"),
			    "env.socket_ifname is not set in the config");
	assert_null(sn_taskenv_find(&env, "GLOO_SOCKET_IFNAME"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* ---- RoCE GID index ------------------------------------------------------ */

#define LL "fe80:0000:0000:0000:0c42:a1ff:fe22:3344"
#define V4(x) "0000:0000:0000:0000:0000:ffff:0a01:00" x

/* The usual mlx5 RoCE table: v1/v2 link-local, then v1/v2 IPv4. */
static void roce_port(const struct tree *t, const char *dev, unsigned v4_v2)
{
	ib_port_files(t, dev, 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "Ethernet");
	ib_gid(t, dev, 1, 0, LL, "IB/RoCE v1", "bond0");
	ib_gid(t, dev, 1, 1, LL, "RoCE v2", "bond0");
	for (unsigned i = 2; i < v4_v2; i++)
		ib_gid(t, dev, 1, i, V4("07"), "IB/RoCE v1", "bond0");
	ib_gid(t, dev, 1, v4_v2, V4("07"), "RoCE v2", "bond0");
	ib_gid(t, dev, 1, v4_v2 + 1, "0000:0000:0000:0000:0000:0000:0000:0000",
	       NULL, NULL);
}

static void test_roce_gid_index(void **state)
{
	struct sn_config *cfg = cfg_load("env:\n  hca: [mlx5_0, mlx5_1]\n");
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	roce_port(&t, "mlx5_0", 3);
	roce_port(&t, "mlx5_1", 3);
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
	assert_string_equal(val(&env, "NCCL_IB_GID_INDEX"), "3");
	assert_contains(why(&env, "NCCL_IB_GID_INDEX"),
			"mlx5_0:1 3, mlx5_1:1 3");
	sn_taskenv_free(&env);

	/* The ports disagree: not set, and why. */
	tree_free(&t);
	tree_new(&t);
	roce_port(&t, "mlx5_0", 3);
	roce_port(&t, "mlx5_1", 5);
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_GID_INDEX"), "(unset)");
	assert_string_equal(
		why(&env, "NCCL_IB_GID_INDEX"),
		"the RoCE ports' RoCE v2 GID indexes differ (mlx5_0:1 3, mlx5_1:1 5)");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* node.ports gid_index wins when it is RoCE v2. */
	cfg = cfg_load(
		"node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: Ethernet, gid_index: 1}\n");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_GID_INDEX"), "1");
	sn_taskenv_free(&env);
	sn_config_free(cfg);

	/* Only RoCE v1: no GID index NCCL could use. */
	tree_free(&t);
	tree_new(&t);
	ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp",
		      "100 Gb/sec (4X EDR)", "Ethernet");
	ib_gid(&t, "mlx5_0", 1, 0, LL, "IB/RoCE v1", "eth0");
	cfg = cfg_load("");
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_0:1");
	assert_string_equal(val(&env, "NCCL_IB_GID_INDEX"), "(unset)");
	assert_contains(why(&env, "NCCL_IB_GID_INDEX"), "mlx5_0:1 none");
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* ---- which accelerators a task has --------------------------------------- */

/* The accelerators of task as "a,b" ("?" unknown, "" none). */
static const char *accels(const char *visible, const char *step_gpus,
			  const char *job_gpus, uint32_t local,
			  uint32_t local_size, unsigned n_node)
{
	static char out[64];
	struct sn_taskenv_task t = task_of(local, local_size);
	unsigned idx[SN_MANIFEST_MAX_ACCELS];
	char why_[SN_TASKENV_WHY_MAX];
	int n;

	t.visible = visible;
	t.step_gpus = step_gpus;
	t.job_gpus = job_gpus;
	n = sn_taskenv_task_accels(&t, n_node, idx, SN_MANIFEST_MAX_ACCELS,
				   why_, sizeof(why_));
	if (n < 0)
		return "?";
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%u",
			 i ? "," : "", idx[i]);
	return out;
}

static void test_cuda_visible_devices(void **state)
{
	(void)state;
	assert_string_equal(accels("2", NULL, NULL, 0, 1, 4), "2");
	assert_string_equal(accels("0,1", NULL, NULL, 0, 1, 4), "0,1");
	assert_string_equal(accels("0,1", NULL, NULL, 1, 2, 4), "1");
	assert_string_equal(accels("", NULL, NULL, 0, 1, 4), "");
	assert_string_equal(accels("-1", NULL, NULL, 0, 1, 4), "");
	assert_string_equal(accels("1,-1,2", NULL, NULL, 0, 1, 4), "1");
	assert_string_equal(accels("2,abc,3", NULL, NULL, 0, 1, 4), "2");
	assert_string_equal(accels("1,1", NULL, NULL, 0, 1, 4), "1");
	assert_string_equal(accels("5", NULL, NULL, 0, 1, 4), "");
	assert_string_equal(accels("3,7", NULL, NULL, 0, 1, 4), "3");
	assert_string_equal(accels(" 1", NULL, NULL, 0, 1, 4), "");
	assert_string_equal(accels("GPU-8ed5d8f1-3f2c-7b1e-9a2b-5a9f3c1d2e4f",
				   NULL, NULL, 0, 1, 4),
			    "?");
	assert_string_equal(
		accels("MIG-GPU-8ed5d8f1-3f2c-7b1e-9a2b-5a9f3c1d2e4f/1/0", NULL,
		       NULL, 0, 1, 4),
		"?");
	assert_string_equal(accels("MIG-1b3f2c44-0a1d-5e55-b5a1-95f2f0d4e0a1",
				   "0", NULL, 0, 1, 4),
			    "?");
	/* renumbered by Slurm's device constraint: positions in STEP_GPUS */
	assert_string_equal(accels("0", "2,3", NULL, 0, 2, 4), "2");
	assert_string_equal(accels("1", "2,3", NULL, 1, 2, 4), "3");
	assert_string_equal(accels("0,1", "2,3", NULL, 1, 2, 4), "3");
	/* global indices that are in STEP_GPUS stay */
	assert_string_equal(accels("3", "2,3", NULL, 0, 1, 4), "3");
	/* no CUDA_VISIBLE_DEVICES: Slurm's lists, then the node */
	assert_string_equal(accels(NULL, "1,3", NULL, 0, 1, 4), "1,3");
	assert_string_equal(accels(NULL, "1,3", NULL, 1, 2, 4), "3");
	assert_string_equal(accels(NULL, NULL, "0,2", 0, 1, 4), "0,2");
	assert_string_equal(accels(NULL, NULL, NULL, 3, 4, 4), "3");
	assert_string_equal(accels(NULL, NULL, NULL, 1, 2, 4), "0,1,2,3");
	assert_string_equal(accels(NULL, NULL, NULL, 0, 1, 0), "?");
}

/* ---- GPU binding where Slurm bound none (issue 12 item 4) ---------------- */

/* CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER of one task, "A B". */
static const char *cuda_of(const struct sn_config *cfg,
			   const struct sn_taskenv_node *node,
			   const struct sn_taskenv_task *task)
{
	static char out[64];
	struct sn_taskenv env;

	build(cfg, node, task, &env);
	snprintf(out, sizeof(out), "%s %s", val(&env, "CUDA_VISIBLE_DEVICES"),
		 val(&env, "CUDA_DEVICE_ORDER"));
	sn_taskenv_free(&env);
	return out;
}

/* The why of the binding decision for task. */
static const char *bind_why(const struct sn_config *cfg,
			    const struct sn_taskenv_node *node,
			    const struct sn_taskenv_task *task, int want)
{
	static char why_[SN_TASKENV_WHY_MAX];

	assert_int_equal(
		sn_taskenv_gpu_bind(cfg, node, task, why_, sizeof(why_)), want);
	return why_;
}

/*
 * ipa20: hwloc's tree lists the H100s as 5f, 4e, db, cb (cuda1, cuda0,
 * cuda3, cuda2); PCI bus order is 4e, 5f, cb, db.  Local rank i gets the
 * index i of PCI order, and its UCX_NET_DEVICES are that GPU's NICs.
 */
static void test_gpu_bind_pci_order(void **state)
{
	static const char *const bus[] = { "0000:4e:00.0", "0000:5f:00.0",
					   "0000:cb:00.0", "0000:db:00.0" };
	static const char *const ucx[] = { "mlx5_0:1,mlx5_1:1", "mlx5_2:1",
					   "mlx5_3:1", "mlx5_3:1" };
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 4);
	gather(cfg, &t, IPA20, &node);
	assert_int_equal(node.gpus.n, 4);
	assert_string_equal(node.gpus.from, "hwloc");
	assert_true(node.gpus.all_nvidia);
	for (uint32_t r = 0; r < 4; r++) {
		struct sn_taskenv_task task = task_of(r, 4);
		char want[8];

		assert_string_equal(node.gpus.busid[r], bus[r]);
		build(cfg, &node, &task, &env);
		snprintf(want, sizeof(want), "%u", r);
		assert_string_equal(val(&env, "CUDA_VISIBLE_DEVICES"), want);
		assert_string_equal(val(&env, "CUDA_DEVICE_ORDER"),
				    "PCI_BUS_ID");
		assert_contains(why(&env, "CUDA_VISIBLE_DEVICES"), bus[r]);
		assert_contains(why(&env, "CUDA_VISIBLE_DEVICES"),
				"one task per GPU (4, hwloc)");
		assert_contains(why(&env, "CUDA_DEVICE_ORDER"),
				"FASTEST_FIRST");
		assert_true(
			sn_taskenv_find(&env, "CUDA_VISIBLE_DEVICES")->per_task);
		/* the NICs of the GPU it got, not of the tree's i-th */
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), ucx[r]);
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(cfg);
}

/* The integration test's topology (topo/small-2gpu-2nic.xml). */
static void test_gpu_bind_two(void **state)
{
	static const char *const ucx[] = { "mlx5_0:1", "mlx5_1:1" };
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 2);
	gather(cfg, &t, SN_FIXTURES "/topo/small-2gpu-2nic.xml", &node);
	assert_int_equal(node.gpus.n, 2);
	assert_string_equal(node.gpus.busid[1], "0000:87:00.0");
	for (uint32_t r = 0; r < 2; r++) {
		struct sn_taskenv_task task = task_of(r, 2);

		assert_string_equal(cuda_of(cfg, &node, &task),
				    r ? "1 PCI_BUS_ID" : "0 PCI_BUS_ID");
		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), ucx[r]);
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(cfg);
}

/* The topology for the GPU count: wanted and loaded whatever the ports. */
static void test_gpu_bind_topo_wanted(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_config *nv =
		cfg_load("node:\n  accelerators: {vendor: nvidia, count: 2}\n");
	struct sn_taskenv_task task = task_of(1, 2);
	struct sn_taskenv_node node;
	struct tree t;

	(void)state;
	/* batch, ucx, visible, bound */
	assert_int_equal(sn_taskenv_wants_topo(cfg, false, false, false, false),
			 SN_TASKENV_TOPO_NICS | SN_TASKENV_TOPO_GPUS);
	assert_int_equal(sn_taskenv_wants_topo(cfg, false, true, false, false),
			 SN_TASKENV_TOPO_GPUS);
	assert_int_equal(sn_taskenv_wants_topo(cfg, false, true, false, true),
			 0);
	assert_int_equal(sn_taskenv_wants_topo(cfg, false, false, false, true),
			 SN_TASKENV_TOPO_NICS);
	assert_int_equal(sn_taskenv_wants_topo(cfg, true, false, false, false),
			 0);
	/* the config says the GPUs: no topology for them */
	assert_int_equal(sn_taskenv_wants_topo(nv, false, true, false, false),
			 0);
	/* one usable port (mlx5_1 DOWN): no NIC choice, but the GPU count */
	tree_new(&t);
	hcas(&t, 1);
	ib_port_files(&t, "mlx5_1", 1, "1: DOWN", "2: Polling",
		      "10 Gb/sec (4X SDR)", "InfiniBand");
	sn_taskenv_node_gather(cfg, t.root,
			       SN_FIXTURES "/topo/small-2gpu-2nic.xml",
			       SN_TASKENV_TOPO_NICS, &node);
	assert_false(node.topo.valid);
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	sn_taskenv_node_gather(cfg, t.root,
			       SN_FIXTURES "/topo/small-2gpu-2nic.xml",
			       SN_TASKENV_TOPO_NICS | SN_TASKENV_TOPO_GPUS,
			       &node);
	assert_true(node.topo.valid);
	assert_int_equal(node.gpus.n, 2);
	assert_string_equal(cuda_of(cfg, &node, &task), "1 PCI_BUS_ID");
	{
		struct sn_taskenv env;

		build(cfg, &node, &task, &env);
		assert_string_equal(val(&env, "UCX_NET_DEVICES"), "mlx5_0:1");
		assert_contains(why(&env, "UCX_NET_DEVICES"),
				"only usable port");
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(nv);
	sn_config_free(cfg);
}

/* Every case that leaves both alone, each with its reason. */
static void test_gpu_bind_left_alone(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_task task = task_of(1, 4);
	struct sn_taskenv_node node;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 4);
	gather(cfg, &t, IPA20, &node);
	assert_string_equal(cuda_of(cfg, &node, &task), "1 PCI_BUS_ID");
	/* the user's or Slurm's CUDA_VISIBLE_DEVICES */
	task.visible = "0,1,2,3";
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_contains(bind_why(cfg, &node, &task, -1),
			"the job's CUDA_VISIBLE_DEVICES=0,1,2,3");
	task.visible = "";
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	task.visible = NULL;
	/* the job's CUDA_DEVICE_ORDER, whichever */
	task.device_order = "FASTEST_FIRST";
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_contains(bind_why(cfg, &node, &task, -1),
			"the job's CUDA_DEVICE_ORDER=FASTEST_FIRST");
	task.device_order = "PCI_BUS_ID";
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	task.device_order = NULL;
	/* Slurm's GRES binding */
	task.step_gpus = "0,1,2,3";
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_contains(bind_why(cfg, &node, &task, -1),
			"Slurm bound GPUs (SLURM_STEP_GPUS=0,1,2,3)");
	task.step_gpus = NULL;
	task.job_gpus = "2";
	assert_contains(bind_why(cfg, &node, &task, -1),
			"Slurm bound GPUs (SLURM_JOB_GPUS=2)");
	task.job_gpus = NULL;
	/* tasks != GPUs: fewer, more */
	task = task_of(1, 2);
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_string_equal(
		bind_why(cfg, &node, &task, -1),
		"2 tasks on this node, 4 GPUs (hwloc): not one per task, no binding");
	task = task_of(4, 8);
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	/* the batch script is no task: no entry at all */
	task = task_of(0, 4);
	task.batch = true;
	{
		struct sn_taskenv env;

		build(cfg, &node, &task, &env);
		assert_null(sn_taskenv_find(&env, "CUDA_VISIBLE_DEVICES"));
		assert_null(sn_taskenv_find(&env, "CUDA_DEVICE_ORDER"));
		sn_taskenv_free(&env);
	}
	tree_free(&t);
	sn_config_free(cfg);
}

/* Without a topology, the config's count; without either, none. */
static void test_gpu_bind_count(void **state)
{
	struct sn_config *cfg =
		cfg_load("node:\n  accelerators: {vendor: nvidia, count: 2}\n");
	struct sn_taskenv_task task = task_of(1, 2);
	struct sn_taskenv_node node;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 1); /* one port: no topology */
	gather(cfg, &t, NULL, &node);
	assert_false(node.topo.valid);
	assert_int_equal(node.gpus.n, 0);
	assert_string_equal(cuda_of(cfg, &node, &task), "1 PCI_BUS_ID");
	assert_string_equal(
		bind_why(cfg, &node, &task, 1),
		"Slurm bound no GPU and the node runs one task per GPU (2, node.accelerators.count): local rank 1 gets GPU 1 in PCI bus order");
	task = task_of(0, 1);
	assert_string_equal(
		bind_why(cfg, &node, &task, -1),
		"1 tasks on this node, 2 GPUs (node.accelerators.count): not one per task, no binding");
	sn_config_free(cfg);
	/* one task on a one-GPU node: that GPU */
	cfg = cfg_load("node:\n  accelerators: {vendor: nvidia, count: 1}\n");
	assert_string_equal(cuda_of(cfg, &node, &task), "0 PCI_BUS_ID");
	sn_config_free(cfg);
	cfg = cfg_load("node:\n  accelerators: {vendor: nvidia, count: 0}\n");
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_string_equal(
		bind_why(cfg, &node, &task, -1),
		"no GPU known on this node (node.accelerators.count is 0): no binding");
	sn_config_free(cfg);
	/* nothing configured, no topology */
	cfg = cfg_load("");
	assert_string_equal(
		bind_why(cfg, &node, &task, -1),
		"no GPU known on this node (no topology loaded, no node.accelerators): no binding");
	sn_config_free(cfg);
	/* a topology without GPUs (JURECA-DC CPU node) */
	hcas(&t, 2);
	cfg = cfg_load("");
	gather(cfg, &t, HWLOC "jrc0732-jureca-dc-cpu-only-1xCX6.xml", &node);
	assert_string_equal(
		bind_why(cfg, &node, &task, -1),
		"no GPU known on this node (none in the topology): no binding");
	sn_config_free(cfg);
	tree_free(&t);
}

/* Not NVIDIA: no CUDA_* entries (AMD, Ascend), or left alone (mixed). */
static void test_gpu_bind_vendors(void **state)
{
	static const char *const others[] = {
		"node:\n  accelerators: {vendor: amd, count: 4}\n",
		"node:\n  accelerators: {vendor: ascend, count: 4}\n",
	};
	struct sn_taskenv_task task = task_of(0, 4);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct sn_config *cfg;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 2);
	for (size_t i = 0; i < 2; i++) {
		cfg = cfg_load(others[i]);
		gather(cfg, &t, NULL, &node);
		assert_string_equal(bind_why(cfg, &node, &task, -2), "");
		build(cfg, &node, &task, &env);
		assert_null(sn_taskenv_find(&env, "CUDA_VISIBLE_DEVICES"));
		assert_null(sn_taskenv_find(&env, "CUDA_DEVICE_ORDER"));
		sn_taskenv_free(&env);
		sn_config_free(cfg);
	}
	/* 3 NVIDIA Teslas and an AMD Radeon, vendor not configured */
	cfg = cfg_load("");
	gather(cfg, &t, HWLOC "conan-mixed-nvidia-amd-gpu-cx4.xml", &node);
	assert_int_equal(node.gpus.n, 4);
	assert_false(node.gpus.all_nvidia);
	assert_string_equal(cuda_of(cfg, &node, &task), "(unset) (unset)");
	assert_contains(bind_why(cfg, &node, &task, -1), "not all NVIDIA GPUs");
	sn_config_free(cfg);
	tree_free(&t);
}

/* A binding of an earlier step is ours to decide again; the job's stays. */
static void test_gpu_bind_ownership(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_ownership_var prev[2] = {
		{ .name = "CUDA_VISIBLE_DEVICES",
		  .value = "2",
		  .written = true },
		{ .name = "CUDA_DEVICE_ORDER",
		  .value = "PCI_BUS_ID",
		  .written = true },
	};
	char *marker = sn_ownership_marker(NULL, prev, 2);

	(void)state;
	assert_non_null(marker);
	assert_null(sn_taskenv_visible_pick(cfg, marker, "2", false));
	assert_string_equal(sn_taskenv_visible_pick(cfg, marker, "3", true),
			    "3");
	assert_string_equal(sn_taskenv_visible_pick(cfg, "", "2", true), "2");
	assert_null(sn_taskenv_visible_pick(cfg, marker, NULL, false));
	assert_string_equal(sn_taskenv_visible_pick(cfg, marker, sn_env_unread,
						    true),
			    "GPU-");
	assert_null(sn_taskenv_job_value(marker, "CUDA_DEVICE_ORDER",
					 "PCI_BUS_ID"));
	assert_string_equal(sn_taskenv_job_value(marker, "CUDA_DEVICE_ORDER",
						 "FASTEST_FIRST"),
			    "FASTEST_FIRST");
	assert_string_equal(sn_taskenv_job_value("", "CUDA_DEVICE_ORDER",
						 "PCI_BUS_ID"),
			    "PCI_BUS_ID");
	assert_string_equal(sn_taskenv_job_value(marker, "CUDA_DEVICE_ORDER",
						 sn_env_unread),
			    "?");
	assert_null(sn_taskenv_job_value(marker, "CUDA_DEVICE_ORDER", NULL));
	/* ours from an earlier step, no binding now: unset, not kept */
	{
		struct sn_ownership_var v = { .name = "CUDA_VISIBLE_DEVICES",
					      .cur = "2" };

		sn_ownership_plan(cfg, SN_ENV_AUTO, marker, &v, 1);
		assert_int_equal(v.action, SN_OWN_UNSET);
		v = (struct sn_ownership_var){ .name = "CUDA_VISIBLE_DEVICES",
					       .cur = "2" };
		sn_ownership_plan(cfg, SN_ENV_AUTO, "", &v, 1);
		assert_int_equal(v.action, SN_OWN_KEEP);
	}
	free(marker);
	sn_config_free(cfg);
}

/* ---- Ascend, batch step, ownership ---------------------------------------- */

static void test_ascend(void **state)
{
	struct sn_config *cfg =
		cfg_load("env:\n  socket_ifname: bond0\n"
			 "node:\n  accelerators: {vendor: ascend, count: 8}\n");
	struct sn_taskenv_task task = task_of(5, 8);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	net_operstate(&t, "bond0", "up");
	sn_taskenv_node_gather(cfg, t.root, NULL, false, &node);
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "HCCL_SOCKET_IFNAME"), "bond0");
	assert_string_equal(val(&env, "GLOO_SOCKET_IFNAME"), "bond0");
	assert_string_equal(val(&env, "ASCEND_RT_VISIBLE_DEVICES"),
			    "0,1,2,3,4,5,6,7");
	assert_string_equal(val(&env, "LOCAL_RANK"), "5");
	assert_null(sn_taskenv_find(&env, "NCCL_SOCKET_IFNAME"));
	assert_null(sn_taskenv_find(&env, "NCCL_IB_HCA"));
	sn_taskenv_free(&env);
	/* the job's own list decides which NPUs the task has */
	task = task_of(0, 1);
	task.visible_name = "ASCEND_RT_VISIBLE_DEVICES";
	task.visible = "4,5";
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "ASCEND_RT_VISIBLE_DEVICES"), "4,5");
	assert_string_equal(env.accels_why, "ASCEND_RT_VISIBLE_DEVICES=4,5");
	sn_taskenv_free(&env);
	tree_free(&t);
	sn_config_free(cfg);
}

static void test_batch_and_pytorch_off(void **state)
{
	struct sn_config *cfg = cfg_load("env:\n  pytorch: false\n");
	struct sn_taskenv_task task = task_of(0, 1);
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	hcas(&t, 1);
	gather(cfg, &t, NULL, &node);
	build(cfg, &node, &task, &env);
	assert_null(sn_taskenv_find(&env, "RANK"));
	assert_null(sn_taskenv_find(&env, "LOCAL_WORLD_SIZE"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	cfg = cfg_load("");
	task.batch = true;
	build(cfg, &node, &task, &env);
	assert_string_equal(val(&env, "NCCL_IB_HCA"), "=mlx5_0:1");
	assert_null(sn_taskenv_find(&env, "RANK"));
	assert_null(sn_taskenv_find(&env, "UCX_NET_DEVICES"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* The bounded gatherer gives what the direct one gives. */
static void test_gather_bounded(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node *a = calloc(1, sizeof(*a));
	struct sn_taskenv_node *b = calloc(1, sizeof(*b));
	struct tree t;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	tree_new(&t);
	hcas(&t, 4);
	sn_taskenv_node_gather(cfg, t.root, JUWELS, true, a);
	assert_int_equal(sn_taskenv_node_gather_bounded(cfg, t.root, JUWELS,
							true, 10000, b),
			 0);
	assert_memory_equal(a, b, sizeof(*a));
	tree_free(&t);
	free(a);
	free(b);
	sn_config_free(cfg);
}

/* The step's preparation: the config's paths, then the bounded gatherer. */
static void test_node_prepare(void **state)
{
	struct sn_taskenv_node *node = calloc(1, sizeof(*node));
	struct sn_config *cfg;
	struct sn_error err;
	char extra[512], want[SN_TASKENV_NOTE_MAX + 64];
	struct tree t;

	(void)state;
	assert_non_null(node);
	tree_new(&t);
	hcas(&t, 2);
	snprintf(extra, sizeof(extra), "paths:\n  sysfs: %s\n  hwloc_xml: %s\n",
		 t.root, JUWELS);
	cfg = cfg_load(extra);
	err_reset(&err);
	assert_int_equal(sn_taskenv_node_prepare(cfg, "sna1", true, node, &err),
			 SN_TASKENV_READY);
	assert_string_equal(err.msg, "(unset)");
	assert_true(node->topo.valid);
	assert_int_equal(node->n_ports, 2);
	sn_config_free(cfg);
	snprintf(extra, sizeof(extra), "paths:\n  sysfs: %s\n  hwloc_xml: %s\n",
		 t.root, SN_FIXTURES "/topo/broken.xml");
	cfg = cfg_load(extra);
	assert_int_equal(
		sn_taskenv_node_prepare(cfg, "sna1", false, node, &err),
		SN_TASKENV_READY); /* no topology wanted: none missed */
	assert_int_equal(sn_taskenv_node_prepare(cfg, "sna1", true, node, &err),
			 SN_TASKENV_NO_TOPO);
	assert_false(node->topo.valid);
	snprintf(want, sizeof(want), "%s: UCX_NET_DEVICES not set",
		 node->topo_note);
	assert_string_equal(err.msg, want);
	assert_int_equal(node->n_ports, 2);
	sn_config_free(cfg);
	tree_free(&t);
	free(node);
}

/* --supernode-env=show: who prints, the head and the task's lines. */
static void test_show(void **state)
{
	struct sn_taskenv_task t = task_of(0, 2);
	struct sn_ownership_var port = { .name = "MASTER_PORT",
					 .value = "21234",
					 .written = true };
	const char *step_cur[SN_OWNERSHIP_STEP_VARS] = { "2" };
	struct sn_ownership_var v[3] = {
		{ .name = "NCCL_IB_HCA", .value = "=mlx5_0:1", .why = "ports" },
		{ .name = "UCX_NET_DEVICES", .value = "mlx5_0:1" },
		{ .name = "RANK", .why = "no rank" },
	};
	char *marker = sn_ownership_marker(NULL, &port, 1);
	char *text;

	(void)state;
	assert_true(sn_taskenv_shows(SN_ENV_SHOW, &t));
	assert_false(sn_taskenv_shows(SN_ENV_AUTO, &t));
	t.local_rank = 1;
	assert_false(sn_taskenv_shows(SN_ENV_SHOW, &t));
	t.local_rank = 0;
	t.global_rank = 10;
	t.world_size = 16;
	step_cur[7] = "21234"; /* MASTER_PORT, as the marker records it */
	text = sn_taskenv_show_head("sna1", &t, "", marker, step_cur);
	assert_non_null(text);
	assert_string_equal(
		strtok(text, "\n"),
		"supernode: --supernode-env=show: node sna1, task 0 of 2 on it (rank 10 of 16); accelerators: not looked at (batch script)");
	assert_string_equal(
		strtok(NULL, "\n"),
		"supernode: --supernode-env=show: sna1: task 0: SUPERNODE_COUNT=2 (kept: user set it)");
	for (int i = 1; i < 7; i++)
		assert_contains(strtok(NULL, "\n"),
				" not set (see the plugin's error");
	assert_string_equal(
		strtok(NULL, "\n"),
		"supernode: --supernode-env=show: sna1: task 0: MASTER_PORT=21234 (from the job and step id, in env.master_port_range, outside the ephemeral ports)");
	assert_contains(
		strtok(NULL, "\n"),
		"task 0: SUPERNODE_ATTEMPT not set (see the plugin's error");
	assert_null(strtok(NULL, "\n"));
	free(text);
	sn_ownership_plan(NULL, SN_ENV_AUTO, "", v, 3);
	v[0].written = true; /* UCX_NET_DEVICES: its set failed */
	text = sn_taskenv_show_vars("sna1", 0, v, 3);
	assert_string_equal(
		text,
		"supernode: --supernode-env=show: sna1: task 0: NCCL_IB_HCA==mlx5_0:1 (ports)\n"
		"supernode: --supernode-env=show: sna1: task 0: RANK not set (no rank)\n");
	free(text);
	free(marker);
}

/* Live discovery never reads the job's HWLOC_* variables. */
static void test_hwloc_env_scrubbed(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node *node = calloc(1, sizeof(*node));
	struct tree t;

	(void)state;
	assert_non_null(node);
	tree_new(&t);
	hcas(&t, 2); /* a choice of NIC, so the topology is loaded */
	setenv("HWLOC_XMLFILE", "/nonexistent/evil.xml", 1);
	setenv("HWLOC_PLUGINS_PATH", "/tmp/evil", 1);
	setenv("HWLOC_COMPONENTS", "xml", 1);
	sn_taskenv_node_gather(cfg, t.root, "", true, node);
	assert_null(getenv("HWLOC_XMLFILE"));
	assert_null(getenv("HWLOC_PLUGINS_PATH"));
	assert_null(getenv("HWLOC_COMPONENTS"));
	/* an XML topology is what paths.hwloc_xml names, whatever HWLOC_* say */
	setenv("HWLOC_XMLFILE", "/nonexistent/evil.xml", 1);
	setenv("HWLOC_COMPONENTS", "-xml", 1);
	sn_taskenv_node_gather(cfg, t.root,
			       SN_FIXTURES "/topo/small-4gpu-2nic.xml", true,
			       node);
	assert_true(node->topo.valid);
	assert_int_equal(node->topo.n_accels, 4);
	assert_null(getenv("HWLOC_COMPONENTS"));
	tree_free(&t);
	free(node);
	sn_config_free(cfg);
}

/* One usable port: nothing to choose, so no topology and that port. */
static void test_single_port_no_topology(void **state)
{
	struct sn_config *cfg = cfg_load("");
	struct sn_taskenv_node *node = calloc(1, sizeof(*node));
	struct sn_taskenv_task task = task_of(0, 4);
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	assert_non_null(node);
	tree_new(&t);
	hcas(&t, 1);
	sn_taskenv_node_gather(cfg, t.root, "/nonexistent/topology.xml", true,
			       node);
	assert_false(node->topo.valid);
	assert_int_equal(node->topo_note[0], '\0');
	build(cfg, node, &task, &env);
	assert_string_equal(val(&env, "UCX_NET_DEVICES"), "mlx5_0:1");
	assert_contains(why(&env, "UCX_NET_DEVICES"), "only usable port");
	sn_taskenv_free(&env);
	tree_free(&t);
	free(node);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_juwels_local_ranks),
		cmocka_unit_test(test_ipa20_local_ranks),
		cmocka_unit_test(test_no_topology),
		cmocka_unit_test(test_case4_hca_exact),
		cmocka_unit_test(test_case5_socket_ifname),
		cmocka_unit_test(test_roce_gid_index),
		cmocka_unit_test(test_cuda_visible_devices),
		cmocka_unit_test(test_gpu_bind_pci_order),
		cmocka_unit_test(test_gpu_bind_two),
		cmocka_unit_test(test_gpu_bind_topo_wanted),
		cmocka_unit_test(test_gpu_bind_left_alone),
		cmocka_unit_test(test_gpu_bind_count),
		cmocka_unit_test(test_gpu_bind_vendors),
		cmocka_unit_test(test_gpu_bind_ownership),
		cmocka_unit_test(test_ascend),
		cmocka_unit_test(test_batch_and_pytorch_off),
		cmocka_unit_test(test_gather_bounded),
		cmocka_unit_test(test_node_prepare),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_hwloc_env_scrubbed),
		cmocka_unit_test(test_single_port_no_topology),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
