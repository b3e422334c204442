/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_topo_open's pre-check of hwloc XML, for what hwloc would turn into a
 * huge allocation (found by fuzz_hwloc): a PU or NUMA node without a small
 * os_index (hwloc sets that bit of a bitmap: 512 MiB for 0xffffffff), and
 * a distance matrix larger than the file can hold (nbobjs^2 values
 * allocated before they are read); and objects that are not one tree
 * (hwloc crashed on them).  Each case is our small fixture with
 * one change, written to a temporary folder.
 */
#include <errno.h>
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_topo.h"
#include "util/sn_file.h"

#define SMALL SN_FIXTURES "/topo/small-4gpu-2nic.xml"
#define NUMA0 "<object type=\"NUMANode\" os_index=\"0\" "
#define PU1 "<object type=\"PU\" os_index=\"1\" "
#define END "</topology>"

static char dir[] = "/tmp/sn-topo-xml-XXXXXX";
static char path[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.xml", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

/* The fixture with the first `from` replaced by `to`, written to path. */
static void write_changed(const char *from, const char *to)
{
	char *buf = NULL, *at;
	long len = sn_file_read(SMALL, 1 << 20, &buf);
	FILE *f;

	assert_true(len > 0);
	at = strstr(buf, from);
	assert_non_null(at);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(buf, 1, (size_t)(at - buf), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	fclose(f);
	free(buf);
}

static void refused(const char *why)
{
	char want[512];
	struct sn_error err;

	snprintf(want, sizeof(want), "bad hwloc XML file: %s: %s", why, path);
	errno = 0;
	assert_null(sn_topo_open(path, 0, &err));
	assert_int_equal(errno, EBADMSG);
	assert_string_equal(err.msg, want);
}

static void test_numa_without_os_index(void **state)
{
	(void)state;
	write_changed(NUMA0, "<object type=\"NUMANode\" ");
	refused("PU or NUMANode without an os_index below 1048576 at byte 577");
}

static void test_pu_os_index_too_large(void **state)
{
	(void)state;
	write_changed(PU1, "<object type=\"PU\" os_index=\"4294967295\" ");
	refused("PU or NUMANode without an os_index below 1048576 at byte 1240");
	write_changed(PU1, "<object type=\"PU\" os_index=\"1048575\" ");
	sn_topo_close(sn_topo_open(path, 0, NULL)); /* the largest allowed */
}

static void test_distances_larger_than_file(void **state)
{
	(void)state;
	write_changed(
		END,
		"<distances2 type=\"NUMANode\" nbobjs=\"50000\" kind=\"5\" indexing=\"os\"></distances2>\n" END);
	refused("distances of 50000 objects do not fit in 7223 bytes at byte 7158");
	write_changed(
		END,
		"<distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" name=\"NUMALatency\" indexing=\"os\">\n"
		"  <indexes length=\"3\">0 1</indexes>\n"
		"  <u64values length=\"11\">10 21 21 10</u64values>\n"
		"</distances2>\n" END);
	{
		struct sn_error err;
		struct sn_topo *t = sn_topo_open(path, 0, &err);

		if (!t)
			fail_msg("%s", err.msg);
		sn_topo_close(t);
	}
}

/* hwloc crashed on objects outside the root (found by fuzz_hwloc). */
static void test_objects_not_one_tree(void **state)
{
	(void)state;
	write_changed("gp_index=\"1\">", "gp_index=\"1\"/>");
	refused("a second root object at byte 422");
	write_changed(END, "</object>\n" END);
	refused("</object> without an open object at byte 7131");
}

/*
 * hwloc_bitmap_sscanf failed an assert on a leading ',' (found by
 * fuzz_hwloc); lstopo's empty (zero) words inside a value stay valid.
 */
static void test_bitmap_malformed(void **state)
{
	(void)state;
	write_changed("nodeset=\"0x00000001\" complete",
		      "nodeset=\",x00000001\" complete");
	refused("a malformed cpuset or nodeset at byte 515");
	write_changed("cpuset=\"0x0000000f\"", "cpuset=\",0x0000000f\"");
	refused("a malformed cpuset or nodeset at byte 150");
	write_changed("cpuset=\"0x0000000f\"", "cpuset=\"0xf...f,0x0000000f\"");
	{
		struct sn_error err;
		struct sn_topo *t = sn_topo_open(path, 0, &err);

		/* lstopo's infinite form passes the pre-check */
		if (!t)
			assert_null(strstr(err.msg, "malformed"));
		sn_topo_close(t);
	}
}

/* hwloc dereferenced NULL on a NUMANode without sets (fuzz_hwloc). */
static void test_object_without_sets(void **state)
{
	(void)state;
	write_changed(
		NUMA0
		"cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"",
		NUMA0);
	refused("an object without its cpuset or nodeset at byte 577");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa_without_os_index),
		cmocka_unit_test(test_pu_os_index_too_large),
		cmocka_unit_test(test_distances_larger_than_file),
		cmocka_unit_test(test_objects_not_one_tree),
		cmocka_unit_test(test_bitmap_malformed),
		cmocka_unit_test(test_object_without_sets),
	};

	return cmocka_run_group_tests_name("topo_xml", tests, setup, teardown);
}
