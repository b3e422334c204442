/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_SNAPSHOT_H
#define SN_CONFIG_SNAPSHOT_H

/*
 * The job's config: what the steps of a --supernode job load instead of
 * supernode.yaml.
 *
 * Every step used to load the whole file on each of its nodes: libyaml
 * mapped and the file parsed, about 1 ms of CPU per node and step on a
 * small config (a third of the plugin's cost in user_init), and 56-62 ms
 * at 10,000 supernodes of 18 nodes (lib/README.md, "What grows with
 * what").  The first step of a job on a node still does (the batch step,
 * or the first srun of an allocation); it then keeps the parsed document
 * of the file, cut to the supernodes holding the job's nodes (and any
 * other supernode sharing an identity with one of them: the task
 * environment compares identities), and writes that document in a flat
 * form.  Each later step reads it back into a document and walks it with
 * the loader's own rules (sn_config_from_doc), so every setting means
 * what the file says, no libyaml is mapped and the cost grows with the
 * job, not the cluster.
 *
 * What differs from the file: only the job's supernodes are listed, so
 * what counts supernodes (placement.max_supernodes when the file leaves
 * it out, sn_config_effective_max) is the job's; tags are not kept (the
 * loader reads none); line and column numbers are the file's.  Use it only
 * in the job's steps.
 *
 * One file per job and node: STATE_DIR/jobconfig/JOBID.NODE, a header
 * then the document, 0600, root's, written atomically (sn_safedir_write),
 * read as root reads every file (sn_safedir_load: no link followed, a
 * regular file of root or us, one link) and taken only when its magic,
 * version, job id, node name and the config file's stamp (sn_config_stamp)
 * match and every count and node index is in bounds.  Anything else: the
 * step loads the whole file, as before.  The epilog removes it.
 */
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

#define SN_CONFIG_SNAPSHOT_DIR "jobconfig" /* under paths.state_dir */
#define SN_CONFIG_SNAPSHOT_MAGIC "SNJOBCF" /* 8 bytes with the NUL */
#define SN_CONFIG_SNAPSHOT_VERSION 1u
/* The largest file read back: a job of every supernode of the largest file */
#define SN_CONFIG_SNAPSHOT_MAX_BYTES (64u << 20)

/* Which job, node and config file a snapshot must have been written for. */
struct sn_config_snapshot_key {
	uint32_t job_id;       /* > 0 */
	const char *node;      /* this node's Slurm name: no '/', not "" */
	uint64_t config_stamp; /* sn_config_stamp() of the file */
};

/*
 * sn_config_stamp - the identity of the file at path: device, inode, size,
 * modification and change times, hashed (an editor's rename or an edit in
 * place gives another).  0 when it cannot be stat()ed.
 */
uint64_t sn_config_stamp(const char *path);

/*
 * sn_config_snapshot_save - write the job's config for key's job and node
 * into state_dir (which may not hold %n: expanded by the caller).
 * cfg is the config loaded from cfg->path; the file is read and parsed
 * again (libyaml) and must still be the one cfg came from (same supernode
 * names in the same order) and have key->config_stamp.  job_nodelist is
 * the job's Slurm hostlist; each of its nodes in no supernode is simply
 * not there.  The result is loaded back before it is written: a snapshot
 * that would not give the job's nodes their supernodes is not written.
 * Returns 0; 1 when none is needed (no node of the job in a supernode);
 * -1 with err set ("config changed since it was loaded", "cannot write:
 * ...").
 */
int sn_config_snapshot_save(const struct sn_config *cfg, const char *state_dir,
			    const char *job_nodelist,
			    const struct sn_config_snapshot_key *key,
			    struct sn_error *err);

/*
 * sn_config_snapshot_load - the job's config of key, from state_dir.
 * config_path names the file in messages (cfg->path).  Returns a config
 * (caller frees with sn_config_free), or NULL with errno ENOENT when there
 * is none (err says so), or NULL with another errno and err set when one
 * is there but refused (another job, node or config stamp, a link, a
 * wrong owner, out of bounds).
 */
struct sn_config *
sn_config_snapshot_load(const char *state_dir, const char *config_path,
			const struct sn_config_snapshot_key *key,
			struct sn_error *err);

/*
 * sn_config_snapshot_parse - the job's config from the bytes of its file
 * (len bytes at buf, header included), checked as sn_config_snapshot_load()
 * checks them; key NULL takes any job, node and stamp (the fuzzer).
 * config_path names the config (cfg->path, its lines); file names the
 * bytes in messages.  Returns a config, or NULL with err set.
 */
struct sn_config *sn_config_snapshot_parse(
	const char *buf, size_t len, const char *config_path, const char *file,
	const struct sn_config_snapshot_key *key, struct sn_error *err);

/*
 * sn_config_snapshot_remove - remove the job's config of job_id and node
 * (and stale temporaries of this node).  Returns 0 (also when none was
 * there), or -1 with err set.
 */
int sn_config_snapshot_remove(const char *state_dir, uint32_t job_id,
			      const char *node, struct sn_error *err);

#endif
