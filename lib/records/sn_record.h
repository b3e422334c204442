/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_RECORD_H
#define SN_RECORD_H

/*
 * The epilog's per-job, per-node record: what happened on this node's
 * fabric ports and accelerators during one job, judged against the
 * epilog thresholds.  Written by the epilog to record_dir/<jobid>/<node>.json
 * (records/sn_store.h: sn_store_write), read by supernodectl report.
 *
 * Schema (version 1; json-c, keys in this order):
 *
 * { "schema": 1,
 *   "job_id": 123,
 *   "attempt": 2, "restart_count": 1,  Slurm's restart count (+ 1): only
 *                                    when Slurm gave it; a record without
 *                                    them reads as attempt 1 (optional
 *                                    since issue 20, format major 1)
 *   "user": "alice" | null, "node": "gpu-a001",
 *   "supernode": "sn01" | null,
 *   "nodes": "gpu-a[001-018]" | null, the job's nodes on this attempt
 *   "start": 1764430000 | null,      baseline "time" (s since the epoch)
 *   "end": 1764433600,               epilog time (s since the epoch)
 *   "exit_code": 0 | null,           the batch script's (exit:signal of
 *   "signal": 0 | null,              SLURM_JOB_EXIT_CODE2)
 *   "derived_exit_code": 0 | null,   the largest of the job's steps
 *   "derived_signal": 0 | null,      (SLURM_JOB_DERIVED_EC)
 *   "baseline": "ok" | "missing" | "corrupt" | "newer",
 *   "prolog_failed": "supernode: ..." (only with "baseline" "missing", when
 *                                    supernode-prolog failed on this node
 *                                    for this attempt: its drain reason)
 *   "xid_scan": "ok" | "no log position in the baseline" |
 *               "records lost before they were read" |
 *               "log restarted since the baseline (reboot?)" |
 *               "stopped at a bound: more records than read" |
 *               "not read: <strerror>",
 *   "ports": [                       sorted by "device/port"
 *     { "device": "mlx5_0", "port": 1,
 *       "link_layer": "InfiniBand" | "Ethernet" | null,  (from the snapshot's
 *                                    port "link_layer" if it has one)
 *       "rate_gbps": 400.0 | null,         the larger "rate_gbps" of the two
 *                                    snapshots (bounds the deltas)
 *       "deltas": { NAME: n | null },      every counter of counters/,
 *                                    counters_ext/ and hw_counters/ at either
 *                                    end (first group wins); raw units
 *       "unknown": { NAME: "why" },        the null ones, with the reason
 *                                    (sn_delta.h: missing, saturated, reset,
 *                                    beyond the width, physically impossible)
 *       "bytes_sent": n | null,            port_xmit_data_64 delta x 4 when the
 *                                    port has it, else port_xmit_data x 4
 *       "bytes_received": n | null,        port_rcv_data(_64) delta x 4
 *       "packets_sent": n | null,          port_xmit_packets(_64) delta
 *       "packets_received": n | null,      port_rcv_packets(_64) delta
 *       "mean_tx_gbps": x | null,          bytes_sent x 8 / (end - start) / 1e9
 *       "mean_rx_gbps": x | null }, ... ], (null when unknown or end <= start)
 *   "accelerators": [                sorted by bus id
 *     { "bus_id": "0000:1b:00.0", "index": 0 | null,
 *       "deltas": { "ecc_uncorrected": n | null, ... }, the ACCEL rows of
 *       "unknown": { NAME: "why" },                     sn_counters that exist
 *                                    (and "nvlink_effective_ber" when its raw
 *                                    value is not a BER)
 *       "nvlink_version": 6 | null,      nvmlNvlinkVersion_t (6: NVLink 4.0)
 *       "nvlink_bytes": n | null,        NVLink data sent + received (fields)
 *       "information": { NAME: "why" } }, ... ],  deltas recorded, not judged
 *                                    (legacy NVLink counters from 4.0 on or
 *                                    when the version is null)
 *   "xid_events": [                  in log order: the first
 *                                    SN_RECORD_MAX_XID record-level events;
 *                                    every warn/drain event, one entry per
 *                                    (kind, xid, bus, severity, meaning),
 *                                    at most SN_RECORD_MAX_XID_SEVERE
 *     { "bus_id": "0000:1b:00.0", "xid": 79,
 *       "kind": "xid" | "sxid" | "off_bus",   (sxid: an NVSwitch SXid number)
 *       "severity": "record" | "warn" | "drain",
 *       "meaning": "GPU has fallen off the bus", "text": "...",
 *       "count": 1 }, ... ],         events this entry stands for
 *   "xid_events_dropped": 0,         record-level events past
 *                                    SN_RECORD_MAX_XID
 *   "xid_events_lost": 0,            warn/drain events not kept (past
 *                                    SN_RECORD_MAX_XID_SEVERE entries):
 *                                    an UNKNOWN verdict "xid_lost"
 *   "xid_ignored": { "not_kernel": 0, "not_driver": 0,
 *                    "unknown_device": 0 },  Xid text not counted, by why
 *                                    (struct sn_xid_counts): only the
 *                                    driver's kernel records for a GPU or
 *                                    NVSwitch of this node count
 *   "verdicts": [                    one per counter that has a threshold
 *     { "counter": "symbol_error",   and a known delta (port counters,
 *       "device": "mlx5_0/1",        then accelerator counters), then one
 *       "delta": 12,                 per Xid event of severity warn or
 *       "unit": "count"|"/h"|"/TB",  drain: counter "xid", device the bus
 *       "rate": 12.0,                id, "delta" 1, warn/crit null, and
 *       "over": 1.0 | null,          "xid": N, "meaning": "...", "kind"
 *       "actual": 0.003 | null,      added (grade WARN for warn, CRIT for
 *       "traffic": "received" | null, drain).  "traffic" (/TB only): the
 *                                    bytes "over" counts, "received",
 *                                    "sent" or "sent+received"
 *                                    (sn_counter_dir).
 *       "warn": 10 | null,           "rate" is the delta in the
 *       "crit": 120 | null,          unit, "over" the hours or TB it was
 *       "grade": "OK"|"WARN"|"CRIT", divided by (records/sn_rate.h),
 *       "raised_by": "hardware" |    "actual" the job's.  "raised_by":
 *         "driver" | "user",         the counter table's column; for
 *       "physical": "symbol_error"   "user" also "physical", a hardware
 *         | null,                    counter of the device that rose, and
 *       "capped": "over crit, ..."   "capped" when the grade was held at
 *         (only when held) },        WARN for want of one
 *     ... ],                         (sn_rate_grade_raised).  Per GPU also:
 *                                    "recovery_action" (unit "state", CRIT,
 *                                    "action" its name) when NVML's recovery
 *                                    action is not NONE; "nvlink_down"
 *                                    (count, CRIT, "links") for links active
 *                                    at the start and not at the end;
 *                                    "nvlink_effective_ber" (unit "BER",
 *                                    "rate" the BER, crit 1e-12).
 *                                    Last, UNKNOWN verdicts for Xid events
 *                                    not judged: counter "xid_scan" (the
 *                                    scan was not "ok": records lost, a
 *                                    bound, a restart, not read, no
 *                                    position; "delta" null) or "xid_lost"
 *                                    ("delta" the events), device "kmsg",
 *                                    "reason" the why
 *   "worst": "OK" | "WARN" | "UNKNOWN" | "CRIT",  (sn_grade order)
 *   "drain_reason": "supernode: EPILOG_SYMBOL_ERROR mlx5_0/1 +12000 in 2.0 h
 *                    = 6000/h (crit 120/h)" | null }
 *
 * A missing or corrupt baseline: every delta null with the reason "baseline
 * missing" / "baseline corrupt", no verdicts (so "worst" "OK"), no drain,
 * no Xid events.  A baseline of a newer format (a newer prolog, during a
 * rolling upgrade): the same with the reason "baseline of a newer format",
 * and one verdict: counter "baseline_format", device "baseline", grade
 * UNKNOWN, "reason" sn_baseline_newer_text() (so "worst" "UNKNOWN"; no
 * drain).  Ports and accelerators are listed from the end snapshot.
 * Bounds: SN_RECORD_MAX_PORTS ports, SN_MANIFEST_MAX_ACCELS accelerators,
 * SN_RECORD_MAX_COUNTERS counters per port (the rest left out).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "config/sn_config.h"
#include "config/sn_manifest.h"
#include "util/sn_error.h"
#include "records/sn_xid.h"

#define SN_RECORD_SCHEMA 1
#define SN_RECORD_MAX_PORTS 512
#define SN_RECORD_MAX_COUNTERS 512
#define SN_RECORD_MAX_XID 256 /* record-level Xid events kept */
#define SN_RECORD_MAX_XID_SEVERE \
	1024 /* distinct warn/drain Xid entries kept (each with a count) */
#define SN_RECORD_KMSG_CALLS 8 /* sn_kmsg_read_since() calls per epilog */

enum sn_baseline_status {
	SN_BASELINE_OK = 0,
	SN_BASELINE_MISSING, /* no file: the prolog did not run or failed */
	SN_BASELINE_CORRUPT, /* unreadable, not JSON, wrong schema or job */
	SN_BASELINE_NEWER,   /* "schema" above SN_BASELINE_SCHEMA: written by
			      * a newer prolog (rolling upgrade) */
};

/* sn_baseline_status_name - "ok", "missing", "corrupt", "newer". */
const char *sn_baseline_status_name(enum sn_baseline_status s);

/*
 * sn_baseline_format - the format major of a baseline document: its
 * integer "schema", 1 when it has none (etc/README.md, "Upgrading: mixed
 * versions"), -1 when doc is no object or "schema" is no integer.
 */
int64_t sn_baseline_format(const json_object *doc);

/*
 * sn_baseline_newer_text - "baseline written by a newer supernode-prolog
 * (format N), this epilog reads format 1: upgrade the epilog" into buf
 * (cut to size).  Returns the length it wanted, like snprintf.
 */
size_t sn_baseline_newer_text(const json_object *doc, char *buf, size_t size);

#define SN_BASELINE_JSON_DEPTH 32 /* nesting a baseline may have */

/*
 * sn_baseline_parse - parse and check a baseline document in memory (text
 * of len bytes, not necessarily NUL-terminated; at most
 * SN_BASELINE_MAX_BYTES; JSON nesting at most SN_BASELINE_JSON_DEPTH;
 * nothing but white space after it): schema 1, an integer "time", an
 * object "ports"; job_id equal to job_id unless job_id is 0.  No side
 * effects (a fuzzer's entry point).  Fields it does not know are ignored;
 * no "schema" reads as schema 1 (etc/README.md, "Upgrading: mixed
 * versions").  Returns SN_BASELINE_OK with *out a new object (caller puts
 * it); SN_BASELINE_NEWER when "schema" is above SN_BASELINE_SCHEMA, with
 * *out the document (caller puts it; nothing in it but "schema" is read,
 * for sn_baseline_newer_text); or SN_BASELINE_CORRUPT with *out NULL.
 */
enum sn_baseline_status sn_baseline_parse(const char *text, size_t len,
					  uint32_t job_id, json_object **out);

/*
 * sn_baseline_read - sn_baseline_parse() of the file path (absolute), read
 * through sn_safedir: its folders and the file are not followed when they
 * are symbolic links, must belong to root (or us), and the file must be a
 * regular file (a FIFO is refused without blocking) of at most
 * SN_BASELINE_MAX_BYTES.  A file (or folder) that does not exist gives
 * SN_BASELINE_MISSING; anything else that is wrong gives
 * SN_BASELINE_NEWER (*out as in sn_baseline_parse) with err "baseline
 * written by a newer supernode-prolog (format 2), ...: PATH"; anything
 * else that is wrong gives
 * SN_BASELINE_CORRUPT with err set, phrase first, path last: "not JSON:
 * unexpected character (at byte 17): PATH", "not a regular file (fifo):
 * PATH", "4194305 bytes, more than the limit of 4194304: PATH", "another
 * job's baseline: PATH", ...  err may be NULL.
 */
enum sn_baseline_status sn_baseline_read(const char *path, uint32_t job_id,
					 json_object **out,
					 struct sn_error *err);

/* sn_baseline_load - sn_baseline_read() without the message. */
enum sn_baseline_status sn_baseline_load(const char *path, uint32_t job_id,
					 json_object **out);

/*
 * struct sn_xid_counts - Xid events of a scan that are not in its events
 * array, by why (sn_record_collect_xids).
 */
struct sn_xid_counts {
	size_t dropped;	   /* record-level events past SN_RECORD_MAX_XID */
	size_t lost;	   /* warn/drain events past SN_RECORD_MAX_XID_SEVERE
				* distinct entries, or out of memory: the
				* record is UNKNOWN */
	size_t not_kernel; /* Xid text in a record of another facility
				* than the kernel's (user space) */
	size_t not_driver; /* Xid text in a kernel record that is not one
				* of the driver's lines from its first byte
				* (a fault naming a user's file) */
	size_t unknown_device; /* driver lines for a bus id that is no GPU
				* or NVSwitch of the baseline or end snapshot */
};

/*
 * struct sn_record_input - what the epilog knows about the job.  Nothing
 * is owned: sn_record_build() copies what it keeps.
 */
struct sn_record_input {
	uint32_t job_id;
	bool has_restart_count;	   /* "attempt", "restart_count" only if so */
	uint32_t restart_count;	   /* SLURM_JOB_RESTART_COUNT */
	const char *user;	   /* NULL: null */
	const char *node;	   /* this node's Slurm name */
	const char *supernode;	   /* NULL: null (node in no supernode) */
	const char *nodes;	   /* the job's node list; NULL: null */
	const char *prolog_failed; /* the prolog's drain reason; NULL: none */
	bool has_exit_code;
	int exit_code; /* as Slurm gives it */
	int signal;    /* with exit_code */
	bool has_derived;
	int derived_exit; /* SLURM_JOB_DERIVED_EC, a wait status, split */
	int derived_signal;
	int64_t end_time; /* seconds since the epoch */
	enum sn_baseline_status baseline_status;
	const json_object *baseline;   /* the parsed baseline when OK or NEWER,
					 * else NULL */
	const json_object *end;	       /* end snapshot: sn_baseline_collect()
					 * format; NULL = nothing read */
	const json_object *xid_events; /* array from sn_record_collect_xids();
					 * NULL = none */
	int xid_rc;		       /* its return value */
	struct sn_xid_counts xid_counts; /* its *counts */
};

/*
 * sn_record_build - the record of one job on this node (schema above),
 * judged with cfg->epilog thresholds; drain_reason uses cfg->drain_tag
 * ("supernode:" when NULL).  Returns a new object (caller puts it), or NULL
 * when out of memory.
 */
json_object *sn_record_build(const struct sn_config *cfg,
			     const struct sn_record_input *in);

/*
 * sn_record_xid_event - one parsed Xid event as a record entry, its
 * severity decided: a cfg->epilog.xid override wins; otherwise
 * sn_xid_event_info()'s default, where SN_XID_REMAP (Xid 63) drains only
 * when the end snapshot shows remapped_rows.pending or .failure for that
 * GPU (meaning then "row remap pending: reset the GPU" / "row remap
 * failure: RMA"), and is "record" otherwise.  end may be NULL.
 * Returns a new object, or NULL when out of memory.
 */
json_object *sn_record_xid_event(const struct sn_config *cfg,
				 const struct sn_xid_event *ev,
				 const json_object *end);

/*
 * sn_record_collect_xids - the Xid events logged in kmsg_path after the
 * baseline's "kmsg_seq" (sn_kmsg_read_since, sn_xid_scan_line per record),
 * each through sn_record_xid_event(), at most SN_RECORD_KMSG_CALLS reads.
 * A kmsg record counts only when its facility is the kernel's (0), it is
 * one of the driver's lines (sn_xid_scan_driver) and its bus id is a GPU
 * (accelerators.devices) or NVSwitch ("nvswitches") of baseline or end;
 * plain text lines (test input) are parsed leniently (sn_xid_scan_line).
 * Kept as "xid_events" says above; *counts gets the rest.
 * *events gets a new array (possibly empty) in every case.
 * Returns the SN_KMSG_* flags (>= 0), -ENODATA when the baseline has no
 * "kmsg_seq", or a negative errno from sn_kmsg_read_since().
 */
int sn_record_collect_xids(const struct sn_config *cfg, const char *kmsg_path,
			   const json_object *baseline, const json_object *end,
			   json_object **events, struct sn_xid_counts *counts);

/*
 * sn_record_drain_reason - the drain reason of a record into buf:
 *   "<tag> XID<n> <bus> <meaning>" for the first Xid verdict that is CRIT
 *   ("SXID<n>" for an NVSwitch SXid),
 *   else "<tag> GPU_RECOVERY_ACTION <bus> <action>" for a recovery action,
 *   else "<tag> EPILOG_<COUNTER> <device> +<delta> in <s> s = <rate>/h
 *   (crit <n>/h)" (or "in <x> TB = <rate>/TB", or "+<delta> (crit <n>)" for
 *   a count) for the CRIT verdict with the largest rate / crit,
 * plus " (+N more)" when other verdicts are CRIT (as sn_drain_reason()).
 * COUNTER is upper case.  One line, printable ASCII, at most SN_REASON_MAX
 * (200) bytes.  Returns the number of CRIT verdicts (0: buf empty, no drain).
 */
size_t sn_record_drain_reason(const json_object *record, const char *tag,
			      char *buf, size_t size);

#endif
