/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Ascend backend (lib/inventory/vendor_ascend.c) against the fake
 * libdcmi.so of tests/fake_dcmi, through sn_vendor_lib_read() (child and
 * watchdog) and sn_vendor_lib_read_here(): a healthy Atlas 800T A2, each
 * fault kind with DCMI's own value, the library or a symbol missing, the
 * old card-list call, init failure, a lost device and a hung call.
 */
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"

#define A2 SN_FIXTURES "/vendors/ascend/atlas-800t-a2.json"

#ifdef SN_FAKE_DCMI
#define FAKE SN_FAKE_DCMI
#define FAKE_OLD SN_FAKE_DCMI_OLD
#define FAKE_NOHEALTH SN_FAKE_DCMI_NOHEALTH
#else
#define FAKE NULL
#define FAKE_OLD NULL
#define FAKE_NOHEALTH NULL
#endif

static const char *const knobs[] = {
	"SN_FAKE_DCMI_FIXTURE",	  "SN_FAKE_DCMI_HANG",	  "SN_FAKE_DCMI_LOST",
	"SN_FAKE_DCMI_INIT_FAIL", "SN_FAKE_DCMI_INIT_MS",
};

static struct sn_config cfg;
static struct sn_check_ctx ctx;
static struct sn_vendor_node *node;
static char tmp_fixture[64];

static int setup(void **state)
{
	(void)state;
	if (!FAKE)
		skip();
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	memset(&cfg, 0, sizeof(cfg));
	memset(&ctx, 0, sizeof(ctx));
	cfg.node.accel.vendor = SN_ACCEL_ASCEND;
	ctx.cfg = &cfg;
	snprintf(ctx.accel_lib, sizeof(ctx.accel_lib), "%s", FAKE);
	node = malloc(sizeof(*node));
	assert_non_null(node);
	setenv("SN_FAKE_DCMI_FIXTURE", A2, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(node);
	node = NULL;
	if (tmp_fixture[0])
		unlink(tmp_fixture);
	tmp_fixture[0] = '\0';
	return 0;
}

/* A two-card fixture: card 0's chip with extra (JSON members), card 1
 * healthy. */
static void fixture_with(const char *extra)
{
	FILE *f;
	int fd;

	strcpy(tmp_fixture, "/tmp/sn-ascend-XXXXXX");
	fd = mkstemp(tmp_fixture);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f,
		"{\"cards\": [{\"card_id\": 0, \"chips\": [{\"bdf\": "
		"\"0000:c1:00.0\"%s%s}]},"
		" {\"card_id\": 1, \"chips\": [{\"bdf\": \"0000:c2:00.0\"}]}]}",
		extra[0] ? ", " : "", extra);
	fclose(f);
	setenv("SN_FAKE_DCMI_FIXTURE", tmp_fixture, 1);
}

static void read_here(void)
{
	assert_int_equal(sn_vendor_lib_read_here(&ctx, node), 0);
}

static void read_child(void)
{
	assert_int_equal(sn_vendor_lib_read(&ctx, 0, node), 0);
}

static uint64_t ctr(const struct sn_vendor_link *l, const char *name)
{
	for (unsigned i = 0; i < l->n_ctrs; i++)
		if (!strcmp(l->ctrs[i].name, name))
			return l->ctrs[i].value;
	fail_msg("no counter %s", name);
	return 0;
}

static void test_healthy(void **state)
{
	static const char *const bdf[] = {
		"0000:c1:00.0", "0000:c2:00.0", "0000:81:00.0", "0000:82:00.0",
		"0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
	};

	(void)state;
	read_child();
	assert_string_equal(node->error, "");
	assert_string_equal(node->hung_call, "");
	assert_string_equal(node->version, "24.1.0.3");
	assert_true(node->counted);
	assert_int_equal(node->count, 8);
	assert_int_equal(node->n_devs, 8);
	for (unsigned i = 0; i < 8; i++) {
		const struct sn_vendor_dev *d = &node->devs[i];

		assert_int_equal(d->index, i);
		assert_string_equal(d->bdf, bdf[i]);
		assert_int_equal(d->health, SN_VHEALTH_OK);
		assert_string_equal(d->health_text, "health 0 (normal)");
		assert_true(d->ecc_read);
		assert_int_equal(d->ecc_uncorrected, 0);
		assert_int_equal(d->ecc_corrected, 0);
		assert_int_equal(d->net, SN_VHEALTH_OK);
		assert_string_equal(d->net_text, "network health 0 (OK)");
		assert_int_equal(d->n_links, 8);
		assert_int_equal(d->links[0].state, SN_VLINK_UNUSED);
		for (unsigned p = 1; p < 8; p++) {
			assert_int_equal(d->links[p].state, SN_VLINK_UP);
			assert_string_equal(d->links[p].state_text,
					    "counters read");
			assert_int_equal(ctr(&d->links[p], "crc"), 0);
			assert_int_equal(ctr(&d->links[p], "retry"), 0);
			assert_int_equal(ctr(&d->links[p], "tx"),
					 1000 + 10 * i + p);
			assert_int_equal(ctr(&d->links[p], "rx"),
					 2000 + 10 * i + p);
		}
		assert_string_equal(d->error, "");
	}
	assert_string_equal(node->devs[3].label, "card 3 chip 0");
}

/* Health values 1, 2, 3 and absent, alone. */
static void test_health_values(void **state)
{
	static const struct {
		const char *extra;
		uint8_t grade;
		const char *text;
	} cases[] = {
		{ "\"health\": 1", SN_VHEALTH_WARN, "health 1 (minor alarm)" },
		{ "\"health\": 2", SN_VHEALTH_CRIT, "health 2 (major alarm)" },
		{ "\"health\": 3", SN_VHEALTH_CRIT,
		  "health 3 (critical alarm)" },
		{ "\"health\": 4294967295", SN_VHEALTH_CRIT,
		  "health 0xffffffff (absent)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture_with(cases[i].extra);
		read_here();
		assert_int_equal(node->count, 2);
		assert_int_equal(node->devs[0].health, cases[i].grade);
		assert_string_equal(node->devs[0].health_text, cases[i].text);
		assert_int_equal(node->devs[1].health, SN_VHEALTH_OK);
		unlink(tmp_fixture);
	}
}

/* Error codes: their faultCode.json class sets the grade. */
static void test_error_codes(void **state)
{
	static const struct {
		const char *extra;
		uint8_t grade;
		const char *text;
	} cases[] = {
		{ "\"health\": 1, \"errors\": [\"80E18402\"]", SN_VHEALTH_CRIT,
		  "health 1 (minor alarm), error 0x80e18402 (SeparateNPU)" },
		{ "\"health\": 3, \"errors\": [\"80E18402\"]", SN_VHEALTH_CRIT,
		  "health 3 (critical alarm), error 0x80e18402 (SeparateNPU)" },
		{ "\"errors\": [\"40F84E00\"]", SN_VHEALTH_CRIT,
		  "health 0 (normal), error 0x40f84e00 (RestartNPU)" },
		{ "\"errors\": [\"8C0E4E00\"]", SN_VHEALTH_CRIT,
		  "health 0 (normal), error 0x8c0e4e00 (FreeRestartNPU)" },
		{ "\"errors\": [\"8118043C\"]", SN_VHEALTH_CRIT,
		  "health 0 (normal), error 0x8118043c (PreSeparateNPU)" },
		{ "\"errors\": [\"80C98008\"]", SN_VHEALTH_WARN,
		  "health 0 (normal), error 0x80c98008 (RestartRequest)" },
		{ "\"errors\": [\"80E01801\"]", SN_VHEALTH_WARN,
		  "health 0 (normal), error 0x80e01801 (RestartBusiness)" },
		{ "\"errors\": [\"81A3880C\"]", SN_VHEALTH_WARN,
		  "health 0 (normal), error 0x81a3880c (SubHealth)" },
		{ "\"errors\": [\"80E21007\"]", SN_VHEALTH_OK,
		  "health 0 (normal), error 0x80e21007 (NotHandle)" },
		{ "\"health\": 1, \"errors\": [\"12345678\"]", SN_VHEALTH_WARN,
		  "health 1 (minor alarm), error 0x12345678 (not in "
		  "faultCode.json)" },
		/* Worst first, whatever the library's order. */
		{ "\"health\": 1, \"errors\": [\"80E21007\", \"81A3880C\", "
		  "\"80E3A201\"]",
		  SN_VHEALTH_CRIT,
		  "health 1 (minor alarm), error 0x80e3a201 (SeparateNPU), "
		  "error 0x81a3880c (SubHealth), error ..." },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture_with(cases[i].extra);
		read_here();
		assert_int_equal(node->devs[0].health, cases[i].grade);
		assert_string_equal(node->devs[0].health_text, cases[i].text);
		unlink(tmp_fixture);
	}
}

static void test_ecc(void **state)
{
	(void)state;
	fixture_with("\"ecc\": {\"enable\": 1, \"single\": 7, \"double\": 2, "
		     "\"total_single\": 40, \"total_double\": 3}");
	read_here();
	assert_true(node->devs[0].ecc_read);
	assert_int_equal(node->devs[0].ecc_uncorrected, 2);
	assert_int_equal(node->devs[0].ecc_corrected, 7);
	assert_int_equal(node->devs[0].n_ctrs, 2);
	assert_string_equal(node->devs[0].ctrs[0].name, "total_double");
	assert_int_equal(node->devs[0].ctrs[0].value, 3);
	assert_string_equal(node->devs[0].ctrs[1].name, "total_single");
	assert_int_equal(node->devs[0].ctrs[1].value, 40);
	unlink(tmp_fixture);
	/* ECC off, and a chip without HBM: not read, no error. */
	fixture_with("\"ecc\": {\"enable\": 0, \"double\": 5}");
	read_here();
	assert_false(node->devs[0].ecc_read);
	assert_string_equal(node->devs[0].error, "");
	unlink(tmp_fixture);
	fixture_with("\"rc\": {\"dcmi_get_device_ecc_info\": -8255}");
	read_here();
	assert_false(node->devs[0].ecc_read);
	assert_string_equal(node->devs[0].error, "");
}

static void test_network_health(void **state)
{
	static const char *const names[] = {
		"OK",	   "SOCK_FAIL",	    "RECV_TIMEOUT",
		"UNREACH", "TIME_EXCEEDED", "FAULT",
		"INIT",	   "THREAD_ERR",    "IP_SET"
	};
	char extra[32], text[48];

	(void)state;
	for (int r = 0; r <= 8; r++) {
		snprintf(extra, sizeof(extra), "\"net\": %d", r);
		snprintf(text, sizeof(text), "network health %d (%s)", r,
			 names[r]);
		fixture_with(extra);
		read_here();
		assert_int_equal(node->devs[0].net, r == 0 || r == 6 ?
							    SN_VHEALTH_OK :
							    SN_VHEALTH_CRIT);
		assert_string_equal(node->devs[0].net_text, text);
		/* Network health is its own verdict, not the health. */
		assert_int_equal(node->devs[0].health, SN_VHEALTH_OK);
		unlink(tmp_fixture);
	}
	fixture_with("\"rc\": {\"dcmi_get_device_network_health\": -8255}");
	read_here();
	assert_int_equal(node->devs[0].net, SN_VHEALTH_UNREAD);
	assert_string_equal(node->devs[0].net_text,
			    "network health not supported (-8255)");
	assert_string_equal(node->devs[0].error, "");
}

static void test_hccs(void **state)
{
	(void)state;
	fixture_with("\"hccs\": {\"crc\": [0, 0, 0, 17], \"retry\": [0, 0, 0, "
		     "0, 5000000000], \"tx\": [0, 9]}");
	read_here();
	assert_int_equal(node->devs[0].n_links, 8);
	assert_int_equal(ctr(&node->devs[0].links[3], "crc"), 17);
	assert_int_equal(ctr(&node->devs[0].links[3], "retry"), 0);
	assert_int_equal(ctr(&node->devs[0].links[4], "retry"), 5000000000ULL);
	assert_int_equal(ctr(&node->devs[0].links[1], "tx"), 9);
	unlink(tmp_fixture);
	/* An older driver: only the 32-bit sub command 3. */
	fixture_with("\"hccs\": {\"u64\": false, \"crc\": [0, 4]}");
	read_here();
	assert_int_equal(node->devs[0].links[1].state, SN_VLINK_UP);
	assert_int_equal(ctr(&node->devs[0].links[1], "crc"), 4);
	assert_string_equal(node->devs[0].error, "");
}

/* A dropped card: DCMI answers -8012 and the device is asked no more. */
static void test_lost(void **state)
{
	(void)state;
	setenv("SN_FAKE_DCMI_LOST", "2", 1);
	read_child();
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	assert_int_equal(node->devs[2].health, SN_VHEALTH_UNREAD);
	assert_string_equal(node->devs[2].error,
			    "dcmi_get_device_health: error -8012 (device not "
			    "ready)");
	assert_string_equal(node->devs[2].bdf, "");
	assert_int_equal(node->devs[2].n_links, 0);
	assert_int_equal(node->devs[3].health, SN_VHEALTH_OK);
	assert_string_equal(node->devs[3].error, "");
}

/* After a card drops, the network health call blocks: the watchdog cuts
 * it and names it, within the 1 s per-call limit. */
static void test_hung_network_health(void **state)
{
	int64_t t0;

	(void)state;
	setenv("SN_FAKE_DCMI_HANG", "dcmi_get_device_network_health:1", 1);
	t0 = sn_now_ms();
	read_child();
	assert_true(sn_now_ms() - t0 < 1300);
	assert_string_equal(node->hung_call,
			    "dcmi_get_device_network_health(card 1, device 0)");
	assert_int_equal(node->hung_ms, 1000);
	assert_int_equal(node->devs[0].net, SN_VHEALTH_OK);
	assert_int_equal(node->devs[1].health, SN_VHEALTH_OK);
	assert_int_equal(node->devs[1].net, SN_VHEALTH_UNREAD);
}

static void test_init(void **state)
{
	(void)state;
	setenv("SN_FAKE_DCMI_INIT_FAIL", "-8005", 1);
	read_child();
	assert_string_equal(node->error, "dcmi_init: error -8005 (internal "
					 "error)");
	assert_int_equal(node->n_devs, 0);
	assert_false(node->counted);
	unsetenv("SN_FAKE_DCMI_INIT_FAIL");
	/* A slow init runs to the end (SN_VCALL_LONG): 1.5 s is fine. */
	setenv("SN_FAKE_DCMI_INIT_MS", "1500", 1);
	read_child();
	assert_string_equal(node->hung_call, "");
	assert_int_equal(node->count, 8);
}

static void test_library_missing(void **state)
{
	(void)state;
	snprintf(ctx.accel_lib, sizeof(ctx.accel_lib),
		 "/nonexistent/libdcmi.so");
	read_here();
	assert_int_equal(node->n_devs, 0);
	assert_string_equal(
		node->error,
		"Huawei Ascend's DCMI library not found where paths.dcmi points: install the Ascend NPU driver package, or correct paths.dcmi: /nonexistent/libdcmi.so");
}

static void test_symbol_missing(void **state)
{
	(void)state;
	snprintf(ctx.accel_lib, sizeof(ctx.accel_lib), "%s", FAKE_NOHEALTH);
	read_here();
	assert_false(node->counted);
	assert_contains(
		node->error,
		"no symbol dcmi_get_device_health: library too old or not DCMI: ");
}

static void test_old_card_list(void **state)
{
	(void)state;
	snprintf(ctx.accel_lib, sizeof(ctx.accel_lib), "%s", FAKE_OLD);
	read_child();
	assert_string_equal(node->error, "");
	assert_int_equal(node->count, 8);
	assert_string_equal(node->devs[7].bdf, "0000:42:00.0");
	/* The call the watchdog names is the one the library has. */
	setenv("SN_FAKE_DCMI_HANG", "dcmi_get_card_num_list", 1);
	read_child();
	assert_string_equal(node->hung_call, "dcmi_get_card_num_list");
}

/* An MCU beside the NPU (dcmi_get_device_type 1) is not counted. */
static void test_mcu_skipped(void **state)
{
	(void)state;
	strcpy(tmp_fixture, "/tmp/sn-ascend-XXXXXX");
	close(mkstemp(tmp_fixture));
	{
		FILE *f = fopen(tmp_fixture, "w");

		fputs("{\"cards\": [{\"card_id\": 0, \"chips\": [{\"bdf\": "
		      "\"0000:c1:00.0\"}, {\"type\": 1}]}]}",
		      f);
		fclose(f);
	}
	setenv("SN_FAKE_DCMI_FIXTURE", tmp_fixture, 1);
	read_here();
	assert_int_equal(node->count, 1);
	assert_int_equal(node->n_devs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_healthy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_values, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_error_codes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ecc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_network_health, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hccs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hung_network_health, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_library_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_symbol_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_old_card_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mcu_skipped, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
