/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl discover's grouping (lib/placement/discover.c): two NVL72
 * domains with the same sentinel clique, a node in no domain, a node that
 * could not tell, one that was not asked, duplicate and bad lines, names
 * from the config, unequal sizes, the printed section (which loads back
 * as a config), and a step's output cut short (a timeout) or holding bad
 * lines.
 */
#include "unit.h"

#include "placement/sn_discover.h"

#define A "nvlink:3f2a9c4e-5b1d-4e8a-9f07-6c2b1d0e4a11/32766"
#define B "nvlink:b81e07d2-9a44-4c3f-8e15-2d6f0a9b7c52/32766"

static char line[1024];

static const char *answer(const char *node, const char *kind,
			  const char *identity, const char *why)
{
	snprintf(
		line, sizeof(line),
		"{\"node\":\"%s\",\"kind\":\"%s\",\"identity\":%s%s%s,"
		"\"why\":%s%s%s,\"devices\":4,\"supernode\":null,\"expected\":null}",
		node, kind, identity ? "\"" : "", identity ? identity : "null",
		identity ? "\"" : "", why ? "\"" : "", why ? why : "null",
		why ? "\"" : "");
	return line;
}

static void add(struct sn_discover *d, const char *node, const char *kind,
		const char *identity, const char *why)
{
	struct sn_error err;

	if (sn_discover_add_line(d, answer(node, kind, identity, why), &err))
		fail_msg("%s", err.msg);
}

/* Print into a string (caller frees). */
static char *printed(const struct sn_discover *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sn_discover_print(f, d);
	fclose(f);
	return buf;
}

static void test_two_domains(void **state)
{
	struct sn_discover d = { 0 };
	struct sn_error err;
	struct sn_config *cfg;
	char *out;

	(void)state;
	add(&d, "snb2", "nvlink", B, NULL);
	add(&d, "sna1", "nvlink", A, NULL);
	add(&d, "snb1", "nvlink", B, NULL);
	add(&d, "sna2", "nvlink", A, NULL);
	add(&d, "sna2", "nvlink", B, NULL); /* a second answer: ignored */
	add(&d, "snc1", "none", NULL,
	    "cluster UUID is zero on every GPU: no multi-node NVLink domain");
	add(&d, "snc2", "error", NULL,
	    "gpu1: fabric registration not completed (state 2)");
	assert_int_equal(sn_discover_add_missing(&d, "snd1", "not idle (alloc)",
						 &err),
			 0);
	assert_int_equal(sn_discover_add_missing(&d, "sna1", "no answer", &err),
			 0);
	assert_int_equal(sn_discover_group(&d, NULL, &err), 0);
	assert_int_equal(d.n_groups, 2);
	assert_string_equal(d.groups[0].nodes, "sna[1-2]");
	assert_string_equal(d.groups[0].identity, A);
	assert_string_equal(d.groups[0].name, "sn01");
	assert_string_equal(d.groups[1].nodes, "snb[1-2]");
	assert_string_equal(d.groups[1].identity, B);
	assert_string_equal(d.groups[1].name, "sn02");
	assert_int_equal(sn_discover_unplaced(&d), 3);
	out = printed(&d);
	assert_string_equal(
		out,
		"# supernodectl discover: 7 nodes, 4 placed in 2 supernodes, 3 not placed\n"
		"supernodes:\n"
		"  - name: sn01\n    nodes: \"sna[1-2]\"\n    identity: " A "\n"
		"  - name: sn02\n    nodes: \"snb[1-2]\"\n    identity: " B "\n"
		"# topology.conf (TopologyPlugin=topology/block):\n"
		"#   BlockName=sn01 Nodes=sna[1-2]\n"
		"#   BlockName=sn02 Nodes=snb[1-2]\n"
		"#   BlockSizes=2\n"
		"# not placed (never guessed):\n"
		"#   snc1: none: cluster UUID is zero on every GPU: no multi-node NVLink domain\n"
		"#   snc2: error: gpu1: fabric registration not completed (state 2)\n"
		"#   snd1: not idle (alloc)\n");
	/* What it prints loads back as a config with the identities. */
	cfg = sn_config_load_buffer("d.yaml", out, strlen(out), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->n_supernodes, 2);
	assert_string_equal(cfg->supernodes[1].identity, B);
	sn_config_free(cfg);
	free(out);
	sn_discover_free(&d);
}

/* Names come from the config: the recorded identity, else the hostlist. */
static void test_names_from_config(void **state)
{
	static const char yaml[] =
		"supernodes:\n"
		"  - name: rack7\n    nodes: snb[1-2]\n    identity: " A "\n"
		"  - name: rack9\n    nodes: sna[1-2]\n"
		"  - name: sn01\n    nodes: x[1-2]\n";
	struct sn_discover d = { 0 };
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	add(&d, "sna1", "nvlink", A, NULL); /* rack7's identity, moved here */
	add(&d, "sna2", "nvlink", A, NULL);
	add(&d, "snb1", "nvlink", B, NULL);
	add(&d, "snb2", "nvlink", B, NULL);
	add(&d, "z1", "ascend", "ascend:7", NULL);
	add(&d, "z2", "ascend", "ascend:7", NULL);
	assert_int_equal(sn_discover_group(&d, cfg, &err), 0);
	assert_int_equal(d.n_groups, 3);
	assert_string_equal(d.groups[0].nodes, "sna[1-2]");
	assert_string_equal(d.groups[0].name, "rack7");
	/* snb[1-2] lie in rack7, which records another identity: numbered,
	 * skipping sn01 (a configured name). */
	assert_string_equal(d.groups[1].nodes, "snb[1-2]");
	assert_string_equal(d.groups[1].name, "sn02");
	assert_string_equal(d.groups[2].nodes, "z[1-2]");
	assert_string_equal(d.groups[2].name, "sn03");
	sn_config_free(cfg);
	sn_discover_free(&d);
}

static void test_unequal_sizes(void **state)
{
	struct sn_discover d = { 0 };
	struct sn_error err;
	char *out;

	(void)state;
	add(&d, "a1", "nvlink", A, NULL);
	add(&d, "a2", "nvlink", A, NULL);
	add(&d, "a3", "nvlink", A, NULL);
	add(&d, "b1", "nvlink", B, NULL);
	assert_int_equal(sn_discover_group(&d, NULL, &err), 0);
	out = printed(&d);
	assert_contains(
		out,
		"# note: the supernodes differ in size (supernode.yaml needs them equal): sn01 3 sn02 1\n");
	assert_not_contains(out, "BlockSizes");
	free(out);
	sn_discover_free(&d);
}

static void test_bad_lines(void **state)
{
	struct sn_discover d = { 0 };
	struct sn_error err;
	char big[SN_DISCOVER_LINE_MAX + 8];

	(void)state;
	assert_int_equal(sn_discover_add_line(&d, "srun: error: x", &err), -1);
	assert_string_equal(err.msg,
			    "not an --identity --json line: srun: error: x");
	assert_int_equal(
		sn_discover_add_line(&d, "{\"kind\":\"nvlink\"}", &err), -1);
	assert_int_equal(
		sn_discover_add_line(
			&d, answer("n1", "nvlink", "nvlink:zz/1", NULL), &err),
		-1);
	assert_string_equal(err.msg, "n1: 'nvlink:zz/1' is not an identity");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sn_discover_add_line(&d, big, &err), -1);
	assert_string_equal(err.msg, "line longer than 4096 bytes");
	/* A name Slurm would read as a hostlist is refused. */
	assert_int_equal(sn_discover_add_line(
				 &d, answer("x[1-99999]", "none", NULL, "n"),
				 &err),
			 -1);
	assert_string_equal(err.msg, "'x[1-99999]' is not a node name");
	assert_int_equal(sn_discover_add_missing(&d, "a,b", "no", &err), -1);
	assert_int_equal(d.n_nodes, 0);
	assert_int_equal(sn_discover_group(&d, NULL, &err), 0);
	assert_int_equal(d.n_groups, 0);
	sn_discover_free(&d);
}

/*
 * A step that timed out or failed: the answers it printed are kept; a
 * last line cut short is dropped (never half-parsed); srun's own lines
 * are skipped; bad lines counted with the first reason.
 */
static void test_partial_output(void **state)
{
	struct sn_discover d = { 0 };
	struct sn_discover_output o;
	struct sn_error err;
	char text[4096];
	size_t whole, len;

	(void)state;
	snprintf(text, sizeof(text), "%s\n", answer("sna1", "nvlink", A, NULL));
	len = strlen(text);
	snprintf(text + len, sizeof(text) - len, "srun: Job step aborted\n%s\n",
		 answer("snb1", "nvlink", B, NULL));
	whole = strlen(text);
	snprintf(text + whole, sizeof(text) - whole, "%s\n",
		 answer("snb2", "nvlink", B, NULL));
	/* snb2's line cut short 10 bytes before its end (a timeout). */
	sn_discover_add_output(&d, text, strlen(text) - 10, &o);
	assert_int_equal(o.taken, 2);
	assert_int_equal(o.refused, 0);
	assert_true(o.cut);
	assert_int_equal(d.n_nodes, 2);
	/* The nodes that gave no answer are the ones listed as missing. */
	assert_int_equal(sn_discover_add_missing(&d, "sna1", "timeout", &err),
			 0);
	assert_int_equal(sn_discover_add_missing(&d, "snb2", "timeout", &err),
			 0);
	assert_int_equal(sn_discover_group(&d, NULL, &err), 0);
	assert_int_equal(d.n_groups, 2);
	assert_string_equal(d.groups[0].nodes, "sna1");
	assert_string_equal(d.groups[1].nodes, "snb1");
	assert_int_equal(sn_discover_unplaced(&d), 1);
	assert_string_equal(d.nodes[2].node, "snb2");
	assert_string_equal(d.nodes[2].why, "timeout");
	sn_discover_free(&d);

	/* Cut exactly after a newline: nothing is cut, all taken. */
	sn_discover_add_output(&d, text, whole, &o);
	assert_int_equal(o.taken, 2);
	assert_false(o.cut);
	sn_discover_free(&d);

	/* Nothing printed (the step never started). */
	sn_discover_add_output(&d, "", 0, &o);
	assert_int_equal(o.taken, 0);
	assert_false(o.cut);
	assert_int_equal(d.n_nodes, 0);
}

static void test_output_bad_lines(void **state)
{
	static const char text[] = "{\"node\":\"n1\",\"kind\":\"none\","
				   "\"identity\":null,\"why\":\"w\"}\n"
				   "{not json}\n"
				   "{\"node\":\"n2\0\"}\n"
				   "\n"
				   "{\"node\":\"x[1-2]\"}\n";
	struct sn_discover d = { 0 };
	struct sn_discover_output o;
	char *big;

	(void)state;
	sn_discover_add_output(&d, text, sizeof(text) - 1, &o);
	assert_int_equal(o.taken, 1);
	assert_int_equal(o.refused, 3);
	assert_false(o.cut);
	assert_string_equal(o.first.msg,
			    "not an --identity --json line: {not json}");
	assert_int_equal(d.n_nodes, 1);
	assert_string_equal(d.nodes[0].why, "none: w");
	sn_discover_free(&d);

	/* A line past the bound is refused, the next one still read. */
	big = malloc(SN_DISCOVER_LINE_MAX + 1200);
	assert_non_null(big);
	big[0] = '{';
	memset(big + 1, 'x', SN_DISCOVER_LINE_MAX + 10);
	big[SN_DISCOVER_LINE_MAX + 11] = '\n';
	snprintf(big + SN_DISCOVER_LINE_MAX + 12, 1100, "%s\n",
		 answer("n3", "nvlink", A, NULL));
	sn_discover_add_output(&d, big, strlen(big), &o);
	assert_int_equal(o.taken, 1);
	assert_int_equal(o.refused, 1);
	assert_string_equal(o.first.msg, "line longer than 4096 bytes");
	assert_string_equal(d.nodes[0].node, "n3");
	free(big);
	sn_discover_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_domains),
		cmocka_unit_test(test_names_from_config),
		cmocka_unit_test(test_unequal_sizes),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_partial_output),
		cmocka_unit_test(test_output_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
