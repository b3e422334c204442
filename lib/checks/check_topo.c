/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The topology check: every node.topology.pairs entry names an accelerator
 * and the NIC that must be near it (node.topology.nearness).  Verdicts,
 * check name "topology":
 *
 *   OK                  the NIC is near the accelerator (found: why)
 *   CRIT TOPO_NIC_FAR   it is not (found names both devices and where
 *                       they meet)
 *   CRIT TOPO_ACCEL_MISSING / TOPO_NIC_MISSING
 *                       the accelerator index or the NIC is not in the
 *                       topology
 *   UNKNOWN TOPO_NEAR_UNKNOWN
 *                       both exist but their NUMA locality cannot be told
 *   UNKNOWN TOPO_XML_BAD
 *                       the hwloc XML file cannot be used: unreadable, not
 *                       a regular file, too large, garbled, refused by
 *                       hwloc ("bad hwloc XML file: hwloc 2.9.0 refused it
 *                       (format 0): Invalid argument: .../node.xml", the
 *                       path's head cut to fit; one result for the node,
 *                       never a drain)
 *   UNKNOWN TOPO_UNAVAILABLE
 *                       the topology could not be loaded otherwise (no PCI
 *                       device in it, live discovery failed; one result)
 *
 * No pairs: no results.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "util/sn_file.h"
#include "inventory/sn_topo.h"

#define CHECK_NAME "topology"

/* "mlx5_0 mlx5_1 ..." (as many as fit); "none" for an empty list. */
static void nic_list(const struct sn_topo *topo, char *out, size_t size)
{
	size_t n, used = 0;
	const struct sn_topo_nic *nics = sn_topo_nics(topo, &n);

	snprintf(out, size, "%s", n ? "" : "none");
	for (size_t i = 0; i < n && used + 1 < size; i++) {
		int w = snprintf(out + used, size - used, "%s%s", i ? " " : "",
				 nics[i].name);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static void check_pair(const struct sn_topo *topo, enum sn_nearness how,
		       const struct sn_pair *pair, uint16_t pci_vendor,
		       struct sn_results *out)
{
	char device[SN_DEVICE_MAX], expected[SN_VALUE_MAX];
	char why[SN_TOPO_WHY_MAX], list[SN_VALUE_MAX];
	size_t n_accels;
	enum sn_topo_answer ans;
	int missing = 0;

	sn_topo_accels(topo, &n_accels);
	snprintf(device, sizeof(device), "gpu%u/%s", pair->accelerator,
		 pair->nic);
	if (pair->accelerator >= n_accels) {
		sn_results_add(
			out, SN_CRIT, CHECK_NAME, "TOPO_ACCEL_MISSING", device,
			"accelerator in the topology",
			"gpu%u absent: %zu accelerators (pci vendor 0x%04x) in the topology",
			pair->accelerator, n_accels, pci_vendor);
		missing = 1;
	}
	if (!sn_topo_find_nic(topo, pair->nic)) {
		nic_list(topo, list, sizeof(list));
		sn_results_add(out, SN_CRIT, CHECK_NAME, "TOPO_NIC_MISSING",
			       device, "NIC in the topology",
			       "%s absent; NICs: %s", pair->nic, list);
		missing = 1;
	}
	if (missing)
		return;
	snprintf(expected, sizeof(expected), "%s near gpu%u (%s)", pair->nic,
		 pair->accelerator, sn_topo_nearness_name(how));
	ans = sn_topo_near(topo, pair->accelerator, pair->nic, how, why,
			   sizeof(why));
	if (ans == SN_TOPO_YES)
		sn_results_add(out, SN_OK, CHECK_NAME, "OK", device, expected,
			       "%s", why);
	else if (ans == SN_TOPO_NO)
		sn_results_add(out, SN_CRIT, CHECK_NAME, "TOPO_NIC_FAR", device,
			       expected, "%s", why);
	else
		sn_results_add(out, SN_UNKNOWN, CHECK_NAME, "TOPO_NEAR_UNKNOWN",
			       device, expected, "%s", why);
}

int sn_check_topology(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	const struct sn_manifest *m = &ctx->cfg->node;
	struct sn_error err;
	struct sn_topo *topo;

	if (!m->n_pairs)
		return 0;
	err.msg[0] = '\0';
	topo = sn_topo_open(ctx->hwloc_xml, m->accel.pci_vendor, &err);
	if (!topo && errno == EBADMSG) {
		sn_results_add(out, SN_UNKNOWN, CHECK_NAME, "TOPO_XML_BAD",
			       "node", "a readable hwloc XML file", "%s",
			       err.msg);
		return 0;
	}
	if (!topo) {
		sn_results_add(out, SN_UNKNOWN, CHECK_NAME, "TOPO_UNAVAILABLE",
			       "node", "hwloc topology", "%s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < m->n_pairs; i++)
		check_pair(topo, m->nearness, &m->pairs[i], m->accel.pci_vendor,
			   out);
	sn_topo_close(topo);
	return 0;
}
