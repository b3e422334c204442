/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_XID_H
#define SN_XID_H

/*
 * NVIDIA Xid events from kernel log lines, and what each one means for a
 * node (record it, warn, drain).
 *
 * Two parsers, because who wrote a line matters (issue 17, item 1):
 *
 * sn_xid_parse_driver() / sn_xid_scan_driver(): a /dev/kmsg record of the
 * kernel facility (PRI >> 3 == 0; devkmsg_write() in the kernel's
 * kernel/printk/printk.c forces LOG_USER on anything written from user
 * space, so facility 0 is the kernel's own).  The message must be one the
 * driver prints, from its first byte.  The lines the NVIDIA driver writes
 * (NVIDIA/open-gpu-kernel-modules 595.45.04, commit df1c9a3de; the
 * proprietary driver shares this resource manager code):
 *
 *   NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s%s
 *   NVRM: Xid (PCI:%04x:%02x:%02x): %d, %s%s          (no process)
 *   NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u): ...     (MIG instance)
 *   NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u): ...
 *       src/nvidia/src/kernel/gpu/rc/kernel_rc.c, XID_PRINT_WITH_ATTR
 *       (through portDbgPrintf -> nv_printf -> printk, kernel-open/nvidia/
 *       os-interface.c); the last %s is " caused by previous Xid %d" or "".
 *   nvidia-nvswitch%d: SXid (PCI:%04x:%02x:%02x.%x): %05d, TEXT
 *       src/common/nvswitch/kernel/inc/common_nvswitch.h,
 *       NVSWITCH_PRINT_SXID (the device name is "nvswitch%d"), printed by
 *       nvswitch_os_print() in kernel-open/nvidia/linux_nvswitch.c.
 *   NVRM: GPU %04x:%02x:%02x.%x: GPU has fallen off the bus.
 *       src/nvidia/arch/nvalloc/unix/src/osinit.c (NV_DEV_PRINTF), after
 *       the Xid 79 line that nvErrorLog_va() prints for the same event.
 *   NVRM: The NVIDIA GPU %04x:%02x:%02x.%x
 *   NVRM: (PCI ID: %04x:%04x) installed in this system has
 *   NVRM: fallen off the bus and is not responding to commands.
 *       src/nvidia/arch/nvalloc/unix/src/osapi.c: one printk, so one kmsg
 *       record with the newlines escaped as \x0a (when a kernel splits it,
 *       sn_xid_scan_driver() joins the records).
 *   NVRM: GPU at 0000:01:00.0 has fallen off the bus.
 *       older proprietary drivers (field reports; not in the open source).
 *
 * The only text a user controls in these records comes after the bus id
 * and number (the process name), and a kernel record that starts with
 * user text (a task's comm, an interface name) holds at most 15 bytes of
 * it, not enough for a prefix plus a bus id.  The caller also checks that
 * the bus id is a GPU or NVSwitch of this node.
 *
 * sn_xid_parse() / sn_xid_scan_line(): lenient, for plain text logs given
 * as test input (dmesg, journalctl, syslog): the forms above anywhere in
 * the line, after any timestamp, "kernel:" or "kern :warn :" prefix; also
 * "NVRM: Xid (0000:01:00): 3, TEXT" (old drivers).  A text log cannot say
 * who wrote a line: never use it where users can write to the log.
 *
 * Sources: the driver source above, NVIDIA "Xid Errors"
 * (https://docs.nvidia.com/deploy/xid-errors/), the real lines in
 * shared/fixtures/nvidia/kmsg (SOURCES.md there) and field cases 11, 12.
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
 * sn_xid_parse_driver - parse the message of a kernel-facility kmsg record
 * strictly: one of the driver's lines above from its first byte, nothing
 * else.  Returns 0 with *ev filled, or -1 (ev zeroed).
 */
int sn_xid_parse_driver(const char *msg, struct sn_xid_event *ev);

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

/*
 * sn_xid_scan_driver - sn_xid_parse_driver() plus the split "The NVIDIA
 * GPU" message, each part a record starting with "NVRM: ".  Feed it only
 * kernel-facility records.  Returns 0 with *ev filled when this record
 * completes an event, else -1.
 */
int sn_xid_scan_driver(struct sn_xid_scan *scan, const char *msg,
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
