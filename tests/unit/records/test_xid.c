/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_xid_parse / sn_xid_scan_line over every line of the real kernel logs
 * in fixtures/nvidia/kmsg and inline lines;
 * the default severity table against field case 12.
 */
#include <unistd.h>

#include "unit.h"

#include "records/sn_xid.h"

#define REAL SN_FIXTURES "/nvidia/kmsg/"
#define MAX_LINES 4096

/* One expected event, by 1-based line number of a fixture file. */
struct want {
	unsigned line;
	enum sn_xid_kind kind;
	unsigned xid;
	const char *busid;
	long pid;
	const char *name;
	const char *text_has;
	enum sn_xid_severity severity;
};

/* Events found per line (line number -> event), through the scanner. */
struct scanned {
	size_t lines, events;
	unsigned char is_event[MAX_LINES + 1];
	struct sn_xid_event ev[MAX_LINES + 1];
};

static struct scanned *scan_file(const char *name)
{
	char path[512], line[16384];
	struct sn_xid_scan sc = { { 0 }, 0 };
	struct scanned *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", REAL, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	s = calloc(1, sizeof(*s));
	assert_non_null(s);
	while (fgets(line, sizeof(line), f) && s->lines < MAX_LINES) {
		struct sn_xid_event *ev = &s->ev[++s->lines];

		line[strcspn(line, "\n")] = '\0';
		if (!sn_xid_scan_line(&sc, line, ev)) {
			s->is_event[s->lines] = 1;
			s->events++;
		}
	}
	fclose(f);
	return s;
}

static void assert_event(const struct scanned *s, const struct want *w)
{
	const struct sn_xid_event *ev = &s->ev[w->line];

	if (!s->is_event[w->line])
		fail_msg("line %u: no event", w->line);
	assert_int_equal(ev->kind, w->kind);
	assert_int_equal(ev->xid, w->xid);
	assert_string_equal(ev->busid, w->busid);
	assert_int_equal(ev->pid, w->pid);
	assert_string_equal(ev->name, w->name);
	assert_contains(ev->text, w->text_has);
	assert_int_equal(sn_xid_event_info(ev)->severity, w->severity);
}

static void assert_no_event(const struct scanned *s, const unsigned *lines,
			    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s->is_event[lines[i]])
			fail_msg("line %u: unexpected Xid %u", lines[i],
				 s->ev[lines[i]].xid);
}

/* ---- the real lines --------------------------------------------------- */

static void test_github_issue_lines(void **state)
{
	static const struct want want[] = {
		{ 2, SN_XID_GPU, 31, "0000:08:00.0", 169800, "chrome",
		  "MMU Fault: ENGINE CE0", SN_XID_RECORD },
		{ 5, SN_XID_GPU, 31, "0000:01:00.0", -1, "",
		  "Ch 0000003a, intr 10000000. MMU Fault", SN_XID_RECORD },
		{ 6, SN_XID_GPU, 13, "0000:01:00.0", -1, "",
		  "Graphics Exception: Class 0x0", SN_XID_RECORD },
		{ 10, SN_XID_GPU, 32, "0000:01:00.0", -1, "",
		  "Channel ID 00000052", SN_XID_WARN },
		{ 15, SN_XID_GPU, 109, "0000:26:00.0", 55914, "re8.exe",
		  "CTX SWITCH TIMEOUT", SN_XID_WARN },
		{ 17, SN_XID_GPU, 38, "0000:07:00.0", 326, "modprobe",
		  "channel 0x00000003", SN_XID_WARN },
		{ 19, SN_XID_GPU, 45, "0000:dc:00.0", 1818990, "python3",
		  "caused by previous Xid 149", SN_XID_RECORD },
		{ 23, SN_XID_GPU, 144, "0000:01:00.0", -1, "",
		  "SAW_MVB Nonfatal", SN_XID_WARN },
		{ 24, SN_XID_GPU, 149, "0000:00:00.0", -1, "",
		  "NETIR_LINK_EVT Fatal", SN_XID_DRAIN },
		{ 26, SN_XID_GPU, 149, "0019:01:00.0", -1, "", "Link -1",
		  SN_XID_DRAIN },
		{ 27, SN_XID_GPU, 145, "0018:01:00.0", -1, "",
		  "RLW_RXPIPE Nonfatal", SN_XID_WARN },
		/* lines 28-30: one message that dmesg split over three lines */
		{ 30, SN_XID_OFF_BUS, 79, "0000:b3:00.0", -1, "",
		  "fallen off the bus", SN_XID_DRAIN },
	};
	static const unsigned none[] = { 1, 4, 14, 16, 28, 29, 31, 32 };
	struct scanned *s = scan_file("xid-lines-from-github-issues.log");

	(void)state;
	assert_int_equal(s->lines, 32);
	assert_int_equal(s->events, 24);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_event(s, &want[i]);
	assert_no_event(s, none, sizeof(none) / sizeof(none[0]));
	free(s);
}

static void test_repo_doc_lines(void **state)
{
	static const struct want want[] = {
		{ 2, SN_XID_GPU, 13, "0000:cb:00.0", -1, "",
		  "Illegal Instruction Parameter", SN_XID_RECORD },
		{ 5, SN_XID_GPU, 109, "0000:cb:00.0", 1797828, "pt_main_thread",
		  "CTX SWITCH TIMEOUT", SN_XID_WARN },
		{ 11, SN_XID_GPU, 79, "0000:91:00.0", -1, "",
		  "GPU has fallen off the bus.", SN_XID_DRAIN },
		{ 12, SN_XID_OFF_BUS, 79, "0000:91:00.0", -1, "",
		  "GPU has fallen off the bus.", SN_XID_DRAIN },
		{ 14, SN_XID_NVSWITCH, 20034, "0000:06:00.0", -1, "",
		  "Fatal, Link 48 LTSSM Fault Up", SN_XID_DRAIN },
		{ 16, SN_XID_NVSWITCH, 20034, "0000:07:00.0", -1, "",
		  "Severity 1 Engine instance 60", SN_XID_WARN },
		{ 22, SN_XID_GPU, 119, "0002:00:00.0", 67769, "nvidia-smi",
		  "Timeout waiting for RPC from GSP1", SN_XID_DRAIN },
	};
	static const unsigned none[] = { 1, 8, 9, 10, 13 };
	struct scanned *s = scan_file("xid-lines-from-repo-docs.log");

	(void)state;
	assert_int_equal(s->lines, 22);
	assert_int_equal(s->events, 17);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_event(s, &want[i]);
	assert_no_event(s, none, sizeof(none) / sizeof(none[0]));
	free(s);
}

/* Every Xid line of the other logs parses; count per Xid number. */
static void count_xids(const char *file, const unsigned *xids,
		       const size_t *counts, size_t n, const char *busid)
{
	struct scanned *s = scan_file(file);
	size_t got[8] = { 0 };

	for (size_t l = 1; l <= s->lines; l++) {
		size_t k;

		if (!s->is_event[l])
			continue;
		assert_string_equal(s->ev[l].busid, busid);
		for (k = 0; k < n && xids[k] != s->ev[l].xid; k++)
			;
		if (k == n)
			fail_msg("%s:%zu: unexpected Xid %u", file, l,
				 s->ev[l].xid);
		got[k]++;
	}
	for (size_t k = 0; k < n; k++)
		assert_int_equal(got[k], counts[k]);
	free(s);
}

static void test_gpud_logs(void **state)
{
	static const unsigned iso0[] = { 13, 43 };
	static const size_t iso0_n[] = { 629, 7 };
	static const unsigned gsp[] = { 119 };
	static const size_t gsp_n[] = { 5 };
	static const unsigned ecc[] = { 48, 63, 94 };
	static const size_t ecc_n[] = { 1, 1, 9 };

	(void)state;
	count_xids("gpud-dmesg-decode-iso.0.log", iso0, iso0_n, 2,
		   "0000:38:00.0");
	count_xids("gpud-dmesg-with-xid-119.log", gsp, gsp_n, 1,
		   "0000:9b:00.0");
	count_xids("gpud-dmesg-time-format-iso.log", ecc, ecc_n, 3,
		   "0000:19:00.0");
	count_xids("gpud-dmesg-decode-iso.1.log", NULL, NULL, 0, "");
	count_xids("gpud-kmsg.1.log", NULL, NULL, 0, "");
	count_xids("gpud-dmesg-peermem.log", NULL, NULL, 0, "");
}

/* ---- inline lines ----------------------------------------------------- */

static void test_parse_forms(void **state)
{
	struct sn_xid_event ev;

	(void)state;
	/* field case 12 */
	assert_int_equal(
		sn_xid_parse(
			"NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus",
			&ev),
		0);
	assert_int_equal(ev.xid, 79);
	assert_string_equal(ev.busid, "0000:1b:00.0");
	assert_string_equal(ev.text, "GPU has fallen off the bus");
	/* a raw /dev/kmsg record body, old format without PCI:, upper case */
	assert_int_equal(
		sn_xid_parse(
			"NVRM: Xid (0000:3B:00): 48, An uncorrectable double bit error",
			&ev),
		0);
	assert_string_equal(ev.busid, "0000:3b:00.0");
	assert_int_equal(sn_xid_event_info(&ev)->severity, SN_XID_DRAIN);
	/* NVRM's one-record fallen-off-the-bus messages */
	assert_int_equal(
		sn_xid_parse("NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
			     &ev),
		0);
	assert_int_equal(ev.kind, SN_XID_OFF_BUS);
	assert_string_equal(ev.busid, "0000:01:00.0");
	assert_int_equal(
		sn_xid_parse(
			"NVRM: The NVIDIA GPU 0000:52:00.0 (PCI ID: 10de:2330)\\x0aNVRM: installed in this system has\\x0aNVRM: fallen off the bus and is not responding to commands.",
			&ev),
		0);
	assert_string_equal(ev.busid, "0000:52:00.0");
	assert_int_equal(ev.xid, 79);
	/* pid='N/A' and a name that is given */
	assert_int_equal(
		sn_xid_parse(
			"[ 9.1] NVRM: Xid (PCI:0000:65:00): 92, pid='N/A', name=dcgm, High single-bit ECC error rate",
			&ev),
		0);
	assert_int_equal(ev.pid, -1);
	assert_string_equal(ev.name, "dcgm");
	assert_int_equal(sn_xid_event_info(&ev)->severity, SN_XID_WARN);
	/* Xid 154: the new recovery action decides */
	assert_int_equal(
		sn_xid_parse(
			"NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
			&ev),
		0);
	assert_int_equal(sn_xid_event_info(&ev)->severity, SN_XID_DRAIN);
	assert_int_equal(
		sn_xid_parse(
			"NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)",
			&ev),
		0);
	/* back to None: only the new action counts */
	assert_int_equal(sn_xid_event_info(&ev)->severity, SN_XID_WARN);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"NVRM: GPU at PCI:0000:9b:00: GPU-509665ad-b600-ac93-3616-d754b23d636d",
		"NVRM: Xid (",
		"NVRM: Xid (PCI:0000:1b:00)",
		"NVRM: Xid (PCI:0000:1b:00): ",
		"NVRM: Xid (PCI:zz:1b:00): 79, x",
		"NVRM: Xid (PCI:0000:1b:00): 79x, x",
		"NVRM: Xid (PCI:0000:1b:00): 99999999999, x",
		"NVRM: Xid (PCI:0000:1b:40): 79, device number above 0x1f",
		"NVRM: Xid (PCI:123456789:1b:00): 79, domain too long",
		"NVRM: Xid (PCI:0000:1b:00): 79 GPU has fallen off the bus, but the Xid line is malformed",
		"fooSXid (PCI:0000:06:00.0): 20034, not after a space",
		"NVRM: fallen off the bus (no bus id)",
		"kernel: mlx5_core 0000:0c:00.0: Port module event",
	};
	struct sn_xid_event ev;

	(void)state;
	assert_int_equal(sn_xid_parse(NULL, &ev), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ev, 0x5a, sizeof(ev));
		if (!sn_xid_parse(bad[i], &ev))
			fail_msg("parsed: %s", bad[i]);
		assert_int_equal(ev.xid, 0);
		assert_int_equal(ev.pid, -1);
		assert_string_equal(ev.busid, "");
	}
}

/* Long names and texts are cut, never overflow. */
static void test_parse_truncates(void **state)
{
	char line[4096], name[300];
	struct sn_xid_event ev;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(line, sizeof(line),
		 "NVRM: Xid (PCI:0000:1b:00): 13, pid=7, name=%s, %s", name,
		 name);
	assert_int_equal(sn_xid_parse(line, &ev), 0);
	assert_int_equal(strlen(ev.name), SN_XID_NAME_MAX - 1);
	assert_int_equal(strlen(ev.text), SN_XID_TEXT_MAX - 1);
	assert_int_equal(ev.pid, 7);
}

/* The split message expires after a few unrelated lines. */
static void test_scan_expires(void **state)
{
	struct sn_xid_scan sc = { { 0 }, 0 };
	struct sn_xid_event ev;

	(void)state;
	assert_int_equal(
		sn_xid_scan_line(&sc, "NVRM: The NVIDIA GPU 0000:b3:00.0", &ev),
		-1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sn_xid_scan_line(&sc, "unrelated", &ev), -1);
	assert_int_equal(
		sn_xid_scan_line(
			&sc, "NVRM: fallen off the bus and is not responding",
			&ev),
		-1);
}

/* ---- the driver's own records (issue 17) ------------------------------ */

#define TRAP                                                                      \
	"traps: main[26332] trap invalid opcode ip:7fcc4d94b0fd sp:7ffc0d80dd70 " \
	"error:0 in "

/* Exactly the lines of open-gpu-kernel-modules (sn_xid.h) are accepted. */
static void test_driver_lines(void **state)
{
	struct sn_xid_event ev;

	(void)state;
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
			&ev),
		0);
	assert_int_equal(ev.kind, SN_XID_GPU);
	assert_int_equal(ev.xid, 79);
	assert_string_equal(ev.busid, "0000:1b:00.0");
	assert_string_equal(ev.text, "GPU has fallen off the bus.");
	/* MIG attribution (kernel_rc.c), the example of kern_gpu_error_cont_ga100.c */
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No",
			&ev),
		0);
	assert_int_equal(ev.xid, 94);
	assert_string_equal(ev.busid, "0000:01:00.0");
	assert_int_equal(ev.pid, 7194);
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: Xid (PCI:0000:01:00 GPU-I:05 GPU-CI:01): 13, Graphics Exception",
			&ev),
		0);
	assert_int_equal(ev.xid, 13);
	assert_int_equal(
		sn_xid_parse_driver(
			"nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up",
			&ev),
		0);
	assert_int_equal(ev.kind, SN_XID_NVSWITCH);
	assert_int_equal(ev.xid, 20034);
	assert_string_equal(ev.busid, "0000:06:00.0");
	assert_int_equal(
		sn_xid_parse_driver(
			"nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 00012, Non-fatal",
			&ev),
		0);
	assert_int_equal(ev.xid, 12);
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.",
			&ev),
		0);
	assert_int_equal(ev.kind, SN_XID_OFF_BUS);
	assert_int_equal(ev.xid, 79);
	assert_string_equal(ev.busid, "0000:91:00.0");
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in this system has\\x0aNVRM: fallen off the bus and is not responding to commands.",
			&ev),
		0);
	assert_string_equal(ev.busid, "0000:b3:00.0");
	assert_int_equal(
		sn_xid_parse_driver(
			"NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
			&ev),
		0);
	assert_string_equal(ev.busid, "0000:01:00.0");
}

/* Anything else that names an Xid is refused: ev zeroed, -1. */
static void test_driver_refuses(void **state)
{
	static const char *const lines[] = {
		TRAP
		"NVRM: Xid (PCI:0000:c1:00): 48, An uncorrectable double bit error[10fd,7fcc4d94b000+1000]",
		TRAP
		"nvidia-nvswitch0: SXid (PCI:0000:06:00.0): 20034, Fatal[10fd,7fcc4d94b000+1000]",
		TRAP
		"NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.[10fd,7fcc4d94b000+1000]",
		" NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.",
		"kernel: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.",
		/* a 15-byte comm at the start of a segfault line */
		"NVRM: Xid (PCI:[26332]: segfault at 0 ip 0 sp 0 error 4",
		"NVRM: GPU 0000:[26332]: segfault at 0 ip 0 sp 0 error 4",
		"nvidia-nvswitch: SXid (PCI:0000:06:00.0): 20034, Fatal",
		"nvidia-nvswitch0: SXid (0000:06:00.0): 20034, Fatal",
		"NVRM: GPU 0000:91:00.0: GPU has fallen off the bus. (really)",
		"NVRM: GPU at PCI:0000:91:00: GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b",
		"NVRM: The NVIDIA GPU 0000:b3:00.0",
	};
	struct sn_xid_event ev;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(sn_xid_parse_driver(lines[i], &ev), -1);
		assert_int_equal(ev.xid, 0);
		assert_string_equal(ev.busid, "");
	}
	/* the lenient text parser still takes the first (test input only) */
	assert_int_equal(sn_xid_parse(lines[0], &ev), 0);
	assert_int_equal(ev.xid, 48);
}

/* The split long message, record by record, only from "NVRM: " records. */
static void test_scan_driver_split(void **state)
{
	struct sn_xid_scan sc = { { 0 }, 0 };
	struct sn_xid_event ev;

	(void)state;
	assert_int_equal(sn_xid_scan_driver(
				 &sc, "NVRM: The NVIDIA GPU 0000:b3:00.0", &ev),
			 -1);
	assert_int_equal(
		sn_xid_scan_driver(
			&sc,
			"NVRM: (PCI ID: 10de:26b5) installed in this system has",
			&ev),
		-1);
	assert_int_equal(
		sn_xid_scan_driver(
			&sc,
			"NVRM: fallen off the bus and is not responding to commands.",
			&ev),
		0);
	assert_int_equal(ev.xid, 79);
	assert_string_equal(ev.busid, "0000:b3:00.0");
	assert_int_equal(sn_xid_scan_driver(
				 &sc, "NVRM: The NVIDIA GPU 0000:b3:00.0", &ev),
			 -1);
	assert_int_equal(
		sn_xid_scan_driver(&sc, TRAP "NVRM: fallen off the bus", &ev),
		-1);
}

/* ---- the table -------------------------------------------------------- */

static void assert_severity(unsigned xid, enum sn_xid_severity want,
			    const char *meaning_has)
{
	const struct sn_xid_info *info = sn_xid_lookup(xid);

	assert_int_equal(info->xid, xid);
	assert_int_equal(info->severity, want);
	assert_contains(info->meaning, meaning_has);
}

/* Field case 12, and the brief's defaults. */
static void test_field_case_12(void **state)
{
	const struct sn_xid_info *unknown;

	(void)state;
	assert_severity(79, SN_XID_DRAIN, "fallen off the bus");
	assert_severity(48, SN_XID_DRAIN, "DBE");
	assert_severity(94, SN_XID_RECORD, "contained ECC");
	assert_severity(95, SN_XID_DRAIN, "uncontained ECC");
	assert_severity(63, SN_XID_REMAP, "row remap");
	assert_severity(64, SN_XID_DRAIN, "remap failure: RMA");
	assert_severity(74, SN_XID_DRAIN, "NVLink");
	assert_severity(92, SN_XID_WARN, "single-bit ECC");
	assert_severity(119, SN_XID_DRAIN, "GSP");
	assert_severity(120, SN_XID_DRAIN, "GSP");
	assert_severity(13, SN_XID_RECORD, "application");
	assert_severity(31, SN_XID_RECORD, "page fault");
	assert_severity(43, SN_XID_RECORD, "application");
	assert_severity(45, SN_XID_RECORD, "previous error");
	unknown = sn_xid_lookup(4242);
	assert_int_equal(unknown->xid, 0);
	assert_int_equal(unknown->severity, SN_XID_WARN);
	assert_contains(unknown->meaning, "unknown");
	assert_int_equal(sn_xid_lookup(0)->severity, SN_XID_WARN);
	assert_string_equal(sn_xid_severity_name(SN_XID_RECORD), "record");
	assert_string_equal(sn_xid_severity_name(SN_XID_DRAIN), "drain");
	assert_string_equal(sn_xid_severity_name(SN_XID_REMAP), "remap");
}

static void test_table_sorted(void **state)
{
	size_t n;
	const struct sn_xid_info *t = sn_xid_defaults(&n);

	(void)state;
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_true(t[i - 1].xid < t[i].xid);
		assert_ptr_equal(sn_xid_lookup(t[i].xid), &t[i]);
		assert_true(strlen(t[i].meaning) > 0 &&
			    strlen(t[i].meaning) < 64);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_issue_lines),
		cmocka_unit_test(test_repo_doc_lines),
		cmocka_unit_test(test_gpud_logs),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_truncates),
		cmocka_unit_test(test_scan_expires),
		cmocka_unit_test(test_driver_lines),
		cmocka_unit_test(test_driver_refuses),
		cmocka_unit_test(test_scan_driver_split),
		cmocka_unit_test(test_field_case_12),
		cmocka_unit_test(test_table_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
