/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the vendor backend tests (test_vendor_<vendor>.c): a config
 * naming the vendor and its fake library, and one read of it, in this
 * process (sn_vendor_lib_read_here) or in the child with the watchdog
 * (sn_vendor_lib_read), timed.
 */
#ifndef SN_TEST_VENDOR_FAKE_H
#define SN_TEST_VENDOR_FAKE_H

#include "unit.h"

#include "config/sn_checkctx.h"
#include "config/sn_config.h"
#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"

#define VF_VENDORS SN_FIXTURES "/vendors"

/* A node of vendor with paths.<key>: lib ("" = the default places). */
static inline struct sn_config *vf_config(const char *vendor, const char *key,
					  const char *lib)
{
	char yaml[1024];
	struct sn_config *cfg;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml),
		 "supernodes:\n  - name: sn01\n    nodes: a[1-2]\n"
		 "node:\n  accelerators:\n    vendor: %s\n    count: 8\n"
		 "%s%s%s%s%s",
		 vendor, lib[0] ? "paths:\n  " : "", lib[0] ? key : "",
		 lib[0] ? ": " : "", lib, lib[0] ? "\n" : "");
	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	return cfg;
}

/*
 * vf_read - read vendor's library lib into *out (malloc()ed, the caller
 * frees), in the child when child; returns the milliseconds it took.
 */
static inline int64_t vf_read(const char *vendor, const char *key,
			      const char *lib, bool child,
			      struct sn_vendor_node **out)
{
	struct sn_config *cfg = vf_config(vendor, key, lib);
	struct sn_check_ctx ctx;
	struct sn_error err;
	int64_t t0;

	*out = malloc(sizeof(**out));
	assert_non_null(*out);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "a1", &err), 0);
	t0 = sn_now_ms();
	if (child)
		assert_int_equal(sn_vendor_lib_read(&ctx, t0 + 5000, *out), 0);
	else
		assert_int_equal(sn_vendor_lib_read_here(&ctx, *out), 0);
	t0 = sn_now_ms() - t0;
	sn_config_free(cfg);
	return t0;
}

/* Unset every SN_FAKE_<LIB>_* variable of prefix ("SN_FAKE_XPUML"). */
static inline void vf_unset(const char *prefix)
{
	static const char *const knobs[] = { "FIXTURE", "HANG", "LOST",
					     "INIT_FAIL", "INIT_MS" };
	char name[64];

	for (unsigned i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, knobs[i]);
		unsetenv(name);
	}
}

#endif
