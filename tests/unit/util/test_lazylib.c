/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries loaded on first use (lib/util/lazylib.c, sn_lazylib.h): a
 * missing library or symbol is ELIBACC and the wrapper's failure value, a
 * present one forwards, the build's absolute path goes before the SONAME;
 * and libyaml (config/yaml_lazy.c) is mapped only
 * when a config is parsed, not when the program starts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "config/sn_config.h"
#include "util/sn_lazylib.h"

static struct sn_lazylib missing = {
	.soname = "libsn-no-such-library.so.0",
	.flags = RTLD_NOW | RTLD_LOCAL,
};
static struct sn_lazylib libc_lib = {
	.soname = "libc.so.6",
	.flags = RTLD_NOW | RTLD_LOCAL,
};

SN_LAZY(missing, int, sn_test_missing_fn, (int x), (x), -7)
SN_LAZY_VOID(missing, sn_test_missing_void, (int *x), (x))
/* A libc function under its own name would clash: forward strlen by hand. */
static size_t lazy_strlen(const char *s)
{
	size_t (*f)(const char *) =
		(size_t(*)(const char *))sn_lazylib_sym(&libc_lib, "strlen");

	return f ? f(s) : (size_t)-1;
}

static void test_missing_library(void **state)
{
	int x = 5;

	(void)state;
	errno = 0;
	assert_null(sn_lazylib_sym(&missing, "anything"));
	assert_int_equal(errno, ELIBACC);
	assert_true(missing.tried);
	assert_null(missing.handle);
	errno = 0;
	assert_int_equal(sn_test_missing_fn(3), -7);
	assert_int_equal(errno, ELIBACC);
	sn_test_missing_void(&x);
	assert_int_equal(x, 5);
}

static void test_present_library(void **state)
{
	struct sn_lazylib versioned = {
		.soname = "libc.so.6",
		.version = "GLIBC_2.2.5",
		.flags = RTLD_NOW | RTLD_LOCAL,
	};
	struct sn_lazylib bad_version = {
		.soname = "libc.so.6",
		.version = "SN_NO_SUCH_VERSION",
		.flags = RTLD_NOW | RTLD_LOCAL,
	};

	(void)state;
	assert_int_equal(lazy_strlen("supernode"), 9);
	assert_non_null(libc_lib.handle);
	errno = 0;
	assert_null(sn_lazylib_sym(&libc_lib, "sn_no_such_symbol"));
	assert_int_equal(errno, ELIBACC);
	assert_non_null(sn_lazylib_sym(&versioned, "strlen"));
	errno = 0;
	assert_null(sn_lazylib_sym(&bad_version, "strlen"));
	assert_int_equal(errno, ELIBACC);
}

/*
 * The absolute path is tried first, then the SONAME; a path that is not
 * absolute is never tried.
 */
static void test_path_first(void **state)
{
	Dl_info info;
	struct sn_lazylib by_path = {
		.soname = "libsn-no-such-library.so.0",
		.flags = RTLD_NOW | RTLD_LOCAL,
	};
	struct sn_lazylib path_missing = {
		.path = "/nonexistent/libsn-no-such-library.so.0",
		.soname = "libc.so.6",
		.flags = RTLD_NOW | RTLD_LOCAL,
	};
	struct sn_lazylib relative = {
		.path = "libc.so.6",
		.soname = "libsn-no-such-library.so.0",
		.flags = RTLD_NOW | RTLD_LOCAL,
	};

	(void)state;
	assert_true(dladdr((void *)strlen, &info) && info.dli_fname);
	assert_int_equal(info.dli_fname[0], '/');
	by_path.path = info.dli_fname; /* libc's own file */
	assert_non_null(sn_lazylib_sym(&by_path, "strlen"));
	assert_non_null(sn_lazylib_sym(&path_missing, "strlen"));
	errno = 0;
	assert_null(sn_lazylib_sym(&relative, "strlen"));
	assert_int_equal(errno, ELIBACC);
}

/* Whether /proc/self/maps names libyaml. */
static bool yaml_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "libyaml") != NULL;
	fclose(f);
	return found;
}

static void test_yaml_on_first_use(void **state)
{
	static const char text[] =
		"supernodes:\n  - {name: sn01, nodes: 'a[1-2]'}\n";
	struct sn_config *cfg;
	struct sn_error err;

	(void)state;
	assert_false(yaml_mapped());
	cfg = sn_config_load_buffer("lazy.yaml", text, sizeof(text) - 1, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_true(yaml_mapped());
	assert_int_equal(cfg->n_supernodes, 1);
	sn_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_present_library),
		cmocka_unit_test(test_path_first),
		cmocka_unit_test(test_yaml_on_first_use),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
