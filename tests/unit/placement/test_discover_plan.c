/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl discover's plan (lib/placement/discover_plan.c) over sinfo
 * lines ("%N %P %a %T", one per node and partition): one partition per
 * node (the default one when the node is in it, else the first that is
 * up), the nodes not asked (not idle, in no partition that is up) with
 * their reasons, the partitions in order, each one's hostlist, and the
 * lines refused.
 */
#include "unit.h"

#include "placement/sn_discover_plan.h"

static void lines(struct sn_discover_plan *p, const char *const *l)
{
	struct sn_error err;

	for (; *l; l++)
		if (sn_discover_plan_line(p, *l, &err))
			fail_msg("%s: %s", *l, err.msg);
}

static const char *why_of(const struct sn_discover *d, const char *node)
{
	for (size_t i = 0; i < d->n_nodes; i++)
		if (!strcmp(d->nodes[i].node, node))
			return d->nodes[i].why;
	return NULL;
}

/* The local cluster of integration.discover: side is the default. */
static void test_two_partitions(void **state)
{
	static const char *const sinfo[] = {
		"sna1 main up idle",	"sna1 side* up idle",
		"sna2 side* up idle",	"sna2 main up idle",
		"snb1 main up idle",	"snb2 main up idle",
		"snb3 main up drained", "snb3 dead down drained",
		"snc1 dead down idle",	"snc2 gone inact idle",
		"snc2 dead down idle",	NULL,
	};
	struct sn_discover_plan p = { 0 };
	struct sn_discover d = { 0 };
	struct sn_error err;
	char *nodes;
	size_t n;

	(void)state;
	lines(&p, sinfo);
	assert_int_equal(p.n, 7);
	assert_int_equal(sn_discover_plan_finish(&p, &d, &err), 0);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.n_parts, 2);
	assert_string_equal(p.parts[0], "side");
	assert_string_equal(p.parts[1], "main");
	nodes = sn_discover_plan_nodes(&p, "side", &n, &err);
	assert_string_equal(nodes, "sna[1-2]");
	assert_int_equal(n, 2);
	free(nodes);
	nodes = sn_discover_plan_nodes(&p, "main", &n, &err);
	assert_string_equal(nodes, "snb[1-2]");
	assert_int_equal(n, 2);
	free(nodes);
	assert_null(sn_discover_plan_nodes(&p, "dead", &n, &err));
	assert_int_equal(n, 0);
	assert_string_equal(err.msg, "no node to ask in partition dead");
	/* Not asked, with the reason. */
	assert_int_equal(d.n_nodes, 3);
	assert_string_equal(why_of(&d, "snb3"),
			    "not idle (drained): not asked");
	assert_string_equal(
		why_of(&d, "snc1"),
		"idle, in no partition that is up (dead (down)): not asked");
	assert_string_equal(
		why_of(&d, "snc2"),
		"idle, in no partition that is up (gone (inact)): not asked");
	sn_discover_plan_free(&p);
	sn_discover_free(&d);
}

/* No default partition among a node's: the first one up, in sinfo order. */
static void test_first_up(void **state)
{
	static const char *const sinfo[] = {
		"n1 gpu down idle", "n1 b up idle",	"n1 a up idle",
		"n2 a up idle",	    "n2 main* up idle", NULL,
	};
	struct sn_discover_plan p = { 0 };
	struct sn_discover d = { 0 };
	struct sn_error err;

	(void)state;
	lines(&p, sinfo);
	assert_int_equal(sn_discover_plan_finish(&p, &d, &err), 0);
	assert_int_equal(d.n_nodes, 0);
	assert_int_equal(p.n_parts, 2);
	assert_string_equal(p.parts[0], "b");
	assert_string_equal(p.parts[1], "main");
	assert_string_equal(p.t[0].part, "b");
	assert_false(p.t[0].in_default);
	assert_string_equal(p.t[1].part, "main");
	assert_true(p.t[1].in_default);
	sn_discover_plan_free(&p);
	assert_int_equal(p.n, 0);
}

static void refused(const char *line, const char *msg)
{
	struct sn_discover_plan p = { 0 };
	struct sn_error err;

	assert_int_equal(sn_discover_plan_line(&p, line, &err), -1);
	assert_string_equal(err.msg, msg);
	assert_int_equal(p.n, 0);
	sn_discover_plan_free(&p);
}

/* Nodes still completing a job (a discover just before): waited for. */
static void test_completing(void **state)
{
	static const char *const sinfo[] = {
		"sna1 side* up completing", "sna2 side* up completing*",
		"snb1 main up idle",	    "snb2 main up drained",
		"snb3 main up mixed",	    NULL,
	};
	static const char *const idle[] = { "sna1 side* up idle", NULL };
	struct sn_discover_plan p = { 0 };
	struct sn_discover d = { 0 };
	struct sn_error err;
	char *nodes;
	size_t n;

	(void)state;
	lines(&p, sinfo);
	nodes = sn_discover_plan_completing(&p, &n, &err);
	assert_string_equal(nodes, "sna[1-2]");
	assert_int_equal(n, 2);
	free(nodes);
	/* Left to finish, they are not asked, with their state. */
	assert_int_equal(sn_discover_plan_finish(&p, &d, &err), 0);
	assert_string_equal(why_of(&d, "sna1"),
			    "not idle (completing): not asked");
	sn_discover_plan_free(&p);
	sn_discover_free(&d);
	lines(&p, idle);
	assert_null(sn_discover_plan_completing(&p, &n, &err));
	assert_int_equal(n, 0);
	sn_discover_plan_free(&p);
}

static void test_bad_lines(void **state)
{
	char big[1100], part[300];

	(void)state;
	refused("n1 main up", "not 'NODE PARTITION AVAIL STATE': n1 main up");
	refused("n1 main up idle extra",
		"not 'NODE PARTITION AVAIL STATE': n1 main up idle extra");
	refused("", "not 'NODE PARTITION AVAIL STATE': ");
	refused("x[1-2] main up idle", "'x[1-2]' is not a node name");
	refused("n1 * up idle", "n1: partition name of 0 bytes (1-255)");
	memset(part, 'p', 256);
	snprintf(part + 256, sizeof(part) - 256, " up idle");
	memmove(part + 3, part, strlen(part) + 1);
	memcpy(part, "n1 ", 3);
	refused(part, "n1: partition name of 256 bytes (1-255)");
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	refused(big, "line longer than 1024 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_partitions),
		cmocka_unit_test(test_first_up),
		cmocka_unit_test(test_completing),
		cmocka_unit_test(test_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
