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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_vendor.h"
#include "util/sn_strbuf.h"
#include "env/sn_taskenv.h"
#include "env/taskenv_private.h"

/* ---- building (pure) ---------------------------------------------------- */

static void join_idx(char *buf, size_t size, const unsigned *idx, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%u",
					 i ? "," : "", idx[i]);
}

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

static int hca_add(const struct sn_config *cfg, const struct sn_vendor *vd,
		   const struct sn_taskenv_node *node, struct sn_taskenv *out)
{
	struct sn_strbuf b = SN_STRBUF_INIT;
	char rest[160];
	size_t n = 0;

	if (!node->ports_ok) {
		add(out, vd->hca_var, NULL, false, "%s", node->ports_note);
		return 0;
	}
	sn_strbuf_append(&b, vd->ccl_exact ? "=" : "");
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
		add(out, vd->hca_var, NULL, false, "no %s%s", ports_source(cfg),
		    rest);
		return 0;
	}
	add(out, vd->hca_var, sn_strbuf_take(&b, NULL), false, "%s%s",
	    ports_source(cfg), rest);
	return 0;
}

static int gid_add(const struct sn_vendor *vd,
		   const struct sn_taskenv_node *node, struct sn_taskenv *out)
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
		add(out, vd->gid_var, NULL, false,
		    "a RoCE port has no usable RoCE v2 GID (%s)", detail);
		return 0;
	}
	if (!agree) {
		add(out, vd->gid_var, NULL, false,
		    "the RoCE ports' RoCE v2 GID indexes differ (%s)", detail);
		return 0;
	}
	{
		char *v = NULL;

		if (asprintf(&v, "%d", idx) < 0)
			return -1;
		add(out, vd->gid_var, v, false,
		    "RoCE v2 GID of the RoCE ports (%s)", detail);
	}
	return 0;
}

/* socket_ip_var: the interface's IPv4 address, when it is usable. */
static int ip_add(const struct sn_config *cfg, const struct sn_vendor *vd,
		  const struct sn_taskenv_node *node, struct sn_taskenv *out)
{
	char *a;

	if (!vd->socket_ip_var || !cfg->socket_ifname ||
	    node->ifstate != SN_IF_UP)
		return 0; /* socket_add() said why */
	if (!node->if_ipv4[0]) {
		add(out, vd->socket_ip_var, NULL, false,
		    "env.socket_ifname %s has no IPv4 address on this node",
		    cfg->socket_ifname);
		return 0;
	}
	if (!(a = strdup(node->if_ipv4)))
		return -1;
	add(out, vd->socket_ip_var, a, false,
	    "the IPv4 address of env.socket_ifname %s", cfg->socket_ifname);
	return 0;
}

static int socket_add(const struct sn_config *cfg, const struct sn_vendor *vd,
		      const struct sn_taskenv_node *node,
		      struct sn_taskenv *out)
{
	const char *ifn = cfg->socket_ifname;
	/* a vendor without a socket variable: Gloo's carries the reason */
	const char *main_name = vd->socket_var ? vd->socket_var :
						 "GLOO_SOCKET_IFNAME";
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
		if (vd->socket_var)
			add(out, "GLOO_SOCKET_IFNAME", NULL, false, "%s",
			    v ? v->why : "");
		return 0;
	}
	if (vd->socket_var) {
		/* NCCL: "=" for exact; HCCL and Gloo: the plain name. */
		if (vd->ccl_exact ? asprintf(&a, "=%s", ifn) < 0 :
				    !(a = strdup(ifn)))
			return -1;
		add(out, vd->socket_var, a, false,
		    vd->ccl_exact ?
			    "env.socket_ifname, exact match (a bare name is a prefix)" :
			    "env.socket_ifname");
	}
	if (!(b = strdup(ifn)))
		return -1;
	add(out, "GLOO_SOCKET_IFNAME", b, false, "env.socket_ifname");
	return 0;
}

/*
 * logic_pod_var: the supernode's name when another configured supernode
 * has the same identity (one physical SuperPoD split into logical
 * supernodes).  CANN takes "a string of fewer than 128 characters"; our
 * names have at most 63.  Unset otherwise: HCCL then uses the hardware's
 * super pod id, which is the same thing.
 */
static int logic_pod_add(const struct sn_config *cfg,
			 const struct sn_vendor *vd,
			 const struct sn_taskenv_node *node,
			 struct sn_taskenv *out)
{
	const struct sn_supernode *me, *other = NULL;
	char *a;

	if (!vd->logic_pod_var || !node->in_supernode ||
	    node->supernode >= cfg->n_supernodes)
		return 0;
	me = &cfg->supernodes[node->supernode];
	if (!me->identity)
		return 0;
	for (size_t i = 0; i < cfg->n_supernodes && !other; i++)
		if (i != node->supernode && cfg->supernodes[i].identity &&
		    !strcmp(cfg->supernodes[i].identity, me->identity))
			other = &cfg->supernodes[i];
	if (!other)
		return 0;
	if (!(a = strdup(me->name)))
		return -1;
	add(out, vd->logic_pod_var, a, false,
	    "supernode %s is a logical part of %s, shared with %s", me->name,
	    me->identity, other->name);
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

/* visible_var and order_var (BIND): set together or not at all. */
static int bind_add(const struct sn_config *cfg, const struct sn_vendor *vd,
		    const struct sn_taskenv_node *node,
		    const struct sn_taskenv_task *task, struct sn_taskenv *out)
{
	char why[SN_TASKENV_WHY_MAX];
	int g = sn_taskenv_gpu_bind(cfg, node, task, why, sizeof(why));
	char *v = NULL, *order;

	if (g == -2)
		return 0;
	if (g < 0) {
		add(out, vd->visible_var, NULL, true, "%s", why);
		add(out, vd->order_var, NULL, true, "%s", why);
		return 0;
	}
	if (asprintf(&v, "%d", g) < 0)
		return -1;
	if (!(order = strdup("PCI_BUS_ID"))) {
		free(v);
		return -1;
	}
	add(out, vd->visible_var, v, true, "%s", why);
	/* CUDA's default FASTEST_FIRST can differ from NVML's and hwloc's */
	add(out, vd->order_var, order, true,
	    "CUDA_VISIBLE_DEVICES is a PCI bus order index (the order of NVML and hwloc that the NIC choice uses; CUDA's default FASTEST_FIRST can differ)");
	return 0;
}

/*
 * visible_var (LIST): the task's devices, not narrowed to the local rank:
 * scripts call torch.npu.set_device(LOCAL_RANK) (and the like), which
 * needs them all.
 */
static int list_add(const struct sn_vendor *vd,
		    const struct sn_taskenv_task *task, unsigned n_node,
		    struct sn_taskenv *out)
{
	char why[SN_TASKENV_WHY_MAX], list[SN_MANIFEST_MAX_ACCELS * 3 + 1];
	unsigned acc[SN_MANIFEST_MAX_ACCELS];
	int nv = sn_taskenv_visible_accels(
		task, n_node, acc, SN_MANIFEST_MAX_ACCELS, why, sizeof(why));
	char *v;

	if (nv <= 0) {
		add(out, vd->visible_var, NULL, true, "%s", why);
		return 0;
	}
	join_idx(list, sizeof(list), acc, (size_t)nv);
	if (!(v = strdup(list)))
		return -1;
	add(out, vd->visible_var, v, true, "%s", why);
	return 0;
}

static void note_add(struct sn_taskenv *out, bool warn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note_add(struct sn_taskenv *out, bool warn, const char *fmt, ...)
{
	struct sn_taskenv_note *n;
	va_list ap;

	if (out->n_notes >= SN_TASKENV_MAX_NOTES)
		return;
	n = &out->notes[out->n_notes++];
	n->warn = warn;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

/* The node-wide variables of the vendor's collective library. */
static int ccl_add(const struct sn_config *cfg, const struct sn_vendor *vd,
		   const struct sn_taskenv_node *node, struct sn_taskenv *out)
{
	if (node->topo_file_note[0])
		note_add(out, true, "%s", node->topo_file_note);
	if (vd->ccl_note)
		note_add(out, false, "%s: %s", vd->ccl ? vd->ccl : vd->maker,
			 vd->ccl_note);
	if (vd->hca_var && hca_add(cfg, vd, node, out))
		return -1;
	if (vd->gid_var && gid_add(vd, node, out))
		return -1;
	if (socket_add(cfg, vd, node, out) || ip_add(cfg, vd, node, out))
		return -1;
	if (cfg->mnnvl && vd->mnnvl_var &&
	    !add(out, vd->mnnvl_var, strdup("1"), false,
		 "env.mnnvl: the supernode is one multi-node NVLink domain"))
		return -1;
	return logic_pod_add(cfg, vd, node, out);
}

int sn_taskenv_build(const struct sn_config *cfg,
		     const struct sn_taskenv_node *node,
		     const struct sn_taskenv_task *task, struct sn_taskenv *out)
{
	const struct sn_vendor *vd = sn_vendor_of(cfg->node.accel.vendor);
	unsigned n_node = node->topo.valid ? node->topo.n_accels :
					     cfg->node.accel.count;
	unsigned acc[SN_MANIFEST_MAX_ACCELS];
	int nacc;

	memset(out, 0, sizeof(*out));
	if (ccl_add(cfg, vd, node, out))
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
	if (vd->visible_mode == SN_VENDOR_VISIBLE_BIND &&
	    bind_add(cfg, vd, node, task, out))
		goto oom;
	if (vd->visible_mode == SN_VENDOR_VISIBLE_LIST &&
	    list_add(vd, task, n_node, out))
		goto oom;
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
	env->n_notes = 0;
}

const struct sn_taskenv_var *sn_taskenv_find(const struct sn_taskenv *env,
					     const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (!strcmp(env->vars[i].name, name))
			return &env->vars[i];
	return NULL;
}
