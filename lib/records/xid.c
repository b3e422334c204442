/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVIDIA Xid lines and the default Xid table (see sn_xid.h).
 *
 * Meanings follow NVIDIA's Xid catalog ("Xid Errors", "Analyzing Xid
 * Errors with the Xid Catalog",
 * https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html:
 * mnemonic, description and "Resolution Bucket" RESTART_APP / RESET_GPU /
 * CONTACT_SUPPORT per Xid), NVIDIA "GPU Memory Error Management"
 * (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/: contained
 * errors end only the faulting application, uncontained ones affect every
 * workload; a pending row remap needs a GPU reset, a remap failure is an
 * RMA criterion) and NVIDIA "Dynamic Page Retirement"
 * (https://docs.nvidia.com/deploy/dynamic-page-retirement/: Xid 48 DBE,
 * 63 page retired / row remapped, 64 retirement failed).  Severities are
 * ours, for a batch cluster: drain what needs a GPU reset, reboot or RMA;
 * record what ends only the application that caused it (field case 12).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/sn_xid.h"

#define SCAN_SPAN_LINES 3 /* lines a split "fallen off the bus" message spans */

/* Sorted by xid.  Keep it a plain const array (config overrides copy it). */
static const struct sn_xid_info xid_table[] = {
	{ 8, SN_XID_WARN, "GPU stopped processing (idle timeout)" },
	{ 13, SN_XID_RECORD, "graphics engine exception (application error)" },
	{ 31, SN_XID_RECORD, "GPU memory page fault (application error)" },
	{ 32, SN_XID_WARN, "invalid or corrupted push buffer stream" },
	{ 38, SN_XID_WARN, "driver firmware error" },
	{ 43, SN_XID_RECORD, "GPU stopped processing (application error)" },
	{ 45, SN_XID_RECORD, "preemptive cleanup after a previous error" },
	{ 48, SN_XID_DRAIN, "DBE: double bit ECC error" },
	{ 61, SN_XID_WARN, "internal micro-controller breakpoint/warning" },
	{ 62, SN_XID_DRAIN, "internal micro-controller halt" },
	{ 63, SN_XID_REMAP, "row remap or page retirement event" },
	{ 64, SN_XID_DRAIN, "remap failure: RMA" },
	{ 69, SN_XID_WARN, "graphics engine class error" },
	{ 74, SN_XID_DRAIN, "NVLink error" },
	{ 79, SN_XID_DRAIN, "GPU has fallen off the bus" },
	{ 92, SN_XID_WARN, "high single-bit ECC error rate" },
	{ 94, SN_XID_RECORD, "contained ECC error" },
	{ 95, SN_XID_DRAIN, "uncontained ECC error" },
	{ 109, SN_XID_WARN, "context switch timeout" },
	{ 119, SN_XID_DRAIN, "GSP RPC timeout" },
	{ 120, SN_XID_DRAIN, "GSP error" },
	{ 121, SN_XID_WARN, "C2C link corrected error" },
	{ 140, SN_XID_DRAIN, "unrecovered ECC error" },
	{ 143, SN_XID_DRAIN, "GPU initialization failure" },
	{ 144, SN_XID_WARN, "NVLink SAW error" },
	{ 145, SN_XID_WARN, "NVLink RLW error" },
	{ 146, SN_XID_WARN, "NVLink TLW error" },
	{ 147, SN_XID_WARN, "NVLink TREX error" },
	{ 148, SN_XID_WARN, "NVLink NVLPW control error" },
	{ 149, SN_XID_WARN, "NVLink NETIR error" },
	{ 150, SN_XID_WARN, "NVLink MSE error" },
	{ 154, SN_XID_WARN, "GPU recovery action changed" },
};

static const struct sn_xid_info xid_unknown = {
	0,
	SN_XID_WARN,
	"unknown Xid (not in the table)",
};
static const struct sn_xid_info nvlink_fatal = {
	0,
	SN_XID_DRAIN,
	"fatal NVLink error",
};
static const struct sn_xid_info recovery_reset = {
	0,
	SN_XID_DRAIN,
	"recovery action: GPU reset or reboot required",
};
static const struct sn_xid_info sxid_fatal = {
	0,
	SN_XID_DRAIN,
	"fatal NVSwitch error (SXid)",
};
static const struct sn_xid_info sxid_other = {
	0,
	SN_XID_WARN,
	"NVSwitch error (SXid)",
};

/* ---- parsing ---------------------------------------------------------- */

static void copy_text(char *dst, size_t size, const char *src, size_t len)
{
	while (len && isspace((unsigned char)*src)) {
		src++;
		len--;
	}
	while (len && isspace((unsigned char)src[len - 1]))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Up to max hex digits; 0 if none. */
static size_t hex_field(const char *s, size_t max, unsigned long *val)
{
	size_t i = 0;

	*val = 0;
	while (i < max && isxdigit((unsigned char)s[i])) {
		*val = *val * 16 +
		       (unsigned long)(isdigit((unsigned char)s[i]) ?
					       s[i] - '0' :
					       (tolower((unsigned char)s[i]) -
						'a' + 10));
		i++;
	}
	return i;
}

/*
 * "[PCI:]DDDD:BB:DD[.F]" at s -> "dddd:bb:dd.f" in out; returns the
 * length consumed, 0 if s does not start with a bus id.
 */
static size_t parse_busid(const char *s, char *out, size_t size)
{
	unsigned long dom, bus, dev, fn = 0;
	size_t i = 0, n;

	if (!strncmp(s, "PCI:", 4))
		i = 4;
	if (!(n = hex_field(s + i, 8, &dom)) || s[i + n] != ':')
		return 0;
	i += n + 1;
	if (!(n = hex_field(s + i, 2, &bus)) || s[i + n] != ':')
		return 0;
	i += n + 1;
	if (!(n = hex_field(s + i, 2, &dev)) || dev > 0x1f)
		return 0;
	i += n;
	if (s[i] == '.' && (n = hex_field(s + i + 1, 1, &fn)) && fn <= 7)
		i += 1 + n;
	snprintf(out, size, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
	return i;
}

/* "pid=123, " / "pid='<unknown>', " at *p: set ev->pid, advance. */
static void parse_pid(const char **p, struct sn_xid_event *ev)
{
	const char *s = *p + 4;
	char *end;
	long v;

	ev->pid = -1;
	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		if (v >= 0 && (*end == ',' || !*end))
			ev->pid = v;
	}
	s += strcspn(s, ",");
	*p = *s ? s + 1 : s;
	while (**p == ' ')
		(*p)++;
}

/* "name=python3, " at *p: copy the name (not "<unknown>"), advance. */
static void parse_name(const char **p, struct sn_xid_event *ev)
{
	const char *s = *p + 5;
	const char *end = strstr(s, ", ");
	size_t len = end ? (size_t)(end - s) : strlen(s);

	if (strncmp(s, "<unknown>", 9) || len != 9)
		copy_text(ev->name, sizeof(ev->name), s, len);
	*p = end ? end + 2 : s + len;
}

/*
 * " GPU-I:NN" / " GPU-CI:NN" at s (the MIG attribution kernel_rc.c puts
 * after the bus id): the length, 0 if absent.
 */
static size_t mig_attr(const char *s, const char *name)
{
	size_t n = strlen(name), i;

	if (s[0] != ' ' || strncmp(s + 1, name, n))
		return 0;
	for (i = 1 + n; i < 1 + n + 4 && isdigit((unsigned char)s[i]); i++)
		;
	return i > 1 + n ? i : 0;
}

/*
 * After "Xid (" / "SXid (":
 * "BUS[ GPU-I:NN[ GPU-CI:NN]]): N[, pid=..][, name=..][, ]TEXT".
 */
static int parse_xid_body(const char *s, enum sn_xid_kind kind,
			  struct sn_xid_event *ev)
{
	size_t n = parse_busid(s, ev->busid, sizeof(ev->busid));
	unsigned long xid;
	char *end;

	if (n && kind == SN_XID_GPU) {
		n += mig_attr(s + n, "GPU-I:");
		n += mig_attr(s + n, "GPU-CI:");
	}
	if (!n || strncmp(s + n, "):", 2))
		return -1;
	s += n + 2;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	xid = strtoul(s, &end, 10);
	if (xid > 1000000 || (*end && *end != ','))
		return -1;
	ev->kind = kind;
	ev->xid = (unsigned)xid;
	s = end;
	while (*s == ',' || *s == ' ')
		s++;
	if (!strncmp(s, "pid=", 4))
		parse_pid(&s, ev);
	if (!strncmp(s, "name=", 5))
		parse_name(&s, ev);
	copy_text(ev->text, sizeof(ev->text), s, strlen(s));
	return 0;
}

/* The bus id after one of the NVRM GPU prefixes, or 0. */
static size_t offbus_busid(const char *line, char *out, size_t size)
{
	static const char *const prefixes[] = {
		"NVRM: The NVIDIA GPU ",
		"NVRM: GPU at ",
		"NVRM: GPU ",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		const char *p = strstr(line, prefixes[i]);
		size_t n;

		if (p && (n = parse_busid(p + strlen(prefixes[i]), out, size)))
			return n;
	}
	return 0;
}

static int parse_offbus(const char *line, struct sn_xid_event *ev)
{
	const char *msg = strstr(line, "NVRM: ");

	if (!msg || !strstr(line, "fallen off the bus") ||
	    !offbus_busid(line, ev->busid, sizeof(ev->busid)))
		return -1;
	ev->kind = SN_XID_OFF_BUS;
	ev->xid = 79;
	ev->pid = -1;
	copy_text(ev->text, sizeof(ev->text), msg + 6, strlen(msg + 6));
	return 0;
}

static void event_reset(struct sn_xid_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = -1;
}

int sn_xid_parse(const char *line, struct sn_xid_event *ev)
{
	const char *xid, *sxid;

	event_reset(ev);
	if (!line)
		return -1;
	xid = strstr(line, "NVRM: Xid (");
	if (xid)
		return parse_xid_body(xid + 11, SN_XID_GPU, ev) ?
			       (event_reset(ev), -1) :
			       0;
	sxid = strstr(line, "SXid (");
	if (sxid && (sxid == line || sxid[-1] == ' '))
		return parse_xid_body(sxid + 6, SN_XID_NVSWITCH, ev) ?
			       (event_reset(ev), -1) :
			       0;
	if (!parse_offbus(line, ev))
		return 0;
	event_reset(ev);
	return -1;
}

/* ---- the driver's own records (kernel facility) ----------------------- */

/* "nvidia-nvswitchN: SXid (" at the start of msg: its length, else 0. */
static size_t sxid_prefix(const char *msg)
{
	size_t i = 15;

	if (strncmp(msg, "nvidia-nvswitch", 15))
		return 0;
	while (i < 15 + 4 && isdigit((unsigned char)msg[i]))
		i++;
	if (i == 15 || strncmp(msg + i, ": SXid (PCI:", 12))
		return 0;
	return i + 8; /* up to and including "(" */
}

/* The bus id at s, then exactly tail: 0 with out filled, else -1. */
static int bus_then(const char *s, const char *tail, char *out, size_t size)
{
	size_t n = parse_busid(s, out, size);

	return n && !strcmp(s + n, tail) ? 0 : -1;
}

static int driver_offbus(const char *msg, struct sn_xid_event *ev)
{
	const char *p;

	if (!strncmp(msg, "NVRM: GPU at ", 13))
		p = msg + 13;
	else if (!strncmp(msg, "NVRM: GPU ", 10))
		p = msg + 10;
	else
		return -1;
	if (bus_then(p, ": GPU has fallen off the bus.", ev->busid,
		     sizeof(ev->busid)) &&
	    bus_then(p, " has fallen off the bus.", ev->busid,
		     sizeof(ev->busid)))
		return -1;
	ev->kind = SN_XID_OFF_BUS;
	ev->xid = 79;
	copy_text(ev->text, sizeof(ev->text), msg + 6, strlen(msg + 6));
	return 0;
}

/* "NVRM: The NVIDIA GPU BUS\x0aNVRM: (PCI ID: ...) ... fallen off ..." */
static int driver_offbus_long(const char *msg, struct sn_xid_event *ev)
{
	static const char head[] = "NVRM: The NVIDIA GPU ";
	size_t n;

	if (strncmp(msg, head, sizeof(head) - 1))
		return -1;
	n = parse_busid(msg + sizeof(head) - 1, ev->busid, sizeof(ev->busid));
	if (!n ||
	    !strstr(msg, "NVRM: fallen off the bus and is not responding"))
		return -1;
	ev->kind = SN_XID_OFF_BUS;
	ev->xid = 79;
	copy_text(ev->text, sizeof(ev->text), msg + 6, strlen(msg + 6));
	return 0;
}

int sn_xid_parse_driver(const char *msg, struct sn_xid_event *ev)
{
	size_t n;

	event_reset(ev);
	if (!msg)
		return -1;
	if (!strncmp(msg, "NVRM: Xid (", 11)) {
		if (!parse_xid_body(msg + 11, SN_XID_GPU, ev))
			return 0;
	} else if ((n = sxid_prefix(msg))) {
		if (!parse_xid_body(msg + n, SN_XID_NVSWITCH, ev))
			return 0;
	} else if (!driver_offbus(msg, ev) || !driver_offbus_long(msg, ev)) {
		return 0;
	}
	event_reset(ev);
	return -1;
}

int sn_xid_scan_driver(struct sn_xid_scan *scan, const char *msg,
		       struct sn_xid_event *ev)
{
	static const char head[] = "NVRM: The NVIDIA GPU ";
	char bus[SN_BDF_SIZE];

	if (!sn_xid_parse_driver(msg, ev)) {
		scan->pending_bus[0] = '\0';
		return 0;
	}
	if (!msg)
		return -1;
	if (!strncmp(msg, head, sizeof(head) - 1) &&
	    parse_busid(msg + sizeof(head) - 1, bus, sizeof(bus))) {
		memcpy(scan->pending_bus, bus, sizeof(bus));
		scan->lines_left = SCAN_SPAN_LINES;
		return -1;
	}
	if (!scan->pending_bus[0])
		return -1;
	if (!strncmp(msg, "NVRM: fallen off the bus", 24)) {
		ev->kind = SN_XID_OFF_BUS;
		ev->xid = 79;
		memcpy(ev->busid, scan->pending_bus, sizeof(ev->busid));
		copy_text(ev->text, sizeof(ev->text), msg + 6, strlen(msg + 6));
		scan->pending_bus[0] = '\0';
		return 0;
	}
	if (!--scan->lines_left)
		scan->pending_bus[0] = '\0';
	return -1;
}

int sn_xid_scan_line(struct sn_xid_scan *scan, const char *line,
		     struct sn_xid_event *ev)
{
	char bus[SN_BDF_SIZE];

	if (!sn_xid_parse(line, ev)) {
		scan->pending_bus[0] = '\0';
		return 0;
	}
	if (line && strstr(line, "NVRM: The NVIDIA GPU ") &&
	    offbus_busid(line, bus, sizeof(bus))) {
		memcpy(scan->pending_bus, bus, sizeof(bus));
		scan->lines_left = SCAN_SPAN_LINES;
		return -1;
	}
	if (!scan->pending_bus[0] || !line)
		return -1;
	if (strstr(line, "fallen off the bus")) {
		const char *msg = strstr(line, "NVRM: ");

		ev->kind = SN_XID_OFF_BUS;
		ev->xid = 79;
		memcpy(ev->busid, scan->pending_bus, sizeof(ev->busid));
		msg = msg ? msg + 6 : line;
		copy_text(ev->text, sizeof(ev->text), msg, strlen(msg));
		scan->pending_bus[0] = '\0';
		return 0;
	}
	if (!--scan->lines_left)
		scan->pending_bus[0] = '\0';
	return -1;
}

/* ---- the table -------------------------------------------------------- */

const struct sn_xid_info *sn_xid_lookup(unsigned xid)
{
	size_t lo = 0, hi = sizeof(xid_table) / sizeof(xid_table[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (xid_table[mid].xid == xid)
			return &xid_table[mid];
		if (xid_table[mid].xid < xid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &xid_unknown;
}

/* "Fatal" as a word, not inside "Nonfatal"/"Non-fatal". */
static int says_fatal(const char *text)
{
	for (const char *p = text; (p = strstr(p, "Fatal")); p += 5)
		if (p == text || !isalpha((unsigned char)p[-1]))
			if (p < text + 4 || strncmp(p - 4, "Non-", 4))
				return 1;
	return 0;
}

/*
 * Xid 154: "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
 * Required)"; only the new action counts (a change back to None is good).
 */
static int recovery_needs_reset(const char *text)
{
	const char *to = NULL;

	for (const char *p = text; (p = strstr(p, " to 0x")); p++)
		to = p;
	if (!to)
		to = text;
	return strstr(to, "Reset Required") || strstr(to, "Reboot Required");
}

const struct sn_xid_info *sn_xid_event_info(const struct sn_xid_event *ev)
{
	if (ev->kind == SN_XID_NVSWITCH)
		return says_fatal(ev->text) ? &sxid_fatal : &sxid_other;
	if (ev->kind == SN_XID_OFF_BUS)
		return sn_xid_lookup(79);
	if (ev->xid >= 144 && ev->xid <= 150 && says_fatal(ev->text))
		return &nvlink_fatal;
	if (ev->xid == 154 && recovery_needs_reset(ev->text))
		return &recovery_reset;
	return sn_xid_lookup(ev->xid);
}

const struct sn_xid_info *sn_xid_defaults(size_t *n)
{
	*n = sizeof(xid_table) / sizeof(xid_table[0]);
	return xid_table;
}

const char *sn_xid_severity_name(enum sn_xid_severity s)
{
	switch (s) {
	case SN_XID_RECORD:
		return "record";
	case SN_XID_WARN:
		return "warn";
	case SN_XID_DRAIN:
		return "drain";
	case SN_XID_REMAP:
		return "remap";
	}
	return "?";
}
