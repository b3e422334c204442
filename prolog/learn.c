/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --learn: print the node: manifest of the node it runs on, to start the
 * config from a known-good node.  What it writes is what the node has now:
 * the accelerators (NVML for NVIDIA, else PCI vendor ids in sysfs), their
 * PCIe maximum and active NVLinks, every ACTIVE RDMA port with its link
 * layer and rate, and each accelerator's NIC when they share a PCIe switch.
 * Runs in a child under the config's check_timeout x 3 (NVML can hang).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "inventory/sn_accel.h"
#include "config/sn_checkctx.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_nvml.h"
#include "sn_prolog.h"
#include "checks/sn_runner.h"
#include "inventory/sn_topo.h"

struct learned_accel {
	enum sn_accel_vendor vendor;
	uint16_t pci_vendor;
	unsigned count;
	unsigned gen, width;	/* smallest maximum over the accelerators; 0 unknown */
	int nvlinks;		/* smallest active count; -1 unknown */
};

static void nvml_learn(const struct sn_check_ctx *ctx, struct learned_accel *a)
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
		int active = 0;

		if (!g || sn_nvml_read_gpu(nvml, i, 0, g) != SN_NVML_SUCCESS) {
			free(g);
			continue;
		}
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
		free(g);
	}
	sn_nvml_close(nvml);
}

static void pci_learn(const struct sn_check_ctx *ctx, struct learned_accel *a)
{
	static const enum sn_accel_vendor vendors[] = { SN_ACCEL_AMD,
							SN_ACCEL_ASCEND };
	struct sn_accel_pci_list *list = malloc(sizeof(*list));
	struct sn_error err;

	for (size_t i = 0; list && i < 2 && !a->count; i++) {
		uint16_t id = vendors[i] == SN_ACCEL_AMD ? 0x1002 : 0x19e5;

		if (sn_accel_pci_scan(ctx->sysfs, vendors[i], id, list, &err) ||
		    !list->count)
			continue;
		a->vendor = vendors[i];
		a->pci_vendor = id;
		a->count = (unsigned)list->count;
	}
	free(list);
}

static void accel_print(FILE *f, const struct learned_accel *a)
{
	if (!a->count) {
		fprintf(f, "  # no accelerators found (NVML, AMD or Ascend PCI ids)\n");
		return;
	}
	fprintf(f, "  accelerators:\n    vendor: %s\n    count: %u\n",
		sn_accel_vendor_name(a->vendor), a->count);
	if (a->gen)
		fprintf(f, "    pcie_min_gen: %u\n", a->gen);
	if (a->width)
		fprintf(f, "    pcie_min_width: %u\n", a->width);
	if (a->vendor == SN_ACCEL_NVIDIA && a->nvlinks >= 0)
		fprintf(f, "    nvlinks: %d\n", a->nvlinks);
}

static void ports_print(FILE *f, const struct sn_check_ctx *ctx)
{
	char path[PATH_MAX];
	struct dirent **devs = NULL;
	int n, printed = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/infiniband",
			     ctx->sysfs) >= sizeof(path))
		return;
	n = scandir(path, &devs, NULL, alphasort);
	for (int i = 0; i < n && i < 64; i++) {
		for (unsigned p = 1; p <= 8 && devs[i]->d_name[0] != '.'; p++) {
			struct sn_ib_port port;

			if (sn_ib_port_read(ctx->sysfs, devs[i]->d_name, p, &port) ||
			    !port.present)
				continue;
			if (port.state_num != 4) {
				/* Said, not learned: a known-good node has it ACTIVE. */
				fprintf(f, "    # left out: %s port %u is %s, not ACTIVE\n",
					devs[i]->d_name, p,
					port.state_name[0] ? port.state_name : "unreadable");
				continue;
			}
			if (!printed++)
				fprintf(f, "  ports:\n");
			fprintf(f, "    - {device: %s, port: %u, link_layer: %s, min_rate_gbps: %g}\n",
				devs[i]->d_name, p,
				port.layer == SN_LINK_ETHERNET ? "Ethernet" : "InfiniBand",
				port.rate_gbps);
		}
	}
	for (int i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
	if (!printed)
		fprintf(f, "  # no ACTIVE RDMA port found under %s\n", path);
}

static void topology_print(FILE *f, const struct sn_check_ctx *ctx,
			   const struct learned_accel *a)
{
	struct sn_error err;
	struct sn_topo *topo = sn_topo_open(ctx->hwloc_xml, a->pci_vendor, &err);
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
		    sn_topo_near(topo, (unsigned)i, names[0], SN_NEAR_PCIE_SWITCH,
				 why, sizeof(why)) != SN_TOPO_YES)
			continue;
		if (!printed++)
			fprintf(f, "  topology:\n    nearness: pcie_switch\n    pairs:\n");
		fprintf(f, "      - {accelerator: %zu, nic: %s}   # %s\n", i,
			names[0], why);
	}
	if (!printed)
		fprintf(f, "  # no accelerator shares a PCIe switch with a NIC: no topology pairs\n");
	sn_topo_close(topo);
}

static int learn_child(void *arg, int fd)
{
	const struct sn_check_ctx *ctx = arg;
	struct learned_accel a = { .nvlinks = -1 };
	FILE *f = fdopen(fd, "w");
	time_t now = time(NULL);
	char when[32];

	if (!f)
		return 1;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	nvml_learn(ctx, &a);
	if (!a.count)
		pci_learn(ctx, &a);
	fprintf(f, "# node: manifest learned on %s by %s --learn, %s.\n"
		   "# Check it against what the node should have, then put it into supernode.yaml.\n"
		   "node:\n", ctx->nodename, SN_PROLOG_NAME, when);
	accel_print(f, &a);
	ports_print(f, ctx);
	if (a.count)
		topology_print(f, ctx, &a);
	return fclose(f) ? 1 : 0;
}

int sn_prolog_learn(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	struct sn_check_ctx ctx;
	struct sn_error err;
	char *out = NULL;
	size_t len = 0;
	int rc;

	if (sn_check_ctx_init(&ctx, cfg, args->node, &err)) {
		sn_log(LOG_ERR, "%s", err.msg);
		return SN_EXIT_USAGE;
	}
	rc = sn_run_in_child(learn_child, &ctx, cfg->prolog.check_timeout_s * 3000,
			     1u << 20, &out, &len);
	if (rc != 0) {
		sn_log(LOG_ERR, "--learn %s", rc == -1 ? "timed out" : "failed");
		free(out);
		return SN_EXIT_UNKNOWN;
	}
	fwrite(out, 1, len, stdout);
	free(out);
	return SN_EXIT_OK;
}
