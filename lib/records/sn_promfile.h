/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PROMFILE_H
#define SN_PROMFILE_H

/*
 * This node's cumulative figures as a Prometheus textfile for
 * node_exporter's textfile collector (--collector.textfile.directory):
 * <textfile_dir>/supernode.prom, text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): a
 * "# HELP" and a "# TYPE" line before each family, all samples of a family
 * together, label values escaped (\\, \", \n), names per
 * https://prometheus.io/docs/practices/naming/ (snake_case, base units,
 * _total on counters).
 *
 * Families (the raw counters as read now, so rate() works across jobs):
 *   supernode_port_<name>_total{device="mlx5_0",port="1"}   counter
 *       one per file of counters/, counters_ext/ and hw_counters/: the
 *       counter's "prom" in config/sn_counters.h, or for a name not in that
 *       table <name> the sysfs name in lower case without a leading "port_"
 *       (symbol_error, rcv_errors, xmit_discards, vl15_dropped,
 *       out_of_sequence, ...); a name whose family an earlier group already
 *       gave is left out;
 *   supernode_port_transmit_bytes_total / supernode_port_receive_bytes_total
 *       port_xmit_data_64 / port_rcv_data_64 x 4 when the port has them,
 *       else port_xmit_data / port_rcv_data x 4 (4-byte words, kernel ABI
 *       doc);
 *   supernode_gpu_ecc_uncorrected_errors_total{bus_id}   volatile ECC
 *   supernode_gpu_ecc_corrected_errors_total{bus_id}     (reset with the driver)
 *   supernode_gpu_pcie_replays_total{bus_id}
 *   supernode_gpu_nvlink_{replay,recovery,crc_flit,crc_data}_errors_total
 *       {bus_id,link}
 *   supernode_xid_events_total{xid="79"}     Xid events seen by the epilog
 *   supernode_epilog_jobs_total              epilog runs that wrote a record
 *   supernode_epilog_drains_total            of those, runs that drained
 *   supernode_epilog_last_run_timestamp_seconds   gauge
 * A null value (unreadable) gives no sample.
 *
 * The cross-job totals live in <textfile_dir>/.supernode-state.json
 * ({"schema": 1, "jobs": n, "drains": n, "xid": {"79": n}}), updated
 * under the lock <textfile_dir>/.supernode-state.lock and written
 * atomically; a missing or corrupt state starts from zero.  Its loader
 * is the json-c tokener on the file's bytes (depth SN_PROM_STATE_DEPTH):
 * sn_promfile_state_add() takes whatever object it gives.
 */
#include <stdint.h>

#include <json-c/json.h>

#include "util/sn_error.h"

#define SN_PROM_FILE "supernode.prom"
#define SN_PROM_STATE_FILE ".supernode-state.json"
#define SN_PROM_LOCK_FILE ".supernode-state.lock"
#define SN_PROM_MAX_BYTES (8u << 20) /* rendered text, at most */
#define SN_PROM_STATE_MAX_BYTES (1u << 20)
#define SN_PROM_STATE_DEPTH 8 /* JSON nesting of the state file */
#define SN_PROM_MAX_XIDS 1024 /* distinct Xid numbers kept in the state */
#define SN_PROM_LOCK_WAIT_MS 5000

/*
 * sn_promfile_state_add - add one job to the state (a JSON object as in the
 * file; a non-object or NULL is treated as empty): jobs + 1, drains + 1
 * when the record has a non-null "drain_reason", xid[N] + 1 for each of
 * its "xid_events".  Returns a new state object (caller puts it) or NULL
 * when out of memory.
 */
json_object *sn_promfile_state_add(const json_object *state,
				   const json_object *record);

/*
 * sn_promfile_render - the textfile for an end snapshot (sn_baseline_collect
 * format; NULL: no port or GPU families) and a state, with now as the last
 * run time (seconds since the epoch).  Families appear in the order listed
 * above, ports sorted by "device/port", GPUs by bus id, Xids by number.
 * Returns a malloc()ed NUL-terminated string (caller frees), or NULL when
 * out of memory or over SN_PROM_MAX_BYTES.
 */
char *sn_promfile_render(const json_object *snapshot, const json_object *state,
			 int64_t now);

/*
 * sn_promfile_update - the epilog's step: open textfile_dir (created 0755)
 * as a trusted folder (sn_safedir: no symbolic link followed, refused when
 * a user owns it or may write it without the sticky bit), take the lock,
 * sweep the temporaries of killed epilogs, read the state (a regular file
 * of root's; missing, oversized or not JSON: start from zero), add record
 * (may be NULL: no job counted, e.g. a run without a record), write the
 * state and then <textfile_dir>/supernode.prom atomically (mode 0644).
 * Returns 0, or -1 with err set (a refused folder, a lock timeout, an
 * unwritable folder); the old files stay whole then.
 */
int sn_promfile_update(const char *textfile_dir, const json_object *snapshot,
		       const json_object *record, int64_t now,
		       struct sn_error *err);

#endif
