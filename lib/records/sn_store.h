/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_STORE_H
#define SN_STORE_H

/*
 * Where the epilog's records live, written once per attempt of a job:
 * record_dir/<jobid>/<node>.json for its first attempt (Slurm's restart
 * count 0), record_dir/<jobid>/attempt-<N>/<node>.json for attempt N >= 2
 * (a requeued job keeps its id), so a later attempt never replaces an
 * earlier one's record, and a supernodectl that predates attempts still
 * reads the first attempt where it always did (it skips the attempt-N
 * folders: no "<node>.json" name).  record_dir may hold %n and %h,
 * expanded per node; it may be shared storage written by many nodes.  The epilog writes through sn_store_write
 * (trusted folders, atomic); supernodectl finds records through the paths
 * and the bounded scans here.  No other file builds these paths.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "util/sn_error.h"

#define SN_STORE_SUFFIX ".json" /* <node>.json */
#define SN_STORE_NODE_MAX 255	/* bytes of a node name in a file name */
#define SN_STORE_PENDING_DIR "records-pending" /* in state_dir */
#define SN_STORE_PENDING_MAX 16 /* notes looked at per sn_store_write() */
#define SN_STORE_ATTEMPT_PREFIX "attempt-" /* attempt-<N>, N >= 2 */
#define SN_STORE_ATTEMPT_MAX 65536u /* Slurm's restart count + 1, at most */

/*
 * sn_store_attempt_of - the attempt a job folder's entry holds:
 * "attempt-<N>" with N 2..SN_STORE_ATTEMPT_MAX in decimal (no sign, no
 * leading zero) gives N; anything else 0.
 */
uint32_t sn_store_attempt_of(const char *name);

/*
 * sn_store_dir - record_dir (a config template) expanded for node on host
 * (sn_path_expand: %n, %h) into buf.  Returns 0, or -1 when it does not
 * fit or names a %n/%h that is NULL.
 */
int sn_store_dir(const char *record_dir, const char *node, const char *host,
		 char *buf, size_t size);

/*
 * sn_store_job_dir - "<dir>/<job>" (dir expanded) into buf.  Returns 0, or
 * -1 when it does not fit.
 */
int sn_store_job_dir(const char *dir, int64_t job, char *buf, size_t size);

/*
 * sn_store_path - "<dir>/<job>/<node>.json", the record of node for job,
 * into buf.  Returns 0, or -1 when it does not fit.
 */
int sn_store_path(const char *dir, int64_t job, const char *node, char *buf,
		  size_t size);

/*
 * sn_store_node_ok - node is a name safe as a file name: 1 to
 * SN_STORE_NODE_MAX bytes of [A-Za-z0-9_.-], not starting with '.' or '-'.
 */
bool sn_store_node_ok(const char *node);

/*
 * sn_store_node_of - the node whose record the file name is: "<node>.json"
 * with sn_store_node_ok(node), into node (size bytes).  False for anything
 * else (".", "..", "n.json.123.tmp", "a b.json", an over-long name).
 */
bool sn_store_node_of(const char *file, char *node, size_t size);

/*
 * sn_store_visit_fn - called by sn_store_scan_job for each record file:
 * path "<dir>/<job>/<node>.json" and its node.  Return 0 to go on, < 0 to
 * stop the scan.
 */
typedef int (*sn_store_visit_fn)(const char *path, const char *node, void *arg);

/*
 * sn_store_scan_job - visit each record file of job in dir (the names
 * sn_store_node_of takes; other entries are skipped), in directory order,
 * then those of each attempt-<N> folder in it (sn_store_attempt_of),
 * looking at most max_entries entries in all (*truncated set when more were
 * there; truncated may be NULL).  Returns the number visited, or -1 with
 * errno set when the job folder cannot be listed (a folder that does not
 * exist is no error: 0).
 */
long sn_store_scan_job(const char *dir, int64_t job, size_t max_entries,
		       sn_store_visit_fn fn, void *arg, bool *truncated);

/*
 * sn_store_jobs - the job ids of dir's job folders (entries whose whole
 * name is a number >= 1), largest (newest) first, at most max (*truncated
 * set when dir holds more; the first max listed are kept).  *ids gets a
 * malloc()ed array (caller frees; NULL when *n is 0).  Returns 0 (also
 * when dir does not exist: *n 0), or -1 with errno set (cannot list, out
 * of memory).
 */
int sn_store_jobs(const char *dir, size_t max, int64_t **ids, size_t *n,
		  bool *truncated);

/*
 * sn_store_write - write record as record_dir/<job_id>/<node>.json (attempt
 * 1) or record_dir/<job_id>/attempt-<attempt>/<node>.json (attempt 2 to
 * SN_STORE_ATTEMPT_MAX) (mode 0644; record_dir already expanded,
 * absolute).  attempt 0 (Slurm gave no restart count) writes where attempt
 * 1 does, but only when no record is there yet (err "a record of an
 * earlier attempt is there, kept: PATH" otherwise).  record_dir, the job's
 * folder and the attempt's are opened (created 0755) as trusted folders
 * and the file written atomically through sn_safedir (no symbolic link followed, nothing written
 * into a folder a user owns or may write without the sticky bit; a planted
 * link or a user's folder is refused and left untouched).
 *
 * A killed epilog leaves "<node>.json.<pid>.tmp" in its job's folder, which
 * no later epilog of another job opens.  So while it writes, the writer
 * keeps a note "<job_id>.<pid>" in state_dir/SN_STORE_PENDING_DIR (this
 * node's, root's; state_dir may be NULL: no notes), and every call first
 * sweeps (sn_safedir_sweep, this node's names only) the job folders of
 * the notes whose process is gone (at most SN_STORE_PENDING_MAX looked
 * at) and drops those notes, then this job's folder (a requeued job).
 * Returns 0, or -1 with err set ("a symbolic link, not followed: PATH",
 * "folder owned by uid 65534, not by root: PATH", "record path too long:
 * PATH", ...); nothing is written then.
 */
int sn_store_write(const json_object *record, const char *record_dir,
		   const char *state_dir, uint32_t job_id, uint32_t attempt,
		   const char *node, struct sn_error *err);

#endif
