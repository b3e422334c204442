/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/util/slurm_env.c: the job from the environment, and %h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "util/sn_slurm_env.h"

static void test_job(void **state)
{
	struct sn_slurm_job job;

	(void)state;
	setenv(SN_ENV_JOB_ID, "4242", 1);
	setenv(SN_ENV_NODENAME, "sna1", 1);
	setenv(SN_ENV_SUPERNODE, "1", 1);
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_int_equal(job.id, 4242);
	assert_string_equal(job.node, "sna1");
	assert_true(job.supernode);

	setenv(SN_ENV_SUPERNODE, "", 1);
	setenv(SN_ENV_NODENAME, "", 1);
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_false(job.supernode);
	assert_null(job.node);

	unsetenv(SN_ENV_SUPERNODE);
	assert_false(sn_slurm_env_supernode());
	static const char *bad[] = {
		"", "0", "-1", "12a", " 7", "4294967281", "99999999999999999999"
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(SN_ENV_JOB_ID, bad[i], 1);
		assert_int_equal(sn_slurm_env_job(&job), -1);
	}
	setenv(SN_ENV_JOB_ID, "4294967280", 1); /* 0xfffffff0 */
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_int_equal(job.id, 0xfffffff0u);
	unsetenv(SN_ENV_JOB_ID);
	assert_int_equal(sn_slurm_env_job(&job), -1);
}

/* SLURM_JOB_RESTART_COUNT: the job's restarts, 0..65535, else unknown. */
static void test_restart_count(void **state)
{
	static const char *bad[] = { "", "-1", "1x", " 1", "65536", "0x2" };
	struct sn_slurm_job job;

	(void)state;
	setenv(SN_ENV_JOB_ID, "7", 1);
	unsetenv(SN_ENV_RESTART_COUNT);
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_false(job.has_restart_count);
	setenv(SN_ENV_RESTART_COUNT, "0", 1);
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_true(job.has_restart_count);
	assert_int_equal(job.restart_count, 0);
	setenv(SN_ENV_RESTART_COUNT, "65535", 1);
	assert_int_equal(sn_slurm_env_job(&job), 0);
	assert_int_equal(job.restart_count, 65535);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(SN_ENV_RESTART_COUNT, bad[i], 1);
		assert_int_equal(sn_slurm_env_job(&job), 0);
		assert_false(job.has_restart_count);
	}
	unsetenv(SN_ENV_RESTART_COUNT);
	unsetenv(SN_ENV_JOB_ID);
}

/* %h: gethostname() up to its first dot, as slurmd's gethostname_short. */
static void test_host(void **state)
{
	char want[256], got[256], tiny[2];

	(void)state;
	assert_int_equal(gethostname(want, sizeof(want) - 1), 0);
	want[sizeof(want) - 1] = '\0';
	want[strcspn(want, ".")] = '\0';
	assert_ptr_equal(sn_slurm_env_host(got, sizeof(got)), got);
	assert_string_equal(got, strlen(want) ? want : "localhost");
	assert_null(strchr(got, '.'));
	/* Too small for the name: "localhost" cut to what fits, never a part. */
	if (strlen(want) >= sizeof(tiny)) {
		sn_slurm_env_host(tiny, sizeof(tiny));
		assert_string_equal(tiny, "l");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_restart_count),
		cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
