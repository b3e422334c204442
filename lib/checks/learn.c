/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node: manifest learned from the node's inventory (sn_learn.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/sn_learn.h"
#include "config/sn_vendor.h"
#include "inventory/sn_vendor_lib.h"
#include "inventory/sn_topo.h"

void sn_learn_gpu(struct sn_learned_accel *a, const struct sn_nvml_gpu *g)
{
	int active = 0;

	if (g->gen_max.rc == SN_NVML_SUCCESS &&
	    (!a->gen || g->gen_max.value < a->gen))
		a->gen = g->gen_max.value;
	if (g->width_max.rc == SN_NVML_SUCCESS &&
	    (!a->width || g->width_max.value < a->width))
		a->width = g->width_max.value;
	for (unsigned l = 0; l < g->n_links; l++)
		active += g->links[l].active;
	if (a->nvlinks < 0 || active < a->nvlinks)
		a->nvlinks = active;
}

bool sn_learn_port_keep(const struct sn_ib_port *p)
{
	return p->present && p->state_num == 4;
}

static void nvml_learn(const struct sn_check_ctx *ctx,
		       struct sn_learned_accel *a)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;
	unsigned n = 0;

	if (sn_nvml_open(ctx->nvml, &nvml, &err) ||
	    sn_nvml_device_count(nvml, &n) != SN_NVML_SUCCESS || !n) {
		sn_nvml_close(nvml);
		return;
	}
	a->vendor = SN_ACCEL_NVIDIA;
	a->pci_vendor = 0x10de;
	a->count = n;
	for (unsigned i = 0; i < n && i < SN_MANIFEST_MAX_ACCELS; i++) {
		struct sn_nvml_gpu *g = calloc(1, sizeof(*g));

		if (g && sn_nvml_read_gpu(nvml, i, 0, g) == SN_NVML_SUCCESS)
			sn_learn_gpu(a, g);
		free(g);
	}
	sn_nvml_close(nvml);
}

/* The smallest number of links up on a device, from the vendor's library. */
static void lib_learn(const struct sn_check_ctx *ctx, enum sn_accel_vendor v,
		      struct sn_learned_accel *a)
{
	struct sn_config cfg = *ctx->cfg; /* shallow: never freed */
	struct sn_vendor_node *node = malloc(sizeof(*node));
	struct sn_check_ctx vctx;
	struct sn_error err;

	cfg.node.accel.vendor = v;
	if (!node || sn_check_ctx_init(&vctx, &cfg, ctx->nodename, &err) ||
	    sn_vendor_lib_read(&vctx, 0, node) || node->error[0])
		goto out;
	a->lib_count = node->counted ? (int)node->count : -1;
	for (uint32_t i = 0; i < node->n_devs; i++) {
		const struct sn_vendor_dev *d = &node->devs[i];
		int up = 0;

		if (!d->n_links)
			continue;
		for (unsigned l = 0; l < d->n_links; l++)
			up += d->links[l].state == SN_VLINK_UP;
		if (a->links < 0 || up < a->links)
			a->links = up;
	}
out:
	free(node);
}

/* The first vendor of the table with PCI functions here (not NVIDIA). */
static void pci_learn(const struct sn_check_ctx *ctx,
		      struct sn_learned_accel *a)
{
	struct sn_accel_pci_list *list = malloc(sizeof(*list));
	struct sn_error err;

	for (unsigned i = 0; list && i < SN_ACCEL_VENDOR_COUNT && !a->count;
	     i++) {
		const struct sn_vendor *v = sn_vendor_of(i);

		if (!v->pci_vendor || v->api == SN_VENDOR_API_NVML ||
		    sn_accel_pci_scan(ctx->sysfs, v->id, v->pci_vendor, list,
				      &err) ||
		    !list->count)
			continue;
		a->vendor = v->id;
		a->pci_vendor = v->pci_vendor;
		a->count = (unsigned)list->count;
		if (v->api == SN_VENDOR_API_LIB)
			lib_learn(ctx, v->id, a);
	}
	free(list);
}

void sn_learn_accels(const struct sn_check_ctx *ctx, struct sn_learned_accel *a)
{
	nvml_learn(ctx, a);
	if (!a->count)
		pci_learn(ctx, a);
}

void sn_learn_accel_write(FILE *f, const struct sn_learned_accel *a)
{
	if (!a->count) {
		fprintf(f,
			"  # no accelerators found (NVML, or the PCI ids of %s)\n",
			sn_vendor_names());
		return;
	}
	fprintf(f, "  accelerators:\n    vendor: %s\n    count: %u\n",
		sn_accel_vendor_name(a->vendor), a->count);
	if (a->gen)
		fprintf(f, "    pcie_min_gen: %u\n", a->gen);
	if (a->width)
		fprintf(f, "    pcie_min_width: %u\n", a->width);
	if (sn_vendor_of(a->vendor)->api == SN_VENDOR_API_NVML &&
	    a->nvlinks >= 0)
		fprintf(f, "    nvlinks: %d\n", a->nvlinks);
	if (a->links >= 0)
		fprintf(f, "    links: %d\n", a->links);
	if (a->lib_count >= 0 && (unsigned)a->lib_count != a->count)
		fprintf(f,
			"    # %s counts %d, PCI %u: the count above is PCI's\n",
			sn_vendor_of(a->vendor)->library, a->lib_count,
			a->count);
}

/*
 * The port's path MTU as min_mtu (", min_mtu: 4096" into mtu), or why it
 * is not learned, as a comment after the entry (into why): a known-good
 * node's MTU is what every node must reach.
 */
static void mtu_learn(const char *sysfs, const struct sn_ib_port *port,
		      char *mtu, size_t mtu_size, char *why, size_t why_size)
{
	struct sn_port_mtu m;

	mtu[0] = why[0] = '\0';
	if (sn_ib_port_mtu(sysfs, port->dev, port->port, port->layer, -1, &m)) {
		snprintf(why, why_size, "   # min_mtu not learned: %s",
			 strerror(errno));
	} else if (m.status == SN_ATTR_OK && m.path_mtu) {
		snprintf(mtu, mtu_size, ", min_mtu: %u", m.path_mtu);
	} else if (m.status == SN_ATTR_OK) {
		snprintf(
			why, why_size,
			"   # min_mtu not learned: path MTU below 256 (netdev %s MTU %ld)",
			m.ifname, m.netdev_mtu);
	} else if (!strcmp(m.attr, "verbs")) {
		snprintf(
			why, why_size,
			"   # min_mtu not learned: cannot query libibverbs (%s)",
			m.text);
	} else if (m.status == SN_ATTR_MISSING && !m.ifname[0] &&
		   !strcmp(m.attr, "mtu")) {
		snprintf(why, why_size,
			 "   # min_mtu not learned: no netdev found");
	} else {
		snprintf(why, why_size, "   # min_mtu not learned: %s %s (%s)",
			 m.status == SN_ATTR_BAD ? "cannot parse" :
						   "cannot read",
			 m.attr, sn_attr_name(m.status));
	}
}

/* One port: learned, said as left out, or (absent) nothing. */
static void port_write(FILE *f, const char *sysfs,
		       const struct sn_ib_port *port, int *printed)
{
	char mtu[32], why[160];

	if (!port->present)
		return;
	if (!sn_learn_port_keep(port)) {
		/* Said, not learned: a known-good node has it ACTIVE. */
		fprintf(f, "    # left out: %s port %u is %s, not ACTIVE\n",
			port->dev, port->port,
			port->state_name[0] ? port->state_name : "unreadable");
		return;
	}
	if (!(*printed)++)
		fprintf(f, "  ports:\n");
	mtu_learn(sysfs, port, mtu, sizeof(mtu), why, sizeof(why));
	fprintf(f,
		"    - {device: %s, port: %u, link_layer: %s, min_rate_gbps: %g%s}%s\n",
		port->dev, port->port,
		port->layer == SN_LINK_ETHERNET ? "Ethernet" : "InfiniBand",
		port->rate_gbps, mtu, why);
}

void sn_learn_ports_write(FILE *f, const char *sysfs)
{
	char path[PATH_MAX];
	struct dirent **devs = NULL;
	int n, printed = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/infiniband",
			     sysfs) >= sizeof(path))
		return;
	n = scandir(path, &devs, NULL, alphasort);
	for (int i = 0; i < n && i < SN_LEARN_MAX_RDMA_DEVS; i++) {
		for (unsigned p = 1;
		     p <= SN_LEARN_MAX_PORT && devs[i]->d_name[0] != '.'; p++) {
			struct sn_ib_port port;

			if (sn_ib_port_read(sysfs, devs[i]->d_name, p, &port))
				continue;
			port_write(f, sysfs, &port, &printed);
		}
	}
	for (int i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
	if (!printed)
		fprintf(f, "  # no ACTIVE RDMA port found under %s\n", path);
}

void sn_learn_topology_write(FILE *f, const char *hwloc_xml,
			     const struct sn_learned_accel *a)
{
	struct sn_error err;
	struct sn_topo *topo = sn_topo_open(hwloc_xml, a->pci_vendor, &err);
	size_t n = 0;
	int printed = 0;

	if (!topo) {
		fprintf(f, "  # topology not learned: %s\n", err.msg);
		return;
	}
	sn_topo_accels(topo, &n);
	for (size_t i = 0; i < n && i < a->count; i++) {
		char names[1][SN_TOPO_NAME_MAX], why[256];

		if (sn_topo_nearest_nics(topo, (unsigned)i, names, 1) < 1 ||
		    sn_topo_near(topo, (unsigned)i, names[0],
				 SN_NEAR_PCIE_SWITCH, why,
				 sizeof(why)) != SN_TOPO_YES)
			continue;
		if (!printed++)
			fprintf(f,
				"  topology:\n    nearness: pcie_switch\n    pairs:\n");
		fprintf(f, "      - {accelerator: %zu, nic: %s}   # %s\n", i,
			names[0], why);
	}
	if (!printed)
		fprintf(f,
			"  # no accelerator shares a PCIe switch with a NIC: no topology pairs\n");
	sn_topo_close(topo);
}

void sn_learn_write(FILE *f, const struct sn_check_ctx *ctx)
{
	struct sn_learned_accel a = SN_LEARNED_ACCEL_INIT;

	sn_learn_accels(ctx, &a);
	sn_learn_accel_write(f, &a);
	sn_learn_ports_write(f, ctx->sysfs);
	if (a.count)
		sn_learn_topology_write(f, ctx->hwloc_xml, &a);
}
