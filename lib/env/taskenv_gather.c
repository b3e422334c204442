/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-task environment's node facts (sn_taskenv.h): this node's RDMA
 * ports, the socket interface's state and the topology snapshot, gathered
 * once per step (in a child with a time limit).  I/O only; the variables
 * are built from them in taskenv.c.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sn_child.h"
#include "config/sn_checkctx.h"
#include "config/sn_vendor.h"
#include "env/sn_taskenv.h"
#include "env/taskenv_private.h"

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

/*
 * The first IPv4 address of interface ifname, as the kernel holds it
 * (getifaddrs: sysfs has no addresses); "" when it has none.
 */
static void if_ipv4_gather(const char *ifname, char *buf, size_t size)
{
	struct ifaddrs *all, *a;

	buf[0] = '\0';
	if (getifaddrs(&all))
		return;
	for (a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET ||
		    strcmp(a->ifa_name, ifname))
			continue;
		if (!inet_ntop(AF_INET,
			       &((struct sockaddr_in *)(void *)a->ifa_addr)
					->sin_addr,
			       buf, (socklen_t)size))
			buf[0] = '\0';
		break;
	}
	freeifaddrs(all);
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
	if (node->ifstate == SN_IF_UP)
		if_ipv4_gather(cfg->socket_ifname, node->if_ipv4,
			       sizeof(node->if_ipv4));
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
		g->all_nvidia &= sn_vendor_binds_pci(a[i].vendor);
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
	if (node->ports_ok && usable_ports(node) < 2) {
		want_topo &= ~SN_TASKENV_TOPO_NICS;
		node->topo_done = SN_TASKENV_TOPO_NICS;
	}
	if (want_topo)
		topo_gather(cfg, hwloc_xml, node);
	if (node->topo.valid)
		node->topo_done = SN_TASKENV_TOPO_NICS | SN_TASKENV_TOPO_GPUS;
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

unsigned sn_taskenv_wants_topo(const struct sn_config *cfg, bool batch,
			       bool job_ucx, bool job_visible, bool job_bound)
{
	const struct sn_vendor *v = sn_vendor_of(cfg->node.accel.vendor);
	bool list_count = v->visible_mode == SN_VENDOR_VISIBLE_LIST &&
			  !cfg->node.accel.count;
	unsigned want = 0;

	if (batch)
		return 0;
	if (!job_ucx || (list_count && !job_visible))
		want |= SN_TASKENV_TOPO_NICS;
	/* no node.accelerators (the one binding entry without a PCI id) */
	if (v->visible_mode == SN_VENDOR_VISIBLE_BIND && !v->pci_vendor &&
	    !job_bound)
		want |= SN_TASKENV_TOPO_GPUS;
	return want;
}

void taskenv_node_place(const struct sn_config *cfg, const char *self,
			struct sn_taskenv_node *node)
{
	const struct sn_node *me = sn_config_find_node(cfg, self);

	node->in_supernode = me != NULL;
	node->supernode = me ? me->supernode : 0;
}

enum sn_taskenv_ready taskenv_ready(int rc, unsigned want_topo,
				    const struct sn_taskenv_node *node,
				    struct sn_error *err)
{
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
	taskenv_node_place(cfg, self, node);
	return taskenv_ready(rc, want_topo, node, err);
}
