/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_drain_bounded (lib/drain/bounded.c), the one way the prolog, the
 * epilog and supernodectl health talk to slurmctld, where no slurmctld is
 * needed to tell: a $SLURM_CONF that names a missing file is refused before
 * any child when asked (check_conf), and libslurm that cannot start
 * (slurm.conf without a controller: slurm_init() exit()s) is reported as
 * its exit status, never as an outcome.  The drain and resume themselves
 * are in tests/integration (test_health.sh, test_drain.sh).
 */
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

#include "drain/sn_bounded.h"

/* health's way: a missing $SLURM_CONF is said at once, nothing is run. */
static void test_no_conf(void **state)
{
	struct sn_bounded_req req = { .node = "sna1",
				      .tag = "supernode:",
				      .reason = "supernode: X",
				      .want_drain = true,
				      .check_conf = true,
				      .budget_ms = 60000 };
	struct sn_bounded_report rep;

	(void)state;
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	assert_int_equal(sn_drain_bounded(&req, &rep), SN_DRAIN_ERROR);
	assert_int_equal(rep.run, SN_BOUNDED_NO_CONF);
	assert_int_equal(rep.outcome, SN_DRAIN_ERROR);
	assert_int_equal(rep.state, 0);
	assert_string_equal(rep.current, "");
	assert_string_equal(rep.why, "");
	unsetenv("SLURM_CONF");
}

/* A slurm.conf libslurm refuses: the child exits, the caller goes on. */
static void test_libslurm_exits(void **state)
{
	char conf[] = "/tmp/sn-bounded-XXXXXX";
	struct sn_bounded_req req = { .node = "sna1",
				      .tag = "supernode:",
				      .want_drain = false,
				      .check_conf = true,
				      .budget_ms = 20000 };
	struct sn_bounded_report rep;
	int fd = mkstemp(conf);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ClusterName=x\n", 14), 14);
	close(fd);
	setenv("SLURM_CONF", conf, 1);
	assert_int_equal(sn_drain_bounded(&req, &rep), SN_DRAIN_ERROR);
	assert_int_equal(rep.run, 1); /* fatal(): "No SlurmctldHost defined." */
	assert_int_equal(rep.outcome, SN_DRAIN_ERROR);
	assert_string_equal(rep.current, "");
	unsetenv("SLURM_CONF");
	unlink(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_conf),
		cmocka_unit_test(test_libslurm_exits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
