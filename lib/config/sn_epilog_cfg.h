/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_EPILOG_CFG_H
#define SN_EPILOG_CFG_H

/*
 * The epilog: section of supernode.yaml (config_epilog.c):
 *
 * epilog:
 *   record_dir: /var/lib/supernode/records   # <jobid>/<node>.json; may be shared
 *   textfile_dir: /var/lib/prometheus/node-exporter   # optional: supernode.prom
 *   timeout: 30                  # seconds for the whole epilog
 *   thresholds:                  # on the delta of one port/GPU counter
 *     symbol_error: {warn: 10/h, crit: 120/h}   # per hour of the job
 *     port_rcv_errors: {warn: 10/TB}            # per TB the port moved
 *     link_downed: {crit: 1}                    # a count: an absolute floor
 *   xid:                         # override the default severity of an Xid
 *     drain: [79, 48]
 *     warn: [92]
 *     record: [94, 13]
 *
 * Counter names are the judged rows of the one counter table,
 * config/sn_counters.h: IB PortCounters (counters/), some RoCE
 * hw_counters/, and the accelerator deltas (ecc_uncorrected, ecc_corrected,
 * pcie_replay, nvlink_replay, nvlink_recovery, nvlink_crc_flit,
 * nvlink_crc_data, the NVLink field counters), each with its default limits
 * and unit.  Any other name is refused with the list: it would never be
 * applied.
 *
 * A limit is "N/h" (per hour), "N/TB" (per 10^12 bytes moved) or a bare
 * "N" (a count per job, an absolute floor); N is a decimal number above 0
 * ("2.5/h").  A bare number is accepted only for a counter whose default
 * unit is a count (link_downed, local_link_integrity_errors,
 * excessive_buffer_overrun_errors, ecc_uncorrected, nvlink_recovery_failed):
 * for a rate counter it is refused with a message naming file, line, key
 * and how to write it now (the per-job numbers of before issue 12 are not
 * rates, so they are not silently reread as ones).  warn and crit of one
 * counter take the same unit.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_counters.h"

#define SN_EPILOG_MAX_THRESHOLDS 128
#define SN_EPILOG_MAX_XID 256

/*
 * One counter's limits; a limit not given is not checked.  The rate
 * compared with them: records/sn_rate.h.
 */
struct sn_threshold {
	char *counter;		/* "symbol_error" */
	enum sn_rate_unit unit; /* of both limits */
	bool has_warn, has_crit;
	double warn; /* rate (or count) >= warn: WARN */
	double crit; /* rate (or count) >= crit: CRIT, drains */
};

/* Xid severity as the config may set it (matches enum sn_xid_severity). */
enum sn_xid_action {
	SN_XID_ACTION_RECORD = 0,
	SN_XID_ACTION_WARN,
	SN_XID_ACTION_DRAIN,
};

struct sn_xid_override {
	unsigned xid;
	enum sn_xid_action action;
};

struct sn_epilog_settings {
	char *record_dir; /* may hold %n; default /var/lib/supernode/records */
	char *textfile_dir;		 /* NULL: no Prometheus textfile */
	uint32_t timeout_s;		 /* default 30 */
	struct sn_threshold *thresholds; /* config first, then defaults */
	size_t n_thresholds;
	struct sn_xid_override *xid;
	size_t n_xid;
};

/*
 * sn_threshold_find - the limits for counter (NULL: none, not judged).
 * The defaults (README: "Epilog") apply unless the config names the counter.
 */
const struct sn_threshold *sn_threshold_find(const struct sn_epilog_settings *e,
					     const char *counter);

#endif
