/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Check results (lib/checks/check.c): a value longer than its field is cut
 * by the one cut (sn_error_cut: the phrase kept, the path's tail kept,
 * "..." marks the cut), then made printable.
 */
#include "unit.h"

#include "checks/sn_check.h"

/* A check result's found: the one cut, then printable. */
static void test_result_found_cut(void **state)
{
	struct sn_results res = { 0 };
	char path[300];

	(void)state;
	snprintf(path, sizeof(path),
		 "/tmp/%0200d/tests/unit/fixtures/topo/small-no-io.xml", 0);
	assert_int_equal(
		sn_results_add(&res, SN_UNKNOWN, "topology", "TOPO_UNAVAILABLE",
			       "node", "hwloc topology",
			       "the topology holds no PCI devices\n: %s", path),
		0);
	assert_string_equal(
		res.items[0].found,
		"the topology holds no PCI devices : .../tests/unit/fixtures/topo/small-no-io.xml");
	sn_results_free(&res);
}

/* The other fields take the same cut; control bytes become spaces. */
static void test_result_fields(void **state)
{
	struct sn_results res = { 0 };

	(void)state;
	assert_int_equal(sn_results_add(&res, SN_CRIT, "ib_port\t",
					"IB_PORT_DOWN_AND_MUCH_LONGER_THAN_32",
					"mlx5_2/1", "ACTIVE", "state=%s",
					"DOWN"),
			 0);
	assert_string_equal(res.items[0].check, "ib_port ");
	assert_string_equal(res.items[0].code,
			    "IB_PORT_DOWN_AND_MUCH_LONGER...");
	assert_string_equal(res.items[0].found, "state=DOWN");
	assert_int_equal(res.items[0].grade, SN_CRIT);
	sn_results_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_found_cut),
		cmocka_unit_test(test_result_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
