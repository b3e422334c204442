/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spank/job_submit/job_record.c: the job record is read only when both of
 * its magic cookies are the headers' (job->magic and job->details->magic):
 * two builds of one Slurm version can differ in layout (issue 17, item 5).
 * Built with the configured Slurm headers only (cmake: SN_SLURM_SOURCE_DIR).
 */
#include "src/slurmctld/slurmctld.h"

#include "unit.h"

#include "job_record.h"

/* struct job_details up to 23.02, job_details_t (unnamed) from 23.11. */
typedef __typeof__(*((job_record_t *)0)->details) sn_test_details_t;

struct fixture {
	job_record_t job;
	sn_test_details_t details;
	char *env[1];
};

static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->job.magic = JOB_MAGIC;
	f->job.details = &f->details;
	f->details.magic = DETAILS_MAGIC;
	f->details.min_nodes = 2;
	f->details.max_nodes = 2;
	f->env[0] = "SUPERNODE=1";
	f->job.spank_job_env = f->env;
	f->job.spank_job_env_size = 1;
	return f;
}

static void test_magic(void **state)
{
	struct fixture *f = fixture_new();
	struct sn_job_shape shape = { 0 };
	const char *value = NULL;

	(void)state;
	assert_int_equal(sn_job_record_shape(&f->job, &shape, &value),
			 SN_JOB_RECORD_OURS);
	assert_string_equal(value, "1");
	assert_int_equal(shape.min_nodes, 2);
	/* another build's details: nothing read */
	memset(&shape, 0, sizeof(shape));
	f->details.magic = DETAILS_MAGIC ^ 1;
	assert_int_equal(sn_job_record_shape(&f->job, &shape, &value),
			 SN_JOB_RECORD_LAYOUT);
	assert_int_equal(shape.min_nodes, 0);
	f->details.magic = DETAILS_MAGIC;
	f->job.magic = 0;
	assert_int_equal(sn_job_record_shape(&f->job, &shape, &value),
			 SN_JOB_RECORD_LAYOUT);
	f->job.magic = JOB_MAGIC;
	f->job.spank_job_env_size = 0;
	assert_int_equal(sn_job_record_shape(&f->job, &shape, &value),
			 SN_JOB_RECORD_NOT_OURS);
	f->job.details = NULL;
	assert_int_equal(sn_job_record_shape(&f->job, &shape, &value),
			 SN_JOB_RECORD_NOT_OURS);
	assert_int_equal(sn_job_record_shape(NULL, &shape, &value),
			 SN_JOB_RECORD_NOT_OURS);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_magic),
	};

	return cmocka_run_group_tests_name("job_record", tests, NULL, NULL);
}
