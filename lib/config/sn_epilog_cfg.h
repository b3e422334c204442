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
 *   thresholds:                  # per job, on the delta of one port/GPU counter
 *     symbol_error: {warn: 10, crit: 1000}
 *     link_downed: {crit: 1}
 *   xid:                         # override the default severity of an Xid
 *     drain: [79, 48]
 *     warn: [92]
 *     record: [94, 13]
 *
 * Counter names are the judged rows of the one counter table,
 * config/sn_counters.h: IB PortCounters (counters/), some RoCE
 * hw_counters/, and the accelerator deltas (ecc_uncorrected, ecc_corrected,
 * pcie_replay, nvlink_replay, nvlink_recovery, nvlink_crc_flit,
 * nvlink_crc_data), each with its default limits.  Any other name is
 * refused with the list: it would never be applied.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SN_EPILOG_MAX_THRESHOLDS 128
#define SN_EPILOG_MAX_XID 256

/* One counter's per-job limits; a limit not given is not checked. */
struct sn_threshold {
	char *counter; /* "symbol_error" */
	bool has_warn, has_crit;
	uint64_t warn; /* delta >= warn: WARN */
	uint64_t crit; /* delta >= crit: CRIT, drains */
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
