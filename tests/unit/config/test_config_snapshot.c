/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The job's config (lib/config/config_snapshot.c): written for a job and
 * node, cut to the job's supernodes (and their identity siblings), read
 * back with every setting of the file and without libyaml; refused for
 * another job, node or config file, a link, or a byte out of place.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "helpers/fake_sysfs.h"

#include "config/sn_config_snapshot.h"

#define JOB_NODES "a[1-2],c1,x9" /* x9: in no supernode */

struct fx {
	struct tree t;
	char yaml[256], state[256], file[512];
	struct sn_config *cfg; /* the whole file, loaded on first use */
	struct sn_config_snapshot_key key;
};

/* The whole file (maps libyaml in this process). */
static struct sn_config *whole(struct fx *f)
{
	struct sn_error err;

	if (!f->cfg && !(f->cfg = sn_config_load(f->yaml, &err)))
		fail_msg("config: %s", err.msg);
	return f->cfg;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char text[2048];

	tree_new(&f->t);
	snprintf(f->yaml, sizeof(f->yaml), "%s/supernode.yaml", f->t.root);
	snprintf(f->state, sizeof(f->state), "%s/state", f->t.root);
	snprintf(f->file, sizeof(f->file), "%s/jobconfig/42.a1", f->state);
	snprintf(text, sizeof(text),
		 "supernodes:\n"
		 "  - {name: sn01, nodes: 'a[1-2]'}\n"
		 "  - {name: sn02, nodes: 'b[1-2]'}\n"
		 "  - name: sn03\n"
		 "    nodes: 'c[1-2]'\n"
		 "    identity: 'ascend:7'\n"
		 "  - {name: sn04, nodes: 'd[1-2]', identity: 'ascend:7'}\n"
		 "  - {name: sn05, nodes: 'e[1-2]', identity: 'ascend:8'}\n"
		 "placement:\n  method: block\n"
		 "env:\n"
		 "  master_port_range: [31000, 31999]\n"
		 "  socket_ifname: eth7\n"
		 "  hca: [mlx5_0, mlx5_3]\n"
		 "  force: [NCCL_IB_HCA]\n"
		 "  pytorch: false\n"
		 "paths:\n  state_dir: %s\n",
		 f->state);
	if (unit_write_file(f->yaml, text, strlen(text), 0644))
		fail_msg("cannot write %s", f->yaml);
	f->key.job_id = 42;
	f->key.node = "a1";
	f->key.config_stamp = sn_config_stamp(f->yaml);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sn_config_free(f->cfg);
	tree_free(&f->t);
	free(f);
	return 0;
}

static void save(struct fx *f)
{
	struct sn_error err;

	err_reset(&err);
	if (sn_config_snapshot_save(whole(f), f->state, JOB_NODES, &f->key,
				    &err))
		fail_msg("save: %s", err.msg);
}

/* Whether /proc/self/maps names libyaml. */
static bool yaml_mapped(void)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(m);
	while (fgets(line, sizeof(line), m))
		found |= strstr(line, "libyaml") != NULL;
	fclose(m);
	return found;
}

/* Written in a child (which maps libyaml), read here without it. */
static void test_roundtrip_without_libyaml(void **state)
{
	struct fx *f = *state;
	const struct sn_node *n;
	struct sn_config *job;
	struct sn_error err;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sn_error e;

		_exit(sn_config_snapshot_save(whole(f), f->state, JOB_NODES,
					      &f->key, &e) ?
			      1 :
			      0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_false(yaml_mapped());

	err_reset(&err);
	job = sn_config_snapshot_load(f->state, f->yaml, &f->key, &err);
	if (!job)
		fail_msg("load: %s", err.msg);
	assert_false(yaml_mapped());

	/* sn01 (a1, a2), sn03 (c1) and sn04, sn03's identity sibling */
	assert_int_equal(job->n_supernodes, 3);
	assert_string_equal(job->supernodes[0].name, "sn01");
	assert_string_equal(job->supernodes[1].name, "sn03");
	assert_string_equal(job->supernodes[2].name, "sn04");
	assert_string_equal(job->supernodes[2].identity, "ascend:7");
	assert_int_equal(job->supernodes[1].line, 4); /* the file's line */
	assert_int_equal(job->supernode_size, 2);
	n = sn_config_find_node(job, "a2");
	assert_non_null(n);
	assert_int_equal(n->rank, 1);
	assert_string_equal(job->supernodes[n->supernode].name, "sn01");
	assert_null(sn_config_find_node(job, "b1"));
	assert_null(sn_config_find_node(job, "e1"));

	/* every other setting as the file says */
	assert_string_equal(job->path, f->yaml);
	assert_int_equal(job->method, SN_PLACE_BLOCK);
	assert_int_equal(job->master_port_lo, 31000);
	assert_int_equal(job->master_port_hi, 31999);
	assert_int_equal(job->master_port_line, whole(f)->master_port_line);
	assert_int_equal(job->master_port_col, f->cfg->master_port_col);
	assert_string_equal(job->socket_ifname, "eth7");
	assert_int_equal(job->n_hca, 2);
	assert_string_equal(job->hca[1], "mlx5_3");
	assert_int_equal(job->n_force, 1);
	assert_string_equal(job->force[0], "NCCL_IB_HCA");
	assert_false(job->pytorch);
	assert_string_equal(job->state_dir, f->state);
	assert_string_equal(job->sysfs, "/sys"); /* the default */
	sn_config_free(job);
}

static void expect_refused(struct fx *f, int want_errno, const char *why)
{
	struct sn_config *job;
	struct sn_error err;

	err_reset(&err);
	errno = 0;
	job = sn_config_snapshot_load(f->state, f->yaml, &f->key, &err);
	if (job)
		fail_msg("loaded, expected: %s", why);
	assert_int_equal(errno, want_errno);
	assert_contains(err.msg, why);
}

static void test_refused(void **state)
{
	struct fx *f = *state;
	struct sn_config_snapshot_key good = f->key;
	char link[600];

	expect_refused(f, ENOENT, "No such file"); /* none written yet */
	save(f);
	f->key.job_id = 43;
	expect_refused(f, ENOENT, "43.a1"); /* another job's name */
	f->key = good;
	f->key.config_stamp++;
	expect_refused(f, EINVAL, "another config file (changed since)");
	f->key = good;

	/* written for job 42 on a1, put where job 42's a2 looks */
	snprintf(link, sizeof(link), "%s/jobconfig/42.a2", f->state);
	assert_int_equal(rename(f->file, link), 0);
	f->key.node = "a2";
	expect_refused(f, EINVAL, "written for another node than a2");
	f->key = good;
	assert_int_equal(symlink(link, f->file), 0);
	expect_refused(f, ELOOP, "link");
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(rename(link, f->file), 0);
	sn_config_free(sn_config_snapshot_load(f->state, f->yaml, &f->key,
					       &(struct sn_error){ 0 }));
}

/*
 * Every byte of a good file changed, one at a time: loaded or refused,
 * never out of bounds (ASan/UBSan build), never a config with a supernode
 * the file does not have.
 */
static void test_every_byte(void **state)
{
	struct fx *f = *state;
	static char buf[1 << 16];
	size_t len, refused = 0;
	FILE *in;

	save(f);
	in = fopen(f->file, "rb");
	assert_non_null(in);
	len = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	assert_true(len > 296 && len < sizeof(buf));
	for (size_t i = 0; i < len; i++) {
		struct sn_config *job;
		struct sn_error err;
		char was = buf[i];

		buf[i] = (char)(was ^ 0x5a);
		if (unit_write_file(f->file, buf, len, 0600))
			fail_msg("cannot write %s", f->file);
		job = sn_config_snapshot_load(f->state, f->yaml, &f->key, &err);
		if (!job)
			refused++;
		else if (i < 24) /* magic, version, nodes, job, supernodes */
			fail_msg("byte %zu of the header changed, still loaded",
				 i);
		else
			assert_int_equal(job->n_supernodes, 3);
		sn_config_free(job);
		buf[i] = was;
	}
	assert_true(refused >= 24);
	/* cut short: refused */
	assert_int_equal(unit_write_file(f->file, buf, len - 3, 0600), 0);
	expect_refused(f, EINVAL, "out of bounds");
}

static void test_none_needed_and_remove(void **state)
{
	static const char other[] =
		"supernodes:\n  - {name: sn09, nodes: 'a[1-2]'}\n";
	struct fx *f = *state;
	struct sn_error err;
	char want[512];

	err_reset(&err);
	assert_int_equal(sn_config_snapshot_save(whole(f), f->state, "x[1-9]",
						 &f->key, &err),
			 1);
	assert_int_equal(access(f->file, F_OK), -1);
	save(f);
	assert_int_equal(access(f->file, F_OK), 0);
	assert_int_equal(sn_config_snapshot_remove(f->state, 42, "a1", &err),
			 0);
	assert_int_equal(access(f->file, F_OK), -1);
	assert_int_equal(sn_config_snapshot_remove(f->state, 42, "a1", &err),
			 0);
	/* the file edited since the config was loaded: not written */
	f->key.config_stamp++;
	assert_int_equal(sn_config_snapshot_save(f->cfg, f->state, JOB_NODES,
						 &f->key, &err),
			 -1);
	assert_contains(err.msg, "changed since it was loaded");
	assert_int_equal(access(f->file, F_OK), -1);
	/* rewritten with other supernodes, stamp and all: not cfg's file */
	assert_int_equal(unit_write_file(f->yaml, other, strlen(other), 0644),
			 0);
	f->key.config_stamp = sn_config_stamp(f->yaml);
	assert_int_equal(sn_config_snapshot_save(f->cfg, f->state, JOB_NODES,
						 &f->key, &err),
			 -1);
	snprintf(
		want, sizeof(want),
		"%s: its supernodes: list is not the one loaded (the file changed since?)",
		f->yaml);
	assert_string_equal(err.msg, want);
	assert_int_equal(access(f->file, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_without_libyaml,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_byte, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_none_needed_and_remove,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
