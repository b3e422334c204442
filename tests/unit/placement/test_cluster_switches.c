/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_cluster_switches_parse (lib/placement/cluster_match.c): Slurm's text
 * of topology/tree, as scontrol show topology prints it, into the switch
 * array supernodectl config check compares (issue 11 item 1: from 23.11
 * slurm_load_topo gives no switch records, only this text).
 */
#include "unit.h"

#include "placement/sn_cluster_match.h"

static void test_tree(void **state)
{
	char text[] = "SwitchName=sn01 Level=0 LinkSpeed=1 Nodes=sna[1-2]\n"
		      "SwitchName=sn02 Level=0 LinkSpeed=1 Nodes=snb[1-2]\n"
		      "SwitchName=top Level=1 LinkSpeed=1 Switches=sn[01-02]\n";
	struct sn_cluster_switch sw[8];

	(void)state;
	assert_int_equal(sn_cluster_switches_parse(text, sw, 8), 3);
	assert_string_equal(sw[0].name, "sn01");
	assert_string_equal(sw[0].nodes, "sna[1-2]");
	assert_null(sw[0].switches);
	assert_string_equal(sw[1].name, "sn02");
	assert_string_equal(sw[1].nodes, "snb[1-2]");
	assert_string_equal(sw[2].name, "top");
	assert_int_equal(sw[2].level, 1);
	assert_null(sw[2].nodes);
	assert_string_equal(sw[2].switches, "sn[01-02]");
}

/* Other lines (block, Slurm's messages, blanks) and nameless switches. */
static void test_other_lines(void **state)
{
	char text[] = "BlockName=b1 BlockIndex=0 Nodes=n[1-4] BlockSize=4\n"
		      "\n"
		      "No topology information available\n"
		      "SwitchName= Level=0 Nodes=x1\n"
		      "SwitchName=s1 Level=70000 LinkSpeed=1 Nodes=n1 Extra=9\n"
		      "SwitchName=s2 Level=2x Nodes=n2";
	struct sn_cluster_switch sw[8];

	(void)state;
	assert_int_equal(sn_cluster_switches_parse(text, sw, 8), 2);
	assert_string_equal(sw[0].name, "s1");
	assert_int_equal(sw[0].level, 0); /* over 65535: taken as 0 */
	assert_string_equal(sw[0].nodes, "n1");
	assert_string_equal(sw[1].name, "s2");
	assert_int_equal(sw[1].level, 0);	/* not a number */
	assert_string_equal(sw[1].nodes, "n2"); /* no final newline */
}

/* At most max switches are read, and nothing is written past them. */
static void test_max(void **state)
{
	char text[] = "SwitchName=a Level=0\nSwitchName=b Level=0\n"
		      "SwitchName=c Level=0\n";
	struct sn_cluster_switch sw[3] = { [2] = { .name = "untouched" } };
	char empty[] = "";

	(void)state;
	assert_int_equal(sn_cluster_switches_parse(text, sw, 2), 2);
	assert_string_equal(sw[0].name, "a");
	assert_string_equal(sw[1].name, "b");
	assert_string_equal(sw[2].name, "untouched");
	assert_int_equal(sn_cluster_switches_parse(empty, sw, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_other_lines),
		cmocka_unit_test(test_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
