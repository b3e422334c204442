/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_config_cache (lib/config/config_cache.c): loaded once, loaded again
 * only when the file changed (content, size, or an editor's rename); a
 * config that does not load keeps its error until the file changes.
 */
#include <stdio.h>
#include <unistd.h>

#include "unit.h"

#include "config/sn_config_cache.h"

#define GOOD                                  \
	"supernodes:\n"                       \
	"  - {name: sn01, nodes: 'a[1-2]'}\n" \
	"  - {name: sn02, nodes: 'b[1-2]'}\n"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_reload_only_on_change(void **state)
{
	char dir[] = "/tmp/sn-cache-XXXXXX", path[64], tmp[64];
	struct sn_config_cache c = { .path = path };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/supernode.yaml", dir);
	snprintf(tmp, sizeof(tmp), "%s/new.yaml", dir);

	/* absent: tried, error kept, not retried while still absent */
	assert_int_equal(sn_config_cache_refresh(&c), 1);
	assert_null(c.cfg);
	assert_contains(c.err.msg, "supernode.yaml");
	assert_int_equal(sn_config_cache_refresh(&c), 0);

	write_file(path, GOOD);
	assert_int_equal(sn_config_cache_refresh(&c), 1);
	assert_non_null(c.cfg);
	assert_int_equal(c.cfg->n_supernodes, 2);
	assert_int_equal(sn_config_cache_refresh(&c), 0); /* unchanged */

	/* a longer file: another size, so reloaded, and now refused */
	write_file(path, GOOD "bogus: 1\n");
	assert_int_equal(sn_config_cache_refresh(&c), 1);
	assert_null(c.cfg);
	assert_contains(c.err.msg, "bogus: unknown key");
	assert_int_equal(sn_config_cache_refresh(&c), 0);

	/* an editor's rename over it: another inode */
	write_file(tmp, GOOD);
	assert_int_equal(rename(tmp, path), 0);
	assert_int_equal(sn_config_cache_refresh(&c), 1);
	assert_non_null(c.cfg);
	assert_int_equal(c.cfg->supernode_size, 2);

	sn_config_cache_free(&c);
	assert_null(c.cfg);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload_only_on_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
