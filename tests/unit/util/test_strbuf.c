/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one growable string (lib/util/strbuf.c): appends of any size, the
 * cap on growth (sticky E2BIG, text dropped), take and free.
 */
#include <errno.h>

#include "unit.h"

#include "util/sn_strbuf.h"

static void test_append_grows(void **state)
{
	struct sn_strbuf sb = SN_STRBUF_INIT;
	size_t len = 0;
	char *s;

	(void)state;
	assert_string_equal(sn_strbuf_str(&sb), "");
	assert_int_equal(sn_strbuf_append(&sb, "node "), 0);
	assert_int_equal(sn_strbuf_appendf(&sb, "%s[%d-%d]", "n", 0, 15), 0);
	assert_int_equal(sn_strbuf_appendn(&sb, "ABCDEF", 3), 0);
	assert_string_equal(sn_strbuf_str(&sb), "node n[0-15]ABC");
	for (int i = 0; i < 10000; i++) /* 40000 bytes: many doublings */
		assert_int_equal(sn_strbuf_appendf(&sb, "%04d", i), 0);
	assert_int_equal(sb.len, 15 + 40000);
	assert_memory_equal(sb.buf + 15 + 4 * 9999, "9999", 5);
	s = sn_strbuf_take(&sb, &len);
	assert_non_null(s);
	assert_int_equal(len, 40015);
	assert_int_equal(strlen(s), 40015);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	free(s);
}

static void test_take_empty(void **state)
{
	struct sn_strbuf sb = SN_STRBUF_INIT;
	size_t len = 99;
	char *s;

	(void)state;
	s = sn_strbuf_take(&sb, &len);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
}

/* The cap: exactly max bytes fit; one more fails, sticky, text dropped. */
static void test_cap(void **state)
{
	struct sn_strbuf sb;

	(void)state;
	sn_strbuf_init(&sb, 10);
	assert_int_equal(sn_strbuf_append(&sb, "0123456789"), 0);
	assert_string_equal(sn_strbuf_str(&sb), "0123456789");
	assert_int_equal(sn_strbuf_append(&sb, "x"), -1);
	assert_int_equal(errno, E2BIG);
	assert_true(sn_strbuf_failed(&sb));
	assert_null(sb.buf);
	assert_string_equal(sn_strbuf_str(&sb), "");
	errno = 0;
	assert_int_equal(sn_strbuf_append(&sb, ""), -1); /* sticky */
	assert_int_equal(errno, E2BIG);
	errno = 0;
	assert_null(sn_strbuf_take(&sb, NULL));
	assert_int_equal(errno, E2BIG);
	/* take reset it: usable again, same cap */
	assert_false(sn_strbuf_failed(&sb));
	assert_int_equal(sn_strbuf_appendf(&sb, "%s", "01234567890"), -1);
	assert_int_equal(errno, E2BIG);
	sn_strbuf_free(&sb);
	assert_false(sn_strbuf_failed(&sb));
	assert_int_equal(sb.max, 10);
	assert_int_equal(sn_strbuf_appendf(&sb, "%d", 42), 0);
	assert_string_equal(sn_strbuf_str(&sb), "42");
	/* the caller's own allocation failed: the text is dropped */
	assert_int_equal(sn_strbuf_fail(&sb, ENOMEM), -1);
	assert_null(sb.buf);
	assert_int_equal(sn_strbuf_append(&sb, "x"), -1);
	assert_int_equal(errno, ENOMEM);
	assert_null(sn_strbuf_take(&sb, NULL));
	assert_int_equal(errno, ENOMEM);
	sn_strbuf_free(&sb);
	sn_strbuf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_grows),
		cmocka_unit_test(test_take_empty),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
