/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The accelerators of a task (sn_taskenv.h): which of the node's
 * accelerators a task sees and uses, the GPU binding of a task Slurm bound
 * to none, and the visible-devices variable.  Pure: no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_vendor.h"
#include "env/sn_jobenv.h"
#include "env/sn_ownership.h"
#include "env/sn_taskenv.h"

/* ---- accelerators of a task (pure) -------------------------------------- */

/*
 * Parse a device index list with CUDA's rules into idx: the list ends at
 * the first entry that is negative, not a number, repeated or >= limit
 * (limit 0: no bound).  Returns the count; -1 when the first entry that
 * ends it is a GPU-/MIG- UUID (cannot be mapped without NVML).
 */
static int index_list(const char *s, unsigned limit, unsigned *idx, size_t max)
{
	size_t n = 0;

	for (unsigned guard = 0; *s && guard < 1024; guard++) {
		size_t len = strcspn(s, ",");
		char tok[32];
		char *end;
		unsigned long v;
		bool dup = false;

		if (len >= sizeof(tok))
			return n ? (int)n :
			       (!strncmp(s, "GPU-", 4) ||
				!strncmp(s, "MIG-", 4)) ?
				   -1 :
				   0;
		memcpy(tok, s, len);
		tok[len] = '\0';
		if (!strncmp(tok, "GPU-", 4) || !strncmp(tok, "MIG-", 4))
			return n ? (int)n : -1;
		errno = 0;
		v = strtoul(tok, &end, 10);
		if (!len || *end || tok[0] < '0' || tok[0] > '9' || errno ||
		    v >= SN_MANIFEST_MAX_ACCELS || (limit && v >= limit))
			break;
		for (size_t k = 0; k < n; k++)
			dup |= idx[k] == v;
		if (dup || n >= max)
			break;
		idx[n++] = (unsigned)v;
		s += len;
		if (*s == ',')
			s++;
	}
	return (int)n;
}

int sn_taskenv_visible_accels(const struct sn_taskenv_task *task,
			      unsigned n_node, unsigned *idx, size_t max,
			      char *why, size_t why_size)
{
	const char *gname = task->step_gpus ? "SLURM_STEP_GPUS" :
					      "SLURM_JOB_GPUS";
	const char *gval = task->step_gpus ? task->step_gpus : task->job_gpus;
	const char *vname = task->visible_name ? task->visible_name :
						 "CUDA_VISIBLE_DEVICES";
	unsigned g[SN_MANIFEST_MAX_ACCELS];
	int ng = gval ? index_list(gval, n_node, g, SN_MANIFEST_MAX_ACCELS) : 0;
	int n;

	if (task->visible) {
		bool local = false;

		n = index_list(task->visible, 0, idx, max);
		if (n < 0) {
			snprintf(
				why, why_size,
				"%s=%.60s names GPUs by UUID (or MIG): which ones is not known here",
				vname, task->visible);
			return -1;
		}
		if (n == 0) {
			snprintf(why, why_size,
				 "%s=%.60s: the task has no accelerator", vname,
				 task->visible);
			return 0;
		}
		/* Renumbered from 0 when Slurm constrains the devices (cgroup). */
		if (ng > 0) {
			bool all_below = true, some_outside = false;

			for (int i = 0; i < n; i++) {
				bool in = false;

				for (int k = 0; k < ng; k++)
					in |= g[k] == idx[i];
				some_outside |= !in;
				all_below &= idx[i] < (unsigned)ng;
			}
			local = some_outside && all_below;
		}
		if (local) {
			for (int i = 0; i < n; i++)
				idx[i] = g[idx[i]];
			snprintf(
				why, why_size,
				"%s=%.60s as positions in %s=%.60s (devices constrained)",
				vname, task->visible, gname, gval);
		} else {
			for (int i = 0; i < n; i++)
				if (n_node && idx[i] >= n_node)
					n = i; /* CUDA: the list ends here */
			snprintf(why, why_size, "%s=%.60s", vname,
				 task->visible);
		}
		return n;
	}
	if (gval && ng > 0) {
		n = ng < (int)max ? ng : (int)max;
		memcpy(idx, g, (size_t)n * sizeof(*idx));
		snprintf(why, why_size, "%s=%.60s", gname, gval);
		return n;
	}
	if (!n_node) {
		snprintf(
			why, why_size,
			"no %s, %s or SLURM_JOB_GPUS, and the node's accelerator count is unknown",
			vname, "SLURM_STEP_GPUS");
		return -1;
	}
	n = n_node < max ? (int)n_node : (int)max;
	for (int i = 0; i < n; i++)
		idx[i] = (unsigned)i;
	snprintf(why, why_size, "all %u accelerators of the node", n_node);
	return n;
}

int sn_taskenv_task_accels(const struct sn_taskenv_task *task, unsigned n_node,
			   unsigned *idx, size_t max, char *why,
			   size_t why_size)
{
	unsigned vis[SN_MANIFEST_MAX_ACCELS];
	int n = sn_taskenv_visible_accels(
		task, n_node, vis, SN_MANIFEST_MAX_ACCELS, why, why_size);
	size_t used;

	if (n <= 0)
		return n;
	if (n > 1 && (uint32_t)n == task->local_size &&
	    task->local_rank < (uint32_t)n) {
		used = strlen(why);
		snprintf(why + used, why_size - used,
			 ", one per task: local rank %u uses accelerator %u",
			 task->local_rank, vis[task->local_rank]);
		idx[0] = vis[task->local_rank];
		return max ? 1 : 0;
	}
	n = (size_t)n < max ? n : (int)max;
	memcpy(idx, vis, (size_t)n * sizeof(*idx));
	return n;
}

/* The node's GPU count for the binding, and where it came from; 0 unknown. */
static unsigned node_gpus(const struct sn_config *cfg,
			  const struct sn_taskenv_node *node, const char **from)
{
	if (node->gpus.from[0]) {
		*from = node->gpus.from;
		return node->gpus.n;
	}
	*from = "node.accelerators.count";
	/* only a vendor that binds gets here; none configured: count 0 */
	return cfg->node.accel.count;
}

/* Slurm's or the job's GPU facts that rule a binding of ours out; -1. */
static int bind_ruled_out(const struct sn_taskenv_task *task, char *why,
			  size_t size)
{
	if (task->visible)
		snprintf(
			why, size,
			"the job's CUDA_VISIBLE_DEVICES=%.60s (user's or Slurm's) stays: left alone",
			task->visible);
	else if (task->device_order)
		snprintf(
			why, size,
			"the job's CUDA_DEVICE_ORDER=%.40s: indices in its order are not ours; left alone",
			task->device_order);
	else if (task->step_gpus || task->job_gpus)
		snprintf(why, size, "Slurm bound GPUs (%s=%.60s): left alone",
			 task->step_gpus ? "SLURM_STEP_GPUS" : "SLURM_JOB_GPUS",
			 task->step_gpus ? task->step_gpus : task->job_gpus);
	else
		return 0;
	return -1;
}

/* The node's GPUs against the task count: 0 when one per task, else -1. */
static int bind_count_bad(const struct sn_config *cfg,
			  const struct sn_taskenv_node *node,
			  const struct sn_taskenv_task *task, unsigned n,
			  const char *from, char *why, size_t size)
{
	if (!n)
		snprintf(why, size,
			 "no GPU known on this node (%s): no binding",
			 node->gpus.from[0] ?
				 "none in the topology" :
			 cfg->node.accel.pci_vendor ?
				 "node.accelerators.count is 0" :
				 "no topology loaded, no node.accelerators");
	else if (node->gpus.from[0] && !node->gpus.all_nvidia)
		snprintf(
			why, size,
			"the node's accelerators (%s) are not all NVIDIA GPUs: no binding",
			from);
	else if (task->local_size != n || task->local_rank >= n)
		snprintf(
			why, size,
			"%u tasks on this node, %u GPUs (%s): not one per task, no binding",
			task->local_size, n, from);
	else
		return 0;
	return -1;
}

int sn_taskenv_gpu_bind(const struct sn_config *cfg,
			const struct sn_taskenv_node *node,
			const struct sn_taskenv_task *task, char *why,
			size_t why_size)
{
	const struct sn_vendor *v = sn_vendor_of(cfg->node.accel.vendor);
	const char *from = "";
	unsigned n;
	size_t used;

	why[0] = '\0';
	if (v->visible_mode != SN_VENDOR_VISIBLE_BIND)
		return -2;
	if (bind_ruled_out(task, why, why_size))
		return -1;
	n = node_gpus(cfg, node, &from);
	if (bind_count_bad(cfg, node, task, n, from, why, why_size))
		return -1;
	snprintf(
		why, why_size,
		"Slurm bound no GPU and the node runs one task per GPU (%u, %s): local rank %u gets GPU %u in PCI bus order",
		n, from, task->local_rank, task->local_rank);
	used = strlen(why);
	if (task->local_rank < node->gpus.n && used < why_size)
		snprintf(why + used, why_size - used, " (%s)",
			 node->gpus.busid[task->local_rank]);
	return (int)task->local_rank;
}

const char *sn_taskenv_visible_name(const struct sn_config *cfg)
{
	const char *name = sn_vendor_of(cfg->node.accel.vendor)->visible_var;

	return name ? name : "CUDA_VISIBLE_DEVICES";
}

const char *sn_taskenv_job_value(const char *marker, const char *name,
				 const char *cur)
{
	if (!cur || sn_envmark_owns(marker ? marker : "", name, cur))
		return NULL;
	return cur == sn_env_unread ? "?" : cur;
}

const char *sn_taskenv_visible_pick(const struct sn_config *cfg,
				    const char *marker, const char *cur,
				    bool job_owns)
{
	if (sn_vendor_of(cfg->node.accel.vendor)->visible_mode ==
		    SN_VENDOR_VISIBLE_LIST &&
	    !job_owns)
		return NULL;
	if (cur == sn_env_unread)
		return "GPU-";
	return sn_taskenv_job_value(marker, sn_taskenv_visible_name(cfg), cur);
}
