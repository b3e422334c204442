/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-task communication environment (sn_taskenv.h).
 *
 * Choices, so that what a user sees can be traced back here:
 *  - NCCL_IB_HCA is node-wide and always in NCCL's exact form ("=mlx5_0:1,
 *    mlx5_1:1"): without '=', NCCL matches prefixes, so mlx5_1 would also
 *    select mlx5_10..mlx5_17 (field case 4).  Only ACTIVE ports are
 *    listed: NCCL stops on a listed port that is down.  NCCL itself pairs
 *    each GPU with its nearest NIC among those.
 *  - NCCL_SOCKET_IFNAME is "=ifname" (exact): a bare "bond0" also matches
 *    bond0.2973 and bond0.2973.1 (field case 5).  GLOO_SOCKET_IFNAME and
 *    HCCL_SOCKET_IFNAME take the plain name (Gloo takes one interface
 *    name, no prefix rules).  An interface that is missing or down on the
 *    node is not exported (NCCL would fail on it), and the reason is shown.
 *  - UCX_NET_DEVICES is per task: the ACTIVE allowed ports of the NICs
 *    hwloc finds nearest to the task's accelerators; UCX otherwise uses
 *    every device, including the far ones.
 *  - NCCL_IB_GID_INDEX only for RoCE ports, only when all of them agree;
 *    a GID holding an IPv4 address is preferred (routable RoCE v2, what
 *    NCCL picks itself with NCCL_IB_ADDR_FAMILY=AF_INET).
 *  - The batch script is not a rank: it gets the node-wide variables but
 *    no RANK/WORLD_SIZE/UCX_NET_DEVICES (a `python train.py` there would
 *    otherwise wait for WORLD_SIZE-1 peers that never come).
 *  - NCCL_TOPO_FILE / NCCL_GRAPH_FILE are never set: a file that does not
 *    describe this node misleads NCCL worse than its own detection.
 *  - CUDA_VISIBLE_DEVICES per task, only where Slurm bound no GPU and the
 *    node runs one task per GPU: local rank i gets the i-th GPU in PCI bus
 *    order, with CUDA_DEVICE_ORDER=PCI_BUS_ID.  Without it, CUDA numbers
 *    GPUs fastest first, which can differ from the PCI order of NVML and
 *    hwloc that UCX_NET_DEVICES is chosen by: the task would use one GPU
 *    and the NICs of another.  Both are left alone when the job has
 *    either (the user's or Slurm's): a CUDA_VISIBLE_DEVICES is an index
 *    list in the job's own order, and a CUDA_DEVICE_ORDER of the job's
 *    would renumber ours.  Slurm's SLURM_STEP_GPUS/SLURM_JOB_GPUS mean its
 *    GRES binding (and maybe device cgroups, renumbered): left alone too.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sn_child.h"
#include "config/sn_checkctx.h"
#include "env/sn_jobenv.h"
#include "env/sn_ownership.h"
#include "util/sn_strbuf.h"
#include "env/sn_taskenv.h"

#define PCI_VENDOR_NVIDIA 0x10de /* NVIDIA's PCI-SIG vendor id */

#define NIC_NAME_CHARS \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

/* ---- gathering (I/O) ---------------------------------------------------- */

static int ver_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int uint_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/*
 * Names of the entries of dir that are safe device names, sorted in natural
 * order, at most max; each malloc()ed.  Returns the count, -1 if dir cannot
 * be opened.
 */
static int dir_names(const char *dir, char **names, size_t max)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0;

	if (!d)
		return -1;
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= SN_IB_DEV_MAX ||
		    strspn(de->d_name, NIC_NAME_CHARS) != strlen(de->d_name))
			continue;
		if ((names[n] = strdup(de->d_name)))
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), ver_cmp);
	return (int)n;
}

static bool gid_ipv4_mapped(const char *gid)
{
	return !strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30);
}

/*
 * The RoCE v2 GID index for NCCL: the manifest's gid_index when it is RoCE
 * v2, else the first IPv4-mapped RoCE v2 entry, else the first global
 * (not fe80::) one, else the first one.  -1 none, -2 table unreadable.
 */
static int pick_gid(const char *sysfs, const char *dev, unsigned port, int hint)
{
	struct sn_ib_gid g;
	int first = -1, global = -1;

	if (hint >= 0 &&
	    !sn_ib_gid_read(sysfs, dev, port, (unsigned)hint, &g) &&
	    sn_ib_gid_is_roce_v2(&g))
		return hint;
	for (unsigned i = 0; i < SN_IB_GID_MAX; i++) {
		if (sn_ib_gid_read(sysfs, dev, port, i, &g))
			return -2;
		if (g.status == SN_ATTR_MISSING)
			return i ? (global >= 0 ? global : first) : -2;
		if (!sn_ib_gid_is_roce_v2(&g))
			continue;
		if (gid_ipv4_mapped(g.gid))
			return (int)i;
		if (first < 0)
			first = (int)i;
		if (global < 0 && strncmp(g.gid, "fe80:", 5))
			global = (int)i;
	}
	return global >= 0 ? global : first;
}

static void port_add(struct sn_taskenv_node *node, const char *sysfs,
		     const char *dev, unsigned port, int gid_hint)
{
	struct sn_taskenv_port *tp;
	struct sn_ib_port p;

	if (node->n_ports >= SN_TASKENV_MAX_PORTS)
		return;
	if (sn_ib_port_read(sysfs, dev, port, &p) || !p.present)
		return; /* absent: the prolog's check reports it */
	tp = &node->ports[node->n_ports++];
	memset(tp, 0, sizeof(*tp));
	snprintf(tp->dev, sizeof(tp->dev), "%s", dev);
	tp->port = port;
	tp->allowed = true;
	tp->state_ok = p.state.status == SN_ATTR_OK;
	tp->active = tp->state_ok && p.state_num == SN_IB_STATE_ACTIVE;
	snprintf(tp->state, sizeof(tp->state), "%s",
		 tp->state_ok ? p.state_name : "state unreadable");
	tp->layer_ok = p.link_layer.status == SN_ATTR_OK;
	tp->layer = p.layer;
	tp->gid_index = -1;
	if (tp->layer_ok && tp->layer == SN_LINK_ETHERNET)
		tp->gid_index = pick_gid(sysfs, dev, port, gid_hint);
}

/* Every port of one device, in port order. */
static void device_ports_add(struct sn_taskenv_node *node, const char *sysfs,
			     const char *dev)
{
	char dir[PATH_MAX], *names[32];
	unsigned ports[32];
	size_t k = 0;
	int n;

	if (snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", sysfs,
		     dev) >= (int)sizeof(dir))
		return;
	n = dir_names(dir, names, 32);
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long v = strtoul(names[i], &end, 10);

		if (*names[i] && !*end && v > 0 && v < 256)
			ports[k++] = (unsigned)v;
		free(names[i]);
	}
	qsort(ports, k, sizeof(*ports), uint_cmp);
	for (size_t i = 0; i < k; i++)
		port_add(node, sysfs, dev, ports[i], -1);
}

static void ports_gather(const struct sn_config *cfg, const char *sysfs,
			 struct sn_taskenv_node *node)
{
	char dir[PATH_MAX], *devs[SN_TASKENV_MAX_PORTS];
	int n;

	if (cfg->n_hca) {
		for (size_t i = 0; i < cfg->n_hca; i++)
			device_ports_add(node, sysfs, cfg->hca[i]);
		node->ports_ok = true;
		return;
	}
	if (cfg->node.n_ports) {
		for (size_t i = 0; i < cfg->node.n_ports; i++) {
			const struct sn_port_manifest *m = &cfg->node.ports[i];

			port_add(node, sysfs, m->device, m->port, m->gid_index);
		}
		node->ports_ok = true;
		return;
	}
	snprintf(dir, sizeof(dir), "%s/class/infiniband", sysfs);
	n = dir_names(dir, devs, SN_TASKENV_MAX_PORTS);
	if (n < 0) {
		if (errno == ENOENT) {
			node->ports_ok =
				true; /* no RDMA device: nothing to list */
			return;
		}
		snprintf(node->ports_note, sizeof(node->ports_note),
			 "cannot list %.200s: %s", dir, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		device_ports_add(node, sysfs, devs[i]);
		free(devs[i]);
	}
	node->ports_ok = true;
}

static void ifstate_gather(const struct sn_config *cfg, const char *sysfs,
			   struct sn_taskenv_node *node)
{
	char state[sizeof(node->operstate)];

	if (!cfg->socket_ifname)
		return;
	if (sn_net_operstate(sysfs, cfg->socket_ifname, state, sizeof(state)) !=
	    SN_ATTR_OK) {
		node->ifstate = SN_IF_MISSING;
		return;
	}
	snprintf(node->operstate, sizeof(node->operstate), "%s", state);
	/* "unknown": interfaces without carrier reporting (some bonds, VLANs). */
	node->ifstate = !strcmp(state, "up") || !strcmp(state, "unknown") ?
				SN_IF_UP :
				SN_IF_DOWN;
}

void sn_taskenv_near_fill(const struct sn_topo *topo,
			  struct sn_taskenv_near *near)
{
	size_t n = 0;

	memset(near, 0, sizeof(*near));
	sn_topo_accels(topo, &n);
	if (n > SN_MANIFEST_MAX_ACCELS)
		n = SN_MANIFEST_MAX_ACCELS;
	near->n_accels = (unsigned)n;
	for (unsigned i = 0; i < near->n_accels; i++) {
		int k = sn_topo_nearest_nics(topo, i, near->nics[i],
					     SN_TASKENV_NEAR_MAX);

		near->n_near[i] = k < 0 ? 0 :
				  k > SN_TASKENV_NEAR_MAX ?
					  SN_TASKENV_NEAR_MAX :
					  (unsigned)k;
	}
	near->valid = true;
}

/* hwloc reads HWLOC_* (HWLOC_XMLFILE, HWLOC_PLUGINS_PATH, ...): scrub them. */
static void hwloc_env_scrub(void)
{
	extern char **environ;

	for (unsigned guard = 0; environ && guard < 4096; guard++) {
		char name[256];
		size_t len;
		char **e;

		for (e = environ; *e && strncmp(*e, "HWLOC_", 6); e++)
			;
		if (!*e)
			return;
		len = strcspn(*e, "=");
		if (len >= sizeof(name)) {
			(*e)[0] = '_'; /* unnameable: make it harmless */
			continue;
		}
		memcpy(name, *e, len);
		name[len] = '\0';
		unsetenv(name);
	}
}

static uint16_t accel_pci_vendor(const struct sn_config *cfg)
{
	/* The loader fills pci_vendor from the vendor (config_node.c). */
	return cfg->node.accel.pci_vendor;
}

static bool port_usable(const struct sn_taskenv_port *p)
{
	return p->allowed && p->active && p->layer_ok;
}

static size_t usable_ports(const struct sn_taskenv_node *node)
{
	size_t n = 0;

	for (size_t p = 0; p < node->n_ports; p++)
		n += port_usable(&node->ports[p]);
	return n;
}

/* node->gpus from an open topology: its accelerators, in PCI order. */
static void gpus_from_topo(const struct sn_topo *t, struct sn_taskenv_gpus *g)
{
	size_t n = 0;
	const struct sn_topo_accel *a = sn_topo_accels(t, &n);

	memset(g, 0, sizeof(*g));
	if (n > SN_MANIFEST_MAX_ACCELS)
		n = SN_MANIFEST_MAX_ACCELS;
	snprintf(g->from, sizeof(g->from), "hwloc");
	g->all_nvidia = true;
	for (size_t i = 0; i < n; i++) {
		snprintf(g->busid[i], sizeof(g->busid[i]), "%s", a[i].busid);
		g->all_nvidia &= a[i].vendor == PCI_VENDOR_NVIDIA;
	}
	g->n = (unsigned)n;
}

/* The topology snapshot and, from it, the node's GPUs (node->topo_note). */
static void topo_gather(const struct sn_config *cfg, const char *hwloc_xml,
			struct sn_taskenv_node *node)
{
	struct sn_error err;
	struct sn_topo *t;

	/* hwloc honours HWLOC_COMPONENTS etc. even when given XML */
	hwloc_env_scrub();
	t = sn_topo_open(hwloc_xml, accel_pci_vendor(cfg), &err);
	if (!t) {
		snprintf(node->topo_note, sizeof(node->topo_note),
			 "topology not loaded: %.200s", err.msg);
		return;
	}
	sn_taskenv_near_fill(t, &node->topo);
	gpus_from_topo(t, &node->gpus);
	sn_topo_close(t);
}

void sn_taskenv_node_gather(const struct sn_config *cfg, const char *sysfs,
			    const char *hwloc_xml, unsigned want_topo,
			    struct sn_taskenv_node *node)
{
	memset(node, 0, sizeof(*node));
	ports_gather(cfg, sysfs, node);
	ifstate_gather(cfg, sysfs, node);
	/*
	 * Live hwloc discovery costs tens of milliseconds per step: for NICs,
	 * only pay it when there is a choice to make (two usable ports or
	 * more); the GPU binding needs it whatever the ports.
	 */
	if (node->ports_ok && usable_ports(node) < 2)
		want_topo &= ~SN_TASKENV_TOPO_NICS;
	if (want_topo)
		topo_gather(cfg, hwloc_xml, node);
}

struct gather_arg {
	const struct sn_config *cfg;
	const char *sysfs, *hwloc_xml;
	unsigned want_topo;
	struct sn_taskenv_node node;
};

static int gather_child(void *arg, int fd)
{
	struct gather_arg *ga = arg;
	const char *p = (const char *)&ga->node;
	size_t left = sizeof(ga->node);

	sn_taskenv_node_gather(ga->cfg, ga->sysfs, ga->hwloc_xml, ga->want_topo,
			       &ga->node);
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int sn_taskenv_node_gather_bounded(const struct sn_config *cfg,
				   const char *sysfs, const char *hwloc_xml,
				   unsigned want_topo, uint32_t timeout_ms,
				   struct sn_taskenv_node *node)
{
	struct gather_arg *ga = calloc(1, sizeof(*ga));
	char *buf = NULL;
	size_t len = 0;
	int st;

	memset(node, 0, sizeof(*node));
	if (!ga) {
		snprintf(node->ports_note, sizeof(node->ports_note),
			 "out of memory");
		return -1;
	}
	ga->cfg = cfg;
	ga->sysfs = sysfs;
	ga->hwloc_xml = hwloc_xml;
	ga->want_topo = want_topo;
	st = sn_run_in_child(gather_child, ga, timeout_ms, sizeof(*node), &buf,
			     &len);
	free(ga);
	if (st == 0 && len == sizeof(*node)) {
		memcpy(node, buf, sizeof(*node));
		free(buf);
		return 0;
	}
	free(buf);
	if (st == -1)
		snprintf(node->ports_note, sizeof(node->ports_note),
			 "reading ports%s took more than %u ms (stopped)",
			 want_topo ? " and topology" : "", timeout_ms);
	else
		snprintf(node->ports_note, sizeof(node->ports_note),
			 "reading ports%s failed (helper process: status %d)",
			 want_topo ? " and topology" : "", st);
	if (want_topo)
		snprintf(node->topo_note, sizeof(node->topo_note), "%s",
			 node->ports_note);
	return -1;
}

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

static void join_idx(char *buf, size_t size, const unsigned *idx, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%u",
					 i ? "," : "", idx[i]);
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

/* ---- building (pure) ---------------------------------------------------- */

static struct sn_taskenv_var *add(struct sn_taskenv *out, const char *name,
				  char *value, bool per_task, const char *fmt,
				  ...) __attribute__((format(printf, 5, 6)));

/* Append an entry (value: malloc()ed or NULL); NULL when the list is full. */
static struct sn_taskenv_var *add(struct sn_taskenv *out, const char *name,
				  char *value, bool per_task, const char *fmt,
				  ...)
{
	struct sn_taskenv_var *v;
	va_list ap;

	if (out->count >= SN_TASKENV_MAX_VARS) {
		free(value);
		return NULL;
	}
	v = &out->vars[out->count++];
	v->name = name;
	v->value = value;
	v->per_task = per_task;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return v;
}

/* Where the allowed ports come from, for messages. */
static const char *ports_source(const struct sn_config *cfg)
{
	if (cfg->n_hca)
		return "ACTIVE ports allowed by env.hca";
	if (cfg->node.n_ports)
		return "ACTIVE ports of node.ports";
	return "ACTIVE InfiniBand/RoCE ports of this node";
}

/* "; left out: mlx5_2:1 (DOWN)" for allowed ports that are not usable. */
static void left_out(const struct sn_taskenv_node *node, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < node->n_ports && used < size; i++) {
		const struct sn_taskenv_port *p = &node->ports[i];

		if (!p->allowed || port_usable(p))
			continue;
		used += (size_t)snprintf(
			buf + used, size - used, "%s%s:%u (%s)",
			used ? ", " : "; left out: ", p->dev, p->port,
			p->active ? "link layer unreadable" : p->state);
	}
}

static int hca_add(const struct sn_config *cfg,
		   const struct sn_taskenv_node *node, struct sn_taskenv *out)
{
	struct sn_strbuf b = SN_STRBUF_INIT;
	char rest[160];
	size_t n = 0;

	if (!node->ports_ok) {
		add(out, "NCCL_IB_HCA", NULL, false, "%s", node->ports_note);
		return 0;
	}
	sn_strbuf_append(&b, "=");
	for (size_t i = 0; i < node->n_ports; i++) {
		const struct sn_taskenv_port *p = &node->ports[i];

		if (port_usable(p))
			sn_strbuf_appendf(&b, "%s%s:%u", n++ ? "," : "", p->dev,
					  p->port);
	}
	if (sn_strbuf_failed(&b))
		return -1;
	left_out(node, rest, sizeof(rest));
	if (!n) {
		sn_strbuf_free(&b);
		add(out, "NCCL_IB_HCA", NULL, false, "no %s%s",
		    ports_source(cfg), rest);
		return 0;
	}
	add(out, "NCCL_IB_HCA", sn_strbuf_take(&b, NULL), false, "%s%s",
	    ports_source(cfg), rest);
	return 0;
}

static int gid_add(const struct sn_taskenv_node *node, struct sn_taskenv *out)
{
	char detail[160] = "";
	size_t used = 0, roce = 0;
	int idx = -1;
	bool agree = true, missing = false;

	for (size_t i = 0; i < node->n_ports; i++) {
		const struct sn_taskenv_port *p = &node->ports[i];

		if (!port_usable(p) || p->layer != SN_LINK_ETHERNET)
			continue;
		if (used < sizeof(detail))
			used += (size_t)snprintf(
				detail + used, sizeof(detail) - used,
				"%s%s:%u %s", roce ? ", " : "", p->dev, p->port,
				p->gid_index >= 0  ? "" :
				p->gid_index == -1 ? "none" :
						     "unreadable");
		if (p->gid_index >= 0 && used < sizeof(detail))
			used += (size_t)snprintf(detail + used,
						 sizeof(detail) - used, "%d",
						 p->gid_index);
		if (p->gid_index < 0)
			missing = true;
		else if (idx < 0)
			idx = p->gid_index;
		else if (idx != p->gid_index)
			agree = false;
		roce++;
	}
	if (!roce)
		return 0; /* InfiniBand only: NCCL needs no GID index */
	if (missing) {
		add(out, "NCCL_IB_GID_INDEX", NULL, false,
		    "a RoCE port has no usable RoCE v2 GID (%s)", detail);
		return 0;
	}
	if (!agree) {
		add(out, "NCCL_IB_GID_INDEX", NULL, false,
		    "the RoCE ports' RoCE v2 GID indexes differ (%s)", detail);
		return 0;
	}
	{
		char *v = NULL;

		if (asprintf(&v, "%d", idx) < 0)
			return -1;
		add(out, "NCCL_IB_GID_INDEX", v, false,
		    "RoCE v2 GID of the RoCE ports (%s)", detail);
	}
	return 0;
}

static int socket_add(const struct sn_config *cfg,
		      const struct sn_taskenv_node *node, bool ascend,
		      struct sn_taskenv *out)
{
	const char *ifn = cfg->socket_ifname;
	const char *main_name = ascend ? "HCCL_SOCKET_IFNAME" :
					 "NCCL_SOCKET_IFNAME";
	char *a = NULL, *b = NULL;

	if (!ifn) {
		add(out, main_name, NULL, false,
		    "env.socket_ifname is not set in the config");
		return 0;
	}
	if (node->ifstate == SN_IF_MISSING || node->ifstate == SN_IF_DOWN) {
		struct sn_taskenv_var *v;

		if (node->ifstate == SN_IF_MISSING)
			v = add(out, main_name, NULL, false,
				"env.socket_ifname %s: no such interface on this node",
				ifn);
		else
			v = add(out, main_name, NULL, false,
				"env.socket_ifname %s is %s on this node", ifn,
				node->operstate);
		add(out, "GLOO_SOCKET_IFNAME", NULL, false, "%s",
		    v ? v->why : "");
		return 0;
	}
	/* NCCL: "=" for exact; HCCL and Gloo: the plain name. */
	if (ascend ? !(a = strdup(ifn)) : asprintf(&a, "=%s", ifn) < 0)
		return -1;
	if (!(b = strdup(ifn))) {
		free(a);
		return -1;
	}
	add(out, main_name, a, false,
	    ascend ?
		    "env.socket_ifname" :
		    "env.socket_ifname, exact match (a bare name is a prefix)");
	add(out, "GLOO_SOCKET_IFNAME", b, false, "env.socket_ifname");
	return 0;
}

static int rank_add(struct sn_taskenv *out, const char *name, uint32_t v,
		    const char *why)
{
	char *s = NULL;

	if (asprintf(&s, "%u", v) < 0)
		return -1;
	add(out, name, s, true, "%s", why);
	return 0;
}

/* The one usable port of the node, or NULL when there are none or several. */
static const struct sn_taskenv_port *
only_port(const struct sn_taskenv_node *node)
{
	const struct sn_taskenv_port *one = NULL;

	for (size_t p = 0; p < node->n_ports; p++) {
		if (!port_usable(&node->ports[p]))
			continue;
		if (one)
			return NULL;
		one = &node->ports[p];
	}
	return one;
}

static int ucx_add(const struct sn_taskenv_node *node, const unsigned *acc,
		   int nacc, struct sn_taskenv *out)
{
	const struct sn_taskenv_port *one = node->ports_ok ? only_port(node) :
							     NULL;
	struct sn_strbuf b = SN_STRBUF_INIT;
	char nics[160] = "";
	size_t used = 0, n = 0;

	if (one) {
		char *v = NULL;

		if (asprintf(&v, "%s:%u", one->dev, one->port) < 0)
			return -1;
		add(out, "UCX_NET_DEVICES", v, true,
		    "the node's only usable port: no topology needed");
		return 0;
	}
	if (!node->topo.valid) {
		add(out, "UCX_NET_DEVICES", NULL, true, "%s",
		    node->topo_note[0] ? node->topo_note : "no topology");
		return 0;
	}
	if (nacc <= 0) {
		add(out, "UCX_NET_DEVICES", NULL, true, "%s", out->accels_why);
		return 0;
	}
	if (!node->ports_ok) {
		add(out, "UCX_NET_DEVICES", NULL, true, "%s", node->ports_note);
		return 0;
	}
	for (int i = 0; i < nacc; i++) {
		unsigned a = acc[i];

		if (a >= node->topo.n_accels) {
			add(out, "UCX_NET_DEVICES", NULL, true,
			    "accelerator %u is not in the topology (%u accelerators)",
			    a, node->topo.n_accels);
			sn_strbuf_free(&b);
			return 0;
		}
		for (unsigned k = 0; k < node->topo.n_near[a]; k++) {
			const char *nic = node->topo.nics[a][k];

			if (used < sizeof(nics))
				used += (size_t)snprintf(
					nics + used, sizeof(nics) - used,
					"%s%u->%s", used ? ", " : "", a, nic);
			for (size_t p = 0; p < node->n_ports; p++) {
				const struct sn_taskenv_port *tp =
					&node->ports[p];
				char item[SN_IB_DEV_MAX + 8];
				const char *q = sn_strbuf_str(&b);

				if (!port_usable(tp) || strcmp(tp->dev, nic))
					continue;
				snprintf(item, sizeof(item), "%s:%u", tp->dev,
					 tp->port);
				/* two accelerators may share a NIC */
				if (strstr(q, item)) {
					const char *s0 = q;
					size_t l = strlen(item);
					bool seen = false;

					for (; (q = strstr(q, item)); q += l)
						seen |= (q == s0 ||
							 q[-1] == ',') &&
							(q[l] == ',' || !q[l]);
					if (seen)
						continue;
				}
				sn_strbuf_appendf(&b, "%s%s", n++ ? "," : "",
						  item);
			}
		}
	}
	if (sn_strbuf_failed(&b))
		return -1;
	if (!n) {
		add(out, "UCX_NET_DEVICES", NULL, true,
		    "the nearest NICs (%s) have no usable port",
		    used ? nics : "none");
		return 0;
	}
	add(out, "UCX_NET_DEVICES", sn_strbuf_take(&b, NULL), true,
	    "nearest NICs of the task's accelerators: %s", nics);
	return 0;
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
	return cfg->node.accel.vendor == SN_ACCEL_NVIDIA ?
		       cfg->node.accel.count :
		       0;
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
			 cfg->node.accel.vendor == SN_ACCEL_NVIDIA ?
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
	enum sn_accel_vendor vendor = cfg->node.accel.vendor;
	const char *from = "";
	unsigned n;
	size_t used;

	why[0] = '\0';
	if (vendor != SN_ACCEL_NVIDIA && vendor != SN_ACCEL_NONE)
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

/* CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER: set together or not at all. */
static int cuda_add(const struct sn_config *cfg,
		    const struct sn_taskenv_node *node,
		    const struct sn_taskenv_task *task, struct sn_taskenv *out)
{
	char why[SN_TASKENV_WHY_MAX];
	int g = sn_taskenv_gpu_bind(cfg, node, task, why, sizeof(why));
	char *v = NULL, *order;

	if (g == -2)
		return 0;
	if (g < 0) {
		add(out, "CUDA_VISIBLE_DEVICES", NULL, true, "%s", why);
		add(out, "CUDA_DEVICE_ORDER", NULL, true, "%s", why);
		return 0;
	}
	if (asprintf(&v, "%d", g) < 0)
		return -1;
	if (!(order = strdup("PCI_BUS_ID"))) {
		free(v);
		return -1;
	}
	add(out, "CUDA_VISIBLE_DEVICES", v, true, "%s", why);
	/* CUDA's default FASTEST_FIRST can differ from NVML's and hwloc's */
	add(out, "CUDA_DEVICE_ORDER", order, true,
	    "CUDA_VISIBLE_DEVICES is a PCI bus order index (the order of NVML and hwloc that the NIC choice uses; CUDA's default FASTEST_FIRST can differ)");
	return 0;
}

int sn_taskenv_build(const struct sn_config *cfg,
		     const struct sn_taskenv_node *node,
		     const struct sn_taskenv_task *task, struct sn_taskenv *out)
{
	bool ascend = cfg->node.accel.vendor == SN_ACCEL_ASCEND;
	unsigned n_node = node->topo.valid ? node->topo.n_accels :
					     cfg->node.accel.count;
	unsigned acc[SN_MANIFEST_MAX_ACCELS];
	int nacc;

	memset(out, 0, sizeof(*out));
	if (!ascend && hca_add(cfg, node, out))
		goto oom;
	if (!ascend && gid_add(node, out))
		goto oom;
	if (socket_add(cfg, node, ascend, out))
		goto oom;
	if (cfg->mnnvl && !ascend &&
	    !add(out, "NCCL_MNNVL_ENABLE", strdup("1"), false,
		 "env.mnnvl: the supernode is one multi-node NVLink domain"))
		goto oom;
	if (task->batch)
		return 0;
	if (cfg->pytorch &&
	    (rank_add(out, "RANK", task->global_rank, "SLURM_PROCID") ||
	     rank_add(out, "LOCAL_RANK", task->local_rank, "SLURM_LOCALID") ||
	     rank_add(out, "WORLD_SIZE", task->world_size, "SLURM_NTASKS") ||
	     rank_add(out, "LOCAL_WORLD_SIZE", task->local_size,
		      "tasks of the step on this node")))
		goto oom;
	nacc = sn_taskenv_task_accels(task, n_node, acc, SN_MANIFEST_MAX_ACCELS,
				      out->accels_why, sizeof(out->accels_why));
	if (ucx_add(node, acc, nacc, out))
		goto oom;
	if (!ascend && cuda_add(cfg, node, task, out))
		goto oom;
	if (ascend) {
		char why[SN_TASKENV_WHY_MAX],
			list[SN_MANIFEST_MAX_ACCELS * 3 + 1];
		int nv = sn_taskenv_visible_accels(task, n_node, acc,
						   SN_MANIFEST_MAX_ACCELS, why,
						   sizeof(why));
		char *v;

		/*
		 * The task's devices, not narrowed to the local rank: scripts
		 * call torch.npu.set_device(LOCAL_RANK), which needs them all.
		 */
		if (nv <= 0) {
			add(out, "ASCEND_RT_VISIBLE_DEVICES", NULL, true, "%s",
			    why);
		} else {
			join_idx(list, sizeof(list), acc, (size_t)nv);
			if (!(v = strdup(list)))
				goto oom;
			add(out, "ASCEND_RT_VISIBLE_DEVICES", v, true, "%s",
			    why);
		}
	}
	return 0;
oom:
	sn_taskenv_free(out);
	return -1;
}

void sn_taskenv_free(struct sn_taskenv *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->count; i++) {
		free(env->vars[i].value);
		env->vars[i].value = NULL;
	}
	env->count = 0;
}

const struct sn_taskenv_var *sn_taskenv_find(const struct sn_taskenv *env,
					     const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (!strcmp(env->vars[i].name, name))
			return &env->vars[i];
	return NULL;
}

unsigned sn_taskenv_wants_topo(const struct sn_config *cfg, bool batch,
			       bool job_ucx, bool job_visible, bool job_bound)
{
	bool ascend_count = cfg->node.accel.vendor == SN_ACCEL_ASCEND &&
			    !cfg->node.accel.count;
	unsigned want = 0;

	if (batch)
		return 0;
	if (!job_ucx || (ascend_count && !job_visible))
		want |= SN_TASKENV_TOPO_NICS;
	if (cfg->node.accel.vendor == SN_ACCEL_NONE && !job_bound)
		want |= SN_TASKENV_TOPO_GPUS;
	return want;
}

const char *sn_taskenv_visible_name(const struct sn_config *cfg)
{
	return cfg->node.accel.vendor == SN_ACCEL_ASCEND ?
		       "ASCEND_RT_VISIBLE_DEVICES" :
		       "CUDA_VISIBLE_DEVICES";
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
	if (cfg->node.accel.vendor == SN_ACCEL_ASCEND && !job_owns)
		return NULL;
	if (cur == sn_env_unread)
		return "GPU-";
	return sn_taskenv_job_value(marker, sn_taskenv_visible_name(cfg), cur);
}

enum sn_taskenv_ready sn_taskenv_node_prepare(const struct sn_config *cfg,
					      const char *self,
					      unsigned want_topo,
					      struct sn_taskenv_node *node,
					      struct sn_error *err)
{
	struct sn_check_ctx *ctx = malloc(sizeof(*ctx)); /* 6 paths: heap */
	int rc;

	if (!ctx) {
		sn_error_set(err, "out of memory");
		return SN_TASKENV_UNREAD;
	}
	if (sn_check_ctx_init(ctx, cfg, self, err)) {
		free(ctx);
		return SN_TASKENV_UNREAD;
	}
	rc = sn_taskenv_node_gather_bounded(cfg, ctx->sysfs, ctx->hwloc_xml,
					    want_topo,
					    SN_TASKENV_GATHER_TIMEOUT_MS, node);
	free(ctx);
	if (rc) {
		sn_error_set(err, "%s: setting what does not need it",
			     node->ports_note);
		return SN_TASKENV_NO_PORTS;
	}
	if (want_topo && !node->topo.valid) {
		sn_error_set(err, "%s: %s not set",
			     node->topo_note[0] ? node->topo_note :
						  "no topology read",
			     want_topo & SN_TASKENV_TOPO_NICS ?
				     "UCX_NET_DEVICES" :
				     "CUDA_VISIBLE_DEVICES");
		return SN_TASKENV_NO_TOPO;
	}
	return SN_TASKENV_READY;
}

bool sn_taskenv_shows(enum sn_env_mode mode, const struct sn_taskenv_task *t)
{
	return mode == SN_ENV_SHOW && t->local_rank == 0;
}

/* One line about v: "PREFIX NODE: task RANK: TEXT". */
static void show_var(struct sn_strbuf *sb, const char *node, uint32_t rank,
		     const struct sn_ownership_var *v)
{
	char *text = sn_ownership_show(v);

	if (!text)
		sn_strbuf_fail(sb, ENOMEM);
	sn_strbuf_appendf(sb, SN_TASKENV_SHOW "%s: task %u: %s\n", node, rank,
			  text ? text : "");
	free(text);
}

char *sn_taskenv_show_head(const char *node, const struct sn_taskenv_task *t,
			   const char *accels_why, const char *marker,
			   const char *const *step_cur)
{
	struct sn_strbuf sb = { 0 };

	sn_strbuf_appendf(
		&sb,
		SN_TASKENV_SHOW
		"node %s, task %u of %u on it (rank %u of %u); accelerators: %s\n",
		node, t->local_rank, t->local_size, t->global_rank,
		t->world_size,
		accels_why[0] ? accels_why : "not looked at (batch script)");
	for (size_t i = 0; i < SN_OWNERSHIP_STEP_VARS; i++) {
		struct sn_ownership_var v = {
			.name = sn_ownership_step_vars[i][0],
			.cur = step_cur[i],
		};

		sn_ownership_observe(marker, sn_ownership_step_vars[i][1], &v);
		show_var(&sb, node, t->local_rank, &v);
	}
	return sn_strbuf_take(&sb, NULL);
}

char *sn_taskenv_show_vars(const char *node, uint32_t rank,
			   const struct sn_ownership_var *v, size_t n)
{
	struct sn_strbuf sb = { 0 };

	for (size_t i = 0; i < n; i++)
		if (v[i].written || !sn_ownership_writes(&v[i]))
			show_var(&sb, node, rank, &v[i]);
	return sn_strbuf_take(&sb, NULL);
}
