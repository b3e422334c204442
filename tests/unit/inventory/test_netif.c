/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A network interface's addresses (lib/inventory/netif.c): the stand-in
 * file of a fixture tree, line by line, and getifaddrs() on the live
 * node's loopback.
 */
#include "unit.h"

#include "fixtures/ports/ports_test.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_netif.h"

static void addrs(const struct tree *t, const char *content,
		  struct sn_netif_addrs *a)
{
	tree_file(t, "supernode-live/ifaddrs/bond0", content);
	assert_int_equal(sn_netif_addrs_read(t->root, "bond0", a), 0);
}

static void test_file(void **state)
{
	struct sn_netif_addrs a;
	char path[PATH_MAX];
	struct tree t;

	(void)state;
	tree_new(&t);
	addrs(&t, "fe80::1e34:daff:fe5e:d8f0/64\n10.0.0.7/24\n10.0.0.8\n", &a);
	assert_int_equal(a.status, SN_ATTR_OK);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.n_link_local, 1);
	assert_string_equal(a.first, "10.0.0.7");
	tree_path(&t, "supernode-live/ifaddrs/bond0", path);
	assert_string_equal(a.path, path);
	/* IPv6 written long is given back in its short form */
	addrs(&t, "2001:0db8:0000:0000:0000:0000:0000:0007/64\n", &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.first, "2001:db8::7");
	addrs(&t, "", &a);
	assert_int_equal(a.status, SN_ATTR_OK);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.n_link_local, 0);
	addrs(&t, "\n  \nfe80::1/64\n", &a);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.n_link_local, 1);
	tree_free(&t);
}

static void test_file_bad(void **state)
{
	static const char *const bad[] = {
		"10.0.0.300/24", "10.0.0.7/", "10.0.0.7/2x",  "10.0.0.7/1234",
		"bond0",	 "::g",	      "10.0.0.7 /24",
	};
	static const char *const text[] = {
		"10.0.0.300/24", "10.0.0.7/", "10.0.0.7/2x", "10.0.0.7/1234",
		"bond0",	 "::g",	      "10.0.0.7",
	};
	struct sn_netif_addrs a;
	char line[64];
	struct tree t;

	(void)state;
	tree_new(&t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s\n", bad[i]);
		addrs(&t, line, &a);
		if (i == 6) {
			/* text after white space is not read: "10.0.0.7" */
			assert_int_equal(a.status, SN_ATTR_OK);
			assert_string_equal(a.first, text[i]);
			continue;
		}
		assert_int_equal(a.status, SN_ATTR_BAD);
		assert_string_equal(a.text, text[i]);
	}
	tree_remove(&t, "supernode-live/ifaddrs/bond0");
	assert_int_equal(sn_netif_addrs_read(t.root, "bond0", &a), 0);
	assert_int_equal(a.status, SN_ATTR_MISSING);
	tree_file(&t, "supernode-live/ifaddrs/bond0", "10.0.0.7\n");
	tree_odd(&t, "supernode-live/ifaddrs/bond0", "fifo");
	assert_int_equal(sn_netif_addrs_read(t.root, "bond0", &a), 0);
	assert_int_equal(a.status, SN_ATTR_NOT_REGULAR);
	assert_string_equal(a.text, "fifo");
	assert_int_equal(sn_netif_addrs_read(t.root, "../x", &a), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sn_netif_addrs_read(t.root, "", &a), -1);
	tree_free(&t);
}

/* The live node: getifaddrs() sees the loopback's 127.0.0.1 (and ::1). */
static void test_live_loopback(void **state)
{
	struct sn_netif_addrs a;

	(void)state;
	assert_int_equal(sn_netif_addrs_read("/sys", "lo", &a), 0);
	assert_int_equal(a.status, SN_ATTR_OK);
	assert_true(a.n >= 1);
	assert_string_equal(a.first, "127.0.0.1");
	assert_string_equal(a.path, "");
	assert_int_equal(sn_netif_addrs_read("/sys", "sn-no-such0", &a), 0);
	assert_int_equal(a.status, SN_ATTR_OK);
	assert_int_equal(a.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_bad),
		cmocka_unit_test(test_live_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
