/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/env/attempt.c: the restart count the prolog leaves for the steps
 * (state_dir/attempt/<jobid>), read back only from a trusted file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "env/sn_attempt.h"

static char root[64];

static int dir_setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sn-attempt-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void file_put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/state/attempt/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_round_trip(void **state)
{
	char state_dir[PATH_MAX / 2], path[PATH_MAX];
	struct sn_error err;
	uint32_t rc = 99;
	struct stat st;

	(void)state;
	snprintf(state_dir, sizeof(state_dir), "%s/state", root);
	/* nothing yet: no folder, then no file */
	assert_int_equal(sn_attempt_load(state_dir, 42, &rc, &err), 1);
	assert_int_equal(sn_attempt_remove(state_dir, 42, &err), 0);
	assert_int_equal(sn_attempt_save(state_dir, 42, 0, &err), 0);
	assert_int_equal(sn_attempt_load(state_dir, 42, &rc, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(sn_attempt_load(state_dir, 43, &rc, &err), 1);
	/* a requeue: the prolog of the next start writes over it */
	assert_int_equal(sn_attempt_save(state_dir, 42, 3, &err), 0);
	assert_int_equal(sn_attempt_load(state_dir, 42, &rc, &err), 0);
	assert_int_equal(rc, 3);
	snprintf(path, sizeof(path), "%s/attempt/42", state_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(sn_attempt_remove(state_dir, 42, &err), 0);
	assert_int_equal(sn_attempt_load(state_dir, 42, &rc, &err), 1);
}

/* Not "<number>\n" (0..65535), or a link: refused, the count untouched. */
static void test_refused(void **state)
{
	static const char *bad[] = { "",	"1",	  "x\n", "-1\n",
				     "65536\n", "1\n2\n", " 1\n" };
	char state_dir[PATH_MAX / 2], path[PATH_MAX];
	struct sn_error err;
	uint32_t rc;

	(void)state;
	snprintf(state_dir, sizeof(state_dir), "%s/state", root);
	assert_int_equal(sn_attempt_save(state_dir, 1, 0, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		file_put("5", bad[i]);
		rc = 77;
		assert_int_equal(sn_attempt_load(state_dir, 5, &rc, &err), -1);
		assert_int_equal(rc, 77);
	}
	assert_string_equal(err.msg + strlen(err.msg) - strlen("attempt/5"),
			    "attempt/5");
	file_put("5", "65535\n");
	assert_int_equal(sn_attempt_load(state_dir, 5, &rc, &err), 0);
	assert_int_equal(rc, 65535);
	snprintf(path, sizeof(path), "%s/attempt/6", state_dir);
	assert_int_equal(symlink("5", path), 0);
	assert_int_equal(sn_attempt_load(state_dir, 6, &rc, &err), -1);
	assert_int_equal(errno, ELOOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(test_refused, dir_setup,
						dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
