/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_TASKENV_CACHE_H
#define SN_TASKENV_CACHE_H

/*
 * The job's task environment cache: the node snapshot of sn_taskenv.h
 * (ports, socket interface, topology), paid once per job and node instead
 * of once per step.  The prolog writes it (ports; the topology only when
 * a check already needed it), a step that needs more gathers as before
 * and writes the completed snapshot, every later step of the job reads
 * it; the epilog removes it.  What may change during a job and what later
 * steps then get: spank/README.md, "The job's node cache".
 *
 * The node's topology cache: what hwloc's discovery gave (the nearest NICs
 * of each accelerator, the accelerators in PCI order) does not change
 * while the node runs, so the first step that loaded it keeps it in
 * STATE_DIR/taskenv/topology.NODE for every later job of this boot: the
 * first step of each job then reads the ports (the prolog's file, or a
 * bounded read) and this file, and never loads hwloc.  It is keyed by the
 * kernel's boot id, the config file's stamp and the hwloc XML file's
 * (paths.hwloc_xml) stamp: a reboot, a config edit or a new XML file gives
 * a fresh discovery.  A GPU or NIC that leaves the bus while the node runs
 * is a fault the prolog drains the node for; removing the file also forces
 * a fresh discovery (spank/README.md, "The job's node cache").
 *
 * One file per job and node: STATE_DIR/taskenv/JOBID.NODE, a header then
 * the struct sn_taskenv_node as it is in memory (no pointers), 0600, root's,
 * written atomically through sn_safedir_write().  Read as every file root
 * reads: the folders walked by sn_safedir_open(), the file opened with
 * O_NOFOLLOW | O_NONBLOCK, regular, one link, owned by root (or us),
 * writable by no group or other, of exactly the size the header and this
 * build's struct give; magic, format version, struct size, job id, node
 * name and the config file's stamp must all match.  Anything else: the
 * cache is ignored (the caller gathers as before) and err says why.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"
#include "util/sn_hostlist.h"
#include "env/sn_taskenv.h"

#define SN_TASKENV_CACHE_DIR "taskenv"	 /* under paths.state_dir */
#define SN_TASKENV_CACHE_VERSION 2u	 /* 2: boot_stamp, the topology file */
#define SN_TASKENV_CACHE_MAGIC "SNTASKC" /* 8 bytes with the NUL */

#define SN_TASKENV_TOPO_PREFIX "topology." /* the topology file's name */

/* What a cache file must have been written for. */
struct sn_taskenv_cache_key {
	uint32_t job_id;	      /* > 0; 0: the node's topology file */
	char node[SN_HOST_NAME_SIZE]; /* this node's Slurm name */
	uint64_t config_stamp;	      /* sn_taskenv_cache_stamp() */
	uint64_t boot_stamp;	      /* sn_taskenv_boot_stamp() */
};

/* The file's header (host byte order: the file never leaves the node). */
struct sn_taskenv_cache_head {
	char magic[8];	    /* SN_TASKENV_CACHE_MAGIC */
	uint32_t version;   /* SN_TASKENV_CACHE_VERSION */
	uint32_t node_size; /* sizeof(struct sn_taskenv_node) */
	uint32_t job_id;    /* 0: the node's topology file */
	uint32_t pad;
	uint64_t config_stamp;
	uint64_t boot_stamp;
	int64_t written; /* time(NULL) at writing */
	char writer[16]; /* "prolog", "step" */
	char node[SN_HOST_NAME_SIZE];
};

/* sn_taskenv_cache_read() and the prepare's outcome. */
enum sn_taskenv_cache_rc {
	SN_TASKENV_CACHE_HIT = 0, /* read and valid */
	SN_TASKENV_CACHE_MISSING, /* no file (or no folder): nothing to say */
	SN_TASKENV_CACHE_BAD,	  /* refused: err says why */
};

/*
 * sn_taskenv_cache_stamp - the config file's identity (device, inode,
 * size, modification and change times, hashed): a config edited during the
 * job gives another stamp, so its steps gather anew.  0 when it cannot be
 * stat()ed (such a stamp still matches only itself).
 */
uint64_t sn_taskenv_cache_stamp(const char *config_path);

/*
 * sn_taskenv_boot_stamp - this boot's identity: the kernel's boot id
 * (/proc/sys/kernel/random/boot_id) hashed; 0 when it cannot be read (no
 * topology file is then read or written: a stale one could not be told).
 */
uint64_t sn_taskenv_boot_stamp(void);

/*
 * sn_taskenv_cache_name - "JOBID.NODE" (job_id 0: "topology.NODE") into
 * buf; 0, or -1 when the node name is empty, holds '/' or does not fit.
 */
int sn_taskenv_cache_name(uint32_t job_id, const char *node, char *buf,
			  size_t size);

/*
 * sn_taskenv_cache_write - write node (its per-step parts, topo_file_note
 * and the supernode, left out) for key into STATE_DIR/taskenv/, folders
 * created 0700 when missing; writer says who ("prolog", "step").  Returns
 * 0, or -1 with err set (nothing replaced).
 */
int sn_taskenv_cache_write(const char *state_dir,
			   const struct sn_taskenv_cache_key *key,
			   const char *writer,
			   const struct sn_taskenv_node *node,
			   struct sn_error *err);

/*
 * sn_taskenv_cache_read - the snapshot for key into node (and, when head
 * is not NULL, its header), under the trust rules above.  Returns
 * SN_TASKENV_CACHE_HIT, _MISSING (no such file or folder), or _BAD with
 * err set ("a symbolic link, not followed: PATH", "owned by uid 65534,
 * not by root: PATH", "writable by group or others: PATH", "written for
 * job 7, not 8: PATH", ...); node is zeroed unless HIT.
 */
enum sn_taskenv_cache_rc
sn_taskenv_cache_read(const char *state_dir,
		      const struct sn_taskenv_cache_key *key,
		      struct sn_taskenv_node *node,
		      struct sn_taskenv_cache_head *head, struct sn_error *err);

/*
 * sn_taskenv_cache_remove - remove the job's file for node and temporaries
 * of killed writers (the epilog).  Returns 0 (also when there is none), or
 * -1 with err set.
 */
int sn_taskenv_cache_remove(const char *state_dir, uint32_t job_id,
			    const char *node, struct sn_error *err);

/*
 * sn_taskenv_cache_save - the prolog's part: this node's ports and socket
 * interface (no topology: the steps that need it load it once and complete
 * the file), gathered in this process (the prolog's own time limit bounds
 * it; its checks have just read the same files in a bounded child), then
 * written as "prolog".  Returns 0, or -1 with err set.
 */
int sn_taskenv_cache_save(const struct sn_config *cfg, const char *sysfs,
			  const char *state_dir,
			  const struct sn_taskenv_cache_key *key,
			  struct sn_error *err);

/* How a step came by its node snapshot (sn_taskenv_node_prepare_cached). */
struct sn_taskenv_cache_use {
	bool hit;		      /* read from the cache */
	bool ports_hit;		      /* only the ports read from it (the
				       * topology from the topology file) */
	bool written;		      /* gathered, and the cache (re)written */
	bool topo_hit;		      /* the topology from the node's
				       * topology file (hwloc not loaded) */
	bool topo_written;	      /* the node's topology file written */
	char writer[16];	      /* on a hit or ports_hit: who wrote it */
	char note[SN_ERROR_MAX + 64]; /* why the cache was refused or
					      * not written; "" none */
};

/*
 * sn_taskenv_node_prepare_cached - sn_taskenv_node_prepare() through the
 * job's cache: with key NULL, exactly it.  Else the cache is read; when it
 * is valid and answers want_topo (its topo_done), the step uses it and
 * gathers nothing.  Else a topology it lacks comes from the node's
 * topology file when valid there (key->boot_stamp not 0), with the ports
 * from the job's file or gathered alone; else the step gathers as
 * sn_taskenv_node_prepare() does and writes the topology file when the
 * topology loaded.  Whatever it gathered, the completed snapshot is
 * written (so later steps of the job do not pay again).  use says which, and why a
 * cache was refused (note; a missing one is no note).  Returns as
 * sn_taskenv_node_prepare().
 */
enum sn_taskenv_ready sn_taskenv_node_prepare_cached(
	const struct sn_config *cfg, const char *self, unsigned want_topo,
	const struct sn_taskenv_cache_key *key, struct sn_taskenv_node *node,
	struct sn_taskenv_cache_use *use, struct sn_error *err);

#endif
