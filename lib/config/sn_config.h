/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_H
#define SN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sn_error.h"
#include "config/sn_config_deprecated.h"
#include "config/sn_epilog_cfg.h"
#include "config/sn_manifest.h"

#define SN_CONFIG_DEFAULT_PATH "/etc/slurm/supernode.yaml"
#define SN_CONFIG_DEFAULT_STATE_DIR "/var/spool/supernode" /* paths.state_dir */
#define SN_CONFIG_PROCFS "/proc" /* where supernodectl reads the kernel */
/* The kernel's ephemeral (outgoing) ports, "LOW\tHIGH", under procfs. */
#define SN_CONFIG_EPHEMERAL_FILE "sys/net/ipv4/ip_local_port_range"
#define SN_CONFIG_MAX_BYTES (4u << 20) /* 4 MiB of YAML */
#define SN_CONFIG_MAX_SUPERNODES 100000u
#ifndef SN_CONFIG_MAX_NODES /* tests/fuzz builds with a smaller bound */
#define SN_CONFIG_MAX_NODES (1u << 20) /* all supernodes together */
#endif
#define SN_CONFIG_NAME_MAX 63 /* a supernode name, bytes */
/* Slurm's matching OR ("[a|b|...]") holds at most 64 alternatives. */
#define SN_FEATURE_MAX_ALTERNATIVES 64u

/* placement.method: how a whole-supernode request is expressed to Slurm. */
enum sn_placement_method {
	SN_PLACE_FEATURE, /* node feature per supernode, --constraint=[..|..] */
	SN_PLACE_SWITCH,  /* leaf switch per supernode, --switches=N@wait */
	SN_PLACE_BLOCK,	  /* topology/block, --segment (Slurm >= 24.05) */
};

/* One supernode: a name (also its Slurm feature) and a Slurm hostlist. */
struct sn_supernode {
	char *name;	/* [A-Za-z0-9_.-], at most 63 bytes */
	char *nodes;	/* the hostlist as written in the config */
	char **members; /* expanded, in hostlist order; size entries */
	size_t size;	/* number of nodes */
	unsigned line;	/* 1-based line of this entry in the file */
	/*
	 * identity: what the hardware must report for every node of it
	 * ("nvlink:<cluster uuid>/<clique id>", "ascend:<super pod id>"); NULL:
	 * not checked.  The prolog drains with SUPERNODE_MISMATCH otherwise.
	 */
	char *identity;
};

/* Index entry: one node and where it sits. */
struct sn_node {
	const char *name;   /* points into the owning supernode's members */
	uint32_t supernode; /* index into sn_config.supernodes */
	uint32_t rank;	    /* position inside its supernode, from 0 */
};

/* bench.min_fraction when the file does not say. */
#define SN_BENCH_DEFAULT_FRACTION 0.8

/*
 * struct sn_bench_settings - the bench: section, read by supernode-bench:
 * with no --min-busbw it passes when the bus bandwidth of the largest size
 * is at least min_fraction x rated_busbw_gbps.
 */
struct sn_bench_settings {
	double rated_busbw_gbps; /* fabric's rated busbw per rank, GB/s
					 * (400 Gb/s IB = 50, NVLink H200 ~ 450);
					 * 0 = not given: no threshold */
	double min_fraction;	 /* in (0, 1]; default 0.8 */
	bool has_min_fraction;	 /* given in the file */
};

/*
 * struct sn_config - supernode.yaml, loaded and validated.  Owns every
 * string and array; release with sn_config_free().  Schema: README.md,
 * section "Configuration".
 */
/* paths.trusted_owners when absent: Debian's prometheus-node-exporter
 * makes /var/lib/prometheus its own, and textfile_dir lives below it. */
#define SN_TRUSTED_OWNERS_DEFAULT "prometheus"

/* placement.max_requeues absent: Slurm's MaxBatchRequeue, else 5. */
#define SN_CONFIG_REQUEUES_SLURM UINT32_MAX

struct sn_config {
	char *path;			 /* file it was loaded from */
	struct sn_supernode *supernodes; /* n_supernodes entries */
	size_t n_supernodes;
	size_t supernode_size; /* nodes per supernode (all equal) */
	struct sn_node *nodes; /* n_nodes entries, sorted by name */
	size_t n_nodes;

	enum sn_placement_method method; /* placement.method */
	uint32_t max_supernodes;	 /* placement.max_supernodes */
	uint32_t switch_wait;		 /* placement.switch_wait, seconds */
	uint32_t max_requeues;		 /* placement.max_requeues, 0..100, or
				* SN_CONFIG_REQUEUES_SLURM when absent */

	uint16_t master_port_lo;   /* env.master_port_range[0] */
	uint16_t master_port_hi;   /* env.master_port_range[1] */
	unsigned master_port_line; /* its 1-based line, column; */
	unsigned master_port_col;  /*   0: not in the file (default) */
	char *socket_ifname; /* env.socket_ifname: NCCL/HCCL/GLOO, exact */
	char **hca; /* env.hca: NICs NCCL/UCX may use; NULL = node.ports */
	size_t n_hca;
	bool mnnvl;   /* env.mnnvl: multi-node NVLink fabric */
	bool pytorch; /* env.pytorch: RANK, LOCAL_RANK, ... (default true) */
	char **force; /* env.force: variables set even when the user did */
	size_t n_force;

	char *sysfs;	 /* paths.sysfs (may hold %n, %h) */
	char *dev;	 /* paths.dev */
	char *state_dir; /* paths.state_dir */
	char *nvml;	 /* paths.nvml; NULL = "libnvidia-ml.so.1" */
	char *hwloc_xml; /* paths.hwloc_xml; NULL = discover live */
	/* paths.nccl_conf: the site's NCCL file (NAME=VALUE lines) whose
	 * NCCL_TOPO_FILE the job environment checks; NULL = /etc/nccl.conf */
	char *nccl_conf;
	char *kmsg;	/* paths.kmsg */
	char *imex_ctl; /* paths.imex_ctl; NULL = /usr/bin/nvidia-imex-ctl */
	char *imex_channels; /* paths.imex_channels; NULL = /dev/nvidia-caps-imex-channels */
	char *dcmi; /* paths.dcmi: Ascend's libdcmi.so; NULL = "libdcmi.so" */
	/*
	 * paths.rocm_smi, .cndev, .mtml, .mxsml, .xpuml: the management
	 * library of that vendor, indexed by vendor (config/sn_vendor.h
	 * lib_key); NULL = the vendor's default places.  NVIDIA's and
	 * Ascend's are nvml and dcmi above.
	 */
	char *vendor_lib[SN_ACCEL_VENDOR_COUNT];
	/* paths.trusted_owners: system accounts trusted with root's folders
	 * (sn_safedir.h); NULL (absent) = SN_TRUSTED_OWNERS_DEFAULT */
	char **trusted_owners;
	size_t n_trusted_owners;

	struct sn_manifest node;	  /* node: (config_node.c) */
	struct sn_prolog_settings prolog; /* prolog: */
	char *drain_tag; /* drain.tag: prefix of our drain reasons */
	struct sn_epilog_settings epilog; /* epilog: (config_epilog.c) */
	struct sn_bench_settings bench;	  /* bench: (config_bench.c) */
	/*
	 * The deprecated forms the file uses, in file order (etc/README.md
	 * "Upgrading"): each loaded with its old meaning; msg is its warning.
	 */
	struct sn_config_dep_use *deprecated;
	size_t n_deprecated;
};

/*
 * sn_config_load - read and validate a supernode.yaml.
 *
 * Strict: unknown or duplicate keys, wrong types, tab indentation, an empty
 * file, a node in two supernodes, an empty or unparsable hostlist, and
 * supernodes of unequal size are errors.  The message names file, line,
 * column and key.  Files over SN_CONFIG_MAX_BYTES are refused, and so is
 * YAML nested deeper than YAML_WALK_MAX_DEPTH or holding more than
 * YAML_WALK_MAX_NODES nodes (yaml_walk.h), as soon as libyaml reaches it.
 *
 * Nothing of the machine decides whether the file loads: the kernel's
 * ephemeral port range decides only MASTER_PORT, in the job step
 * (sn_jobenv_build), and supernodectl warns about it
 * (sn_config_port_warning).
 *
 * Returns a new config (caller frees with sn_config_free) or NULL with err
 * set.
 */
struct sn_config *sn_config_load(const char *path, struct sn_error *err);

/*
 * sn_config_load_buffer - the file's own rules, from memory; path is used
 * in messages.
 */
struct sn_config *sn_config_load_buffer(const char *path, const char *buf,
					size_t len, struct sn_error *err);

/*
 * sn_config_port_warning - what this machine's kernel leaves of
 * env.master_port_range for MASTER_PORT: the ephemeral range is read from
 * PROCFS/SN_CONFIG_EPHEMERAL_FILE (tests pass a folder of fixtures).  A
 * warning only, never a refusal: the range decides MASTER_PORT and
 * nothing else (issue 17 item 3).
 * Returns 0 (the range lies outside: nothing to say, or the file cannot be
 * read: the step assumes Linux's default then), or 1 with warn set:
 *   "FILE:LINE:COL: env.master_port_range: [LO, HI] lies wholly inside the
 *   kernel's ephemeral port range A-B (PATH): MASTER_PORT is left unset in
 *   every job on this machine", or, in part, "...: N of its K ports lie
 *   inside ...: MASTER_PORT takes only the other M".
 */
int sn_config_port_warning(const struct sn_config *cfg, const char *procfs,
			   struct sn_error *warn);

/*
 * sn_config_log_deprecated - one sn_log(LOG_WARNING) line per deprecated
 * form in cfg ("warning: FILE:LINE:COL: KEY: deprecated (changed in C):
 * ...; write NEW"): how the prolog, epilog and plugins say it.
 */
void sn_config_log_deprecated(const struct sn_config *cfg);

/*
 * sn_config_default_path - where a program finds supernode.yaml when it is
 * not told: next to slurm.conf, i.e. dirname($SLURM_CONF)/supernode.yaml
 * (slurmd and slurmctld set SLURM_CONF for their prologs and plugins), else
 * SN_CONFIG_DEFAULT_PATH.  Writes into buf (size bytes).
 */
void sn_config_default_path(char *buf, size_t size);

/* sn_config_free - release a config; NULL-safe. */
void sn_config_free(struct sn_config *cfg);

/* sn_config_find_node - look a Slurm node name up; NULL if in no supernode. */
const struct sn_node *sn_config_find_node(const struct sn_config *cfg,
					  const char *name);

/*
 * sn_config_effective_max - the largest N a job may ask for:
 * min(placement.max_supernodes, number of supernodes).
 */
uint32_t sn_config_effective_max(const struct sn_config *cfg);

/* sn_placement_method_name - "feature", "switch" or "block". */
const char *sn_placement_method_name(enum sn_placement_method m);

/*
 * sn_config_identity_valid - true when s is an identity as supernodes[].identity
 * takes it: "nvlink:" + a UUID in the 8-4-4-4-12 hex form (lower case) + "/"
 * + a clique id (decimal, at most 4294967295), or "ascend:" + a super pod
 * id (decimal, at most 4294967295).
 */
bool sn_config_identity_valid(const char *s);

/*
 * sn_path_expand - expand %n (Slurm node name), %h (host name) and %% in a
 * config path into out (size bytes).  Returns 0, or -1 if it does not fit,
 * holds another % sequence, or uses %n or %h while that name is NULL.
 */
int sn_path_expand(const char *tmpl, const char *nodename, const char *hostname,
		   char *out, size_t size);

#endif
