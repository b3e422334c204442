/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Config loader (lib/config.c, lib/yaml_walk.c): values, defaults, every
 * strict-schema error with its FILE:LINE:COL: KEY prefix, file handling,
 * the lookup helpers, sn_path_expand, and a mutation fuzz run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#include "config/sn_config.h"

#define F "t.yaml" /* the path inline configs are loaded as */
/* The kernel as unit tests see it: never the real /proc. */
#define PROCFS SN_FIXTURES "/procfs/linux-default"

/* Two supernodes of two nodes: lines 1 to 5, sections follow on line 6. */
#define SN2                   \
	"supernodes:\n"       \
	"  - name: sn01\n"    \
	"    nodes: a[1-2]\n" \
	"  - name: sn02\n"    \
	"    nodes: b[1-2]\n"

static struct sn_config *load(const char *yaml)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer(F, yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("refused: %s\n--- config ---\n%s", err.msg, yaml);
	return cfg;
}

/* Refused with exactly this message. */
static void fails_with(const char *yaml, const char *want)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer(F, yaml, strlen(yaml), &err);
	if (cfg) {
		sn_config_free(cfg);
		fail_msg("accepted, expected: %s\n--- config ---\n%s", want,
			 yaml);
	}
	if (strcmp(err.msg, want))
		fail_msg("\n got: %s\nwant: %s", err.msg, want);
}

/* Refused with a message holding every fragment (NULL-terminated). */
static void fails_containing(const char *yaml, const char *const *frags)
{
	struct sn_config *cfg;
	struct sn_error err;

	err_reset(&err);
	cfg = sn_config_load_buffer(F, yaml, strlen(yaml), &err);
	if (cfg) {
		sn_config_free(cfg);
		fail_msg("accepted\n--- config ---\n%s", yaml);
	}
	for (; *frags; frags++)
		assert_contains(err.msg, *frags);
}

#define FAILS_CONTAINING(yaml, ...) \
	fails_containing(yaml, (const char *const[]){ __VA_ARGS__, NULL })

/* ---- valid configs ----------------------------------------------------- */

static void test_minimal_defaults(void **state)
{
	struct sn_config *cfg = load("supernodes:\n"
				     "  - name: sn01\n"
				     "    nodes: gpu-a[001-018]\n"
				     "  - name: sn02\n"
				     "    nodes: gpu-b[001-018]\n");

	(void)state;
	assert_string_equal(cfg->path, F);
	assert_int_equal(cfg->n_supernodes, 2);
	assert_int_equal(cfg->supernode_size, 18);
	assert_int_equal(cfg->n_nodes, 36);
	assert_string_equal(cfg->supernodes[0].name, "sn01");
	assert_string_equal(cfg->supernodes[0].nodes, "gpu-a[001-018]");
	assert_int_equal(cfg->supernodes[0].size, 18);
	assert_int_equal(cfg->supernodes[0].line, 2);
	assert_string_equal(cfg->supernodes[0].members[0], "gpu-a001");
	assert_string_equal(cfg->supernodes[0].members[17], "gpu-a018");
	assert_string_equal(cfg->supernodes[1].name, "sn02");
	assert_int_equal(cfg->supernodes[1].line, 4);
	assert_string_equal(cfg->supernodes[1].members[9], "gpu-b010");
	/* defaults */
	assert_int_equal(cfg->method, SN_PLACE_FEATURE);
	assert_int_equal(cfg->switch_wait, 300);
	assert_int_equal(cfg->max_requeues, SN_CONFIG_REQUEUES_SLURM);
	assert_int_equal(cfg->max_supernodes, 2); /* = supernodes */
	assert_int_equal(sn_config_effective_max(cfg), 2);
	assert_int_equal(cfg->master_port_lo, 20000);
	assert_int_equal(cfg->master_port_hi, 29999);
	assert_string_equal(cfg->sysfs, "/sys");
	assert_string_equal(cfg->dev, "/dev");
	assert_string_equal(cfg->state_dir, "/var/spool/supernode");
	/* the index is sorted by name */
	assert_string_equal(cfg->nodes[0].name, "gpu-a001");
	assert_int_equal(cfg->nodes[0].supernode, 0);
	assert_int_equal(cfg->nodes[0].rank, 0);
	assert_string_equal(cfg->nodes[35].name, "gpu-b018");
	assert_int_equal(cfg->nodes[35].supernode, 1);
	assert_int_equal(cfg->nodes[35].rank, 17);
	for (size_t i = 1; i < cfg->n_nodes; i++)
		assert_true(strcmp(cfg->nodes[i - 1].name, cfg->nodes[i].name) <
			    0);
	sn_config_free(cfg);
}

static void check_full(const struct sn_config *cfg)
{
	assert_int_equal(cfg->n_supernodes, 3);
	assert_int_equal(cfg->supernode_size, 2);
	assert_int_equal(cfg->n_nodes, 6);
	assert_string_equal(cfg->supernodes[0].name, "rack-A.1");
	assert_string_equal(cfg->supernodes[0].nodes, "node[01-02]");
	assert_string_equal(cfg->supernodes[0].members[1], "node02");
	assert_int_equal(cfg->supernodes[0].line, 3);
	assert_string_equal(cfg->supernodes[1].name, "rack_B");
	assert_string_equal(cfg->supernodes[1].nodes, "nodeb1,nodeb2");
	assert_string_equal(cfg->supernodes[1].members[0], "nodeb1");
	assert_int_equal(cfg->supernodes[1].line, 5);
	assert_string_equal(cfg->supernodes[2].name, "sn3");
	assert_string_equal(cfg->supernodes[2].members[0], "c9");
	assert_string_equal(cfg->supernodes[2].members[1], "c10");
	assert_int_equal(cfg->supernodes[2].line, 7);
	assert_int_equal(cfg->method, SN_PLACE_SWITCH);
	assert_int_equal(cfg->max_supernodes, 2);
	assert_int_equal(sn_config_effective_max(cfg), 2);
	assert_int_equal(cfg->switch_wait, 600);
	assert_int_equal(cfg->max_requeues, 0);
	assert_int_equal(cfg->master_port_lo, 21000);
	assert_int_equal(cfg->master_port_hi, 21999);
	assert_string_equal(cfg->sysfs, "/srv/fixtures/%n/sys");
	assert_string_equal(cfg->dev, "/srv/fixtures/%h/dev");
	assert_string_equal(cfg->state_dir, "/var/lib/sn/%%spool");
}

static void test_full(void **state)
{
	struct sn_config *cfg = load("# every key\n"
				     "supernodes:\n"
				     "  - name: rack-A.1\n"
				     "    nodes: node[01-02]\n"
				     "  - name: rack_B\n"
				     "    nodes: nodeb1,nodeb2\n"
				     "  - name: sn3\n"
				     "    nodes: c[9-10]\n"
				     "placement:\n"
				     "  method: switch\n"
				     "  max_supernodes: 2\n"
				     "  switch_wait: 600\n"
				     "  max_requeues: 0\n"
				     "env:\n"
				     "  master_port_range: [21000, 21999]\n"
				     "paths:\n"
				     "  sysfs: /srv/fixtures/%n/sys\n"
				     "  dev: /srv/fixtures/%h/dev\n"
				     "  state_dir: /var/lib/sn/%%spool\n");

	(void)state;
	check_full(cfg);
	assert_string_equal(cfg->path, F);
	sn_config_free(cfg);
}

/* Sections in any order, block-style lists, flow mappings, a lone "---". */
static void test_other_styles(void **state)
{
	struct sn_config *cfg =
		load("---\n"
		     "paths: {state_dir: /run/sn}\n"
		     "env:\n"
		     "  master_port_range:\n"
		     "    - 1024\n"
		     "    - 65535\n"
		     "supernodes:\n"
		     "  - {name: x, nodes: 'x[1-3]'}\n"
		     "placement: {method: block, switch_wait: 0}\n"
		     "...\n");

	(void)state;
	assert_int_equal(cfg->n_supernodes, 1);
	assert_int_equal(cfg->supernode_size, 3);
	assert_int_equal(cfg->method, SN_PLACE_BLOCK);
	assert_int_equal(cfg->switch_wait, 0);
	assert_int_equal(cfg->max_supernodes, 1);
	assert_int_equal(cfg->master_port_lo, 1024);
	assert_int_equal(cfg->master_port_hi, 65535);
	assert_string_equal(cfg->state_dir, "/run/sn");
	assert_string_equal(cfg->sysfs, "/sys");
	sn_config_free(cfg);
}

/* ---- strict schema ----------------------------------------------------- */

static void test_unknown_key(void **state)
{
	(void)state;
	fails_with(
		SN2 "placment:\n  method: feature\n", F
		":6:1: placment: unknown key (allowed here: supernodes, placement, env, paths, node, prolog, drain, epilog, bench)");
	fails_with(
		SN2 "placement:\n  method: feature\n  metod: switch\n", F
		":8:3: placement.metod: unknown key (allowed here: method, max_supernodes, switch_wait, max_requeues)");
	fails_with(
		"supernodes:\n  - name: sn01\n    node: a[1-2]\n", F
		":3:5: supernodes[0].node: unknown key (allowed here: name, nodes, identity)");
	fails_with(
		SN2 "env:\n  master_port: 1\n", F
		":7:3: env.master_port: unknown key (allowed here: master_port_range, socket_ifname, hca, mnnvl, pytorch, force)");
	fails_with(
		SN2 "paths:\n  sys: /sys\n", F
		":7:3: paths.sys: unknown key (allowed here: sysfs, dev, state_dir, nvml, hwloc_xml, kmsg, imex_ctl, imex_channels, dcmi, rocm_smi, cndev, mtml, mxsml, xpuml, trusted_owners, nccl_conf)");
}

static void test_duplicate_key(void **state)
{
	(void)state;
	fails_with(SN2 "placement:\n  method: feature\n  method: switch\n",
		   F ":8:3: placement.method: duplicate key");
	fails_with(SN2 "supernodes:\n  - name: sn03\n    nodes: c1\n",
		   F ":6:1: supernodes: duplicate key");
	fails_with(
		"supernodes:\n  - name: sn01\n    name: sn02\n    nodes: a1\n",
		F ":3:5: supernodes[0].name: duplicate key");
}

static void test_missing_key(void **state)
{
	(void)state;
	fails_with("placement:\n  method: switch\n",
		   F ":1:1: supernodes: required key missing");
	fails_with("supernodes:\n  - name: sn01\n",
		   F ":2:5: supernodes[0].nodes: required key missing");
	fails_with("supernodes:\n  - nodes: a1\n",
		   F ":2:5: supernodes[0].name: required key missing");
}

static void test_wrong_types(void **state)
{
	(void)state;
	/* string where a number is expected */
	fails_with(
		SN2 "placement:\n  max_supernodes: two\n", F
		":7:19: placement.max_supernodes: expected a whole number from 1 to 100000, found 'two'");
	/* a quoted number is a string */
	fails_with(
		SN2 "placement:\n  max_supernodes: \"2\"\n", F
		":7:19: placement.max_supernodes: expected a whole number from 1 to 100000, found '2'");
	fails_with(
		SN2 "placement:\n  max_supernodes: '2'\n", F
		":7:19: placement.max_supernodes: expected a whole number from 1 to 100000, found '2'");
	fails_with(
		SN2 "placement:\n  switch_wait: 1.5\n", F
		":7:16: placement.switch_wait: expected a whole number from 0 to 604800, found '1.5'");
	fails_with(
		SN2 "placement:\n  switch_wait: [1]\n", F
		":7:16: placement.switch_wait: expected a whole number from 0 to 604800, found a list");
	/* list where a mapping is expected */
	fails_with(SN2 "placement: [feature]\n",
		   F ":6:12: placement: expected a mapping, found a list");
	fails_with(SN2 "env: 20000\n",
		   F ":6:6: env: expected a mapping, found a scalar");
	fails_with(SN2 "paths:\n",
		   F ":6:7: paths: expected a mapping, found empty");
	fails_with("supernodes:\n  name: sn01\n  nodes: a1\n",
		   F ":2:3: supernodes: expected a list of {name, nodes}");
	fails_with("supernodes:\n  - sn01\n",
		   F ":2:5: supernodes[0]: expected a mapping, found a scalar");
	fails_with(
		"supernodes:\n  - name: [sn01]\n    nodes: a1\n",
		F ":2:11: supernodes[0].name: expected a string, found a list");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: {a: 1}\n", F
		":3:12: supernodes[0].nodes: expected a string, found a mapping");
	fails_with("[1, 2]\n", F ":1:1: : expected a mapping, found a list");
	fails_with("? [a]\n: b\n", F ":1:3: : a key must be a scalar");
}

static void test_bad_values(void **state)
{
	(void)state;
	fails_with(
		SN2 "placement:\n  method: magic\n", F
		":7:11: placement.method: 'magic' is not a method (allowed: feature, switch, block)");
	fails_with(
		SN2 "placement:\n  switch_wait: 604801\n", F
		":7:16: placement.switch_wait: 604801 is out of range (allowed: 0 to 604800)");
	fails_with(
		SN2 "placement:\n  switch_wait: -1\n", F
		":7:16: placement.switch_wait: -1 is out of range (allowed: 0 to 604800)");
	fails_with(
		SN2 "placement:\n  max_requeues: 101\n", F
		":7:17: placement.max_requeues: 101 is out of range (allowed: 0 to 100)");
	fails_with(
		SN2 "placement:\n  max_requeues: two\n", F
		":7:17: placement.max_requeues: expected a whole number from 0 to 100, found 'two'");
	fails_with("supernodes: []\n",
		   F ":1:13: supernodes: no supernodes listed");
	fails_with(
		"supernodes:\n  - name: sn 01\n    nodes: a1\n", F
		":2:11: supernodes[0].name: 'sn 01' is not a valid supernode name (1 to 63 of A-Z a-z 0-9 _ . -; it becomes a Slurm node feature)");
	FAILS_CONTAINING(
		"supernodes:\n  - name: a|b\n    nodes: a1\n", F
		":2:11: supernodes[0].name: 'a|b' is not a valid supernode name");
	/* an escaped NUL cannot hide the rest of a string */
	fails_with(
		"supernodes:\n  - name: \"sn\\0x\"\n    nodes: a1\n", F
		":2:11: supernodes[0].name: a NUL at byte 3 of 'sn?x' (quoted): a config string is one line without control characters");
}

/* No config string holds a control character: every string key. */
static void test_control_characters(void **state)
{
	(void)state;
	fails_with(
		SN2 "paths:\n  sysfs: \"/srv/a\\nb\"\n", F
		":7:10: paths.sysfs: a newline at byte 7 of '/srv/a?b' (quoted): a config string is one line without control characters");
	fails_with(
		SN2 "paths:\n  state_dir: |\n    /var/x\n", F
		":7:14: paths.state_dir: a newline at byte 7 of '/var/x?' (quoted): a config string is one line without control characters");
	fails_with(
		SN2 "env:\n  socket_ifname: \"eth\\t0\"\n", F
		":7:18: env.socket_ifname: a tab at byte 4 of 'eth?0' (quoted): a config string is one line without control characters");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: \"a[1-2]\\r\"\n", F
		":3:12: supernodes[0].nodes: a carriage return at byte 7 of 'a[1-2]?' (quoted): a config string is one line without control characters");
	fails_with(
		SN2 "drain:\n  tag: \"\\e[31mx:\"\n", F
		":7:8: drain.tag: a control character (0x1b) at byte 1 of '?[31mx:' (quoted): a config string is one line without control characters");
	fails_with(
		SN2 "placement:\n  method: \"feature\\x7f\"\n", F
		":7:11: placement.method: a control character (0x7f) at byte 8 of 'feature?' (quoted): a config string is one line without control characters");
}

static void test_name_length(void **state)
{
	char yaml[256];
	struct sn_config *cfg;
	char name[65];

	(void)state;
	memset(name, 'n', 63);
	name[63] = '\0';
	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: %s\n    nodes: a1\n", name);
	cfg = load(yaml);
	assert_string_equal(cfg->supernodes[0].name, name);
	sn_config_free(cfg);
	strcat(name, "n");
	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: %s\n    nodes: a1\n", name);
	FAILS_CONTAINING(yaml, F ":2:11: supernodes[0].name: 'nnnnnnnn",
			 "is not a valid supernode name (1 to 63");
}

static void test_tab_indentation(void **state)
{
	(void)state;
	fails_with("supernodes:\n\t- name: sn01\n",
		   F ":2:1: tab in indentation (YAML indents with spaces)");
	fails_with("supernodes:\n  - name: sn01\n  \tnodes: a1\n",
		   F ":3:3: tab in indentation (YAML indents with spaces)");
	fails_with("supernodes:\n  -\tname: sn01\n",
		   F ":2:4: tab in indentation (YAML indents with spaces)");
}

static void test_empty_and_comment_only(void **state)
{
	(void)state;
	fails_with("", F ": empty config (expected at least 'supernodes:')");
	fails_with("# nothing\n   # here either\n\n",
		   F ": empty config (expected at least 'supernodes:')");
	fails_with("---\n",
		   F ": empty config (expected at least 'supernodes:')");
	fails_with("\n\n",
		   F ": empty config (expected at least 'supernodes:')");
}

/* ---- supernodes: semantics --------------------------------------------- */

static void test_node_in_two_supernodes(void **state)
{
	(void)state;
	fails_with(
		"supernodes:\n"
		"  - name: sn01\n    nodes: a[1-2]\n"
		"  - name: sn02\n    nodes: a[2-3]\n",
		F
		":4:1: supernodes[1].nodes: node a2 of supernode sn02 is already in supernode sn01 (line 2): a node belongs to one supernode");
	/* the same when the later supernode sorts first by node name */
	fails_with(
		"supernodes:\n"
		"  - name: zz\n    nodes: b1,x9\n"
		"  - name: aa\n    nodes: a1,b1\n",
		F
		":4:1: supernodes[1].nodes: node b1 of supernode aa is already in supernode zz (line 2): a node belongs to one supernode");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: a[1-2],a1\n", F
		":2:1: supernodes[0].nodes: node a1 is listed twice in supernode sn01");
}

/* One node of the index: its name, supernode and rank, exactly. */
static void index_is(const struct sn_config *cfg, size_t i, const char *name,
		     uint32_t supernode, uint32_t rank)
{
	const struct sn_node *n = sn_config_find_node(cfg, name);

	assert_string_equal(cfg->nodes[i].name, name);
	assert_ptr_equal(n, &cfg->nodes[i]);
	assert_int_equal(n->supernode, supernode);
	assert_int_equal(n->rank, rank);
}

/*
 * The node index is in name order whether the config lists its nodes in
 * that order already (qsort() skipped) or not (sorted).
 */
static void test_node_index_order(void **state)
{
	struct sn_config *cfg;

	(void)state;
	cfg = load("supernodes:\n"
		   "  - {name: s1, nodes: 'n[01-03]'}\n"
		   "  - {name: s2, nodes: 'n[04-06]'}\n");
	assert_int_equal(cfg->n_nodes, 6);
	index_is(cfg, 0, "n01", 0, 0);
	index_is(cfg, 1, "n02", 0, 1);
	index_is(cfg, 2, "n03", 0, 2);
	index_is(cfg, 3, "n04", 1, 0);
	index_is(cfg, 4, "n05", 1, 1);
	index_is(cfg, 5, "n06", 1, 2);
	assert_null(sn_config_find_node(cfg, "n07"));
	sn_config_free(cfg);
	/* unpadded: n10 sorts before n2 */
	cfg = load("supernodes:\n"
		   "  - {name: s1, nodes: 'n[9-11]'}\n"
		   "  - {name: s2, nodes: 'n[1-3]'}\n");
	assert_int_equal(cfg->n_nodes, 6);
	index_is(cfg, 0, "n1", 1, 0);
	index_is(cfg, 1, "n10", 0, 1);
	index_is(cfg, 2, "n11", 0, 2);
	index_is(cfg, 3, "n2", 1, 1);
	index_is(cfg, 4, "n3", 1, 2);
	index_is(cfg, 5, "n9", 0, 0);
	assert_null(sn_config_find_node(cfg, "n4"));
	sn_config_free(cfg);
	/* a node in three supernodes, listed in order: the first two named */
	fails_with(
		"supernodes:\n"
		"  - {name: s1, nodes: a1}\n"
		"  - {name: s2, nodes: a1}\n"
		"  - {name: s3, nodes: a1}\n",
		F
		":3:1: supernodes[1].nodes: node a1 of supernode s2 is already in supernode s1 (line 2): a node belongs to one supernode");
}

static void test_duplicate_name(void **state)
{
	(void)state;
	fails_with(
		"supernodes:\n"
		"  - name: sn01\n    nodes: a[1-2]\n"
		"  - name: sn02\n    nodes: b[1-2]\n"
		"  - name: sn01\n    nodes: c[1-2]\n",
		F
		":6:1: supernodes: name sn01 is used twice (first on line 2)");
}

static void test_bad_hostlists(void **state)
{
	(void)state;
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: \"\"\n",
		F ":3:12: supernodes[0].nodes: expected a string, found empty");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes:\n",
		F ":3:11: supernodes[0].nodes: expected a string, found empty");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: node[5-3]\n", F
		":3:12: supernodes[0].nodes: cannot parse nodelist 'node[5-3]'");
	fails_with("supernodes:\n  - name: sn01\n    nodes: x],y\n", F
		   ":3:12: supernodes[0].nodes: cannot parse nodelist 'x],y'");
	fails_with("supernodes:\n  - name: sn01\n    nodes: node[\n", F
		   ":3:12: supernodes[0].nodes: cannot parse nodelist 'node['");
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: n[0-65536]\n", F
		":3:12: supernodes[0].nodes: nodelist 'n[0-65536]' has 65537 hosts, more than the limit of 65536");
}

static void test_unequal_sizes(void **state)
{
	(void)state;
	fails_with(
		SN2 "  - name: sn03\n    nodes: c[1-3]\n", F
		":6:5: supernodes[2].nodes: supernode sn03 has 3 nodes but sn01 has 2: all supernodes must have the same size");
}

static void test_max_supernodes(void **state)
{
	struct sn_config *cfg;

	(void)state;
	fails_with(
		SN2 "placement:\n  max_supernodes: 0\n", F
		":7:19: placement.max_supernodes: 0 is out of range (allowed: 1 to 100000)");
	fails_with(
		SN2 "placement:\n  max_supernodes: 100001\n", F
		":7:19: placement.max_supernodes: 100001 is out of range (allowed: 1 to 100000)");
	fails_with(
		SN2 "placement:\n  max_supernodes: 99999999999999999999\n", F
		":7:19: placement.max_supernodes: expected a whole number from 1 to 100000, found '99999999999999999999'");
	/* above the number of supernodes: kept, but the effective max is 2 */
	cfg = load(SN2 "placement:\n  max_supernodes: 100000\n");
	assert_int_equal(cfg->max_supernodes, 100000);
	assert_int_equal(sn_config_effective_max(cfg), 2);
	sn_config_free(cfg);
	cfg = load(SN2 "placement:\n  max_supernodes: 1\n");
	assert_int_equal(sn_config_effective_max(cfg), 1);
	sn_config_free(cfg);
}

static void test_port_range(void **state)
{
	(void)state;
	fails_with(
		SN2 "env:\n  master_port_range: [30000, 20000]\n", F
		":7:22: env.master_port_range: LOW 30000 is above HIGH 20000");
	fails_with(
		SN2 "env:\n  master_port_range: [80, 2000]\n", F
		":7:23: env.master_port_range[0]: 80 is out of range (allowed: 1024 to 65535)");
	fails_with(
		SN2 "env:\n  master_port_range: [1023, 2000]\n", F
		":7:23: env.master_port_range[0]: 1023 is out of range (allowed: 1024 to 65535)");
	fails_with(
		SN2 "env:\n  master_port_range: [20000, 65536]\n", F
		":7:30: env.master_port_range[1]: 65536 is out of range (allowed: 1024 to 65535)");
	fails_with(
		SN2 "env:\n  master_port_range: [20000]\n", F
		":7:22: env.master_port_range: expected [LOW, HIGH], two port numbers");
	fails_with(
		SN2 "env:\n  master_port_range: [20000, 20001, 20002]\n", F
		":7:22: env.master_port_range: expected [LOW, HIGH], two port numbers");
	fails_with(
		SN2 "env:\n  master_port_range: 20000-29999\n", F
		":7:22: env.master_port_range: expected [LOW, HIGH], two port numbers");
	fails_with(
		SN2 "env:\n  master_port_range: [\"20000\", 29999]\n", F
		":7:23: env.master_port_range[0]: expected a whole number from 1024 to 65535, found '20000'");
}

static void test_paths(void **state)
{
	(void)state;
	fails_with(SN2 "paths:\n  sysfs: sys\n",
		   F ":7:10: paths.sysfs: 'sys' is not an absolute path");
	fails_with(SN2 "paths:\n  dev: ./dev\n",
		   F ":7:8: paths.dev: './dev' is not an absolute path");
	fails_with(
		SN2 "paths:\n  state_dir: /var/%x\n", F
		":7:14: paths.state_dir: '/var/%x': only %n, %h and %% may follow %");
	fails_with(
		SN2 "paths:\n  state_dir: /var/x%\n", F
		":7:14: paths.state_dir: '/var/x%': only %n, %h and %% may follow %");
	fails_with(SN2 "paths:\n  sysfs: \"\"\n",
		   F ":7:10: paths.sysfs: expected a string, found empty");
}

/* Every key that holds a path follows the one rule (sn_config_path). */
static void test_every_path_key(void **state)
{
	static const char *const keys[][2] = {
		{ "paths", "sysfs" },	    { "paths", "dev" },
		{ "paths", "state_dir" },   { "paths", "nvml" },
		{ "paths", "hwloc_xml" },   { "paths", "kmsg" },
		{ "epilog", "record_dir" }, { "epilog", "textfile_dir" },
		{ "paths", "imex_ctl" },    { "paths", "imex_channels" },
		{ "paths", "dcmi" },
	};
	char yaml[256], want[256];

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(yaml, sizeof(yaml), SN2 "%s:\n  %s: /a/%%z\n",
			 keys[i][0], keys[i][1]);
		snprintf(
			want, sizeof(want),
			F
			":7:%zu: %s.%s: '/a/%%z': only %%n, %%h and %%%% may follow %%",
			strlen(keys[i][1]) + 5, keys[i][0], keys[i][1]);
		fails_with(yaml, want);
		snprintf(yaml, sizeof(yaml), SN2 "%s:\n  %s: a\n", keys[i][0],
			 keys[i][1]);
		snprintf(want, sizeof(want),
			 F ":7:%zu: %s.%s: 'a' is not an absolute path",
			 strlen(keys[i][1]) + 5, keys[i][0], keys[i][1]);
		fails_with(yaml, want);
	}
}

/* supernodes[].identity: what the hardware must report (issue 12 item 3). */
static void test_identity(void **state)
{
	static const char *const bad[] = {
		"nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab",
		"nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab/",
		"nvlink:8B7F1C2D-0000-4A5B-9C8D-0123456789AB/1",
		"nvlink:8b7f1c2d00004a5b9c8d0123456789ab/1",
		"nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab/4294967296",
		"nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab/1x",
		"ascend:",
		"ascend:-1",
		"config:sn01",
		"32766",
	};
	struct sn_config *cfg;
	char yaml[512], want[512];

	(void)state;
	cfg = load(
		"supernodes:\n"
		"  - name: sn01\n    nodes: a[1-2]\n"
		"    identity: nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab/32766\n"
		"  - name: sn02\n    nodes: b[1-2]\n"
		"    identity: ascend:4294967295\n"
		"  - name: sn03\n    nodes: c[1-2]\n");
	assert_string_equal(
		cfg->supernodes[0].identity,
		"nvlink:8b7f1c2d-0000-4a5b-9c8d-0123456789ab/32766");
	assert_string_equal(cfg->supernodes[1].identity, "ascend:4294967295");
	assert_null(cfg->supernodes[2].identity);
	sn_config_free(cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(sn_config_identity_valid(bad[i]));
		snprintf(yaml, sizeof(yaml),
			 "supernodes:\n  - name: sn01\n    nodes: a[1-2]\n"
			 "    identity: \"%s\"\n",
			 bad[i]);
		snprintf(
			want, sizeof(want),
			F
			":4:15: supernodes[0].identity: '%s' is not an identity (nvlink:<cluster uuid>/<clique id> or ascend:<super pod id>, lower-case hex, as supernodectl discover prints)",
			bad[i]);
		fails_with(yaml, want);
	}
	/* Well formed, but "in no domain": every node would drain. */
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: a[1-2]\n"
		"    identity: nvlink:00000000-0000-0000-0000-000000000000/0\n",
		F
		":4:15: supernodes[0].identity: 'nvlink:00000000-0000-0000-0000-000000000000/0': a zero cluster UUID means no multi-node NVLink domain; leave identity out for such a supernode");
}

/* "[a|b|...]" holds 64 alternatives: feature refuses 65, switch takes it. */
static char *many_supernodes(unsigned n, const char *method)
{
	size_t size = 64 + (size_t)n * 48, used = 0;
	char *yaml = malloc(size);

	assert_non_null(yaml);
	used += (size_t)snprintf(
		yaml, size, "placement:\n  method: %s\nsupernodes:\n", method);
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(
			yaml + used, size - used,
			"  - {name: s%03u, nodes: 'n%03u[1-2]'}\n", i, i);
	return yaml;
}

static void test_feature_limit(void **state)
{
	struct sn_config *cfg;
	char *yaml;

	(void)state;
	yaml = many_supernodes(65, "feature");
	fails_with(
		yaml, F
		": placement.method: 'feature' handles at most 64 supernodes (Slurm's matching OR \"[a|b|...]\" holds 64 alternatives and slurmctld crashes beyond); 65 are configured: use 'switch' or 'block'");
	free(yaml);

	yaml = many_supernodes(64, "feature");
	cfg = load(yaml);
	assert_int_equal(cfg->n_supernodes, 64);
	sn_config_free(cfg);
	free(yaml);

	yaml = many_supernodes(65, "switch");
	cfg = load(yaml);
	assert_int_equal(cfg->n_supernodes, 65);
	assert_int_equal(cfg->method, SN_PLACE_SWITCH);
	assert_int_equal(cfg->max_supernodes, 65);
	assert_int_equal(cfg->n_nodes, 130);
	assert_string_equal(cfg->supernodes[64].name, "s064");
	assert_string_equal(cfg->supernodes[64].members[1], "n0642");
	sn_config_free(cfg);
	free(yaml);
}

/* ---- YAML level -------------------------------------------------------- */

static void test_yaml_syntax(void **state)
{
	(void)state;
	fails_with(
		"supernodes:\n  - name: sn01\n    nodes: [a1\n", F
		":4:1: YAML syntax: did not find expected ',' or ']' while parsing a flow sequence");
	fails_with(
		"supernodes:\n  - name: sn01\n   nodes: a1\n", F
		":3:4: YAML syntax: did not find expected '-' indicator while parsing a block collection");
	fails_with(
		"supernodes:\n  - name: sn01 nodes: a1\n", F
		":2:21: YAML syntax: mapping values are not allowed in this context");
	/* reader errors: libyaml gives a byte offset, we give line:col */
	fails_with("supernodes:\n  - name: sn01\n    nodes: a\xff[1-2]\n",
		   F ":3:13: YAML syntax: invalid leading UTF-8 octet");
	fails_with(SN2 "env:\n  \x01\n",
		   F ":7:3: YAML syntax: control characters are not allowed");
	fails_with(
		SN2 "paths:\n  sysfs: \"/sys\n", F
		":8:1: YAML syntax: found unexpected end of stream while scanning a quoted scalar");
}

/* An alias is refused where it stands (anchors alone are ignored). */
static void test_aliases(void **state)
{
	(void)state;
	fails_with(
		"supernodes:\n"
		"  - name: &n sn01\n    nodes: a[1-2]\n"
		"  - name: *n\n    nodes: b[1-2]\n",
		F
		":4:11: supernodes[1].name: anchors and aliases are not supported (*n)");
	fails_with(SN2 "placement: &p {method: feature}\nenv: *p\n",
		   F ":7:6: env: anchors and aliases are not supported (*p)");
	fails_with(
		"supernodes:\n"
		"  - &e {name: sn01, nodes: a1}\n"
		"  - *e\n",
		F
		":3:5: supernodes[1]: anchors and aliases are not supported (*e)");
	fails_with(
		SN2 "env: {hca: [mlx5_0, *x]}\n", F
		":6:21: env.hca[1]: anchors and aliases are not supported (*x)");
}

/* The second document is refused at its '---', before its content. */
static void test_two_documents(void **state)
{
	(void)state;
	fails_with(SN2 "---\n" SN2,
		   F ":6:1: more than one YAML document ('---')");
	fails_with(SN2 "---\n", F ":6:1: more than one YAML document ('---')");
	fails_with(SN2 "---\n[\n",
		   F ":6:1: more than one YAML document ('---')");
	fails_with(SN2 "...\n---\nx: [[[\n",
		   F ":7:1: more than one YAML document ('---')");
}

/* ---- files ------------------------------------------------------------- */

static void test_load_file_full(void **state)
{
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	cfg = sn_config_load(SN_FIXTURES "/full.yaml", &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	check_full(cfg);
	assert_string_equal(cfg->path, SN_FIXTURES "/full.yaml");
	sn_config_free(cfg);

	cfg = sn_config_load(SN_FIXTURES "/minimal.yaml", &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->n_nodes, 36);
	assert_int_equal(cfg->max_supernodes, 2);
	sn_config_free(cfg);
}

static void test_load_file_errors_name_the_file(void **state)
{
	struct sn_error err;

	(void)state;
	assert_null(sn_config_load(SN_FIXTURES "/tab-indent.yaml", &err));
	assert_string_equal(
		err.msg, SN_FIXTURES
		"/tab-indent.yaml:3:1: tab in indentation (YAML indents with spaces)");
	assert_null(sn_config_load(SN_FIXTURES "/unknown-key.yaml", &err));
	assert_string_equal(
		err.msg, SN_FIXTURES
		"/unknown-key.yaml:6:3: placement.max_supernode: unknown key (allowed here: method, max_supernodes, switch_wait, max_requeues)");
	assert_null(sn_config_load(SN_FIXTURES "/no-such-file.yaml", &err));
	assert_string_equal(
		err.msg, SN_FIXTURES
		"/no-such-file.yaml: cannot open: No such file or directory");
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("sn_config_load blocked (opening a FIFO must not wait)");
}

static void test_load_not_regular(void **state)
{
	char dir[] = "/tmp/sn-unit-XXXXXX", fifo[64];
	struct sn_error err;

	(void)state;
	assert_null(sn_config_load(SN_FIXTURES "/directory.yaml", &err));
	assert_string_equal(err.msg, SN_FIXTURES
			    "/directory.yaml: not a regular file (folder)");
	assert_null(sn_config_load("/dev/null", &err));
	assert_string_equal(err.msg,
			    "/dev/null: not a regular file (character device)");

	/* A FIFO with no writer: refused at once, not waited on. */
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.yaml", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_null(sn_config_load(fifo, &err));
	alarm(0);
	assert_contains(err.msg, "/fifo.yaml: not a regular file (fifo)");
	unlink(fifo);
	rmdir(dir);
}

/*
 * Too large: made here as a sparse file (4 MiB + 1 byte of holes) rather
 * than kept as a 4 MiB fixture in git.
 */
static void test_load_too_large(void **state)
{
	char path[] = "/tmp/sn-unit-big-XXXXXX";
	struct sn_error err;
	char want[256];
	char *buf;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SN_CONFIG_MAX_BYTES + 1), 0);
	close(fd);
	assert_null(sn_config_load(path, &err));
	snprintf(want, sizeof(want),
		 "%s: 4194305 bytes, more than the limit of 4194304", path);
	assert_string_equal(err.msg, want);
	unlink(path);

	/* the same limit for a buffer */
	buf = malloc(SN_CONFIG_MAX_BYTES + 1);
	assert_non_null(buf);
	memset(buf, ' ', SN_CONFIG_MAX_BYTES + 1);
	assert_null(
		sn_config_load_buffer(F, buf, SN_CONFIG_MAX_BYTES + 1, &err));
	assert_string_equal(err.msg, F
			    ": 4194305 bytes, more than the limit of 4194304");
	free(buf);
}

/* ---- the machine: the kernel's ephemeral ports ------------------------- */

/* inline yaml, then the warning against procfs: exactly want (or "") */
static void port_warning(const char *yaml, const char *procfs, const char *want)
{
	struct sn_config *cfg = load(yaml);
	struct sn_error warn;
	int rc;

	err_reset(&warn);
	rc = sn_config_port_warning(cfg, procfs, &warn);
	sn_config_free(cfg);
	if (!*want && rc)
		fail_msg("warned: %s", warn.msg);
	if (*want && !rc)
		fail_msg("no warning, expected: %s", want);
	if (*want && strcmp(warn.msg, want))
		fail_msg("\n got: %s\nwant: %s", warn.msg, want);
}

#define EPH_FILE "/sys/net/ipv4/ip_local_port_range"

static void test_ephemeral_range(void **state)
{
	(void)state;
	port_warning(
		SN2 "env:\n  master_port_range: [32768, 40000]\n", PROCFS,
		F
		":7:22: env.master_port_range: [32768, 40000] lies wholly inside the kernel's ephemeral port range 32768-60999 (" PROCFS
			EPH_FILE
		"): MASTER_PORT is left unset in every job on this machine");
	port_warning(
		SN2 "env:\n  master_port_range: [60999, 60999]\n", PROCFS,
		F
		":7:22: env.master_port_range: [60999, 60999] lies wholly inside the kernel's ephemeral port range 32768-60999 (" PROCFS
			EPH_FILE
		"): MASTER_PORT is left unset in every job on this machine");
	/* the default range, on a machine whose ephemeral ports cover it */
	port_warning(
		SN2, SN_FIXTURES "/procfs/wide",
		F
		": env.master_port_range: [20000, 29999] (the default) lies wholly inside the kernel's ephemeral port range 10000-65000 (" SN_FIXTURES
		"/procfs/wide" EPH_FILE
		"): MASTER_PORT is left unset in every job on this machine");
	/* in part: MASTER_PORT takes the ports outside */
	port_warning(
		SN2 "env:\n  master_port_range: [30000, 32768]\n", PROCFS,
		F
		":7:22: env.master_port_range: 1 of its 2769 ports lie inside the kernel's ephemeral port range 32768-60999 (" PROCFS
			EPH_FILE "): MASTER_PORT takes only the other 2768");
	port_warning(
		SN2 "env:\n  master_port_range: [1024, 65535]\n", PROCFS,
		F
		":7:22: env.master_port_range: 28232 of its 64512 ports lie inside the kernel's ephemeral port range 32768-60999 (" PROCFS
			EPH_FILE "): MASTER_PORT takes only the other 36280");
	/* outside: nothing to say */
	port_warning(SN2, PROCFS, "");
	port_warning(SN2 "env:\n  master_port_range: [61000, 61999]\n", PROCFS,
		     "");
	port_warning(SN2 "env:\n  master_port_range: [1024, 32767]\n", PROCFS,
		     "");
	/* nothing to read: no warning (the step assumes Linux's default) */
	port_warning(SN2 "env:\n  master_port_range: [32768, 40000]\n",
		     SN_FIXTURES "/procfs/none", "");
}

/*
 * Issue 17 item 3: the machine never decides whether the file loads.  A
 * range wholly inside this machine's ephemeral ports under Linux's default
 * 32768-60999 loads (before: refused, "...lies wholly inside the kernel's
 * ephemeral port range 32768-60999 (/proc/...)").
 */
static void test_ephemeral_range_file(void **state)
{
	char path[] = "/tmp/sn-unit-eph-XXXXXX";
	static const char yaml[] = SN2
		"env:\n  master_port_range: [32768, 60999]\n";
	struct sn_config *cfg;
	struct sn_error err;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	err_reset(&err);
	cfg = sn_config_load(path, &err);
	if (!cfg)
		fail_msg("refused: %s", err.msg);
	assert_int_equal(cfg->master_port_lo, 32768);
	assert_int_equal(cfg->master_port_hi, 60999);
	sn_config_free(cfg);
	unlink(path);
}

/* ---- helpers ----------------------------------------------------------- */

static void test_find_node(void **state)
{
	struct sn_config *cfg =
		load("supernodes:\n"
		     "  - name: sn01\n    nodes: gpu-a[001-018]\n"
		     "  - name: sn02\n    nodes: gpu-b[001-018]\n");
	const struct sn_node *n;

	(void)state;
	n = sn_config_find_node(cfg, "gpu-b007");
	assert_non_null(n);
	assert_string_equal(n->name, "gpu-b007");
	assert_int_equal(n->supernode, 1);
	assert_int_equal(n->rank, 6);
	n = sn_config_find_node(cfg, "gpu-a001");
	assert_non_null(n);
	assert_int_equal(n->supernode, 0);
	assert_int_equal(n->rank, 0);
	n = sn_config_find_node(cfg, "gpu-a018");
	assert_int_equal(n->rank, 17);
	assert_null(sn_config_find_node(cfg, "gpu-c001"));
	assert_null(sn_config_find_node(cfg, "gpu-a00"));
	assert_null(sn_config_find_node(cfg, "gpu-a0010"));
	assert_null(sn_config_find_node(cfg, ""));
	assert_null(sn_config_find_node(cfg, NULL));
	assert_null(sn_config_find_node(NULL, "gpu-a001"));
	sn_config_free(cfg);
	sn_config_free(NULL);
}

/* Rank follows hostlist order, not name order. */
static void test_rank_in_hostlist_order(void **state)
{
	struct sn_config *cfg =
		load("supernodes:\n  - name: x\n    nodes: n[3,1,2]\n");

	(void)state;
	assert_int_equal(sn_config_find_node(cfg, "n3")->rank, 0);
	assert_int_equal(sn_config_find_node(cfg, "n1")->rank, 1);
	assert_int_equal(sn_config_find_node(cfg, "n2")->rank, 2);
	assert_string_equal(cfg->nodes[0].name, "n1");
	sn_config_free(cfg);
}

static void test_method_name(void **state)
{
	(void)state;
	assert_string_equal(sn_placement_method_name(SN_PLACE_FEATURE),
			    "feature");
	assert_string_equal(sn_placement_method_name(SN_PLACE_SWITCH),
			    "switch");
	assert_string_equal(sn_placement_method_name(SN_PLACE_BLOCK), "block");
	assert_string_equal(
		sn_placement_method_name((enum sn_placement_method)7), "?");
}

static void test_path_expand(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(sn_path_expand("/srv/%n/sys", "gpu1", "host1", out,
					sizeof(out)),
			 0);
	assert_string_equal(out, "/srv/gpu1/sys");
	assert_int_equal(sn_path_expand("/srv/%h/dev", "gpu1", "host1", out,
					sizeof(out)),
			 0);
	assert_string_equal(out, "/srv/host1/dev");
	assert_int_equal(sn_path_expand("/a/100%%/%n-%h%%", "n", "h", out,
					sizeof(out)),
			 0);
	assert_string_equal(out, "/a/100%/n-h%");
	assert_int_equal(sn_path_expand("", "n", "h", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* other % sequences */
	assert_int_equal(sn_path_expand("/a/%x", "n", "h", out, sizeof(out)),
			 -1);
	assert_int_equal(sn_path_expand("/a/%", "n", "h", out, sizeof(out)),
			 -1);
	assert_int_equal(sn_path_expand("/a/%N", "n", "h", out, sizeof(out)),
			 -1);
	/* a name that is not known */
	assert_int_equal(sn_path_expand("/a/%n", NULL, "h", out, sizeof(out)),
			 -1);
	assert_int_equal(sn_path_expand("/a/%h", "n", NULL, out, sizeof(out)),
			 -1);
	assert_int_equal(sn_path_expand("/a/b", NULL, NULL, out, sizeof(out)),
			 0);
	assert_string_equal(out, "/a/b");
}

static void test_path_expand_overflow(void **state)
{
	char out[8];

	(void)state;
	/* "/a/bcde" is 7 bytes + NUL: fits 8 exactly, not 7 */
	assert_int_equal(sn_path_expand("/a/%n", "bcde", "h", out, 8), 0);
	assert_string_equal(out, "/a/bcde");
	memset(out, 'Z', sizeof(out));
	assert_int_equal(sn_path_expand("/a/%n", "bcde", "h", out, 7), -1);
	assert_int_equal(out[7], 'Z'); /* nothing past size */
	assert_int_equal(sn_path_expand("/abcdefg", "n", "h", out, 8), -1);
	assert_int_equal(sn_path_expand("/abcdef", "n", "h", out, 8), 0);
	assert_int_equal(sn_path_expand("/abc", "n", "h", out, 0), -1);
	assert_int_equal(sn_path_expand("", "n", "h", out, 0), -1);
	assert_int_equal(sn_path_expand("", "n", "h", out, 1), 0);
	assert_string_equal(out, "");
}

/* ---- mutation fuzz ----------------------------------------------------- */

static const char fuzz_seed_config[] =
	"# seed for the mutation fuzz\n"
	"supernodes:\n"
	"  - name: sn01\n"
	"    nodes: gpu-a[001-004]\n"
	"  - name: sn02\n"
	"    nodes: gpu-b[001-002,007-008]\n"
	"  - {name: sn03, nodes: 'rack[0-1]_blade[0-1]'}\n"
	"placement:\n"
	"  method: switch\n"
	"  max_supernodes: 2\n"
	"  switch_wait: 600\n"
	"env:\n"
	"  master_port_range: [20000, 29999]\n"
	"paths:\n"
	"  sysfs: /srv/%n/sys\n"
	"  dev: /dev\n"
	"  state_dir: /var/spool/supernode\n";

/* Tokens that stress the YAML and hostlist grammars. */
static const char *const fuzz_tokens[] = {
	"[",	       "]",
	"{",	       "}",
	",",	       ":",
	": ",	       "- ",
	"-",	       "&a ",
	"*a",	       "!!str ",
	"---\n",       "...\n",
	"\t",	       "\n",
	"  ",	       "#",
	"'",	       "\"",
	"\\",	       "%",
	"%n",	       "%x",
	"|",	       ">",
	"?",	       "0",
	"9",	       "99999999999999999999",
	"-1",	       "[0-65535]",
	"[0-99999]",   "[1-2][3-4][5-6]",
	"name: ",      "nodes: ",
	"supernodes:", "\xff",
	"\xc3\xa9",    "\0",
	"~",	       "null",
	"<<: ",
};

static unsigned long long fuzz_state = 0x5eed5eed5eed5eedULL;

static unsigned fuzz_rand(unsigned n)
{
	/* xorshift64*: fixed seed, the same run every time */
	fuzz_state ^= fuzz_state >> 12;
	fuzz_state ^= fuzz_state << 25;
	fuzz_state ^= fuzz_state >> 27;
	return (unsigned)((fuzz_state * 2685821657736338717ULL) >> 33) % n;
}

/* Apply 1 to 4 random edits to buf (len bytes, room for cap). */
static size_t fuzz_mutate(char *buf, size_t len, size_t cap)
{
	unsigned edits = 1 + fuzz_rand(4);

	for (unsigned e = 0; e < edits; e++) {
		size_t pos = len ? fuzz_rand((unsigned)len + 1) : 0;
		unsigned kind = fuzz_rand(5);

		if (kind == 0 && len) { /* flip a byte */
			buf[pos % len] = (char)fuzz_rand(256);
		} else if (kind == 1 && len) { /* delete a run */
			size_t n = 1 + fuzz_rand(8);

			if (pos + n > len)
				n = len - pos;
			memmove(buf + pos, buf + pos + n, len - pos - n);
			len -= n;
		} else if (kind == 2 && len && len * 2 < cap) { /* duplicate */
			size_t from = fuzz_rand((unsigned)len);
			size_t n = 1 + fuzz_rand(40);
			char run[40];

			if (from + n > len)
				n = len - from;
			memcpy(run, buf + from, n);
			memmove(buf + pos + n, buf + pos, len - pos);
			memcpy(buf + pos, run, n);
			len += n;
		} else { /* insert a token */
			const char *t = fuzz_tokens[fuzz_rand(
				sizeof(fuzz_tokens) / sizeof(fuzz_tokens[0]))];
			size_t n = *t ? strlen(t) : 1;

			if (len + n >= cap)
				continue;
			memmove(buf + pos + n, buf + pos, len - pos);
			memcpy(buf + pos, t, n);
			len += n;
		}
	}
	return len;
}

/* A config that loaded must be internally consistent. */
static void fuzz_check_config(const struct sn_config *cfg)
{
	assert_true(cfg->n_supernodes >= 1);
	assert_true(cfg->supernode_size >= 1);
	assert_int_equal(cfg->n_nodes, cfg->n_supernodes * cfg->supernode_size);
	assert_true(cfg->max_supernodes >= 1);
	assert_true(cfg->master_port_lo >= 1024);
	assert_true(cfg->master_port_lo <= cfg->master_port_hi);
	assert_true(cfg->sysfs[0] == '/' && cfg->dev[0] == '/' &&
		    cfg->state_dir[0] == '/');
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		const struct sn_supernode *sn = &cfg->supernodes[i];

		assert_int_equal(sn->size, cfg->supernode_size);
		assert_true(strlen(sn->name) >= 1 &&
			    strlen(sn->name) <= SN_CONFIG_NAME_MAX);
		for (size_t r = 0; r < sn->size; r++) {
			const struct sn_node *n =
				sn_config_find_node(cfg, sn->members[r]);

			assert_non_null(n);
			assert_int_equal(n->supernode, i);
			assert_int_equal(n->rank, r);
			assert_null(strpbrk(sn->members[r], "[],"));
		}
	}
}

static void test_fuzz_mutations(void **state)
{
	size_t cap = 4096, seed_len = sizeof(fuzz_seed_config) - 1;
	unsigned accepted = 0, refused = 0;
	char *buf = malloc(cap);

	(void)state;
	assert_non_null(buf);
	for (unsigned i = 0; i < 2000; i++) {
		struct sn_config *cfg;
		struct sn_error err;
		size_t len;
		char *copy;

		memcpy(buf, fuzz_seed_config, seed_len);
		len = fuzz_mutate(buf, seed_len, cap);
		/* an exact-size heap copy, so ASan sees any overread */
		copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, buf, len);
		err.msg[0] = '\0';
		cfg = sn_config_load_buffer(F, copy, len, &err);
		if (cfg) {
			fuzz_check_config(cfg);
			sn_config_free(cfg);
			accepted++;
		} else {
			if (!err.msg[0])
				fail_msg("mutation %u: NULL without a message",
					 i);
			/* every message names the file */
			assert_int_equal(strncmp(err.msg, F ":", 7), 0);
			refused++;
		}
		free(copy);
	}
	free(buf);
	print_message("fuzz: %u accepted, %u refused\n", accepted, refused);
	assert_int_equal(accepted + refused, 2000);
	/* the mutations must reach both outcomes to mean anything */
	assert_true(accepted > 50);
	assert_true(refused > 500);
}

/* prefix, then n copies of open, then n of close, then suffix: malloc()ed. */
static char *nested(const char *prefix, const char *open, const char *close,
		    size_t n, const char *suffix, size_t *len)
{
	size_t lp = strlen(prefix), lo = strlen(open), lc = strlen(close);
	size_t used = lp;
	char *buf;

	*len = lp + n * (lo + lc) + strlen(suffix);
	buf = malloc(*len + 1);
	assert_non_null(buf);
	memcpy(buf, prefix, lp);
	for (size_t i = 0; i < n; i++, used += lo)
		memcpy(buf + used, open, lo);
	for (size_t i = 0; i < n; i++, used += lc)
		memcpy(buf + used, close, lc);
	strcpy(buf + used, suffix);
	return buf;
}

/* nested(prefix, open, close, n, suffix) is refused with exactly want. */
static void deep_fails_with(const char *prefix, const char *open,
			    const char *close, size_t n, const char *suffix,
			    const char *want)
{
	struct sn_config *cfg;
	struct sn_error err;
	size_t len;
	char *buf = nested(prefix, open, close, n, suffix, &len);

	err_reset(&err);
	cfg = sn_config_load_buffer(F, buf, len, &err);
	free(buf);
	if (cfg) {
		sn_config_free(cfg);
		fail_msg("accepted, expected: %s", want);
	}
	if (strcmp(err.msg, want))
		fail_msg("\n got: %s\nwant: %s", err.msg, want);
}

#define PATH31                                             \
	"[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]" \
	"[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"

/*
 * The nesting cap comes from libyaml's own events (the root is level 1):
 * an apostrophe in a plain scalar, which fooled the old text pre-scan into
 * a quote, then 80,000 levels (160 KB) used to be accepted after 29 s.
 */
static void test_nesting_depth(void **state)
{
	(void)state;
	deep_fails_with("x: it's\ny: ", "[", "]", 80000, "\n",
			F ":2:35: y" PATH31 ": nested deeper than 32 levels");
	/* the same behind a quoted scalar, a comment, flow mappings */
	deep_fails_with(
		"x: \"it's\" # it's\ny: ", "{a: ", "}", 80000, "\n",
		F
		":2:128: y.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: nested deeper than 32 levels");
	/* 4 MiB of '[' */
	deep_fails_with("", "[", "", SN_CONFIG_MAX_BYTES, "",
			F ":1:33: " PATH31 "[0]: nested deeper than 32 levels");
	/* block nesting counts too */
	deep_fails_with("x:\n", "- ", "", 40, "v\n",
			F ":2:63: x" PATH31 ": nested deeper than 32 levels");
}

/*
 * 2^20 nodes in all: counted as each supernode is expanded, so a file of
 * many 65,536-node hostlists stops at the first one over, not after
 * expanding all of them.
 */
static void test_nodes_in_all(void **state)
{
	size_t size = 64 + 17 * 48, used = 0;
	char *yaml = malloc(size);

	(void)state;
	assert_non_null(yaml);
	used += (size_t)snprintf(yaml, size,
				 "placement: {method: switch}\nsupernodes:\n");
	for (unsigned i = 0; i < 17; i++)
		used += (size_t)snprintf(
			yaml + used, size - used,
			"- {name: s%02u, nodes: 'n%02u-[0-65535]'}\n", i, i);
	fails_with(
		yaml, F
		":19:3: supernodes[16]: 1114112 nodes in all up to here, more than the limit of 1048576");
	free(yaml);
}

/* 32 levels load as YAML (the schema then says what is wrong). */
static void test_nesting_32_levels(void **state)
{
	(void)state;
	deep_fails_with(
		"supernodes: ", "[", "]", 31, "\n",
		F ":1:14: supernodes[0]: expected a mapping, found a list");
	/* brackets inside quotes and comments are no structure */
	fails_with("# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
		   "supernodes: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['\n",
		   F ":2:13: supernodes: expected a list of {name, nodes}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_other_styles),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_missing_key),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_name_length),
		cmocka_unit_test(test_tab_indentation),
		cmocka_unit_test(test_empty_and_comment_only),
		cmocka_unit_test(test_node_in_two_supernodes),
		cmocka_unit_test(test_duplicate_name),
		cmocka_unit_test(test_bad_hostlists),
		cmocka_unit_test(test_unequal_sizes),
		cmocka_unit_test(test_max_supernodes),
		cmocka_unit_test(test_port_range),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_every_path_key),
		cmocka_unit_test(test_feature_limit),
		cmocka_unit_test(test_yaml_syntax),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_two_documents),
		cmocka_unit_test(test_load_file_full),
		cmocka_unit_test(test_load_file_errors_name_the_file),
		cmocka_unit_test(test_load_not_regular),
		cmocka_unit_test(test_load_too_large),
		cmocka_unit_test(test_ephemeral_range),
		cmocka_unit_test(test_ephemeral_range_file),
		cmocka_unit_test(test_find_node),
		cmocka_unit_test(test_rank_in_hostlist_order),
		cmocka_unit_test(test_method_name),
		cmocka_unit_test(test_path_expand),
		cmocka_unit_test(test_path_expand_overflow),
		cmocka_unit_test(test_fuzz_mutations),
		cmocka_unit_test(test_nesting_depth),
		cmocka_unit_test(test_nesting_32_levels),
		cmocka_unit_test(test_nodes_in_all),
		cmocka_unit_test(test_node_index_order),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
