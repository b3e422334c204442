/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_KMSG_H
#define SN_KMSG_H

/*
 * The kernel log as a cursor: the prolog saves the position (the sequence
 * number of the newest record), the epilog reads what was logged since.
 *
 * Sources (paths.kmsg):
 *  - /dev/kmsg, or any character device: one record per read(2), format
 *    of Documentation/ABI/testing/dev-kmsg:
 *        "PRIO,SEQ,USEC,FLAGS[,...];MESSAGE\n[ KEY=VALUE\n]..."
 *    PRIO = facility << 3 | level, SEQ the 64-bit record sequence number,
 *    USEC microseconds since boot, FLAGS '-' or 'c'.  Opened
 *    O_RDONLY|O_NONBLOCK and read until EAGAIN, so it never blocks.
 *    EPIPE means records were overwritten before we read them: reading
 *    goes on at the oldest record still there and SN_KMSG_LOST is
 *    reported.  MESSAGE keeps the kernel's \xNN escapes.
 *  - a regular file in the same record format, one record per line
 *    (lines starting with a space, the dictionary, are skipped);
 *  - a regular file of plain text (dmesg, journalctl, syslog): each line
 *    is a record whose sequence number is its 1-based line number.
 *    The format is decided by the file's first non-empty line.
 *
 * Sequence numbers restart at 0 when the machine boots: store the boot id
 * (/proc/sys/kernel/random/boot_id) with a position if it must survive a
 * reboot; sn_kmsg_read_since() reports SN_KMSG_RESTARTED when the newest
 * record is older than the position it was given.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SN_KMSG_RECORD_MAX \
	16384 /* bytes of one record/line kept; longer are cut */
#define SN_KMSG_MAX_RECORDS \
	100000u /* records handed to the callback per call */
#define SN_KMSG_MAX_BYTES \
	(16u << 20) /* message bytes handed to the callback per call */
#define SN_KMSG_MAX_SCAN (4u << 20) /* records read (incl. skipped) per call */
#define SN_KMSG_FILE_MAX_BYTES \
	(256u << 20) /* bytes read from a regular file per call */

/*
 * Flags returned by sn_kmsg_read_since() (0 or more, OR-ed):
 * LOST       records after seq were overwritten before we read them
 *            (EPIPE, or the oldest record is newer than seq + 1)
 * MORE       stopped at a per-call bound: call again from the last seq
 *            handed out
 * STOPPED    the callback returned non-zero
 * RESTARTED  the newest record is older than seq: a new boot (or another
 *            file)
 */
#define SN_KMSG_LOST 0x1
#define SN_KMSG_MORE 0x2
#define SN_KMSG_STOPPED 0x4
#define SN_KMSG_RESTARTED 0x8

/* One record, as handed to the callback; valid only during the call. */
struct sn_kmsg_record {
	uint64_t seq;	 /* kmsg sequence number, or 1-based line number */
	uint64_t usec;	 /* microseconds since boot; 0 for text lines */
	int level;	 /* syslog level 0 (emerg) .. 7 (debug); -1 for text */
	int facility;	 /* 0 = kernel; -1 for text */
	const char *msg; /* the message, NUL-terminated, without header,
				 * dictionary or newline; at most
				 * SN_KMSG_RECORD_MAX bytes (longer are cut) */
	size_t len;	 /* strlen(msg) */
};

/* Called once per record; return 0 to go on, non-zero to stop. */
typedef int (*sn_kmsg_line_fn)(const struct sn_kmsg_record *rec, void *arg);

/*
 * sn_kmsg_position - the sequence number of the newest record.
 * @path: /dev/kmsg, a record file or a text file (see above)
 * @seq:  receives it; 0 when the log is empty
 *
 * Never blocks; reads at most SN_KMSG_MAX_SCAN records and
 * SN_KMSG_FILE_MAX_BYTES of a file.
 * Returns 0, or a negative errno: -ENOENT, -EACCES, ... from open(2),
 * -EINVAL for a source that is neither a character device nor a regular
 * file or a device that does not speak the kmsg format, -EFBIG for a file
 * over SN_KMSG_FILE_MAX_BYTES, -EOVERFLOW when the log holds more than
 * SN_KMSG_MAX_SCAN records (no position is given then).
 */
int sn_kmsg_position(const char *path, uint64_t *seq);

/*
 * sn_kmsg_read_since - hand every record with a sequence number above seq
 * to fn, oldest first.
 *
 * Bounded per call: at most SN_KMSG_MAX_RECORDS records and
 * SN_KMSG_MAX_BYTES message bytes are handed out and SN_KMSG_MAX_SCAN
 * records read; hitting a bound returns SN_KMSG_MORE (call again from the
 * last seq handed out).  Never blocks.
 *
 * Returns the SN_KMSG_* flags (>= 0), or a negative errno as
 * sn_kmsg_position() does (records already handed out stay handed out).
 */
int sn_kmsg_read_since(const char *path, uint64_t seq, sn_kmsg_line_fn fn,
		       void *arg);

/*
 * sn_kmsg_set_read_hook - test seam: read(2) replacement used for
 * character devices (so a unit test can play /dev/kmsg, EPIPE and EAGAIN
 * included, behind /dev/null).  NULL restores read(2).  Not thread-safe;
 * tests only.
 */
void sn_kmsg_set_read_hook(ssize_t (*hook)(int fd, void *buf, size_t len));

#endif
