/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The config against the running cluster (lib/placement/cluster_match.c),
 * on plain arrays as supernodectl config check fills them from Slurm:
 * every config node is a Slurm node; method feature: the right supernode
 * feature, only one, none outside the config; method switch: one leaf
 * switch per supernode holding exactly its nodes, the leaves under one top
 * switch when jobs may ask for more than one supernode.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "placement/sn_cluster_match.h"
#include "util/sn_strbuf.h"

#define FEATURE_YAML          \
	"supernodes:\n"       \
	"  - name: sn01\n"    \
	"    nodes: a[1-2]\n" \
	"  - name: sn02\n"    \
	"    nodes: b[1-2]\n"

#define SWITCH_YAML FEATURE_YAML "placement:\n  method: switch\n"

static struct sn_config *load(const char *yaml)
{
	struct sn_error err = { "" };
	struct sn_config *cfg =
		sn_config_load_buffer("match.yaml", yaml, strlen(yaml), &err);

	if (!cfg)
		fail_msg("refused: %s", err.msg);
	return cfg;
}

/* The sink: every line, each followed by a newline. */
static void collect(void *arg, const char *line)
{
	sn_strbuf_appendf(arg, "%s\n", line);
}

static void test_nodes_features(void **state)
{
	struct sn_config *cfg = load(FEATURE_YAML);
	const struct sn_cluster_node nodes[] = {
		{ "c1", "sn02" },     { "a2", "sn01,sn02" }, { NULL, "sn01" },
		{ "a1", "gpu,sn01" }, { "b1", "gpu" },
	};
	struct sn_strbuf out = SN_STRBUF_INIT;
	struct sn_mismatches m = { .add = collect, .arg = &out };

	(void)state;
	assert_int_equal(sn_cluster_match_nodes(cfg, nodes, 5, true, &m), 4);
	assert_string_equal(
		sn_strbuf_str(&out),
		"a2: feature: expected only supernode sn01, found supernode features sn01,sn02\n"
		"b1: feature: expected sn02, found 'gpu'\n"
		"b2: not a Slurm node (expected: a node of supernode sn02)\n"
		"c1: feature: expected no supernode feature (in no supernode of the config), found sn02\n");
	sn_strbuf_free(&out);
	/* Without features (method switch or block): only missing nodes. */
	m.count = 0;
	assert_int_equal(sn_cluster_match_nodes(cfg, nodes, 5, false, &m), 1);
	assert_string_equal(
		sn_strbuf_str(&out),
		"b2: not a Slurm node (expected: a node of supernode sn02)\n");
	sn_strbuf_free(&out);
	sn_config_free(cfg);
}

static size_t switches(const struct sn_config *cfg,
		       const struct sn_cluster_switch *sw, size_t n,
		       struct sn_strbuf *out)
{
	struct sn_mismatches m = { .add = collect, .arg = out };

	return sn_cluster_match_switches(cfg, sw, n, &m);
}

static void test_switches(void **state)
{
	struct sn_config *cfg = load(SWITCH_YAML);
	const struct sn_cluster_switch good[] = {
		{ "s1", 0, "a[1-2]", NULL },
		{ "s2", 0, "b[1-2]", NULL },
		{ "top", 1, NULL, "s[1-2]" },
	};
	const struct sn_cluster_switch two_tops[] = {
		{ "s1", 0, "a[1-2]", NULL },
		{ "s2", 0, "b[1-2]", NULL },
		{ "t1", 1, NULL, "s1" },
		{ "t2", 1, NULL, "s2" },
	};
	const struct sn_cluster_switch wrong[] = {
		{ "s1", 0, "a1", NULL },
		{ "s3", 0, "a2", NULL },
		{ "s2", 0, "b[1-3]", NULL },
	};
	const struct sn_cluster_switch none_for_a[] = {
		{ "s2", 0, "b[1-2]", NULL },
	};
	struct sn_strbuf out = SN_STRBUF_INIT;

	(void)state;
	assert_int_equal(switches(cfg, good, 3, &out), 0);
	assert_null(sn_strbuf_str(&out) && *sn_strbuf_str(&out) ?
			    sn_strbuf_str(&out) :
			    NULL);
	assert_int_equal(switches(cfg, two_tops, 4, &out), 1);
	assert_string_equal(
		sn_strbuf_str(&out),
		"sn02: switch: expected a common parent switch with sn01 (jobs may ask for 2 supernodes), found top switches t1 and t2\n");
	sn_strbuf_free(&out);
	assert_int_equal(switches(cfg, wrong, 3, &out), 2);
	assert_string_equal(
		sn_strbuf_str(&out),
		"sn01: switch: expected all of a[1-2] under one leaf switch, found a1 under s1 and a2 under s3\n"
		"sn02: switch: expected leaf switch s2 to hold exactly b[1-2] (2 nodes), found Nodes=b[1-3] (3 nodes)\n");
	sn_strbuf_free(&out);
	assert_int_equal(switches(cfg, none_for_a, 1, &out), 1);
	assert_string_equal(
		sn_strbuf_str(&out),
		"sn01: switch: node a1 is under no leaf switch (expected: one leaf switch with Nodes=a[1-2])\n");
	sn_strbuf_free(&out);
	assert_int_equal(switches(cfg, NULL, 0, &out), 1);
	assert_string_equal(
		sn_strbuf_str(&out),
		"switch: expected one leaf switch per supernode (TopologyPlugin=topology/tree and topology.conf), found no switches\n");
	sn_strbuf_free(&out);
	sn_config_free(cfg);
}

/* max_supernodes 1: no job spans two leaves, so two tops are fine. */
static void test_switches_one_supernode_jobs(void **state)
{
	struct sn_config *cfg = load(SWITCH_YAML "  max_supernodes: 1\n");
	const struct sn_cluster_switch two_tops[] = {
		{ "s1", 0, "a[1-2]", NULL },
		{ "s2", 0, "b[1-2]", NULL },
		{ "t1", 1, NULL, "s1" },
		{ "t2", 1, NULL, "s2" },
	};
	struct sn_strbuf out = SN_STRBUF_INIT;

	(void)state;
	assert_int_equal(switches(cfg, two_tops, 4, &out), 0);
	sn_strbuf_free(&out);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes_features),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_switches_one_supernode_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
