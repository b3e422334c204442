/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bulk-drain cap (issue 17 item 10): in parts per thousand,
 * max(1, floor(F x n)) of a supernode and of the cluster, and the tally of
 * nodes already drained with our tag, so that repeated runs do not compound.
 */
#include <stdint.h>
#include <string.h>

#include <slurm/slurm.h>

#include "unit.h"

#include "drain/sn_drain_cap.h"

/* The float edge of the issue: 0.58 x 50 is 29, not 28.999999999999996. */
static void test_cap_integer(void **state)
{
	(void)state;
	assert_int_equal(sn_drain_cap_of(580, 50), 29);
	assert_int_equal(sn_drain_cap_of(250, 4), 1);
	assert_int_equal(sn_drain_cap_of(250, 8), 2);
	assert_int_equal(sn_drain_cap_of(250, 18), 4);
	/* Small: one node is always allowed. */
	assert_int_equal(sn_drain_cap_of(250, 1), 1);
	assert_int_equal(sn_drain_cap_of(250, 2), 1);
	assert_int_equal(sn_drain_cap_of(250, 3), 1);
	assert_int_equal(sn_drain_cap_of(1, 1000000), 1000);
	assert_int_equal(sn_drain_cap_of(999, UINT32_MAX), 4290672327u);
	assert_int_equal(sn_drain_cap_of(250, 0), 0);
}

static const char yaml[] = "supernodes:\n"
			   "  - {name: sn01, nodes: \"a[1-4]\"}\n"
			   "  - {name: sn02, nodes: \"b[1-4]\"}\n"
			   "  - {name: sn03, nodes: \"c[1-4]\"}\n"
			   "  - {name: sn04, nodes: \"d[1-4]\"}\n";

#define DR (NODE_STATE_IDLE | NODE_STATE_DRAIN)

/*
 * Repeated 4-node runs no longer compound: sn01 has a1 drained by us
 * (0.25 x 4 = 1), so a second node of sn01 is refused; sn02 may lose one;
 * the cluster's 16 nodes allow 4 in all.  An admin's drain, a node not
 * drained, and a node outside the config are not counted.
 */
static void test_tally_and_admit(void **state)
{
	const char *names[] = { "a1", "a2", "b1", "x9", "c1" };
	const unsigned states[] = { DR, DR, NODE_STATE_IDLE, DR, DR };
	const char *reasons[] = { "supernode: BENCH_SLOW rank 1: x",
				  "bad DIMM, RMA 1234", "supernode: IB_x",
				  "supernode: BENCH_SLOW rank 2: y",
				  "supernode: EPILOG_LINK_DOWNED mlx5_0/1" };
	struct sn_drain_tally t;
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	cfg = sn_config_load_buffer("test.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	assert_int_equal(sn_drain_tally_count(cfg, "supernode:", names, states,
					      reasons, 5, &t),
			 0);
	assert_int_equal(t.cluster, 2);
	assert_int_equal(t.supernode[0], 1);
	assert_int_equal(t.supernode[1], 0);
	assert_int_equal(t.supernode[2], 1);
	/* sn01 is at its cap of 1 (before: each run drained 25 % again). */
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, 0), SN_CAP_SUPERNODE);
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, 1), SN_CAP_OK);
	assert_int_equal(t.cluster, 3);
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, 1), SN_CAP_SUPERNODE);
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, 3), SN_CAP_OK);
	/* 4 of 16 drained by us: the cluster is at its cap. */
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, SIZE_MAX),
			 SN_CAP_CLUSTER);
	sn_drain_cap_release(&t, 3);
	assert_int_equal(t.cluster, 3);
	assert_int_equal(t.supernode[3], 0);
	assert_int_equal(sn_drain_cap_admit(cfg, 250, &t, SIZE_MAX), SN_CAP_OK);
	assert_int_equal(t.cluster, 4);
	sn_drain_tally_free(&t);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_integer),
		cmocka_unit_test(test_tally_and_admit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
