/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The job's task environment cache (lib/env/taskenv_cache.c): written and
 * read back whole; every trust failure refused with its reason (a link, a
 * foreign owner, group-writable, another job, node, config, format
 * version, struct size, a truncated file); a step that finds it uses it
 * without gathering, one that needs the topology it lacks gathers and
 * completes it; the epilog's removal.  The node's topology file: written
 * by the first step that loaded the topology, read by the next jobs'
 * steps (with the prolog's ports or ports read alone) to the same values,
 * refused after a reboot, a config or hwloc XML change, or tampering.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "helpers/fake_sysfs.h"
#include "env/sn_taskenv_cache.h"

#define XML SN_FIXTURES "/topo/small-4gpu-2nic.xml"

struct fx {
	struct tree t;
	char state[128], file[256], topo[256], xml[256];
	struct sn_config *cfg;
	struct sn_taskenv_cache_key key;
};

static void copy_file(const char *from, const char *to)
{
	static char buf[1 << 20];
	FILE *in = fopen(from, "rb");
	size_t n;

	if (!in)
		fail_msg("cannot read %s", from);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	if (unit_write_file(to, buf, n, 0644))
		fail_msg("cannot write %s", to);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char yaml[1024];
	struct sn_error err;

	tree_new(&f->t);
	ib_port_files(&f->t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp",
		      "200 Gb/sec (4X HDR)", "InfiniBand");
	ib_port_files(&f->t, "mlx5_1", 1, "1: DOWN", "2: Polling",
		      "10 Gb/sec (4X SDR)", "InfiniBand");
	snprintf(f->state, sizeof(f->state), "%s/state", f->t.root);
	snprintf(f->file, sizeof(f->file), "%s/taskenv/42.sna1", f->state);
	snprintf(f->topo, sizeof(f->topo), "%s/taskenv/topology.sna1",
		 f->state);
	/* a copy of the XML: the topology file's key has its stamp */
	snprintf(f->xml, sizeof(f->xml), "%s/topo.xml", f->t.root);
	copy_file(XML, f->xml);
	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - {name: sn01, nodes: 'sna[1-2]'}\n"
		 "paths:\n  sysfs: %s\n  hwloc_xml: %s\n  state_dir: %s\n",
		 f->t.root, f->xml, f->state);
	f->cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!f->cfg)
		fail_msg("config: %s", err.msg);
	f->key.job_id = 42;
	snprintf(f->key.node, sizeof(f->key.node), "sna1");
	f->key.config_stamp = 0x1234;
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

/* The prolog's file (ports, no topology), as sn_taskenv_cache_save writes. */
static void save(struct fx *f)
{
	struct sn_error err;

	err_reset(&err);
	if (sn_taskenv_cache_save(f->cfg, f->t.root, f->state, &f->key, &err))
		fail_msg("save: %s", err.msg);
}

static void expect_bad(struct fx *f, const char *why)
{
	static struct sn_taskenv_node node;
	struct sn_error err;

	err_reset(&err);
	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &node, NULL,
					       &err),
			 SN_TASKENV_CACHE_BAD);
	assert_contains(err.msg, why);
	assert_int_equal(node.n_ports, 0); /* nothing taken */
}

static void test_write_read(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node, gathered;
	struct sn_taskenv_cache_head head;
	struct sn_error err;
	struct stat st;

	save(f);
	assert_int_equal(stat(f->file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, sizeof(head) + sizeof(node));
	err_reset(&err);
	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &node, &head,
					       &err),
			 SN_TASKENV_CACHE_HIT);
	assert_string_equal(head.writer, "prolog");
	assert_int_equal(head.job_id, 42);
	sn_taskenv_node_gather(f->cfg, f->t.root, NULL, 0, &gathered);
	assert_memory_equal(&node, &gathered, sizeof(node));
	assert_int_equal(node.n_ports, 2);
	assert_string_equal(node.ports[0].dev, "mlx5_0");
	assert_true(node.ports[0].active);
	assert_false(node.ports[1].active);
	/* one usable port: nearest NICs need no topology; GPUs do */
	assert_int_equal(node.topo_done, SN_TASKENV_TOPO_NICS);
	assert_false(node.topo.valid);
}

static void test_missing(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node;
	struct sn_error err;

	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &node, NULL,
					       &err),
			 SN_TASKENV_CACHE_MISSING);
	save(f);
	f->key.job_id = 43; /* another job's file name: none */
	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &node, NULL,
					       &err),
			 SN_TASKENV_CACHE_MISSING);
}

static void test_symlink(void **state)
{
	struct fx *f = *state;
	char moved[300];

	save(f);
	snprintf(moved, sizeof(moved), "%s.real", f->file);
	assert_int_equal(rename(f->file, moved), 0);
	assert_int_equal(symlink(moved, f->file), 0);
	expect_bad(f, "a symbolic link, not followed: ");
	expect_bad(f, "/taskenv/42.sna1");
}

static void test_symlinked_folder(void **state)
{
	struct fx *f = *state;
	char real[300], link[300];

	save(f);
	snprintf(real, sizeof(real), "%s/elsewhere", f->t.root);
	snprintf(link, sizeof(link), "%s/taskenv", f->state);
	assert_int_equal(rename(link, real), 0);
	assert_int_equal(symlink(real, link), 0);
	/* the state folder is root's and writable by no one else: the
	 * walk may follow it (sn_safedir.h); a user's folder may not */
	assert_int_equal(chown(f->state, 65534, 65534), 0);
	expect_bad(f, "owned by uid 65534");
}

static void test_owner(void **state)
{
	struct fx *f = *state;

	save(f);
	assert_int_equal(chown(f->file, 65534, 65534), 0);
	expect_bad(f, "owned by uid 65534, not by root: ");
}

static void test_group_writable(void **state)
{
	struct fx *f = *state;

	save(f);
	assert_int_equal(chmod(f->file, 0620), 0);
	expect_bad(f, "writable by group or others: ");
	assert_int_equal(chmod(f->file, 0602), 0);
	expect_bad(f, "writable by group or others: ");
}

static void test_hard_link(void **state)
{
	struct fx *f = *state;
	char other[300];

	save(f);
	snprintf(other, sizeof(other), "%s/taskenv/copy", f->state);
	assert_int_equal(link(f->file, other), 0);
	expect_bad(f, "file with 2 links (a hard link?)");
}

/* A file written for key2 read under f->key. */
static void written_for(struct fx *f, struct sn_taskenv_cache_key key2)
{
	static struct sn_taskenv_node node;
	char name[64], other[300];
	struct sn_error err;

	assert_int_equal(sn_taskenv_cache_write(f->state, &key2, "step", &node,
						&err),
			 0);
	sn_taskenv_cache_name(key2.job_id, key2.node, name, sizeof(name));
	snprintf(other, sizeof(other), "%s/taskenv/%s", f->state, name);
	if (strcmp(other, f->file))
		assert_int_equal(rename(other, f->file), 0);
}

static void test_wrong_job(void **state)
{
	struct fx *f = *state;
	struct sn_taskenv_cache_key k = f->key;

	k.job_id = 7;
	written_for(f, k);
	expect_bad(f, "written for job 7, not 42: ");
}

static void test_wrong_node(void **state)
{
	struct fx *f = *state;
	struct sn_taskenv_cache_key k = f->key;

	snprintf(k.node, sizeof(k.node), "sna2");
	written_for(f, k);
	expect_bad(f, "written for node sna2, not sna1: ");
}

static void test_wrong_config(void **state)
{
	struct fx *f = *state;
	struct sn_taskenv_cache_key k = f->key;

	k.config_stamp = 0x4321;
	written_for(f, k);
	expect_bad(f, "written under another config file (changed since): ");
}

/* Overwrite bytes at off of the file with len bytes of data. */
static void poke(struct fx *f, off_t off, const void *data, size_t len)
{
	int fd = open(f->file, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, len, off), (ssize_t)len);
	close(fd);
}

static void test_wrong_magic_version_size(void **state)
{
	struct fx *f = *state;
	struct sn_taskenv_cache_head h;
	uint32_t v = 1, size = 1000;

	save(f);
	poke(f, offsetof(struct sn_taskenv_cache_head, version), &v, sizeof(v));
	expect_bad(f, "format version 1, this plugin reads 2: ");
	save(f);
	poke(f, offsetof(struct sn_taskenv_cache_head, node_size), &size,
	     sizeof(size));
	expect_bad(f, "snapshot of 1000 bytes, this plugin's is ");
	save(f);
	poke(f, 0, "NOTCACHE", sizeof(h.magic));
	expect_bad(f, "not a task environment cache: ");
}

static void test_truncated_and_long(void **state)
{
	struct fx *f = *state;
	char expect[128];

	save(f);
	assert_int_equal(truncate(f->file, 100), 0);
	snprintf(expect, sizeof(expect), "100 bytes, expected %zu (truncated",
		 sizeof(struct sn_taskenv_cache_head) +
			 sizeof(struct sn_taskenv_node));
	expect_bad(f, expect);
	save(f);
	assert_int_equal(truncate(f->file,
				  sizeof(struct sn_taskenv_cache_head) +
					  sizeof(struct sn_taskenv_node) + 1),
			 0);
	expect_bad(f, "expected");
}

static void test_counts_bounded(void **state)
{
	struct fx *f = *state;
	size_t n = SN_TASKENV_MAX_PORTS + 1;

	save(f);
	poke(f,
	     sizeof(struct sn_taskenv_cache_head) +
		     offsetof(struct sn_taskenv_node, n_ports),
	     &n, sizeof(n));
	expect_bad(f, "a count or string out of bounds: ");
}

static void test_not_regular(void **state)
{
	struct fx *f = *state;

	save(f);
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(mkfifo(f->file, 0600), 0);
	expect_bad(f, "not a regular file: "); /* and did not block */
}

/* A step: the prolog's file answers NICs; GPUs need the topology, which
 * the step loads once and writes back; the next step reads it all. */
static void test_prepare_cached(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node, plain;
	struct sn_taskenv_cache_use use;
	struct sn_taskenv_cache_head head;
	struct sn_error err;

	save(f);
	assert_int_equal(sn_taskenv_node_prepare_cached(
				 f->cfg, "sna1", SN_TASKENV_TOPO_NICS, &f->key,
				 &node, &use, &err),
			 SN_TASKENV_NO_TOPO); /* as without a cache: info */
	assert_true(use.hit);
	assert_string_equal(use.writer, "prolog");
	assert_true(node.in_supernode);
	assert_int_equal(sn_taskenv_node_prepare(f->cfg, "sna1",
						 SN_TASKENV_TOPO_NICS, &plain,
						 &err),
			 SN_TASKENV_NO_TOPO);
	assert_memory_equal(&node, &plain, sizeof(node));

	/* the GPU binding: not in the prolog's file: gathered, written */
	assert_int_equal(sn_taskenv_node_prepare_cached(
				 f->cfg, "sna1", SN_TASKENV_TOPO_GPUS, &f->key,
				 &node, &use, &err),
			 SN_TASKENV_READY);
	assert_false(use.hit);
	assert_true(use.written);
	assert_string_equal(use.note, "");
	assert_true(node.topo.valid);
	assert_int_equal(node.gpus.n, 4);
	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &plain, &head,
					       &err),
			 SN_TASKENV_CACHE_HIT);
	assert_string_equal(head.writer, "step");

	/* the next step: everything from the cache, the same values */
	assert_int_equal(sn_taskenv_node_prepare(f->cfg, "sna1",
						 SN_TASKENV_TOPO_GPUS, &plain,
						 &err),
			 SN_TASKENV_READY);
	assert_int_equal(sn_taskenv_node_prepare_cached(
				 f->cfg, "sna1", SN_TASKENV_TOPO_GPUS, &f->key,
				 &node, &use, &err),
			 SN_TASKENV_READY);
	assert_true(use.hit);
	assert_string_equal(use.writer, "step");
	assert_memory_equal(&node, &plain, sizeof(node));
}

/* A refused cache: the step gathers, says why once, and replaces it. */
static void test_prepare_refused(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node;
	struct sn_taskenv_cache_use use;
	struct sn_error err;

	save(f);
	assert_int_equal(chmod(f->file, 0666), 0);
	assert_int_equal(sn_taskenv_node_prepare_cached(
				 f->cfg, "sna1", 0, &f->key, &node, &use, &err),
			 SN_TASKENV_READY);
	assert_false(use.hit);
	assert_true(use.written);
	assert_contains(
		use.note,
		"the job's node cache ignored: writable by group or others: ");
	assert_int_equal(node.n_ports, 2);
	assert_int_equal(sn_taskenv_node_prepare_cached(
				 f->cfg, "sna1", 0, &f->key, &node, &use, &err),
			 SN_TASKENV_READY);
	assert_true(use.hit);
	assert_string_equal(use.note, "");
}

static void test_remove(void **state)
{
	struct fx *f = *state;
	struct sn_error err;
	struct stat st;
	char tmp[300];

	save(f);
	/* a killed writer's temporary (PID 2^31-2: no such process) */
	snprintf(tmp, sizeof(tmp), "%s.2147483646.tmp", f->file);
	assert_int_equal(unit_write_file(tmp, "x", 1, 0600), 0);
	assert_int_equal(sn_taskenv_cache_remove(f->state, 42, "sna1", &err),
			 0);
	assert_int_equal(stat(f->file, &st), -1);
	assert_int_equal(stat(tmp, &st), -1);
	/* nothing there: fine */
	assert_int_equal(sn_taskenv_cache_remove(f->state, 42, "sna1", &err),
			 0);
	assert_int_equal(sn_taskenv_cache_remove(f->state, 42, "a/b", &err),
			 -1);
}

/* prepare_cached for job with the GPU binding wanted; READY asserted. */
static void step(struct fx *f, uint32_t job, struct sn_taskenv_node *node,
		 struct sn_taskenv_cache_use *use)
{
	struct sn_taskenv_cache_key k = f->key;
	struct sn_error err;

	k.job_id = job;
	err_reset(&err);
	assert_int_equal(sn_taskenv_node_prepare_cached(f->cfg, "sna1",
							SN_TASKENV_TOPO_GPUS,
							&k, node, use, &err),
			 SN_TASKENV_READY);
}

/*
 * The node's topology file: the first job's step loads hwloc and writes
 * it; the next job's steps take the topology from it (the ports read
 * alone, or from the prolog's file) and reach exactly the values of a
 * plain gather.
 */
static void test_topology_file(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node, plain;
	struct sn_taskenv_cache_use use;
	struct sn_taskenv_cache_head head;
	struct sn_error err;
	struct stat st;

	f->key.boot_stamp = 0xb007;
	step(f, 42, &node, &use);
	assert_false(use.topo_hit);
	assert_true(use.topo_written);
	assert_true(use.written);
	assert_int_equal(stat(f->topo, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(sn_taskenv_node_prepare(f->cfg, "sna1",
						 SN_TASKENV_TOPO_GPUS, &plain,
						 &err),
			 SN_TASKENV_READY);
	assert_memory_equal(&node, &plain, sizeof(node));

	/* job 43, no prolog: the ports read alone, the topology from it */
	step(f, 43, &node, &use);
	assert_true(use.topo_hit);
	assert_false(use.ports_hit);
	assert_false(use.topo_written);
	assert_true(use.written);
	assert_string_equal(use.note, "");
	assert_memory_equal(&node, &plain, sizeof(node));

	/* job 44, the prolog's ports: nothing gathered at all */
	f->key.job_id = 44;
	save(f);
	step(f, 44, &node, &use);
	assert_true(use.topo_hit);
	assert_true(use.ports_hit);
	assert_string_equal(use.writer, "prolog");
	assert_memory_equal(&node, &plain, sizeof(node));
	f->key.job_id = 44;
	assert_int_equal(sn_taskenv_cache_read(f->state, &f->key, &node, &head,
					       &err),
			 SN_TASKENV_CACHE_HIT);
	assert_int_equal(node.topo_done,
			 SN_TASKENV_TOPO_NICS | SN_TASKENV_TOPO_GPUS);
	assert_int_equal(node.gpus.n, 4);
}

/* expect_topo_refused: job's step rediscovers, says why, rewrites. */
static void expect_topo_refused(struct fx *f, uint32_t job, const char *why)
{
	static struct sn_taskenv_node node;
	struct sn_taskenv_cache_use use;

	step(f, job, &node, &use);
	assert_false(use.topo_hit);
	assert_true(use.topo_written);
	assert_contains(use.note, why);
	assert_true(node.topo.valid);
	step(f, job + 100, &node, &use); /* the rewritten file is good */
	assert_true(use.topo_hit);
	assert_string_equal(use.note, "");
}

static void test_topology_file_refused(void **state)
{
	struct fx *f = *state;
	static struct sn_taskenv_node node;
	struct sn_taskenv_cache_use use;
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	struct stat st;

	f->key.boot_stamp = 0xb007;
	step(f, 42, &node, &use);
	f->key.boot_stamp = 0xb008; /* rebooted */
	expect_topo_refused(
		f, 43,
		"the node's topology file ignored: written before the node's last boot: ");
	assert_int_equal(utimensat(AT_FDCWD, f->xml, t, 0), 0); /* new XML */
	expect_topo_refused(
		f, 44,
		"the node's topology file ignored: written under another config or hwloc XML file (changed since): ");
	assert_int_equal(chmod(f->topo, 0660), 0);
	expect_topo_refused(
		f, 45,
		"the node's topology file ignored: writable by group or others: ");

	/* no boot id: neither read nor written */
	assert_int_equal(unlink(f->topo), 0);
	f->key.boot_stamp = 0;
	step(f, 46, &node, &use);
	assert_false(use.topo_hit);
	assert_false(use.topo_written);
	assert_int_equal(stat(f->topo, &st), -1);
	assert_int_not_equal(sn_taskenv_boot_stamp(), 0); /* Linux has one */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_write_read),
		T(test_missing),
		T(test_symlink),
		T(test_symlinked_folder),
		T(test_owner),
		T(test_group_writable),
		T(test_hard_link),
		T(test_wrong_job),
		T(test_wrong_node),
		T(test_wrong_config),
		T(test_wrong_magic_version_size),
		T(test_truncated_and_long),
		T(test_counts_bounded),
		T(test_not_regular),
		T(test_prepare_cached),
		T(test_prepare_refused),
		T(test_remove),
		T(test_topology_file),
		T(test_topology_file_refused),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
