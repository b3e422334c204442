/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-task environment per vendor (issue 18 item 5): each vendor's
 * visible-devices and collective-library variables from the vendor table
 * (config/sn_vendor.h), the notes of what is not set, HCCL_IF_IP and
 * HCCL_LOGIC_SUPERPOD_ID.
 */
#include <unistd.h>

#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "env/sn_taskenv.h"
#include "util/sn_file.h"

#define SUPERNODES "supernodes:\n  - {name: sn01, nodes: 'sna[1-2]'}\n"
#define OTHER "other, pci_vendor: 0x1e3e, device_glob: 'x[0-9]*'"
#define NODE_OF(v)                                                         \
	"env:\n  socket_ifname: bond0\nnode:\n  accelerators: {vendor: " v \
	", count: 8}\n"

static struct sn_config *cfg_load(const char *sn, const char *extra)
{
	char yaml[4096];
	struct sn_error err;
	struct sn_config *cfg;

	snprintf(yaml, sizeof(yaml), "%s%s", sn, extra);
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("config: %s", err.msg);
	return cfg;
}

static const char *val(const struct sn_taskenv *env, const char *name)
{
	const struct sn_taskenv_var *v = sn_taskenv_find(env, name);

	return !v ? "(no entry)" : v->value ? v->value : "(unset)";
}

static const char *why(const struct sn_taskenv *env, const char *name)
{
	const struct sn_taskenv_var *v = sn_taskenv_find(env, name);

	return v ? v->why : "(no entry)";
}

/* A node: 2 ACTIVE InfiniBand HCAs and bond0 up. */
static void node_of(const struct sn_config *cfg, struct tree *t,
		    struct sn_taskenv_node *node)
{
	tree_new(t);
	for (unsigned i = 0; i < 2; i++) {
		char dev[16];

		snprintf(dev, sizeof(dev), "mlx5_%u", i);
		ib_port_files(t, dev, 1, "4: ACTIVE", "5: LinkUp",
			      "200 Gb/sec (4X HDR)", "InfiniBand");
	}
	net_operstate(t, "bond0", "up");
	sn_taskenv_node_gather(cfg, t->root, NULL, 0, node);
}

struct vendor_want {
	const char *vendor;
	const char *names[8]; /* name=value, "name=(unset)", "name=(no entry)" */
	const char *note;     /* the note, or NULL for none */
};

static const struct vendor_want wants[] = {
	{ "nvidia",
	  { "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "NCCL_SOCKET_IFNAME==bond0",
	    "GLOO_SOCKET_IFNAME=bond0", "CUDA_VISIBLE_DEVICES=5",
	    "CUDA_DEVICE_ORDER=PCI_BUS_ID", "HCCL_SOCKET_IFNAME=(no entry)" },
	  NULL },
	{ "amd",
	  { "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "NCCL_SOCKET_IFNAME==bond0",
	    "HIP_VISIBLE_DEVICES=(no entry)",
	    "CUDA_VISIBLE_DEVICES=(no entry)" },
	  NULL },
	{ OTHER,
	  { "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "NCCL_SOCKET_IFNAME==bond0",
	    "CUDA_VISIBLE_DEVICES=(no entry)" },
	  NULL },
	{ "ascend",
	  { "HCCL_SOCKET_IFNAME=bond0", "GLOO_SOCKET_IFNAME=bond0",
	    "HCCL_IF_IP=(unset)", "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    "NCCL_IB_HCA=(no entry)", "NCCL_SOCKET_IFNAME=(no entry)",
	    "HCCL_LOGIC_SUPERPOD_ID=(no entry)" },
	  "HCCL: HCCL takes its RDMA NICs from each NPU's own ports (hccn.conf): no HCA, GID or topology variable" },
	{ "hygon",
	  { "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "NCCL_SOCKET_IFNAME==bond0",
	    "GLOO_SOCKET_IFNAME=bond0", "HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    "CUDA_VISIBLE_DEVICES=(no entry)", "NCCL_MNNVL_ENABLE=(no entry)" },
	  NULL },
	{ "cambricon",
	  { "GLOO_SOCKET_IFNAME=bond0", "MLU_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    "NCCL_IB_HCA=(no entry)", "NCCL_SOCKET_IFNAME=(no entry)" },
	  "CNCL: CNCL's interface and HCA variables are not published: none set" },
	{ "mthreads",
	  { "GLOO_SOCKET_IFNAME=bond0", "MUSA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    /* InfiniBand ports: no GID index needed */
	    "MCCL_IB_GID_INDEX=(no entry)", "NCCL_IB_HCA=(no entry)" },
	  "MCCL: MCCL documents no interface or HCA variable: only MCCL_IB_GID_INDEX set" },
	{ "metax",
	  { "GLOO_SOCKET_IFNAME=bond0", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    "CUDA_DEVICE_ORDER=(no entry)", "NCCL_IB_HCA=(no entry)" },
	  "MCCL: MetaX's MCCL documents no interface or HCA variable: none set" },
	{ "kunlunxin",
	  { "GLOO_SOCKET_IFNAME=bond0", "XPU_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
	    "NCCL_IB_HCA=(no entry)", "NCCL_SOCKET_IFNAME=(no entry)" },
	  "BKCL: BKCL documents no interface or HCA variable: none set" },
};

static void test_vendor_vars(void **state)
{
	(void)state;
	for (size_t w = 0; w < sizeof(wants) / sizeof(wants[0]); w++) {
		char extra[256];
		struct sn_config *cfg;
		struct sn_taskenv_task task = { .local_rank = 5,
						.local_size = 8,
						.global_rank = 5,
						.world_size = 16 };
		struct sn_taskenv_node node;
		struct sn_taskenv env;
		struct tree t;

		snprintf(extra, sizeof(extra), NODE_OF("%s"), wants[w].vendor);
		cfg = cfg_load(SUPERNODES, extra);
		node_of(cfg, &t, &node);
		task.visible_name = sn_taskenv_visible_name(cfg);
		assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
		for (size_t i = 0; i < 8 && wants[w].names[i]; i++) {
			const char *nv = wants[w].names[i];
			const char *eq = strchr(nv, '=');
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(eq - nv),
				 nv);
			if (strcmp(val(&env, name), eq + 1))
				fail_msg("%s: %s is %s, want %s (%s)",
					 wants[w].vendor, name, val(&env, name),
					 eq + 1, why(&env, name));
		}
		assert_null(sn_taskenv_find(&env, "NCCL_TOPO_FILE"));
		if (wants[w].note) {
			assert_int_equal(env.n_notes, 1);
			assert_string_equal(env.notes[0].text, wants[w].note);
			assert_false(env.notes[0].warn);
		} else {
			assert_int_equal(env.n_notes, 0);
		}
		sn_taskenv_free(&env);
		sn_config_free(cfg);
		tree_free(&t);
	}
}

/* The visible-devices variable a task's devices are read from. */
static void test_visible_names(void **state)
{
	static const char *const v[][2] = {
		{ "nvidia", "CUDA_VISIBLE_DEVICES" },
		{ "ascend", "ASCEND_RT_VISIBLE_DEVICES" },
		{ "hygon", "HIP_VISIBLE_DEVICES" },
		{ "cambricon", "MLU_VISIBLE_DEVICES" },
		{ "mthreads", "MUSA_VISIBLE_DEVICES" },
		{ "metax", "CUDA_VISIBLE_DEVICES" },
		{ "kunlunxin", "XPU_VISIBLE_DEVICES" },
		{ "amd", "HIP_VISIBLE_DEVICES" },
		{ OTHER, "CUDA_VISIBLE_DEVICES" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char extra[256];
		struct sn_config *cfg;

		snprintf(extra, sizeof(extra), NODE_OF("%s"), v[i][0]);
		cfg = cfg_load(SUPERNODES, extra);
		assert_string_equal(sn_taskenv_visible_name(cfg), v[i][1]);
		sn_config_free(cfg);
	}
}

/* The note in --supernode-env=show, and nothing outside show. */
static void test_show_notes(void **state)
{
	struct sn_config *cfg = cfg_load(SUPERNODES, NODE_OF("cambricon"));
	struct sn_taskenv_task task = { .local_size = 1, .world_size = 1 };
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;
	char *s;

	(void)state;
	node_of(cfg, &t, &node);
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	s = sn_taskenv_show_notes("sna1", 0, &env, true);
	assert_string_equal(
		s, "supernode: --supernode-env=show: sna1: task 0: note: CNCL: "
		   "CNCL's interface and HCA variables are not published: "
		   "none set\n");
	free(s);
	s = sn_taskenv_show_notes("sna1", 0, &env, false);
	assert_string_equal(s, "");
	free(s);
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* HCCL_IF_IP: the IPv4 address of env.socket_ifname (lo: 127.0.0.1). */
static void test_hccl_if_ip(void **state)
{
	struct sn_config *cfg = cfg_load(
		SUPERNODES, "env:\n  socket_ifname: lo\nnode:\n  accelerators: "
			    "{vendor: ascend, count: 8}\n");
	struct sn_taskenv_task task = { .batch = true };
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	tree_new(&t);
	net_operstate(&t, "lo", "unknown");
	sn_taskenv_node_gather(cfg, t.root, NULL, 0, &node);
	assert_string_equal(node.if_ipv4, "127.0.0.1");
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_string_equal(val(&env, "HCCL_SOCKET_IFNAME"), "lo");
	assert_string_equal(val(&env, "HCCL_IF_IP"), "127.0.0.1");
	assert_string_equal(why(&env, "HCCL_IF_IP"),
			    "the IPv4 address of env.socket_ifname lo");
	sn_taskenv_free(&env);
	/* no address: not set, and why */
	node.if_ipv4[0] = '\0';
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_string_equal(val(&env, "HCCL_IF_IP"), "(unset)");
	assert_string_equal(
		why(&env, "HCCL_IF_IP"),
		"env.socket_ifname lo has no IPv4 address on this node");
	sn_taskenv_free(&env);
	/* NCCL has no address variable */
	sn_config_free(cfg);
	cfg = cfg_load(SUPERNODES, "env:\n  socket_ifname: lo\n");
	sn_taskenv_node_gather(cfg, t.root, NULL, 0, &node);
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_string_equal(val(&env, "NCCL_SOCKET_IFNAME"), "=lo");
	assert_null(sn_taskenv_find(&env, "HCCL_IF_IP"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* One physical SuperPoD (ascend:7) split into sn01 and sn02; sn03 whole. */
static void test_logic_superpod(void **state)
{
	static const char *sn =
		"supernodes:\n"
		"  - {name: sn01, nodes: 'sna[1-2]', identity: 'ascend:7'}\n"
		"  - {name: sn02, nodes: 'snb[1-2]', identity: 'ascend:7'}\n"
		"  - {name: sn03, nodes: 'snc[1-2]', identity: 'ascend:8'}\n";
	struct sn_config *cfg = cfg_load(sn, NODE_OF("ascend"));
	struct sn_taskenv_task task = { .batch = true };
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;

	(void)state;
	node_of(cfg, &t, &node);
	node.in_supernode = true;
	node.supernode = 1;
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_string_equal(val(&env, "HCCL_LOGIC_SUPERPOD_ID"), "sn02");
	assert_string_equal(why(&env, "HCCL_LOGIC_SUPERPOD_ID"),
			    "supernode sn02 is a logical part of ascend:7, "
			    "shared with sn01");
	sn_taskenv_free(&env);
	node.supernode = 2; /* a whole pod: HCCL reads the hardware's id */
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_null(sn_taskenv_find(&env, "HCCL_LOGIC_SUPERPOD_ID"));
	sn_taskenv_free(&env);
	node.in_supernode = false;
	node.supernode = 0;
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_null(sn_taskenv_find(&env, "HCCL_LOGIC_SUPERPOD_ID"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	/* NVIDIA: no such variable, even with shared identities */
	cfg = cfg_load(sn, NODE_OF("nvidia"));
	node.in_supernode = true;
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	assert_null(sn_taskenv_find(&env, "HCCL_LOGIC_SUPERPOD_ID"));
	sn_taskenv_free(&env);
	sn_config_free(cfg);
	tree_free(&t);
}

/* ---- topology files ------------------------------------------------------ */

/* An NCCL topology of n GPUs (0000:1b..) and m NIC ports. */
static void topo_xml(const char *path, unsigned n, unsigned m)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "<system version=\"1\">\n  <cpu numaid=\"0\">\n"
		   "    <pci busid=\"0000:0a:00.0\" class=\"0x060400\">\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f,
			"      <pci busid=\"0000:%X:00.0\" class=\"0x030200\">"
			"<gpu dev=\"%u\" sm=\"90\"><nvlink target=\"x\"/></gpu>"
			"</pci>\n",
			0x1b + 0x10 * i, i);
	for (unsigned i = 0; i < m; i++)
		fprintf(f,
			"      <pci busid=\"0000:%x:00.0\" class=\"0x020700\"/>"
			"<nic><net name=\"mlx5_%u\" dev=\"%u\" port=\"1\"/></nic>\n",
			0x1c + 0x10 * i, i, i);
	fprintf(f, "    </pci>\n  </cpu>\n</system>\n");
	fclose(f);
}

/* 4 GPUs by hwloc (0000:1b,2b,3b,4b), 2 ports. */
static void node4(const struct sn_config *cfg, struct tree *t,
		  struct sn_taskenv_node *node)
{
	node_of(cfg, t, node);
	node->gpus.n = 4;
	snprintf(node->gpus.from, sizeof(node->gpus.from), "hwloc");
	for (unsigned i = 0; i < 4; i++)
		snprintf(node->gpus.busid[i], sizeof(node->gpus.busid[i]),
			 "0000:%x:00.0", 0x1b + 0x10 * i);
}

static void test_topofile_parse(void **state)
{
	char dir[] = "/tmp/sn-topoXXXXXX", path[64];
	struct sn_topofile f;
	char *xml = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.xml", dir);
	topo_xml(path, 2, 3);
	assert_true(sn_file_read(path, SN_TOPOFILE_MAX, &xml) > 0);
	assert_int_equal(sn_topofile_parse(xml, &f), 0);
	assert_int_equal(f.n_gpus, 2);
	assert_int_equal(f.n_nets, 3);
	assert_int_equal(f.n_gpu_bus, 2);
	assert_string_equal(f.gpu_bus[0], "0000:1b:00.0");
	assert_string_equal(f.gpu_bus[1], "0000:2b:00.0");
	assert_int_equal(sn_topofile_parse("<hwloc/>", &f), -1);
	free(xml);
	unlink(path);
	rmdir(dir);
}

/* The user's file: GPU count, NIC count, bus ids; a link is refused. */
static void test_topofile_user(void **state)
{
	struct sn_config *cfg = cfg_load(SUPERNODES, NODE_OF("nvidia"));
	char dir[] = "/tmp/sn-topoXXXXXX", path[64], link[64];
	struct sn_taskenv_task task = { .batch = true };
	struct sn_taskenv_node node;
	struct sn_taskenv env;
	struct tree t;
	char want[512], *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.xml", dir);
	node4(cfg, &t, &node);
	topo_xml(path, 4, 2); /* matches */
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, -1, &node), 0);
	assert_string_equal(node.topo_file_note, "");
	topo_xml(path, 2, 2); /* GPU count and bus ids */
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, -1, &node), 1);
	snprintf(want, sizeof(want),
		 "NCCL_TOPO_FILE %s (from the job's environment) lists 2 GPUs "
		 "and 2 NICs, this node has 4 and 2 (0000:3b:00.0 missing, "
		 "0000:4b:00.0 missing)",
		 path);
	assert_string_equal(node.topo_file_note, want);
	/* on the job's stderr, from task 0, and in show */
	assert_int_equal(sn_taskenv_build(cfg, &node, &task, &env), 0);
	s = sn_taskenv_show_notes("sna1", 0, &env, false);
	snprintf(want, sizeof(want), "supernode: sna1: %s\n",
		 node.topo_file_note);
	assert_string_equal(s, want);
	free(s);
	sn_taskenv_free(&env);
	topo_xml(path, 4, 1); /* NIC count */
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, -1, &node), 1);
	assert_contains(node.topo_file_note,
			"lists 4 GPUs and 1 NICs, this node has 4 and 2");
	/* a link: root never follows a user's */
	snprintf(link, sizeof(link), "%s/l.xml", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(sn_taskenv_topo_file_check(cfg, link, -1, &node), -1);
	snprintf(
		want, sizeof(want),
		"NCCL_TOPO_FILE %s (from the job's environment) cannot be read",
		link);
	assert_string_equal(node.topo_file_note, want);
	unlink(link);
	/* root reads a user's file only when the user or root owns it */
	assert_int_equal(chown(path, 4711, 4711), 0);
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, 4712, &node),
			 -1);
	assert_non_null(strstr(node.topo_file_note,
			       "is not the job user's or root's: not read"));
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, 4711, &node), 1);

	unlink(path);
	rmdir(dir);
	sn_config_free(cfg);
	tree_free(&t);
}

/* The site file (paths.nccl_conf); a vendor without a topology variable. */
static void test_topofile_site(void **state)
{
	char dir[] = "/tmp/sn-topoXXXXXX", path[64], conf[64], yaml[512];
	struct sn_taskenv_node node;
	struct sn_config *cfg;
	struct tree t;
	char want[512];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/topo.xml", dir);
	snprintf(conf, sizeof(conf), "%s/nccl.conf", dir);
	f = fopen(conf, "w");
	assert_non_null(f);
	fprintf(f, "# site\nNCCL_DEBUG=WARN\n NCCL_TOPO_FILE = %s \n", path);
	fclose(f);
	snprintf(yaml, sizeof(yaml), "%spaths:\n  nccl_conf: %s\n",
		 NODE_OF("hygon"), conf);
	cfg = cfg_load(SUPERNODES, yaml);
	node4(cfg, &t, &node);
	topo_xml(path, 8, 4);
	assert_int_equal(sn_taskenv_topo_file_check(cfg, NULL, -1, &node), 1);
	snprintf(want, sizeof(want),
		 "NCCL_TOPO_FILE %s (from %s) lists 8 GPUs and 4 NICs, this "
		 "node has 4 and 2 (0000:5b:00.0 not on this node, "
		 "0000:6b:00.0 not on this node, 0000:7b:00.0 not on this "
		 "node, 0000:8b:00.0 not on this node)",
		 path, conf);
	assert_string_equal(node.topo_file_note, want);
	/* the job's own value wins over the site's */
	topo_xml(path, 4, 2);
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, -1, &node), 0);
	assert_string_equal(node.topo_file_note, "");
	sn_config_free(cfg);
	/* Cambricon: CNCL has no topology variable: nothing read */
	snprintf(yaml, sizeof(yaml), "%spaths:\n  nccl_conf: %s\n",
		 NODE_OF("cambricon"), conf);
	cfg = cfg_load(SUPERNODES, yaml);
	topo_xml(path, 8, 4);
	assert_int_equal(sn_taskenv_topo_file_check(cfg, path, -1, &node), 0);
	assert_string_equal(node.topo_file_note, "");
	sn_config_free(cfg);
	unlink(path);
	unlink(conf);
	rmdir(dir);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vendor_vars),
		cmocka_unit_test(test_visible_names),
		cmocka_unit_test(test_show_notes),
		cmocka_unit_test(test_hccl_if_ip),
		cmocka_unit_test(test_logic_superpod),
		cmocka_unit_test(test_topofile_parse),
		cmocka_unit_test(test_topofile_user),
		cmocka_unit_test(test_topofile_site),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
