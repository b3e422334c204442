/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl doctor's decisions (lib/checks/doctor.c): scontrol's text
 * into Slurm's view, slurm.conf's settings to levels, exit codes, JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "checks/sn_doctor.h"

static const char good[] =
	"Configuration data as of 2026-12-02T04:29:05\n"
	"Epilog                  = /usr/sbin/supernode-epilog\n"
	"JobRequeue              = 1\n"
	"JobSubmitPlugins        = lua,supernode\n"
	"Prolog                  = /usr/sbin/supernode-prolog\n"
	"PrologEpilogTimeout     = 40\n"
	"PrologFlags             = Alloc,DeferBatch\n"
	"SchedulerParameters     = nohold_on_prolog_fail,bf_interval=1\n"
	"SlurmctldHost[0]        = ctl1(10.0.0.1)\n"
	"SlurmctldHost[1]        = ctl2\n"
	"SLURM_VERSION           = 22.05.8\n";

static struct sn_config cfg_of(uint32_t pro, uint32_t epi)
{
	struct sn_config c = { .path = "/etc/slurm/supernode.yaml" };

	c.prolog.timeout_s = pro;
	c.epilog.timeout_s = epi;
	return c;
}

static const struct sn_doctor_item *find(const struct sn_doctor *d,
					 const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].name, name))
			return &d->items[i];
	return NULL;
}

static void test_view_parse(void **state)
{
	struct sn_slurm_view v;

	(void)state;
	assert_int_equal(sn_slurm_view_parse(good, &v), 0);
	assert_string_equal(v.version, "22.05.8");
	assert_string_equal(v.prolog_flags, "Alloc,DeferBatch");
	assert_string_equal(v.ctld_hosts, "ctl1,ctl2");
	assert_true(sn_doctor_host_is_ctld(&v, "ctl2"));
	assert_false(sn_doctor_host_is_ctld(&v, "ctl"));
	assert_null(v.plugstack);
	sn_slurm_view_free(&v);
	assert_int_equal(sn_slurm_view_parse("slurm_load_ctl_conf error\n", &v),
			 -1);
	sn_slurm_view_free(&v);
}

/*
 * Slurm 23.02 and later print each Prolog and Epilog script as KEY[i]
 * (24.11.5's scontrol show config, src/api/config_info.c l.729, 984):
 * integration.doctor on 24.11 read "slurm.conf has no Prolog" before.
 */
static void test_view_parse_indexed(void **state)
{
	static const char text[] =
		"Epilog[0]               = /etc/slurm/epilog.d/site\n"
		"Epilog[1]               = /usr/sbin/supernode-epilog\n"
		"Prolog[0]               = /usr/sbin/supernode-prolog\n"
		"PrologFlags             = Alloc,DeferBatch\n"
		"SLURM_VERSION           = 24.11.5\n";
	struct sn_config c = cfg_of(30, 30);
	struct sn_slurm_view v;
	struct sn_doctor d = { 0 };

	(void)state;
	assert_int_equal(sn_slurm_view_parse(text, &v), 0);
	assert_string_equal(v.prolog, "/usr/sbin/supernode-prolog");
	assert_string_equal(
		v.epilog,
		"/etc/slurm/epilog.d/site,/usr/sbin/supernode-epilog");
	sn_doctor_slurm_conf(&d, &v, &c, "/usr/sbin");
	assert_string_equal(
		find(&d, "slurm-prolog")->finding,
		"Prolog=/usr/sbin/supernode-prolog runs supernode-prolog");
	assert_int_equal(find(&d, "slurm-epilog")->level, SN_OK);
	sn_slurm_view_free(&v);
}

static void test_slurm_conf_good(void **state)
{
	struct sn_config c = cfg_of(30, 30);
	struct sn_slurm_view v;
	struct sn_doctor d = { 0 };

	(void)state;
	assert_int_equal(sn_slurm_view_parse(good, &v), 0);
	sn_doctor_slurm_conf(&d, &v, &c, "/usr/sbin");
	assert_int_equal(d.n, 6);
	assert_int_equal(sn_doctor_exit(&d), 0);
	assert_string_equal(
		find(&d, "slurm-timeout")->finding,
		"PrologEpilogTimeout=40 s holds prolog.timeout 30 s and epilog.timeout 30 s with 5 s to spare");
	sn_slurm_view_free(&v);
}

static void test_slurm_conf_broken(void **state)
{
	struct sn_config c = cfg_of(36, 30);
	struct sn_slurm_view v;
	struct sn_doctor d = { 0 };
	char *text = strdup(good), *p;

	(void)state;
	/* No Epilog, JobRequeue=0, PrologFlags without DeferBatch. */
	p = strstr(text, "Epilog ");
	p[0] = 'X';
	p = strstr(text, "= 1\n");
	p[2] = '0';
	p = strstr(text, ",DeferBatch");
	memcpy(p, ",Contain   ", 11);
	assert_int_equal(sn_slurm_view_parse(text, &v), 0);
	sn_doctor_slurm_conf(&d, &v, &c, "/usr/sbin");
	assert_int_equal(find(&d, "slurm-prolog")->level, SN_OK);
	assert_int_equal(find(&d, "slurm-epilog")->level, SN_WARN);
	assert_string_equal(
		find(&d, "slurm-epilog")->fix,
		"set Epilog=/usr/sbin/supernode-epilog in slurm.conf (or exec it from your Epilog script), then scontrol reconfigure");
	assert_int_equal(find(&d, "slurm-prolog-flags")->level, SN_WARN);
	assert_int_equal(find(&d, "slurm-requeue")->level, SN_WARN);
	assert_int_equal(find(&d, "slurm-timeout")->level, SN_CRIT);
	assert_string_equal(
		find(&d, "slurm-timeout")->finding,
		"PrologEpilogTimeout=40 s is below prolog.timeout 36 s + 5 s: Slurm kills supernode-prolog before it ends and drains the node with its own reason");
	assert_int_equal(sn_doctor_exit(&d), 2);
	sn_slurm_view_free(&v);
	free(text);
}

/* PrologEpilogTimeout unset (65534): fits whatever our timeouts are. */
/* max_requeue_finding MAX OURS: the slurm-max-requeue item ("finding | fix"), or NULL. */
static const char *max_requeue_finding(const char *slurm_max, uint32_t ours,
				       char *buf, size_t size)
{
	struct sn_config c = cfg_of(30, 30);
	struct sn_slurm_view v;
	struct sn_doctor d = { 0 };
	const struct sn_doctor_item *it;
	char text[2048];

	snprintf(text, sizeof(text), "%sMaxBatchRequeue         = %s\n", good,
		 slurm_max);
	c.max_requeues = ours;
	assert_int_equal(sn_slurm_view_parse(text, &v), 0);
	assert_string_equal(v.max_batch_requeue, slurm_max);
	sn_doctor_slurm_conf(&d, &v, &c, "/usr/sbin");
	it = find(&d, "slurm-max-requeue");
	if (it) {
		assert_int_equal(it->level, SN_WARN);
		snprintf(buf, size, "%s | %s", it->finding, it->fix);
	}
	sn_slurm_view_free(&v);
	return it ? buf : NULL;
}

/*
 * placement.max_requeues above MaxBatchRequeue: Slurm's cap holds the
 * job first (at its MaxBatchRequeue-th failed launch; 0 at the first), so
 * the doctor warns; equal, below, 0 (held at our first) or left to Slurm:
 * nothing to say.
 */
static void test_max_requeue(void **state)
{
	char buf[1024];

	(void)state;
	assert_string_equal(
		max_requeue_finding("5", 8, buf, sizeof(buf)),
		"placement.max_requeues 8 is above MaxBatchRequeue=5: Slurm holds a job at its 5th failed launch itself (JobHoldMaxRequeue), before our cap and without our reason | set MaxBatchRequeue=8 (or more) in slurm.conf and scontrol reconfigure, or lower placement.max_requeues (or leave it out: Slurm's then) in /etc/slurm/supernode.yaml");
	assert_string_equal(
		max_requeue_finding("0", 2, buf, sizeof(buf)),
		"placement.max_requeues 2 is above MaxBatchRequeue=0: Slurm holds a job at its 1st failed launch itself (JobHoldMaxRequeue), before our cap and without our reason | set MaxBatchRequeue=2 (or more) in slurm.conf and scontrol reconfigure, or lower placement.max_requeues (or leave it out: Slurm's then) in /etc/slurm/supernode.yaml");
	assert_null(max_requeue_finding("5", 5, buf, sizeof(buf)));
	assert_null(max_requeue_finding("5", 3, buf, sizeof(buf)));
	assert_null(max_requeue_finding("0", 0, buf, sizeof(buf)));
	assert_null(max_requeue_finding("5", SN_CONFIG_REQUEUES_SLURM, buf,
					sizeof(buf)));
	assert_null(max_requeue_finding("x5", 8, buf, sizeof(buf)));
}

static void test_timeout_unset(void **state)
{
	struct sn_config c = cfg_of(300, 300);
	struct sn_slurm_view v = { .pe_timeout = "65534",
				   .prolog_flags = "Alloc,DeferBatch" };
	struct sn_doctor d = { 0 };

	(void)state;
	sn_doctor_slurm_conf(&d, &v, &c, "/usr/sbin");
	assert_int_equal(find(&d, "slurm-timeout")->level, SN_OK);
	assert_int_equal(find(&d, "slurm-prolog")->level, SN_CRIT);
	assert_int_equal(find(&d, "slurm-job-submit")->level, SN_CRIT);
}

static void test_print_json(void **state)
{
	struct sn_doctor d = { 0 };
	json_object *o, *c;

	(void)state;
	sn_doctor_add(&d, SN_OK, "config", "ignored", "fine");
	sn_doctor_add(&d, SN_WARN, "node", "do this", "x is in no supernode");
	assert_int_equal(sn_doctor_exit(&d), 1);
	o = sn_doctor_json(&d);
	assert_non_null(o);
	assert_string_equal(
		json_object_to_json_string_ext(o, 0),
		"{\"level\":\"WARN\",\"exit\":1,\"checks\":["
		"{\"level\":\"OK\",\"name\":\"config\",\"finding\":\"fine\",\"fix\":null},"
		"{\"level\":\"WARN\",\"name\":\"node\",\"finding\":\"x is in no supernode\",\"fix\":\"do this\"}]}");
	c = json_object_object_get(o, "checks");
	assert_int_equal(json_object_array_length(c), 2);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_parse),
		cmocka_unit_test(test_view_parse_indexed),
		cmocka_unit_test(test_slurm_conf_good),
		cmocka_unit_test(test_slurm_conf_broken),
		cmocka_unit_test(test_max_requeue),
		cmocka_unit_test(test_timeout_unset),
		cmocka_unit_test(test_print_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
