/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_BASELINE_H
#define SN_BASELINE_H

/*
 * The prolog's baseline: what the epilog needs to compute a job's deltas.
 * One JSON document per job, state_dir/baseline/<jobid>.json, written
 * atomically (sn_safedir_write), so prologs of different jobs on one node
 * never touch each other's file.  Schema (version 1):
 *
 *   { "schema": 1, "job_id": 123, "node": "gpu-a001", "time": 1764430000,
 *     "kmsg_seq": 4711,                 (null if the log could not be read)
 *     "ports": { "mlx5_0/1": { "counters": {NAME: n|null},
 *                              "counters_ext": {NAME: n|null},  (only if
 *                                          the port has counters_ext/)
 *                              "hw_counters": {NAME: n|null},
 *                              "link_layer": "InfiniBand"|"Ethernet"|null,
 *                              "rate_gbps": 400.0|null }, ... },
 *     "nvswitches": ["0000:05:00.0", ...],  (sysfs, sn_accel_nvswitch_scan:
 *                                 the NVSwitches an SXid may name)
 *     "accelerators": { ... sn_accel_counters_json() ... } }
 */
#include <stdint.h>

#include "config/sn_checkctx.h"

#define SN_BASELINE_SCHEMA 1
#define SN_BASELINE_MAX_BYTES (4u << 20)

/*
 * sn_baseline_collect - the baseline document as a JSON string
 * (malloc()ed; caller frees), or NULL.  Reads sysfs, NVML and the kernel
 * log: run it under a time limit (sn_baseline_save does).
 */
char *sn_baseline_collect(const struct sn_check_ctx *ctx, uint32_t job_id);

/* sn_baseline_path - state_dir/baseline/<jobid>.json into buf; 0 or -1. */
int sn_baseline_path(const struct sn_check_ctx *ctx, uint32_t job_id, char *buf,
		     size_t size);

/*
 * sn_baseline_snapshot - sn_baseline_collect() in a child limited to
 * timeout_ms (NVML can hang).  Returns the document (malloc()ed, *len
 * bytes, at most SN_BASELINE_MAX_BYTES; caller frees) or NULL with err set.
 * The epilog takes its end snapshot with it.
 */
char *sn_baseline_snapshot(const struct sn_check_ctx *ctx, uint32_t job_id,
			   uint32_t timeout_ms, size_t *len,
			   struct sn_error *err);

/*
 * sn_baseline_save - collect in a child limited to timeout_ms and write the
 * file atomically into state_dir/baseline/, a trusted folder (sn_safedir:
 * created 0700, no symbolic link followed, refused when a user owns it or
 * may write it); temporaries of killed prologs there are swept first.
 * Returns 0, or -1 with err set (nothing written; the job's old baseline
 * is gone).
 */
int sn_baseline_save(const struct sn_check_ctx *ctx, uint32_t job_id,
		     uint32_t timeout_ms, struct sn_error *err);

/*
 * sn_baseline_remove - remove the job's baseline (the epilog, once it has
 * served) through the same trusted folder.  Returns 0 (also when there is
 * none), or -1 with err set.
 */
int sn_baseline_remove(const struct sn_check_ctx *ctx, uint32_t job_id,
		       struct sn_error *err);

#endif
