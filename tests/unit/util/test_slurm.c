/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compat header lib/util/sn_slurm.h (issue 11 items 1 and 4), against
 * the Slurm this tree is built for (Debian 12: 22.05): the job id of a
 * job_desc, segments, job_modify's err_msg, the hostlist type, Slurm's
 * topology text and the job_desc.shared values.  tests/compat/compile_all
 * compiles the same header against 23.02 to 26.05.
 */
#include "unit.h"

#include "placement/sn_cluster_match.h"
#include "placement/sn_placement.h"
#include "util/sn_slurm.h"

/* slurm_init_job_desc_msg leaves NO_VAL; the setter reaches the getter. */
static void test_job_desc_id(void **state)
{
	job_desc_msg_t d;

	(void)state;
	slurm_init_job_desc_msg(&d);
	assert_int_equal(sn_slurm_job_desc_id(&d), NO_VAL);
	sn_slurm_job_desc_id_set(&d, 4242);
	assert_int_equal(sn_slurm_job_desc_id(&d), 4242);
#if !SN_SLURM_AT_LEAST(25, 11)
	assert_int_equal(d.job_id, 4242); /* the field itself, up to 25.05 */
#endif
}

/* 22.05 has no segments: the setter says so and leaves job_desc alone. */
static void test_segment(void **state)
{
	job_desc_msg_t d, before;

	(void)state;
	slurm_init_job_desc_msg(&d);
	before = d;
	assert_int_equal(sn_slurm_job_desc_segment_set(&d, 18),
			 SN_SLURM_HAS_SEGMENT);
	if (!SN_SLURM_HAS_SEGMENT)
		assert_memory_equal(&d, &before, sizeof(d));
	assert_int_equal(SN_SLURM_HAS_SEGMENT,
			 SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0));
}

/* Slurm's job_desc.shared values (slurm.h JOB_SHARED_*): topo is 4. */
static void test_shared_values(void **state)
{
	(void)state;
	assert_int_equal(SN_SHARED_NONE, JOB_SHARED_NONE);
	assert_int_equal(SN_SHARED_OK, JOB_SHARED_OK);
	assert_int_equal(SN_SHARED_USER, JOB_SHARED_USER);
	assert_int_equal(SN_SHARED_MCS, JOB_SHARED_MCS);
	assert_int_equal(SN_SHARED_TOPO, 4);
	assert_int_equal(SN_SHARED_TOPO, SN_SLURM_SHARED_TOPO);
#ifdef JOB_SHARED_TOPO
	assert_int_equal(SN_SHARED_TOPO, JOB_SHARED_TOPO);
#endif
}

/* Declared the way job_submit_supernode.c declares job_modify. */
static int modify_like(job_desc_msg_t *job_desc, void *job_ptr,
		       uint32_t submit_uid SN_JOB_MODIFY_ERR_MSG)
{
	char **msg = SN_JOB_MODIFY_ERR_MSG_PTR;

	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	return msg ? 1 : 0;
}

static void test_job_modify_err_msg(void **state)
{
	(void)state;
#if SN_SLURM_AT_LEAST(23, 2)
	char *err = NULL;

	assert_int_equal(modify_like(NULL, NULL, 0, &err), 1);
#else
	assert_int_equal(modify_like(NULL, NULL, 0), 0); /* 22.05: 3 args */
#endif
}

static void test_hostlist(void **state)
{
	sn_slurm_hostlist hl = slurm_hostlist_create("n[1-3]");
	char *h;

	(void)state;
	assert_non_null(hl);
	assert_int_equal(slurm_hostlist_count(hl), 3);
	h = slurm_hostlist_pop(hl);
	assert_string_equal(h, "n3");
	free(h);
	assert_int_equal(slurm_hostlist_count(hl), 2);
	slurm_hostlist_destroy(hl);
}

/*
 * A topology/tree reply as 22.05 unpacks it, printed by Slurm and read
 * back by lib: the path supernodectl config check takes in every release.
 * From 23.11 the reply is the plugin's data, which only slurmctld makes:
 * there the test reads the same text, as the tree plugin prints it.
 */
static char *topo_text(void)
{
	static const char want[] =
		"SwitchName=sn01 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
		"SwitchName=top Level=1 LinkSpeed=1 Switches=sn01\n";
#if SN_SLURM_AT_LEAST(23, 11)
	return strdup(want);
#else
	topo_info_t rec[2] = {
		{ .level = 0,
		  .link_speed = 1,
		  .name = "sn01",
		  .nodes = "n[1-2]" },
		{ .level = 1,
		  .link_speed = 1,
		  .name = "top",
		  .switches = "sn01" },
	};
	topo_info_response_msg_t resp = { .record_count = 2,
					  .topo_array = rec };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	unsetenv("SLURM_TOPO_LEN");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	sn_slurm_topo_print(f, &resp);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, want);
	return text;
#endif
}

static void test_topo_text(void **state)
{
	struct sn_cluster_switch sw[4];
	char *text = topo_text();

	(void)state;
	assert_int_equal(sn_cluster_switches_parse(text, sw, 4), 2);
	assert_string_equal(sw[0].name, "sn01");
	assert_int_equal(sw[0].level, 0);
	assert_string_equal(sw[0].nodes, "n[1-2]");
	assert_null(sw[0].switches);
	assert_string_equal(sw[1].name, "top");
	assert_int_equal(sw[1].level, 1);
	assert_null(sw[1].nodes);
	assert_string_equal(sw[1].switches, "sn01");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_desc_id),
		cmocka_unit_test(test_segment),
		cmocka_unit_test(test_shared_values),
		cmocka_unit_test(test_job_modify_err_msg),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_topo_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
