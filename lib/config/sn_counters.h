/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_COUNTERS_H
#define SN_COUNTERS_H

/*
 * What the project knows about each counter it reads, written once: one row
 * per counter (counters.c).  Everything else reads this table: the config
 * loader (which names a threshold may take, and their default limits), the
 * epilog's deltas (width, 4-byte words, the 64-bit sibling), its record
 * (which accelerator counters exist), the Prometheus textfile (family names)
 * and supernodectl report (error or traffic).  It sits in config/ because
 * the config loader validates threshold names against it and config/ may
 * call nothing above it.
 *
 * Sources of the widths: InfiniBand port counters (sysfs ports/<n>/counters/,
 * kernel Documentation/ABI/stable/sysfs-class-infiniband) are the Performance
 * Management Agent's PortCounters (IBTA spec vol. 1, 16.1.3.5) with their
 * field widths.  The data and packet counters are 64-bit when the kernel
 * reads PortCountersExtended and 32-bit otherwise (maybe_32bit).
 * port_{xmit,rcv}_data count 4-byte words (ABI doc: "divided by 4"), and so
 * do their _64 forms in counters_ext/ (mlx4, RHEL 7 era: the same PMA field,
 * only wider; node_exporter multiplies them by 4 too).  RoCE hw_counters/,
 * the accelerator's NVML counters, and any name not in the table: 64 bits
 * (pcie_replay: nvmlDeviceGetPcieReplayCounter gives an unsigned int, 32).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a counter is read. */
enum sn_counter_source {
	SN_COUNTER_IB = 0, /* ports/<n>/counters/ or counters_ext/ */
	SN_COUNTER_ROCE,   /* ports/<n>/hw_counters/ */
	SN_COUNTER_ACCEL,  /* an accelerator's (sn_accel_counters_json) */
};

/* What a counter measures. */
enum sn_counter_kind {
	SN_COUNTER_ERROR = 0, /* errors: summed as such by report */
	SN_COUNTER_TRAFFIC,   /* traffic or congestion: shown, not summed */
};

/*
 * Which traffic a counter grows with, for a per-TB rate (IBTA PortCounters,
 * vol. 1 16.1.3.5): a receive-side counter counts what arrived (PortRcv*,
 * "incoming VL15 packets dropped", overruns of the input buffer), a
 * transmit-side one what left (PortXmitDiscards, PortXmitConstraintErrors).
 */
enum sn_counter_dir {
	SN_COUNTER_BOTH = 0, /* sent plus received (and unknown) */
	SN_COUNTER_RX,	     /* received bytes only */
	SN_COUNTER_TX,	     /* sent bytes only */
};

/*
 * Who can make a counter move (issue 17 item 4), the column the epilog's
 * decision reads (records/sn_rate.h, sn_rate_grade_raised):
 *  - SN_RAISED_HARDWARE: only the hardware or its link (a bad cable,
 *    transceiver, port, memory cell): the physical-layer counters of a
 *    port and the GPU's ECC, PCIe and NVLink error counters.  No program of
 *    a user can make them move on a healthy device: they judge alone;
 *  - SN_RAISED_DRIVER: the driver, its firmware or the subnet manager,
 *    never a user's program (VL15_dropped: subnet management packets, sent
 *    and received by QP0, which only the kernel owns): they judge alone;
 *  - SN_RAISED_USER: any user's traffic on a healthy port: a transport
 *    counter of every QP on the port (an unprivileged verbs loop that
 *    never answers, never posts receives or sends out of order), or
 *    congestion the job itself makes (incast).  Such a counter never
 *    drains alone: over its crit it is CRIT only when a hardware counter
 *    of the same device moved during the job too, else WARN.
 * Where in doubt, a row says SN_RAISED_USER: it then warns instead of
 * draining, which a user cannot turn into a drain of their own nodes.
 */
enum sn_counter_raiser {
	SN_RAISED_USER = 0, /* the default of a row that forgot to say */
	SN_RAISED_DRIVER,
	SN_RAISED_HARDWARE,
};

/* SN_COUNTER_NO_LIMIT - a default warn or crit that is not set. */
#define SN_COUNTER_NO_LIMIT (-1)

/*
 * The unit of a threshold (config: "crit: 1", "warn: 10/h", "crit: 100/TB").
 *  - SN_UNIT_COUNT: events per job, an absolute floor: only for events that
 *    are fatal on their first step (a link that went down, an uncorrectable
 *    ECC error, a failed link recovery);
 *  - SN_UNIT_PER_HOUR: events per hour of the job (error counters);
 *  - SN_UNIT_PER_TB: events per TB (10^12 bytes) the device moved (errors
 *    that grow with traffic: CRC, receive errors): sent plus received, or
 *    only received (only sent) for a counter of one direction (@dir).
 * How a rate is taken over a short job: records/sn_rate.h.
 */
enum sn_rate_unit {
	SN_UNIT_COUNT = 0,
	SN_UNIT_PER_HOUR,
	SN_UNIT_PER_TB,
};

/*
 * SN_COUNTER_NVLINK4_VERSION - NVML's nvmlNvlinkVersion_t code of NVLink
 * 4.0 (NVML_NVLINK_VERSION_4_0 = 6: Hopper, H100/H200); 5.0 (Blackwell) is
 * 7.  A row with legacy_nvlink is judged only on a GPU whose NVLink version
 * is known and below this, and recorded as information from it on and
 * where the version is not known.
 */
#define SN_COUNTER_NVLINK4_VERSION 6

/*
 * struct sn_counter - one counter.  Static, read-only.
 * @name:        as sysfs names it, or the accelerator delta's name; the
 *               name a threshold takes ("symbol_error", "ecc_uncorrected")
 * @source:      where it is read
 * @kind:        error or traffic
 * @bits:        width in bits: 4, 8, 16, 32 or 64
 * @maybe_32bit: 64 bits with PortCountersExtended, 32 without: a value of
 *               2^32-1 counts as saturated
 * @word_bytes:  bytes per counted unit (4 for the data counters, else 1)
 * @wide:        the 64-bit form a port may have beside it (counters_ext/),
 *               the one to use when present; NULL if none
 * @judged:      a threshold may name it (the config refuses other names)
 * @unit:        the unit of its default limits, and the only unit in which
 *               the config may give a bare number (SN_UNIT_COUNT); a rate
 *               row's bare number is refused (config_epilog.c)
 * @warn, @crit: default limits in @unit (SN_COUNTER_NO_LIMIT: none;
 *               neither: judged only when the config gives a limit)
 * @dir:         the traffic a per-TB rate of it is taken over
 * @raised_by:   who can make it move (enum sn_counter_raiser)
 * @legacy_nvlink: SN_COUNTER_ACCEL only: a legacy per-link NVLink counter
 *               (nvmlDeviceGetNvLinkErrorCounter), judged below NVLink 4.0
 *               only: from Hopper on (and where the version is not known)
 *               it is recorded as information, as it counts corrected
 *               events there (SN_COUNTER_NVLINK4_VERSION)
 * @prom:        its Prometheus family in supernode.prom
 * @key:         SN_COUNTER_ACCEL only: its key in the snapshot's device
 *               object, or in each of its "nvlink" link objects
 * @per_link:    SN_COUNTER_ACCEL only: read per NVLink link (summed for
 *               the delta, one sample per link in supernode.prom)
 * @help:        SN_COUNTER_ACCEL only: the family's # HELP text
 */
struct sn_counter {
	const char *name;
	enum sn_counter_source source;
	enum sn_counter_kind kind;
	unsigned bits;
	bool maybe_32bit;
	unsigned word_bytes;
	const char *wide;
	bool judged;
	enum sn_rate_unit unit;
	double warn, crit;
	enum sn_counter_dir dir;
	enum sn_counter_raiser raised_by;
	bool legacy_nvlink;
	const char *prom;
	const char *key;
	bool per_link;
	const char *help;
};

/*
 * sn_counters - the table: the counters a threshold may name first (in the
 * order the config's message lists them), then the others; the accelerator
 * rows in the order of the record and supernode.prom.  sn_counters_count
 * rows.
 */
extern const struct sn_counter sn_counters[];
extern const size_t sn_counters_count;

/* sn_counter_find - the row of name (exact, case-sensitive); NULL if none. */
const struct sn_counter *sn_counter_find(const char *name);

/* sn_counter_bits - the row's bits; 64 for a name not in the table. */
unsigned sn_counter_bits(const char *name);

/* sn_counter_maybe_32bit - the row's maybe_32bit; false if not in the table. */
bool sn_counter_maybe_32bit(const char *name);

/* sn_counter_word_bytes - the row's word_bytes; 1 if not in the table. */
unsigned sn_counter_word_bytes(const char *name);

/* sn_counter_wide - the row's wide form; NULL if none or not in the table. */
const char *sn_counter_wide(const char *name);

/* sn_counter_is_error - true unless the row says traffic (unknown: error). */
bool sn_counter_is_error(const char *name);

/* sn_counter_dir - the row's dir; SN_COUNTER_BOTH if not in the table. */
enum sn_counter_dir sn_counter_dir(const char *name);

/*
 * sn_counter_raised_by - the row's raised_by; SN_RAISED_USER for a name
 * not in the table (nothing says the hardware alone moves it).
 */
enum sn_counter_raiser sn_counter_raised_by(const char *name);

/* sn_counter_raiser_name - "hardware", "driver", "user". Static. */
const char *sn_counter_raiser_name(enum sn_counter_raiser r);

/* sn_rate_unit_name - "" (count), "/h", "/TB". Static. */
const char *sn_rate_unit_name(enum sn_rate_unit u);

#endif
