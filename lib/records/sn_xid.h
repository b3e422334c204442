/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_XID_H
#define SN_XID_H

/*
 * NVIDIA Xid events from kernel log lines, and what each one means for a
 * node (record it, warn, drain).
 *
 * Line forms understood (anywhere in the line, after any timestamp,
 * "kernel:" or "kern :warn :" prefix):
 *   NVRM: Xid (PCI:0000:1b:00): 79, pid=1234, name=python3, TEXT
 *   NVRM: Xid (PCI:0000:1b:00): 13, pid='<unknown>', name=<unknown>, TEXT
 *   NVRM: Xid (PCI:0000:01:00): 31, Ch 0000003a, intr 10000000. TEXT
 *   NVRM: Xid (0000:01:00): 3, TEXT                      (old drivers)
 *   nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 ...
 *   NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.   (no Xid)
 *   NVRM: GPU at 0000:01:00.0 has fallen off the bus.     (no Xid)
 *   NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in
 *         this system has fallen off the bus ...  (one kmsg record; when
 *         dmesg splits it over lines, use struct sn_xid_scan)
 * Sources: NVIDIA "Xid Errors" (https://docs.nvidia.com/deploy/xid-errors/)
 * and the real lines in shared/fixtures/nvidia/kmsg.
 */
#include <stddef.h>
#include <stdint.h>

#include "inventory/sn_pcie.h"

#define SN_XID_NAME_MAX 64  /* process name incl. NUL */
#define SN_XID_TEXT_MAX 256 /* the rest of the message incl. NUL */

enum sn_xid_kind {
	SN_XID_GPU = 0,	 /* "NVRM: Xid (...): N, ..." */
	SN_XID_NVSWITCH, /* "nvidia-nvswitchN: SXid (...): N, ..." */
	SN_XID_OFF_BUS,	 /* "fallen off the bus" without an Xid: xid = 79 */
};

/* One parsed event.  Strings are NUL-terminated, truncated to fit. */
struct sn_xid_event {
	enum sn_xid_kind kind;
	unsigned xid;		    /* Xid / SXid number; 79 for OFF_BUS */
	char busid[SN_BDF_SIZE];    /* "0000:1b:00.0", lower case; the
					 * function is .0 when the line omits it */
	long pid;		    /* -1 when absent or '<unknown>' */
	char name[SN_XID_NAME_MAX]; /* process name; "" when absent */
	char text[SN_XID_TEXT_MAX]; /* the message after number, pid, name */
};

/*
 * sn_xid_parse - parse one kernel log line or kmsg record.
 * Returns 0 with *ev filled, or -1 (ev zeroed) when the line is not an
 * Xid, SXid or fallen-off-the-bus message.
 */
int sn_xid_parse(const char *line, struct sn_xid_event *ev);

/*
 * struct sn_xid_scan - state for dmesg text where one kernel message spans
 * lines ("NVRM: The NVIDIA GPU <bus>" / "NVRM: (PCI ID: ...) installed in
 * this system has" / "NVRM: fallen off the bus and ...").  Zero it before
 * the first line.
 */
struct sn_xid_scan {
	char pending_bus[SN_BDF_SIZE]; /* bus of an open message */
	unsigned lines_left;	       /* lines it may still span */
};

/*
 * sn_xid_scan_line - sn_xid_parse() plus the split message above.
 * Returns 0 with *ev filled when this line completes an event, else -1.
 */
int sn_xid_scan_line(struct sn_xid_scan *scan, const char *line,
		     struct sn_xid_event *ev);

/* What the prolog/epilog does about an Xid (a config key may override). */
enum sn_xid_severity {
	SN_XID_RECORD = 0, /* keep it in the job record only */
	SN_XID_WARN,	   /* record and warn; no drain */
	SN_XID_DRAIN,	   /* drain the node */
	SN_XID_REMAP,	   /* decide from NVML's row-remap state (Xid 63):
				 * pending -> drain "remap pending: reboot",
				 * failure -> drain "remap failure: RMA",
				 * NOT_SUPPORTED -> healthy */
};

/* One row of the table. */
struct sn_xid_info {
	unsigned xid; /* 0 in rows not from the table (unknown
					 * Xid, SXid, escalations) */
	enum sn_xid_severity severity;
	const char *meaning; /* short, for logs and drain reasons */
};

/*
 * sn_xid_lookup - the default row for a GPU Xid number.  Never NULL: an
 * Xid not in the table gets a row with xid 0, SN_XID_WARN and meaning
 * "unknown Xid".  Points to static storage.
 */
const struct sn_xid_info *sn_xid_lookup(unsigned xid);

/*
 * sn_xid_event_info - the row for a parsed event: sn_xid_lookup() for GPU
 * Xids, except that the NVLink5 Xids 144-150 drain when their text says
 * "Fatal" and Xid 154 drains when the new recovery action is a reset or
 * reboot; fallen-off-the-bus lines get Xid 79's row; SXids drain when
 * their text says "Fatal" and warn otherwise.  Never NULL; static storage.
 */
const struct sn_xid_info *sn_xid_event_info(const struct sn_xid_event *ev);

/*
 * sn_xid_defaults - the whole default table (a plain const array sorted by
 * Xid), for a later config override to copy.  *n gets its length.
 */
const struct sn_xid_info *sn_xid_defaults(size_t *n);

/* sn_xid_severity_name - "record", "warn", "drain" or "remap". */
const char *sn_xid_severity_name(enum sn_xid_severity s);

#endif
