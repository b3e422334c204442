/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DELTA_H
#define SN_DELTA_H

/*
 * Counter deltas over a job: the rules that turn a start and an end value
 * into a number the epilog can trust, or into "unknown" with the reason.
 * Pure functions; no I/O.
 *
 * InfiniBand port counters (sysfs ports/<n>/counters/, kernel
 * Documentation/ABI/stable/sysfs-class-infiniband) are the Performance
 * Management Agent's PortCounters (IBTA spec vol. 1, 16.1.3.5) with their
 * field widths: symbol_error 16 bits, link_error_recovery 8, link_downed 8,
 * port_rcv_errors 16, port_rcv_remote_physical_errors 16,
 * port_rcv_switch_relay_errors 16, port_xmit_discards 16,
 * port_xmit_constraint_errors 8, port_rcv_constraint_errors 8,
 * local_link_integrity_errors 4, excessive_buffer_overrun_errors 4,
 * VL15_dropped 16, port_xmit_wait 32.  The data and packet counters
 * (port_{xmit,rcv}_{data,packets}, {unicast,multicast}_{xmit,rcv}_packets)
 * are 64-bit when the kernel reads PortCountersExtended and 32-bit
 * otherwise, so a value of 2^32-1 counts as saturated for them.
 * port_{xmit,rcv}_data count 4-byte words (ABI doc: "divided by 4").
 * RoCE hw_counters/ and names not in the table: 64 bits.
 *
 * These counters SATURATE (they stop at their maximum), they do not wrap:
 *  - an end value at the counter's maximum gives an unknown delta
 *    ("saturated at its N-bit maximum"): the real count may be larger;
 *  - end < start gives an unknown delta ("counter reset during the job
 *    (end < start)"): a driver reload, a port reset or perfquery -R;
 *  - NVIDIA volatile ECC counters reset with the driver: same rule.
 * A delta is never negative nor a wrapped-around absurd number.
 */
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * struct sn_delta - one counter's change over the job.
 * @known:       the value can be trusted
 * @value:       end - start (raw counter units, e.g. 4-byte words for
 *               port_xmit_data); 0 when !known
 * @why_unknown: static string naming why not (NULL when known): "missing
 *               at start", "missing at end", "unreadable at start",
 *               "unreadable at end", "not a number at start", "not a
 *               number at end", "counter reset during the job (end <
 *               start)", "saturated at its 16-bit maximum", ...
 */
struct sn_delta {
	bool known;
	uint64_t value;
	const char *why_unknown;
};

/* How one side of a counter reads in a snapshot. */
enum sn_sample_state {
	SN_SAMPLE_OK = 0,	/* a non-negative integer */
	SN_SAMPLE_MISSING,	/* the key is absent (or the map is) */
	SN_SAMPLE_UNREADABLE,	/* JSON null: the file/NVML call failed */
	SN_SAMPLE_NOT_NUMBER,	/* any other JSON type, or negative */
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
 * sn_counter_bits - the width in bits of counter name (the table above):
 * 4, 8, 16, 32 or 64.  For the data/packet counters it returns 64 and
 * sn_counter_maybe_32bit() is true.  Unknown names: 64.
 */
unsigned sn_counter_bits(const char *name);

/* sn_counter_maybe_32bit - true for counters that are 32-bit on old PMAs. */
bool sn_counter_maybe_32bit(const char *name);

/*
 * sn_counter_word_bytes - bytes per counted unit: 4 for port_xmit_data and
 * port_rcv_data (4-byte words), else 1.
 */
unsigned sn_counter_word_bytes(const char *name);

/*
 * sn_delta_rule - the rules above for counter name from two samples.
 * Checked in this order: the start sample (missing, unreadable, not a
 * number), the end sample (same), end at the maximum (saturated), end <
 * start (reset).
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
 * Accelerator counters, from sn_accel_counters_json()'s device objects.
 * Names (as the epilog config's thresholds): ecc_corrected and
 * ecc_uncorrected (NVML volatile ECC totals, reset with the driver),
 * pcie_replay (pcie_replay_counter, 32-bit), nvlink_replay,
 * nvlink_recovery, nvlink_crc_flit, nvlink_crc_data (NVML per-link 64-bit
 * error counters, summed over the GPU's links).
 */
#define SN_ACCEL_DELTA_COUNT 7
extern const char *const sn_accel_delta_names[SN_ACCEL_DELTA_COUNT];

/*
 * sn_delta_accel - the delta of accelerator counter name (one of
 * sn_accel_delta_names) between a GPU's start and end objects (either
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
