/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DELTA_H
#define SN_DELTA_H

/*
 * Counter deltas over a job: the rules that turn a start and an end value
 * into a number the epilog can trust, or into "unknown" with the reason.
 * Pure functions; no I/O.
 *
 * Each counter's width, unit (4-byte words for the data counters), 64-bit
 * sibling (port_xmit_data_64 beside port_xmit_data: when a port has it,
 * its bytes and packets come from it) and sources are in the one table of
 * config/sn_counters.h (sn_counter_bits, sn_counter_maybe_32bit,
 * sn_counter_word_bytes, sn_counter_wide); a name not in it is 64 bits.
 *
 * These counters SATURATE (they stop at their maximum), they do not wrap:
 *  - an end value at the counter's maximum gives an unknown delta
 *    ("saturated at its N-bit maximum"): the real count may be larger;
 *  - end < start gives an unknown delta ("counter reset during the job
 *    (end < start)"): a driver reload, a port reset or perfquery -R;
 *  - NVIDIA volatile ECC counters reset with the driver: same rule.
 * A value the counter cannot hold is a bad read, not a count:
 *  - a value above the counter's width (e.g. 2^64-1 in the 16-bit
 *    symbol_error) gives "value N at end exceeds the counter's 16-bit
 *    width", with " (all-ones: a dead device read)" when N is 2^64-1 or
 *    2^32-1; a 64-bit value of 2^64-1 gives "value N at end is all-ones (a
 *    dead device read)" (the kernel reads a dead PCI function as all ones);
 *  - a delta larger than the port (or accelerator) can physically produce
 *    in the job's duration gives an unknown delta too (sn_delta_plausible).
 * A delta is never negative nor a wrapped-around absurd number, and an
 * unknown delta is never judged, so it never drains.
 */
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "config/sn_counters.h"

#define SN_DELTA_WHY_MAX 160 /* a reason, with its NUL */

/*
 * struct sn_delta - one counter's change over the job.  A plain value: no
 * pointers, copied freely.
 * @known:       the value can be trusted
 * @value:       end - start (raw counter units, e.g. 4-byte words for
 *               port_xmit_data); 0 when !known
 * @why_unknown: why not ("" when known): "missing at start", "missing at
 *               end", "unreadable at start", "unreadable at end", "not a
 *               number at start", "not a number at end", "counter reset
 *               during the job (end < start)", "saturated at its 16-bit
 *               maximum", "value 70000 at end exceeds the counter's 16-bit
 *               width", ... (one line, truncated to fit)
 */
struct sn_delta {
	bool known;
	uint64_t value;
	char why_unknown[SN_DELTA_WHY_MAX];
};

/* sn_delta_unknown - an unknown delta with the reason why (copied). */
struct sn_delta sn_delta_unknown(const char *why);

/* How one side of a counter reads in a snapshot. */
enum sn_sample_state {
	SN_SAMPLE_OK = 0,     /* a non-negative integer */
	SN_SAMPLE_MISSING,    /* the key is absent (or the map is) */
	SN_SAMPLE_UNREADABLE, /* JSON null: the file/NVML call failed */
	SN_SAMPLE_NOT_NUMBER, /* any other JSON type, or negative */
};

/* One side of a counter: state and value (value valid when SN_SAMPLE_OK). */
struct sn_sample {
	enum sn_sample_state state;
	uint64_t value;
};

/*
 * sn_sample_get - read key of a JSON object map as a sample.  map may be
 * NULL or not an object (then MISSING).  An integer given as a JSON string
 * of decimal digits is NOT accepted (NOT_NUMBER): snapshots hold numbers.
 */
struct sn_sample sn_sample_get(const json_object *map, const char *key);

/*
 * sn_delta_rule - the rules above for counter name from two samples.
 * Checked in this order: the start sample (missing, unreadable, not a
 * number), the end sample (same), the start value beyond the counter's
 * width or all-ones, the end value (same), end at the maximum (saturated),
 * end < start (reset).
 */
struct sn_delta sn_delta_rule(const char *name, struct sn_sample start,
			      struct sn_sample end);

/*
 * sn_delta_counter - sn_delta_rule() on name looked up in two maps
 * (a port's "counters" or "hw_counters" object of the baseline and of the
 * end snapshot; either may be NULL = absent).
 */
struct sn_delta sn_delta_counter(const char *name, const json_object *start_map,
				 const json_object *end_map);

/*
 * sn_delta_bytes - a data counter's delta in bytes (x sn_counter_word_bytes);
 * unknown ("overflow") if it does not fit 64 bits; unknown stays unknown.
 */
struct sn_delta sn_delta_bytes(const char *name, struct sn_delta d);

/*
 * Physical ceilings (sn_delta_plausible).  A counter cannot count more
 * than the line carries, whatever the hardware:
 *  - SN_PORT_MAX_GBPS: the rate assumed for a port whose rate was not
 *    read: 1.6 Tb/s, above every port made today (NDR 4X 400 Gb/s, XDR 4X
 *    800 Gb/s, 800GbE), so it only catches the absurd;
 *  - SN_ACCEL_MAX_GBPS: the same for an accelerator's counters (ECC,
 *    PCIe replays, NVLink): 100 Tb/s, above the memory bandwidth of any GPU
 *    (H200 HBM3e 4.8 TB/s = 38.4 Tb/s) and its NVLink (NVLink 5: 1.8 TB/s =
 *    14.4 Tb/s), and no error can occur more than once per bit moved;
 *  - SN_DELTA_RATE_MARGIN: the line rate is multiplied by it (a port read
 *    at a lower rate than it ran at for part of the job, header bytes);
 *  - SN_DELTA_CLOCK_SLACK_S: seconds added to the job's duration (the
 *    start and end times are whole seconds, read a moment before or after
 *    the counters).
 */
#define SN_PORT_MAX_GBPS 1600.0
#define SN_ACCEL_MAX_GBPS 100000.0
#define SN_DELTA_RATE_MARGIN 2.0
#define SN_DELTA_CLOCK_SLACK_S 2

/*
 * sn_delta_ceiling - the largest delta counter name can reach in seconds
 * (negative counts as 0) on a line of gbps (<= 0 or not finite:
 * SN_PORT_MAX_GBPS; at most SN_ACCEL_MAX_GBPS).  Data counters (4-byte words):
 * (seconds + SN_DELTA_CLOCK_SLACK_S) x gbps x SN_DELTA_RATE_MARGIN x 1e9 / 8
 * / 4; every other counter: one event per bit, the same x 8 x 4.
 * Saturates at UINT64_MAX.
 */
uint64_t sn_delta_ceiling(const char *name, int64_t seconds, double gbps);

/*
 * sn_delta_plausible - d, or an unknown delta when d is known and above
 * sn_delta_ceiling(): "delta 250000000000000 words in 100 s is more than a
 * 400 Gb/s line can carry (physically impossible)" for data counters,
 * "delta N in S s is more than one event per bit at R Gb/s (physically
 * impossible)" for the others.  An unknown d is returned as it is.
 */
struct sn_delta sn_delta_plausible(const char *name, struct sn_delta d,
				   int64_t seconds, double gbps);

/*
 * Accelerator counters, from sn_accel_counters_json()'s device objects: the
 * SN_COUNTER_ACCEL rows of sn_counters (names as the epilog config's
 * thresholds): ecc_uncorrected and ecc_corrected (NVML volatile ECC totals,
 * reset with the driver), pcie_replay (pcie_replay_counter, 32-bit),
 * nvlink_replay, nvlink_recovery, nvlink_crc_flit, nvlink_crc_data (NVML
 * per-link 64-bit error counters, summed over the GPU's links).
 */
/*
 * sn_delta_accel - the delta of accelerator counter name (an
 * SN_COUNTER_ACCEL row's) between a GPU's start and end objects (either
 * NULL = GPU absent then).  NVLink sums: a link whose counter is null or
 * absent at both start and end (not readable, e.g. an unused link) is left
 * out; any other link whose delta is unknown makes the sum unknown
 * ("nvlink: <why>"); the sum saturates to unknown ("overflow").
 * Returns false (and leaves *out untouched) when the counter does not
 * exist on this GPU at either end (no NVLink, not an NVIDIA device).
 */
bool sn_delta_accel(const char *name, const json_object *start_dev,
		    const json_object *end_dev, struct sn_delta *out);

/*
 * sn_json_get - o[key] when o is a JSON object and that member has type t,
 * else NULL.  Borrowed reference (owned by o).
 */
json_object *sn_json_get(const json_object *o, const char *key, json_type t);

#endif
