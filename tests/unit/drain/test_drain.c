/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drain reasons and the drain/resume decision (lib/drain.c): the reason
 * line (first draining result, "(+N more)", UNKNOWN only when asked,
 * cleaned, bounded with the cut marked, tag kept), and sn_node_state_decide for every row of field
 * case 15 and each state we must never touch, with Slurm's own
 * NODE_STATE_* bits.
 */
#include <slurm/slurm.h>

#include "unit.h"

#include "drain/sn_drain.h"

/* ---- sn_drain_reason ---------------------------------------------------- */

static void add(struct sn_results *r, enum sn_grade g, const char *code,
		const char *device, const char *expected, const char *found)
{
	assert_int_equal(sn_results_add(r, g, "chk", code, device, expected,
					"%s", found),
			 0);
}

static void test_reason_first_crit(void **state)
{
	struct sn_results r = { 0 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	add(&r, SN_OK, "OK", "mlx5_1/1", "ACTIVE", "state=ACTIVE");
	add(&r, SN_WARN, "NVLINK_UNEXPECTED", "gpu0", "0 links", "18 active");
	add(&r, SN_UNKNOWN, "NVML_UNAVAILABLE", "node", "NVML loads", "no lib");
	add(&r, SN_CRIT, "IB_PORT_DOWN", "mlx5_0/1", "ACTIVE", "state=DOWN");
	add(&r, SN_CRIT, "IB_PORT_PHYS", "mlx5_0/1", "LinkUp",
	    "phys_state=Polling");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 0, buf, sizeof(buf)),
			 2);
	assert_string_equal(
		buf,
		"supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE (+1 more)");
	/* With drain_unknown, the UNKNOWN comes first (it is first in the list). */
	assert_int_equal(sn_drain_reason(&r, "supernode:", 1, buf, sizeof(buf)),
			 3);
	assert_string_equal(
		buf,
		"supernode: NVML_UNAVAILABLE node no lib expected NVML loads (+2 more)");
	sn_results_free(&r);
}

static void test_reason_single_no_more(void **state)
{
	struct sn_results r = { 0 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	add(&r, SN_OK, "OK", "gpu0", "", "fine");
	add(&r, SN_CRIT, "GPU_COUNT", "node", "8 gpus (manifest)",
	    "nvml 7, pci 8, dev 8");
	assert_int_equal(sn_drain_reason(&r, "sn:", 0, buf, sizeof(buf)), 1);
	assert_string_equal(
		buf,
		"sn: GPU_COUNT node nvml 7, pci 8, dev 8 expected 8 gpus (manifest)");
	sn_results_free(&r);
}

/* No expected value: no " expected " either. */
static void test_reason_no_expected(void **state)
{
	struct sn_results r = { 0 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	add(&r, SN_CRIT, "CHECK_TIMEOUT", "accelerators", "",
	    "timeout: accelerators > 15s");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 0, buf, sizeof(buf)),
			 1);
	assert_string_equal(
		buf,
		"supernode: CHECK_TIMEOUT accelerators timeout: accelerators > 15s");
	sn_results_free(&r);
}

static void test_reason_unknown_only(void **state)
{
	struct sn_results r = { 0 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	add(&r, SN_WARN, "W", "d", "e", "f");
	add(&r, SN_UNKNOWN, "TOPO_UNAVAILABLE", "node", "hwloc topology",
	    "no xml");
	strcpy(buf, "stale");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 0, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 1, buf, sizeof(buf)),
			 1);
	assert_string_equal(
		buf,
		"supernode: TOPO_UNAVAILABLE node no xml expected hwloc topology");
	sn_results_free(&r);
}

static void test_reason_empty(void **state)
{
	struct sn_results r = { 0 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	strcpy(buf, "stale");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 1, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "");
	/* size 0: nothing written at all. */
	strcpy(buf, "stale");
	assert_int_equal(sn_drain_reason(&r, "supernode:", 1, buf, 0), 0);
	assert_string_equal(buf, "stale");
}

/*
 * Results built by hand (as a check child's record could arrive): '"'
 * becomes '\'', control bytes (escape, tab, CR, LF, DEL) spaces, high-bit
 * bytes '?'; a tag with a newline is kept, cleaned the same way.
 */
static void test_reason_printable(void **state)
{
	struct sn_result item;
	struct sn_results r = { &item, 1, 1 };
	char buf[SN_REASON_MAX + 1];

	(void)state;
	memset(&item, 0, sizeof(item));
	item.grade = SN_CRIT;
	strcpy(item.code, "X\x1b[31m");
	strcpy(item.device, "dev\tice");
	strcpy(item.found, "bad\xff\xfe\r\n\"end\"");
	strcpy(item.expected, "ok\x7f");
	assert_int_equal(sn_drain_reason(&r, "sn\n:", 0, buf, sizeof(buf)), 1);
	assert_string_equal(buf,
			    "sn : X [31m dev ice bad??  'end' expected ok ");
	for (const char *p = buf; *p; p++)
		assert_true(*p >= 0x20 && *p <= 0x7e && *p != '"');
}

/* "TAG " + n copies of c + tail, as expected reasons are spelled. */
static void spell(char *out, const char *head, char c, size_t n,
		  const char *tail)
{
	size_t h = strlen(head);

	memcpy(out, head, h);
	memset(out + h, c, n);
	strcpy(out + h + n, tail);
}

/* The longest fields: cut to SN_REASON_MAX, the cut marked, count kept. */
static void test_reason_bounded(void **state)
{
	struct sn_results r = { 0 };
	char code[SN_CODE_MAX], dev[SN_DEVICE_MAX], val[SN_VALUE_MAX];
	char big[1024], small[41], want[SN_REASON_MAX + 1], head[128];
	size_t n;

	(void)state;
	memset(code, 'C', sizeof(code) - 1);
	code[sizeof(code) - 1] = '\0';
	memset(dev, 'D', sizeof(dev) - 1);
	dev[sizeof(dev) - 1] = '\0';
	memset(val, 'V', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	add(&r, SN_CRIT, code, dev, val, val);
	add(&r, SN_CRIT, "SECOND", "d", "e", "f");
	add(&r, SN_CRIT, "THIRD", "d", "e", "f");

	/*
	 * A buffer larger than a reason may be: still SN_REASON_MAX, the
	 * found value cut after 80 of its 95 bytes (11 + 31 + 1 + 63 + 1 +
	 * 80 + 3 + 10 = 200).
	 */
	memset(big, 'x', sizeof(big));
	n = sn_drain_reason(&r, "supernode:", 0, big, sizeof(big));
	assert_int_equal(n, 3);
	snprintf(head, sizeof(head), "supernode: %s %s ", code, dev);
	spell(want, head, 'V', 80, "... (+2 more)");
	assert_int_equal(strlen(want), SN_REASON_MAX);
	assert_string_equal(big, want);
	/* Beyond the terminator, the buffer is untouched. */
	assert_int_equal(big[SN_REASON_MAX + 1], 'x');

	/* A smaller buffer: it bounds the line, the cut shows, the count too. */
	n = sn_drain_reason(&r, "supernode:", 0, small, sizeof(small));
	assert_int_equal(n, 3);
	assert_string_equal(small, "supernode: CCCCCCCCCCCCCCCC... (+2 more)");
	assert_int_equal(strlen(small), 40);
	sn_results_free(&r);
}

/* ---- sn_reason_clean / sn_reason_compose -------------------------------- */

/* Issue 9 item 14: '"', newline, tab, an over-long tail; the tag kept. */
static void test_reason_clean_exact(void **state)
{
	char buf[SN_REASON_MAX + 1], text[512], want[SN_REASON_MAX + 1];

	(void)state;
	assert_int_equal(
		sn_reason_clean(
			buf, sizeof(buf), "supernode:",
			"supernode: IB_PORT_DOWN mlx5_0/1 state=\"1: DO\nWN\"\tx\x7fy\x01z"),
		0);
	assert_string_equal(
		buf, "supernode: IB_PORT_DOWN mlx5_0/1 state='1: DO WN' x y z");
	/* Without the tag: it is put first. */
	assert_int_equal(sn_reason_clean(buf, sizeof(buf),
					 "supernode:", "bad \"dimm\"\n"),
			 0);
	assert_string_equal(buf, "supernode: bad 'dimm' ");
	/* The tag alone, or a tag glued to more text (not ours: prefixed). */
	assert_int_equal(sn_reason_clean(buf, sizeof(buf),
					 "supernode:", "supernode:"),
			 0);
	assert_string_equal(buf, "supernode:");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), "supernode:", ""),
			 0);
	assert_string_equal(buf, "supernode:");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf),
					 "supernode:", "supernode:x"),
			 0);
	assert_string_equal(buf, "supernode: supernode:x");
	/* A control byte after the tag is the separating space. */
	assert_int_equal(sn_reason_clean(buf, sizeof(buf),
					 "supernode:", "supernode:\tX"),
			 0);
	assert_string_equal(buf, "supernode: X");

	/* Over-long: exactly SN_REASON_MAX bytes, ending in the cut mark. */
	spell(text, "supernode: IB_PORT_DOWN \"q\"\t", 'L', 400, "");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), "supernode:", text),
			 0);
	spell(want, "supernode: IB_PORT_DOWN 'q' ", 'L', 200 - 28 - 3, "...");
	assert_int_equal(strlen(want), SN_REASON_MAX);
	assert_string_equal(buf, want);
	/* Exactly SN_REASON_MAX fits uncut. */
	spell(text, "supernode: ", 'L', SN_REASON_MAX - 11, "");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), "supernode:", text),
			 0);
	assert_string_equal(buf, text);
	/* One more byte: cut, and marked. */
	spell(text, "supernode: ", 'L', SN_REASON_MAX - 10, "");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), "supernode:", text),
			 0);
	spell(want, "supernode: ", 'L', SN_REASON_MAX - 14, "...");
	assert_string_equal(buf, want);
}

/* Clean twice is clean once: sn_node_drain cleans what composers cleaned. */
static void test_reason_clean_idempotent(void **state)
{
	static const char *const texts[] = {
		"supernode: IB_PORT_DOWN \"a\"\n\tb",
		"admin \"text\"",
		"supernode:",
		"supernode:\x7f",
		"",
	};
	char once[SN_REASON_MAX + 1], twice[SN_REASON_MAX + 1], text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_int_equal(sn_reason_clean(once, sizeof(once),
						 "supernode:", texts[i]),
				 0);
		assert_int_equal(sn_reason_clean(twice, sizeof(twice),
						 "supernode:", once),
				 0);
		assert_string_equal(once, twice);
	}
	spell(text, "supernode: ", 'L', 400, "");
	assert_int_equal(
		sn_reason_clean(once, sizeof(once), "supernode:", text), 0);
	assert_int_equal(
		sn_reason_clean(twice, sizeof(twice), "supernode:", once), 0);
	assert_string_equal(once, twice);
}

/*
 * The tag is never cut: a buffer that cannot hold "TAG " and the cut
 * mark gets "" and -1; so does a missing tag.  A tag with '"' is written
 * cleaned, and sn_reason_is_ours still knows the reason for ours.
 */
static void test_reason_tag_kept(void **state)
{
	char buf[SN_REASON_MAX + 1];

	(void)state;
	strcpy(buf, "stale");
	assert_int_equal(sn_reason_clean(buf, 14, "supernode:", "x"), -1);
	assert_string_equal(buf, "");
	assert_int_equal(sn_reason_clean(buf, 15, "supernode:", "long text"),
			 0);
	assert_string_equal(buf, "supernode: ...");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), "", "x"), -1);
	assert_string_equal(buf, "");
	assert_int_equal(sn_reason_clean(buf, sizeof(buf), NULL, "x"), -1);
	assert_int_equal(sn_reason_compose(buf, 5, "supernode:", "x", 2), -1);
	assert_string_equal(buf, "");
	/* Too small for the count: the count goes, the tag stays. */
	assert_int_equal(sn_reason_compose(
				 buf, 18, "supernode:", "supernode: abcdef", 3),
			 0);
	assert_string_equal(buf, "supernode: abcdef");
	assert_int_equal(sn_reason_compose(
				 buf, 17, "supernode:", "supernode: abcdef", 3),
			 0);
	assert_string_equal(buf, "supernode: ab...");

	assert_int_equal(
		sn_reason_clean(buf, sizeof(buf), "[sn\"hc]", "IB down"), 0);
	assert_string_equal(buf, "[sn'hc] IB down");
	assert_true(sn_reason_is_ours(buf, "[sn\"hc]"));
}

/* ---- sn_reason_is_ours -------------------------------------------------- */

static void test_reason_is_ours(void **state)
{
	(void)state;
	assert_true(sn_reason_is_ours("supernode: IB_PORT_DOWN mlx5_0/1",
				      "supernode:"));
	assert_true(sn_reason_is_ours("supernode:", "supernode:"));
	assert_false(sn_reason_is_ours("supernode", "supernode:"));
	assert_false(sn_reason_is_ours("supernode IB_PORT_DOWN", "supernode:"));
	assert_false(sn_reason_is_ours(" supernode: x", "supernode:"));
	assert_false(sn_reason_is_ours("Supernode: x", "supernode:"));
	assert_false(sn_reason_is_ours("", "supernode:"));
	assert_false(sn_reason_is_ours(NULL, "supernode:"));
	assert_false(sn_reason_is_ours("supernode: x", ""));
	assert_false(sn_reason_is_ours("supernode: x", NULL));
	assert_true(sn_reason_is_ours("[supernode-hc] ib_rate: 200",
				      "[supernode-hc]"));
}

/* ---- sn_node_state_decide: field case 15 -------------------------------- */

#define IDLE_DRAIN (NODE_STATE_IDLE | NODE_STATE_DRAIN)
#define ADMIN "bad dimm, ticket 4711 [admin@2026-11-20]"
#define OURS "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE"
#define TAG "supernode:"

static void test_case15_admin_drain(void **state)
{
	(void)state;
	/* An admin's drain: never resumed, never drained over. */
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, ADMIN, TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, ADMIN, TAG, 1),
			 SN_DRAIN_FOREIGN);
	/* Drained without any reason: not ours either. */
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, NULL, TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, "", TAG, 1),
			 SN_DRAIN_FOREIGN);
	/* Allocated and draining (DRAINING) by the admin: the same. */
	assert_int_equal(sn_node_state_decide(NODE_STATE_ALLOCATED |
						      NODE_STATE_DRAIN,
					      ADMIN, TAG, 1),
			 SN_DRAIN_FOREIGN);
}

static void test_case15_our_drain(void **state)
{
	(void)state;
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, OURS, TAG, 0),
			 SN_RESUME_DONE);
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, OURS, TAG, 1),
			 SN_DRAIN_OURS_ALREADY);
	/* The field case's own tag, with a code of the prolog's. */
	assert_int_equal(
		sn_node_state_decide(IDLE_DRAIN,
				     "[supernode-hc] IB_PORT_RATE mlx5_0/1 200",
				     "[supernode-hc]", 0),
		SN_RESUME_DONE);
	/* Its lower-case "ib_rate:" is no code of ours: for a person. */
	assert_int_equal(
		sn_node_state_decide(IDLE_DRAIN,
				     "[supernode-hc] ib_rate: 200 < 400",
				     "[supernode-hc]", 0),
		SN_RESUME_WAITS);
	/* That reason is not ours under the default tag. */
	assert_int_equal(sn_node_state_decide(
				 IDLE_DRAIN,
				 "[supernode-hc] ib_rate: 200 < 400", TAG, 0),
			 SN_RESUME_NOT_OURS);
	/* Our drain of a node still running a job (DRAINING). */
	assert_int_equal(sn_node_state_decide(NODE_STATE_MIXED |
						      NODE_STATE_DRAIN,
					      OURS, TAG, 0),
			 SN_RESUME_DONE);
}

/* Our tag's prefix exactly: "supernode" without the colon is someone else's. */
static void test_tag_prefix_exact(void **state)
{
	(void)state;
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, "supernode", TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, "supernode", TAG, 1),
			 SN_DRAIN_FOREIGN);
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN,
					      "supernode IB_PORT_DOWN", TAG, 0),
			 SN_RESUME_NOT_OURS);
	/* Our tag alone names no condition health could check again. */
	assert_int_equal(sn_node_state_decide(IDLE_DRAIN, "supernode:", TAG, 0),
			 SN_RESUME_WAITS);
}

static void test_case15_not_responding(void **state)
{
	unsigned st = NODE_STATE_DOWN | NODE_STATE_DRAIN;

	(void)state;
	assert_int_equal(sn_node_state_decide(st, "Not responding", TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(st, "Not responding", TAG, 1),
			 SN_DRAIN_FOREIGN);
	/* Even with our reason: DOWN is Slurm's, not ours to resume. */
	assert_int_equal(sn_node_state_decide(st, OURS, TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(st, OURS, TAG, 1),
			 SN_DRAIN_OURS_ALREADY);
}

static void test_plain_states(void **state)
{
	(void)state;
	/* Healthy nodes: drained now; nothing to resume. */
	assert_int_equal(sn_node_state_decide(NODE_STATE_IDLE, NULL, TAG, 1),
			 SN_DRAIN_DONE);
	assert_int_equal(sn_node_state_decide(NODE_STATE_ALLOCATED, NULL, TAG,
					      1),
			 SN_DRAIN_DONE);
	assert_int_equal(sn_node_state_decide(NODE_STATE_MIXED, "", TAG, 1),
			 SN_DRAIN_DONE);
	assert_int_equal(sn_node_state_decide(NODE_STATE_IDLE, NULL, TAG, 0),
			 SN_RESUME_NOT_OURS);
	/* A reason left on an undrained node (ours): nothing to resume. */
	assert_int_equal(sn_node_state_decide(NODE_STATE_IDLE, OURS, TAG, 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(sn_node_state_decide(NODE_STATE_IDLE, OURS, TAG, 1),
			 SN_DRAIN_DONE);
}

/* DOWN, FAIL, MAINT, REBOOT_*: never resumed, never drained over. */
static void test_held_states(void **state)
{
	static const unsigned held[] = {
		NODE_STATE_DOWN,
		NODE_STATE_IDLE | NODE_STATE_FAIL,
		NODE_STATE_ALLOCATED | NODE_STATE_FAIL,
		NODE_STATE_IDLE | NODE_STATE_MAINT,
		NODE_STATE_IDLE | NODE_STATE_REBOOT_REQUESTED,
		NODE_STATE_IDLE | NODE_STATE_REBOOT_ISSUED,
		NODE_STATE_DOWN | NODE_STATE_REBOOT_ISSUED,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		unsigned st = held[i];

		if (sn_node_state_decide(st, NULL, TAG, 1) !=
			    SN_DRAIN_FOREIGN ||
		    sn_node_state_decide(st, ADMIN, TAG, 1) !=
			    SN_DRAIN_FOREIGN ||
		    sn_node_state_decide(st, OURS, TAG, 0) !=
			    SN_RESUME_NOT_OURS ||
		    sn_node_state_decide(st | NODE_STATE_DRAIN, OURS, TAG, 0) !=
			    SN_RESUME_NOT_OURS ||
		    sn_node_state_decide(st | NODE_STATE_DRAIN, ADMIN, TAG,
					 1) != SN_DRAIN_FOREIGN)
			fail_msg("state 0x%x: touched", st);
		/* Drained by us, then held: we keep our reason, not resume. */
		assert_int_equal(sn_node_state_decide(st | NODE_STATE_DRAIN,
						      OURS, TAG, 1),
				 SN_DRAIN_OURS_ALREADY);
	}
}

/*
 * A bare-prefix tag must not claim an admin's reason.  Health resumes only
 * the prolog's codes (issue 17 item 9): the epilog's counter drain waits for
 * a person (before: SN_RESUME_DONE).
 */
static void test_tag_delimiter_and_resumable(void **state)
{
	const unsigned drained = NODE_STATE_IDLE | NODE_STATE_DRAIN;

	(void)state;
	assert_false(sn_reason_is_ours("snmp agent broken, ticket 5", "sn"));
	assert_true(sn_reason_is_ours("sn IB_PORT_DOWN mlx5_0/1", "sn"));
	assert_int_equal(sn_node_state_decide(drained,
					      "snmp agent broken, ticket 5",
					      "sn", 0),
			 SN_RESUME_NOT_OURS);
	assert_int_equal(
		sn_node_state_decide(
			drained,
			"supernode: EPILOG_LINK_DOWNED mlx5_0/1 +3 (crit 1)",
			"supernode:", 0),
		SN_RESUME_WAITS);
	assert_int_equal(
		sn_node_state_decide(
			drained,
			"supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE",
			"supernode:", 0),
		SN_RESUME_DONE);
}

/* ---- who resumes: one row per reason code (issue 17 item 9) ------------ */

static void test_health_resumes_table(void **state)
{
	static const struct {
		const char *reason;
		int resumes;
	} rows[] = {
		{ "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE",
		  1 },
		{ "supernode: GPU_ECC_UNCORRECTED 0000:1b:00.0 3", 1 },
		{ "supernode: ACCEL_COUNT node 7 expected 8", 1 },
		{ "supernode: FABRIC_SPLIT 0000:1b:00.0 x", 1 },
		{ "supernode: IMEX_NOT_READY nvidia-imex x", 1 },
		{ "supernode: NVLINK_INACTIVE 0000:1b:00.0 x", 1 },
		{ "supernode: NVML_UNAVAILABLE node x", 1 },
		{ "supernode: PCIE_WIDTH 0000:1b:00.0 x8", 1 },
		{ "supernode: ROCE_NETDEV_DOWN mlx5_0/1 x", 1 },
		{ "supernode: PORT_MTU mlx5_2/1 path MTU 1024 (netdev eth2 MTU 1500) below 4096",
		  1 },
		{ "supernode: SOCKET_IFACE_DOWN bond0 x", 1 },
		{ "supernode: ACCEL_HEALTH npu2 0000:41:00.0 health 3", 1 },
		{ "supernode: SUPERNODE_MISMATCH node x", 1 },
		{ "supernode: TOPO_NIC_FAR mlx5_0 x", 1 },
		{ "supernode: CHECK_TIMEOUT accel 10 s", 1 },
		{ "supernode: NO_MEMORY node x", 1 },
		{ "supernode: GPU_RECOVERY_ACTION 0000:00:06.0 node reboot",
		  1 },
		{ "supernode: EPILOG_SYMBOL_ERROR mlx5_0/1 +5000 in 40 s", 0 },
		{ "supernode: EPILOG_NVLINK_EFFECTIVE_BER x 1e-9 (crit 1e-12)",
		  0 },
		{ "supernode: XID79 0000:1b:00.0 GPU has fallen off the bus",
		  0 },
		{ "supernode: SXID20034 0000:c1:00.0 x", 0 },
		{ "supernode: BENCH_SLOW rank 3: 5/7 sendrecv pairs", 0 },
		{ "supernode: GPU_ 0000:1b:00.0", 0 },
		{ "supernode: bad 'dimm'", 0 },
		{ "supernode:", 0 },
		{ "bad DIMM, RMA 1234", 0 },
		{ "bad DIMM, RMA 1234; supernode: IB_PORT_DOWN mlx5_0/1", 0 },
	};
	char code[64];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (sn_reason_health_resumes(rows[i].reason, TAG) !=
		    rows[i].resumes)
			fail_msg("%s: want %d", rows[i].reason,
				 rows[i].resumes);
		assert_int_equal(sn_node_state_decide(IDLE_DRAIN,
						      rows[i].reason, TAG, 0),
				 rows[i].resumes ? SN_RESUME_DONE :
				 sn_reason_is_ours(rows[i].reason, TAG) ?
						   SN_RESUME_WAITS :
						   SN_RESUME_NOT_OURS);
	}
	assert_int_equal(sn_reason_code("supernode: XID79 0000:1b:00.0 x", TAG,
					code, sizeof(code)),
			 0);
	assert_string_equal(code, "XID79");
	assert_int_equal(sn_reason_code("supernode:", TAG, code, sizeof(code)),
			 -1);
	assert_string_equal(code, "");
	assert_int_equal(sn_reason_code(ADMIN, TAG, code, sizeof(code)), -1);
}

/* ---- the drain race (issue 17 item 8): after our DRAIN without reason --- */

static void test_drain_after_mark(void **state)
{
	(void)state;
	/* Nobody else: write ours. */
	assert_int_equal(sn_drain_after_mark("", "", TAG), SN_DRAIN_DONE);
	assert_int_equal(sn_drain_after_mark("", NULL, TAG), SN_DRAIN_DONE);
	/* An admin drained it between our read and our write: theirs stays. */
	assert_int_equal(sn_drain_after_mark("", "bad DIMM, RMA 1234", TAG),
			 SN_DRAIN_RACED);
	/* Another program of ours drained it meanwhile: kept. */
	assert_int_equal(sn_drain_after_mark("", OURS, TAG),
			 SN_DRAIN_OURS_ALREADY);
	/* A reason left over from an earlier drain, kept by a resume (Slurm
	 * 24.11), unchanged since our read: no one's decision, ours replaces
	 * it (before: OURS_ALREADY, so a new drain kept the old reason). */
	assert_int_equal(sn_drain_after_mark(OURS, OURS, TAG), SN_DRAIN_DONE);
	assert_int_equal(sn_drain_after_mark("old note", "old note", TAG),
			 SN_DRAIN_DONE);
	/* Changed since our read: someone else's or another of ours. */
	assert_int_equal(sn_drain_after_mark("old note", "bad DIMM", TAG),
			 SN_DRAIN_RACED);
	assert_int_equal(sn_drain_after_mark("old note", OURS, TAG),
			 SN_DRAIN_OURS_ALREADY);
	assert_string_equal(
		sn_drain_outcome_name(SN_DRAIN_RACED),
		"not drained: drained by someone else at the same time");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_delimiter_and_resumable),
		cmocka_unit_test(test_reason_first_crit),
		cmocka_unit_test(test_reason_single_no_more),
		cmocka_unit_test(test_reason_no_expected),
		cmocka_unit_test(test_reason_unknown_only),
		cmocka_unit_test(test_reason_empty),
		cmocka_unit_test(test_reason_printable),
		cmocka_unit_test(test_reason_bounded),
		cmocka_unit_test(test_reason_clean_exact),
		cmocka_unit_test(test_reason_clean_idempotent),
		cmocka_unit_test(test_reason_tag_kept),
		cmocka_unit_test(test_reason_is_ours),
		cmocka_unit_test(test_case15_admin_drain),
		cmocka_unit_test(test_case15_our_drain),
		cmocka_unit_test(test_tag_prefix_exact),
		cmocka_unit_test(test_case15_not_responding),
		cmocka_unit_test(test_plain_states),
		cmocka_unit_test(test_held_states),
		cmocka_unit_test(test_health_resumes_table),
		cmocka_unit_test(test_drain_after_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
