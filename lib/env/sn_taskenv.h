/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_TASKENV_H
#define SN_TASKENV_H

/*
 * The per-task communication environment: which NICs, interfaces and
 * ranks NCCL, UCX, Gloo, HCCL and PyTorch should use, computed for one task
 * of a --supernode step.
 *
 * Two halves:
 *  - sn_taskenv_node_gather(): I/O, once per step and node: this node's
 *    RDMA ports (sysfs, through ib_port.c), the socket interface's state
 *    and, when asked, a snapshot of the topology (which NICs are nearest to
 *    each accelerator, through topo.c / hwloc).  Everything lands in one
 *    plain struct without pointers, so it can be gathered in a child
 *    process with a time limit and copied back through a pipe.
 *  - sn_taskenv_build(): pure; from the config, that node snapshot and the
 *    task's own facts (its ranks, CUDA_VISIBLE_DEVICES, ...) the list of
 *    (name, value, why).  Whether a value may overwrite what the job
 *    already holds (unset / ours / env.force) is sn_ownership.h's rule.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_topo.h"
#include "env/sn_ownership.h"

#define SN_TASKENV_MAX_PORTS 128 /* RDMA ports looked at, at most */
#define SN_TASKENV_NEAR_MAX 8	 /* nearest NICs kept per accelerator */
#define SN_TASKENV_MAX_VARS 24	 /* entries of one sn_taskenv */
#define SN_TASKENV_WHY_MAX 256	 /* one explanation, with NUL */
#define SN_TASKENV_NOTE_MAX 256	 /* a gather note, with NUL */
/* Live hwloc discovery and sysfs reads run in a child killed after this. */
#define SN_TASKENV_GATHER_TIMEOUT_MS 5000u

/* One RDMA port of this node, as the environment needs it. */
struct sn_taskenv_port {
	char dev[SN_IB_DEV_MAX]; /* "mlx5_0" */
	unsigned port;		 /* 1-based */
	bool allowed;		 /* env.hca / node.ports / all: may be used */
	bool state_ok;		 /* state file read and parsed */
	bool active;		 /* state ACTIVE */
	char state[SN_IB_NAME_MAX]; /* "DOWN", "ACTIVE", "?" */
	bool layer_ok;		    /* link_layer read and parsed */
	enum sn_link_layer layer;
	int gid_index; /* RoCE v2 GID to use; -1 none; -2 unreadable */
};

/* The socket interface (env.socket_ifname) on this node. */
enum sn_ifstate {
	SN_IF_UNCHECKED = 0, /* no socket_ifname configured */
	SN_IF_UP,	     /* operstate up, or unknown (virtual devices) */
	SN_IF_DOWN,	     /* operstate down, lowerlayerdown, dormant, ... */
	SN_IF_MISSING,	     /* <sysfs>/class/net/<if> does not exist */
};

/*
 * A topology snapshot: per accelerator, the NICs nearest to it
 * (sn_topo_nearest_nics()).  valid is false when no topology was loaded;
 * then note says why (or is "" when nothing needed it).
 */
struct sn_taskenv_near {
	bool valid;
	unsigned n_accels;
	unsigned n_near[SN_MANIFEST_MAX_ACCELS]; /* names kept, <= NEAR_MAX */
	char nics[SN_MANIFEST_MAX_ACCELS][SN_TASKENV_NEAR_MAX][SN_TOPO_NAME_MAX];
};

/*
 * The node's accelerators in PCI bus order (domain, bus, device, function),
 * for the GPU binding, from the topology when it was loaded (no I/O of its
 * own: NVML is never loaded in a step).  n 0 and from "": not read.
 */
struct sn_taskenv_gpus {
	unsigned n;	 /* accelerators listed (<= SN_MANIFEST_MAX_ACCELS) */
	bool all_nvidia; /* every one has PCI vendor 0x10de */
	char from[8];	 /* "hwloc"; "" when not read */
	char busid[SN_MANIFEST_MAX_ACCELS][SN_BDF_SIZE]; /* "0000:07:00.0" */
};

/* struct sn_taskenv_node - what is the same for every task of the node. */
struct sn_taskenv_node {
	struct sn_taskenv_port ports[SN_TASKENV_MAX_PORTS];
	size_t n_ports;
	bool ports_ok; /* the port list could be read */
	enum sn_ifstate ifstate;
	char operstate[24]; /* as read, for messages */
	char if_ipv4[16];   /* the socket interface's first IPv4 address
			     * (getifaddrs: sysfs has none); "" none */
	/* the node's supernode (sn_config_find_node): set by
	 * sn_taskenv_node_prepare; in_supernode false: not known */
	bool in_supernode;
	uint32_t supernode;
	/* the topology file against the node (sn_taskenv_topo_file_check);
	 * "" nothing to say; a warning every job sees */
	char topo_file_note[2 * SN_TASKENV_WHY_MAX - 64];
	struct sn_taskenv_near topo;
	struct sn_taskenv_gpus gpus;
	/* the SN_TASKENV_TOPO_* needs this snapshot answers: every one when
	 * the topology loaded, NICS too when fewer than two ports are usable
	 * (no choice to make); what a cached snapshot covers */
	unsigned topo_done;
	char ports_note[SN_TASKENV_NOTE_MAX]; /* why ports_ok is false */
	char topo_note[SN_TASKENV_NOTE_MAX];  /* why topo.valid is false */
};

/*
 * struct sn_taskenv_task - one task.  Strings are borrowed; NULL means
 * the variable is not in the task's environment.
 */
struct sn_taskenv_task {
	uint32_t global_rank;	  /* S_TASK_GLOBAL_ID (SLURM_PROCID) */
	uint32_t local_rank;	  /* S_TASK_ID (SLURM_LOCALID) */
	uint32_t world_size;	  /* S_JOB_TOTAL_TASK_COUNT (SLURM_NTASKS) */
	uint32_t local_size;	  /* S_JOB_LOCAL_TASK_COUNT */
	bool batch;		  /* the batch script, not a rank */
	const char *visible;	  /* CUDA_VISIBLE_DEVICES (Ascend: the job's
					 * own ASCEND_RT_VISIBLE_DEVICES) */
	const char *visible_name; /* its name, for messages */
	const char *step_gpus;	  /* SLURM_STEP_GPUS */
	const char *job_gpus;	  /* SLURM_JOB_GPUS */
	const char *device_order; /* CUDA_DEVICE_ORDER, the job's own (NULL:
					 * unset, or ours from an earlier step) */
};

/* One result: value NULL means "not set", and why says why. */
struct sn_taskenv_var {
	const char *name; /* static string */
	char *value;	  /* malloc()ed, or NULL */
	bool per_task;	  /* differs between the tasks of a node */
	char why[SN_TASKENV_WHY_MAX];
};

#define SN_TASKENV_MAX_NOTES 4 /* notes of one sn_taskenv */

/*
 * A note about the environment that is no variable: what the vendor's
 * collective library does not document (shown in --supernode-env=show),
 * or a warning every job should see on its stderr (warn).
 */
struct sn_taskenv_note {
	bool warn;
	char text[2 * SN_TASKENV_WHY_MAX];
};

/* struct sn_taskenv - the result; release with sn_taskenv_free(). */
struct sn_taskenv {
	struct sn_taskenv_var vars[SN_TASKENV_MAX_VARS];
	size_t count;
	struct sn_taskenv_note notes[SN_TASKENV_MAX_NOTES];
	size_t n_notes;
	char accels_why
		[SN_TASKENV_WHY_MAX]; /* how the task's accelerators were found */
};

/*
 * sn_taskenv_node_gather - fill node for this node.
 * @cfg:       the config (env.hca, node.ports, env.socket_ifname)
 * @sysfs:     paths.sysfs with %n/%h expanded ("/sys" or a fixture tree)
 * @hwloc_xml: paths.hwloc_xml expanded; "" or NULL = discover this machine
 * @want_topo: load the topology (only a task that needs nearest NICs does)
 *
 * Ports: with env.hca, every port of the listed devices; else, with
 * node.ports, exactly the listed ports; else every port of every device
 * under <sysfs>/class/infiniband (at most SN_TASKENV_MAX_PORTS, devices in
 * natural order: mlx5_2 before mlx5_10).  For RoCE ports the GID index
 * NCCL should use (node.ports gid_index when it is RoCE v2, else the
 * first RoCE v2 GID holding an IPv4 address, else a global IPv6 one, else
 * any RoCE v2 one).
 *
 * @want_topo says what the topology is for (SN_TASKENV_TOPO_*, 0: not
 * loaded): for nearest NICs only when two ports or more are usable (else
 * there is no choice to make), for the GPU binding always.
 *
 * Loading the topology scrubs HWLOC_* from this process's environment
 * first (hwloc reads HWLOC_XMLFILE, HWLOC_COMPONENTS, HWLOC_PLUGINS_PATH,
 * ...): run it in a child (sn_taskenv_node_gather_bounded).
 * Never fails: what could not be read is recorded in ports_note/topo_note.
 */
void sn_taskenv_node_gather(const struct sn_config *cfg, const char *sysfs,
			    const char *hwloc_xml, unsigned want_topo,
			    struct sn_taskenv_node *node);

/*
 * sn_taskenv_node_gather_bounded - the same in a child process killed
 * after timeout_ms (sysfs reads and hwloc discovery are then bounded, and
 * whatever hwloc reads or leaks stays in the child).  When the child does
 * not deliver, node is filled with what needs no I/O and the notes say
 * why.  Returns 0 when the child delivered, -1 otherwise.
 */
int sn_taskenv_node_gather_bounded(const struct sn_config *cfg,
				   const char *sysfs, const char *hwloc_xml,
				   unsigned want_topo, uint32_t timeout_ms,
				   struct sn_taskenv_node *node);

/* Each line of --supernode-env=show starts so. */
#define SN_TASKENV_SHOW "supernode: --supernode-env=show: "

/* sn_taskenv_shows - whether task t prints --supernode-env=show: task 0 of
 * each node, in mode show. */
bool sn_taskenv_shows(enum sn_env_mode mode, const struct sn_taskenv_task *t);

/*
 * sn_taskenv_show_head - what --supernode-env=show prints first, before
 * the task's variables are written: "SN_TASKENV_SHOW node NODE, task L of
 * S on it (rank G of W); accelerators: WHY" (WHY "not looked at (batch
 * script)" when accels_why is ""), then one line "SN_TASKENV_SHOW NODE:
 * task L: TEXT" per step variable as the task sees it (@step_cur[i]: the
 * job's value of sn_ownership_step_vars[i], sn_ownership_observe() against
 * @marker).  Lines end in "\n".  malloc()ed; NULL on no memory.
 */
char *sn_taskenv_show_head(const char *node, const struct sn_taskenv_task *t,
			   const char *accels_why, const char *marker,
			   const char *const *step_cur);

/*
 * sn_taskenv_show_vars - the lines about the task's variables after they
 * were written: one per variable that was written or was not to be
 * (sn_ownership_show()); a set that failed says nothing here (the
 * plugin's error did).  malloc()ed ("" for none); NULL on no memory.
 */
char *sn_taskenv_show_vars(const char *node, uint32_t rank,
			   const struct sn_ownership_var *v, size_t n);

/*
 * sn_taskenv_show_notes - the notes of env as lines: every note when
 * @show (each "SN_TASKENV_SHOW NODE: task RANK: note: TEXT"), else only
 * the warnings ("supernode: NODE: TEXT").  Lines end in "\n".
 * malloc()ed ("" for none); NULL on no memory.
 */
char *sn_taskenv_show_notes(const char *node, uint32_t rank,
			    const struct sn_taskenv *env, bool show);

#define SN_TOPOFILE_MAX (1024 * 1024) /* a topology file read, at most */
#define SN_TOPOFILE_DEVS 64	      /* bus ids kept per kind */

/* What an NCCL topology file (NCCL_TOPO_FILE) lists. */
struct sn_topofile {
	unsigned n_gpus;    /* <gpu> elements */
	unsigned n_nets;    /* <net> elements (one per NIC port) */
	unsigned n_gpu_bus; /* bus ids kept (<= SN_TOPOFILE_DEVS) */
	char gpu_bus[SN_TOPOFILE_DEVS][SN_BDF_SIZE]; /* the <pci> above each */
};

/*
 * sn_topofile_parse - count the GPUs and NIC ports of an NCCL topology
 * XML (NUL-terminated, at most SN_TOPOFILE_MAX bytes): a bounded reader of
 * the tags <pci busid=...>, </pci>, <gpu> and <net> (no library of the
 * project reads XML; hwloc's reader is for hwloc's format).  A GPU's bus
 * id is its innermost <pci>'s, lower-cased.  Returns 0, or -1 when the
 * text has no <system> element (not a topology file).
 */
int sn_topofile_parse(const char *xml, struct sn_topofile *out);

/*
 * sn_topofile_conf_value - the value of name in an nccl.conf text
 * ("NAME=VALUE" lines, '#' comments, spaces around '=' allowed, as NCCL's
 * own reader), cut to size; false when absent.
 */
bool sn_topofile_conf_value(const char *text, const char *name, char *buf,
			    size_t size);

/*
 * sn_taskenv_topo_file_check - the vendor's topology file (topo_var:
 * NCCL_TOPO_FILE) against the node, into node->topo_file_note.  The file
 * is the job's @user_value (the user's), else the site file's
 * (paths.nccl_conf, default /etc/nccl.conf); the config sets no
 * variables.  Read as a user's file is by root: regular files only, no
 * link followed, at most SN_TOPOFILE_MAX bytes.  Compared: the GPU count
 * with the topology's (node->gpus) or node.accelerators.count, the GPUs'
 * bus ids when the topology was loaded, the NIC ports with the ports
 * gathered.  Never sets a file.  Returns 1 when it does not match (the
 * note says how), 0 when it matches or there is none ("" or a note), -1
 * when it cannot be read (the note says why).  user_uid >= 0: the
 * user's file is read only when root or that uid owns it (slurmstepd is
 * root; a user may not have it read what only root may).
 */
int sn_taskenv_topo_file_check(const struct sn_config *cfg,
			       const char *user_value, long user_uid,
			       struct sn_taskenv_node *node);

/* What sn_taskenv_node_prepare() could read; err says what is missing. */
enum sn_taskenv_ready {
	SN_TASKENV_READY = 0, /* ports, and topology where wanted */
	SN_TASKENV_UNREAD,    /* nothing: the node's paths did not expand */
	SN_TASKENV_NO_PORTS,  /* the child did not deliver: no ports (error) */
	SN_TASKENV_NO_TOPO,   /* no topology: UCX_NET_DEVICES unset (info) */
};

/*
 * sn_taskenv_node_prepare - this node's facts for its tasks, once per
 * step: the config's paths expanded for @self (sn_check_ctx_init), then
 * sn_taskenv_node_gather_bounded() with SN_TASKENV_GATHER_TIMEOUT_MS.
 * Unless it returns SN_TASKENV_UNREAD, node is usable; err says what is
 * missing: "PORTS_NOTE: setting what does not need it" (NO_PORTS),
 * "TOPO_NOTE: UCX_NET_DEVICES not set" (NO_TOPO), or why the paths did not
 * expand (UNREAD).
 */
enum sn_taskenv_ready sn_taskenv_node_prepare(const struct sn_config *cfg,
					      const char *self,
					      unsigned want_topo,
					      struct sn_taskenv_node *node,
					      struct sn_error *err);

/*
 * sn_taskenv_near_fill - the topology snapshot of an open topology:
 * accelerators and the NICs nearest to each.
 */
void sn_taskenv_near_fill(const struct sn_topo *topo,
			  struct sn_taskenv_near *near);

/*
 * sn_taskenv_build - the variables of one task (pure: no I/O).
 *
 * The collective library's names are the vendor table's
 * (config/sn_vendor.h: hca_var, gid_var, socket_var, socket_ip_var,
 * mnnvl_var, logic_pod_var; NCCL's on NVIDIA or unconfigured nodes); a
 * name the table leaves NULL is never set, and the vendor's ccl_note
 * becomes a note (out->notes).
 * Node-wide:  hca_var ("=dev:port,..." ACTIVE allowed ports; "=" where
 *             ccl_exact), gid_var (RoCE v2, when all chosen RoCE ports
 *             agree), socket_var ("=ifname" where ccl_exact, else
 *             "ifname"), socket_ip_var (the interface's IPv4 address),
 *             GLOO_SOCKET_IFNAME ("ifname"), mnnvl_var (env.mnnvl),
 *             logic_pod_var (the supernode's name, when another
 *             configured supernode has the same identity).
 * Per task:   UCX_NET_DEVICES (ACTIVE allowed ports of the NICs nearest
 *             the task's accelerators), RANK, LOCAL_RANK, WORLD_SIZE,
 *             LOCAL_WORLD_SIZE (env.pytorch), then the visible_var by the
 *             vendor's visible_mode: BIND: CUDA_VISIBLE_DEVICES and
 *             CUDA_DEVICE_ORDER (sn_taskenv_gpu_bind()); LIST: the task's
 *             devices (ASCEND_RT_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ...).
 *             Not for the batch script.
 * Never NCCL_TOPO_FILE / NCCL_GRAPH_FILE.
 *
 * Entries with value NULL explain why a variable is not set.  Returns 0,
 * or -1 when memory runs out (out is then empty).
 */
int sn_taskenv_build(const struct sn_config *cfg,
		     const struct sn_taskenv_node *node,
		     const struct sn_taskenv_task *task,
		     struct sn_taskenv *out);

/* sn_taskenv_free - release the values; NULL-safe. */
void sn_taskenv_free(struct sn_taskenv *env);

/* sn_taskenv_find - the entry named name, or NULL. */
const struct sn_taskenv_var *sn_taskenv_find(const struct sn_taskenv *env,
					     const char *name);

/*
 * sn_taskenv_task_accels - the accelerators a task uses, as indices of
 * the node's accelerators (PCI order):
 *   1. task->visible (CUDA_VISIBLE_DEVICES) when set: "" or "-1" = none; decimal indices
 *      (CUDA's rules: the list ends at the first negative, repeated or
 *      out-of-range entry); indices read as positions in SLURM_STEP_GPUS
 *      when they cannot be node indices of it (cgroup-constrained devices
 *      are renumbered from 0); GPU-/MIG- UUIDs = unknown;
 *   2. else SLURM_STEP_GPUS, else SLURM_JOB_GPUS;
 *   3. else all of the node's accelerators (n_node; 0 = unknown).
 * Then, when the task sees exactly as many accelerators as there are
 * tasks on the node (and more than one), it uses the one at its local
 * rank: the convention of torchrun/Megatron (cuda:LOCAL_RANK).
 *
 * Returns the count written to idx (at most max), 0 for none, or -1 for
 * unknown; why gets one line.
 */
int sn_taskenv_task_accels(const struct sn_taskenv_task *task, unsigned n_node,
			   unsigned *idx, size_t max, char *why,
			   size_t why_size);

/*
 * sn_taskenv_visible_accels - step 1-3 of sn_taskenv_task_accels()
 * without the per-rank choice: what the task sees.
 */
int sn_taskenv_visible_accels(const struct sn_taskenv_task *task,
			      unsigned n_node, unsigned *idx, size_t max,
			      char *why, size_t why_size);

/*
 * sn_taskenv_gpu_bind - the GPU of a task that Slurm bound to none.
 *
 * When no GPU binding reached the task (no CUDA_VISIBLE_DEVICES of the
 * job's, no SLURM_STEP_GPUS or SLURM_JOB_GPUS: e.g. --exclusive without
 * --gpus-per-task), the job did not choose CUDA_DEVICE_ORDER either, and
 * the node runs exactly one task per GPU (local task count == the node's
 * GPUs), local rank i gets the i-th GPU in PCI bus order, written as its
 * index in that order: CUDA's index for it under
 * CUDA_DEVICE_ORDER=PCI_BUS_ID, which the caller sets with it.  It is the
 * GPU whose nearest NICs UCX_NET_DEVICES names (the topology's order).
 * The node's GPUs: node->gpus (the topology's, when the step loaded it),
 * else node.accelerators.count (vendor nvidia; the prolog checks it).
 *
 * Returns the index (>= 0); -1 when the task is left alone (why says
 * why: the job's own variable, Slurm's binding, tasks != GPUs, no GPU
 * known, GPUs not all NVIDIA); -2 when the node's accelerators are not
 * NVIDIA's by the config (Ascend, AMD, other: CUDA_* are not ours to set;
 * why is "").  why gets one line.
 */
int sn_taskenv_gpu_bind(const struct sn_config *cfg,
			const struct sn_taskenv_node *node,
			const struct sn_taskenv_task *task, char *why,
			size_t why_size);

/* What a step wants the topology for (a bit mask; 0: nothing). */
#define SN_TASKENV_TOPO_NICS 1u /* nearest NICs (UCX, Ascend's count) */
#define SN_TASKENV_TOPO_GPUS 2u /* the node's GPUs for the binding */

/*
 * sn_taskenv_wants_topo - what the step must load the topology for; 0
 * for the batch script.  SN_TASKENV_TOPO_NICS: a task will need nearest
 * NICs because UCX_NET_DEVICES is not the job's own (job_ucx false), or
 * on Ascend the node's accelerator count is not in the config and
 * ASCEND_RT_VISIBLE_DEVICES is ours to set (job_visible false).
 * SN_TASKENV_TOPO_GPUS: the config does not say the node's GPUs
 * (node.accelerators absent) and a task may be bound by us (job_bound
 * false: the step shows no CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER of
 * the job's, no SLURM_STEP_GPUS or SLURM_JOB_GPUS).
 */
unsigned sn_taskenv_wants_topo(const struct sn_config *cfg, bool batch,
			       bool job_ucx, bool job_visible, bool job_bound);

/*
 * sn_taskenv_visible_name - the variable that lists a task's accelerators:
 * the vendor table's visible_var (ASCEND_RT_VISIBLE_DEVICES,
 * HIP_VISIBLE_DEVICES, ...), CUDA_VISIBLE_DEVICES where it has none.
 */
const char *sn_taskenv_visible_name(const struct sn_config *cfg);

/*
 * sn_taskenv_visible_pick - sn_taskenv_task.visible from the job's value
 * cur of that variable (NULL unset, sn_env_unread): one not read whole is
 * "GPU-" (a list of unknown devices, never none or all); a value @marker
 * records as ours (a binding of an earlier step, decided anew now) is
 * NULL; where the vendor's visible_mode is LIST (Ascend, Hygon, ...) only
 * the job's own value counts (job_owns false: NULL).
 */
const char *sn_taskenv_visible_pick(const struct sn_config *cfg,
				    const char *marker, const char *cur,
				    bool job_owns);

/*
 * sn_taskenv_job_value - the job's own value of name: cur, or NULL when
 * it is unset or @marker records it as ours; a value not read whole
 * (sn_env_unread) is "?" (set, by the job).
 */
const char *sn_taskenv_job_value(const char *marker, const char *name,
				 const char *cur);

#endif
