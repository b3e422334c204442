/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The accelerators of a vendor with a management library (DCMI, ROCm SMI,
 * CNDev, MTML, MXSML, XPUML), judged from what its backend read
 * (inventory/sn_vendor_lib.h), after check_accel.c counted the PCI
 * functions and device nodes:
 *
 *   - the library missing, too old or failing to initialise: UNKNOWN
 *     ACCEL_LIBRARY with its reason (the tool could not tell);
 *   - a call cut by the watchdog: UNKNOWN ACCEL_CALL_HUNG naming the call
 *     and its limit; what was read before it is judged as usual;
 *   - the library's count against the manifest: CRIT ACCEL_COUNT ("lib
 *     7"), naming the PCI functions the library does not list;
 *   - the vendor's health verdict: CRIT or WARN ACCEL_HEALTH with the
 *     vendor's own reason and code;
 *   - volatile uncorrected ECC errors: CRIT ACCEL_ECC_UNCORRECTED;
 *   - Ascend's RoCE network health (INIT counts as healthy, as
 *     MindCluster does): CRIT ACCEL_NET_HEALTH;
 *   - links (node.accelerators.links): fewer up than the manifest wants is
 *     CRIT ACCEL_LINK_DOWN naming the links and the vendor's word; a link
 *     up at reduced width (MTLink DOWNGRADE) is CRIT ACCEL_LINK_DEGRADED:
 *     a collective runs at its slowest link, so the job is better
 *     requeued onto a healthy supernode;
 *   - a query that failed on one device: UNKNOWN ACCEL_QUERY.
 * One OK result per healthy device.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/sn_check_vendor.h"
#include "config/sn_vendor.h"
#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"

#define CHECK_LIB "accel_lib"
#define CHECK_COUNT "accel_count"
#define CHECK_DEV "accel"
#define CHECK_LINK "accel_link"
#define DEADLINE_MARGIN_MS 250 /* the read ends this before the group's */

/* "npu3 0000:c1:00.0" */
static void dev_label(const struct sn_vendor *v, const struct sn_vendor_dev *d,
		      char *buf, size_t size)
{
	char kind[16];
	size_t i;

	for (i = 0; v->kind[i] && i + 1 < sizeof(kind); i++)
		kind[i] = (char)tolower((unsigned char)v->kind[i]);
	kind[i] = '\0';
	snprintf(buf, size, "%s%u%s%s", kind, d->index, d->bdf[0] ? " " : "",
		 d->bdf);
}

static bool lib_lists(const struct sn_vendor_node *node, const char *bdf)
{
	for (uint32_t i = 0; i < node->n_devs; i++)
		if (!strcmp(node->devs[i].bdf, bdf))
			return true;
	return false;
}

static void lib_count(const struct sn_check_ctx *ctx, const struct sn_vendor *v,
		      const struct sn_vendor_node *node,
		      const struct sn_accel_pci_list *pci,
		      struct sn_results *out)
{
	const struct sn_accel_manifest *m = &ctx->cfg->node.accel;
	char found[SN_VALUE_MAX], expected[SN_VALUE_MAX];
	size_t len;

	/* A read cut by the watchdog may have counted only part. */
	if (!node->counted || node->count == m->count || node->hung_call[0])
		return;
	len = (size_t)snprintf(found, sizeof(found), "%s counts %u", v->library,
			       node->count);
	/* The bus ids the library lacks, when it gives bus ids at all. */
	for (size_t i = 0;
	     pci && node->n_devs && i < pci->count && len < sizeof(found);
	     i++) {
		if (lib_lists(node, pci->items[i].bdf))
			continue;
		len += (size_t)snprintf(found + len, sizeof(found) - len,
					"%s%s", len ? ", not " : "",
					pci->items[i].bdf);
	}
	snprintf(expected, sizeof(expected), "%u %s %ss", m->count, v->maker,
		 v->kind);
	sn_results_add(out, SN_CRIT, CHECK_COUNT, "ACCEL_COUNT", "node",
		       expected, "%s", found);
}

/* Links: fewer up than node.accelerators.links, or any degraded. */
static bool dev_links(const struct sn_check_ctx *ctx, const struct sn_vendor *v,
		      const struct sn_vendor_dev *d, const char *label,
		      struct sn_results *out)
{
	int want = ctx->cfg->node.accel.links;
	char down[SN_VALUE_MAX] = "", slow[SN_VALUE_MAX] = "";
	size_t dl = 0, sl = 0;
	int up = 0, unused = 0;

	if (want < 0)
		return true;
	for (unsigned l = 0; l < d->n_links; l++) {
		const struct sn_vendor_link *k = &d->links[l];

		if (k->state == SN_VLINK_UP) {
			up++;
		} else if (k->state == SN_VLINK_DEGRADED) {
			up++;
			if (sl < sizeof(slow))
				sl += (size_t)snprintf(slow + sl,
						       sizeof(slow) - sl,
						       "%slink %u %s",
						       sl ? ", " : "", l,
						       k->state_text);
		} else if (k->state == SN_VLINK_UNUSED) {
			unused++; /* the vendor says not cabled: not down */
		} else if (dl < sizeof(down)) {
			dl += (size_t)snprintf(down + dl, sizeof(down) - dl,
					       "%slink %u %s", dl ? ", " : "",
					       l, k->state_text);
		}
	}
	if (up < want)
		sn_results_add(out, SN_CRIT, CHECK_LINK, "ACCEL_LINK_DOWN",
			       label, "", "%s up %d of %d, %d unused%s%s",
			       v->link_name, up, want, unused, dl ? ": " : "",
			       down);
	if (sl)
		sn_results_add(out, SN_CRIT, CHECK_LINK, "ACCEL_LINK_DEGRADED",
			       label, "full width", "%s %s", v->link_name,
			       slow);
	return up >= want && !sl;
}

/*
 * One device's verdicts; partial: the watchdog cut a call on it, so what
 * was read is judged but it gets no OK.
 */
static void judge_dev(const struct sn_check_ctx *ctx, const struct sn_vendor *v,
		      const struct sn_vendor_dev *d, bool partial,
		      struct sn_results *out)
{
	char label[SN_DEVICE_MAX], expected[SN_VALUE_MAX];
	bool ok = true;

	dev_label(v, d, label, sizeof(label));
	snprintf(expected, sizeof(expected), "healthy (%s)", v->library);
	if (d->error[0]) {
		sn_results_add(out, SN_UNKNOWN, CHECK_DEV, "ACCEL_QUERY", label,
			       expected, "%s", d->error);
		ok = false;
	}
	if (d->health == SN_VHEALTH_CRIT || d->health == SN_VHEALTH_WARN) {
		sn_results_add(out,
			       d->health == SN_VHEALTH_CRIT ? SN_CRIT : SN_WARN,
			       CHECK_DEV, "ACCEL_HEALTH", label, expected, "%s",
			       d->health_text);
		ok = false;
	}
	if (d->ecc_read && d->ecc_uncorrected) {
		sn_results_add(out, SN_CRIT, CHECK_DEV, "ACCEL_ECC_UNCORRECTED",
			       label, "0 uncorrected ECC errors",
			       "%llu uncorrected ECC errors (%s)",
			       (unsigned long long)d->ecc_uncorrected,
			       v->library);
		ok = false;
	}
	if (d->net == SN_VHEALTH_CRIT) {
		sn_results_add(out, SN_CRIT, CHECK_DEV, "ACCEL_NET_HEALTH",
			       label, "network health OK or INIT", "%s",
			       d->net_text);
		ok = false;
	}
	if (!dev_links(ctx, v, d, label, out))
		ok = false;
	if (ok && !partial)
		sn_results_add(out, SN_OK, CHECK_DEV, "OK", label, expected,
			       "%s",
			       d->health_text[0] ? d->health_text : "healthy");
}

void sn_check_vendor_lib(const struct sn_check_ctx *ctx,
			 const struct sn_accel_pci_list *pci,
			 struct sn_results *out)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);
	struct sn_vendor_node *node = malloc(sizeof(*node));
	int64_t deadline =
		ctx->deadline_ms ?
			ctx->deadline_ms - DEADLINE_MARGIN_MS :
			sn_now_ms() +
				(int64_t)ctx->cfg->prolog.check_timeout_s *
					1000;

	if (!node) {
		sn_results_add(out, SN_UNKNOWN, CHECK_LIB, "NO_MEMORY", "node",
			       "memory", "out of memory");
		return;
	}
	if (sn_vendor_lib_read(ctx, deadline, node) || node->error[0]) {
		sn_results_add(out, SN_UNKNOWN, CHECK_LIB, "ACCEL_LIBRARY",
			       "node", v->library, "%s", node->error);
		goto out;
	}
	lib_count(ctx, v, node, pci, out);
	for (uint32_t i = 0; i < node->n_devs; i++)
		judge_dev(ctx, v, &node->devs[i],
			  node->hung_call[0] && i + 1 == node->n_devs, out);
	if (node->hung_call[0])
		sn_results_add(out, SN_UNKNOWN, CHECK_LIB, "ACCEL_CALL_HUNG",
			       "node", "each call within its limit",
			       "%s did not return in %u ms", node->hung_call,
			       node->hung_ms);
out:
	free(node);
}
