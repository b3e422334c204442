/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util/plugin_version.c: plugin_version read from the built plugins' ELF
 * files, a copy restamped 22.05.9 read as such, and the loader's rule (the
 * exact release; SPANK: major.minor).  Issue 17, item 5.
 */
#include <fcntl.h>
#include <unistd.h>

#include "unit.h"

#include "util/sn_file.h"
#include "util/sn_plugin_version.h"
#include "util/sn_slurm.h"

static void test_built_plugins(void **state)
{
	struct sn_error err;
	uint32_t v = 0;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_plugin_version_read(SN_JOB_SUBMIT_SO, &v, &err), 0);
	assert_int_equal(v, SLURM_VERSION_NUMBER);
	v = 0;
	assert_int_equal(sn_plugin_version_read(SN_SPANK_SO, &v, &err), 0);
	assert_int_equal(v, SLURM_VERSION_NUMBER);
}

/* A copy of the job_submit plugin with its 4 bytes changed to @to. */
static void restamp(const char *dst, uint32_t from, uint32_t to)
{
	size_t len = 0, hits = 0;
	char *buf = sn_file_load(SN_JOB_SUBMIT_SO, 256u << 20, &len, NULL);
	int fd;

	assert_non_null(buf);
	/* the value is in .rodata once; the code holds no such constant */
	for (size_t i = 0; i + 4 <= len; i++) {
		uint32_t x;

		memcpy(&x, buf + i, 4);
		if (x == from && i % 4 == 0) {
			memcpy(buf + i, &to, 4);
			hits++;
		}
	}
	assert_true(hits >= 1);
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(sn_write_all(fd, buf, len), 0);
	close(fd);
	free(buf);
}

static void test_restamped(void **state)
{
	char dir[] = "/tmp/sn-plugver.XXXXXX", path[64];
	struct sn_error err;
	uint32_t v = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/job_submit_supernode.so", dir);
	restamp(path, SLURM_VERSION_NUMBER, 0x160509);
	assert_int_equal(sn_plugin_version_read(path, &v, &err), 0);
	assert_int_equal(v, 0x160509);
	assert_false(sn_plugin_version_loads(v, 0x160508, false));
	assert_true(sn_plugin_version_loads(v, 0x160508, true));
	unlink(path);
	/* not ELF, and ELF without the symbol */
	snprintf(path, sizeof(path), "%s/text.so", dir);
	{
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		assert_int_equal(write(fd, "hello, world\n", 13), 13);
		close(fd);
	}
	assert_int_equal(sn_plugin_version_read(path, &v, &err), -1);
	assert_contains(err.msg, "text.so: not an ELF file");
	unlink(path);
	rmdir(dir);
	assert_int_equal(sn_plugin_version_read("/bin/true", &v, &err), -1);
	assert_string_equal(err.msg, "/bin/true: no plugin_version symbol");
}

static void test_rule(void **state)
{
	uint32_t v;

	(void)state;
	assert_true(sn_plugin_version_loads(0x160508, 0x160508, false));
	assert_false(sn_plugin_version_loads(0x160509, 0x160508, false));
	assert_false(sn_plugin_version_loads(0x170208, 0x160508, true));
	assert_int_equal(sn_plugin_version_parse("22.05.8", &v), 0);
	assert_int_equal(v, 0x160508);
	assert_int_equal(sn_plugin_version_parse("23.11.0-0rc1", &v), 0);
	assert_int_equal(v, 0x170b00);
	assert_int_equal(sn_plugin_version_parse("22.05", &v), -1);
	assert_int_equal(sn_plugin_version_parse("22.256.1", &v), -1);
	assert_int_equal(sn_plugin_version_parse("", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_plugins),
		cmocka_unit_test(test_restamped),
		cmocka_unit_test(test_rule),
	};

	return cmocka_run_group_tests_name("plugin_version", tests, NULL, NULL);
}
