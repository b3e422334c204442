/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_IDENTITY_H
#define SN_IDENTITY_H

/*
 * Which supernode the hardware puts this node in (issue 12 item 3):
 *
 * - NVIDIA: the NVLink domain, "nvlink:<cluster uuid>/<clique id>" from
 *   every GPU's fabric info.  Never the clique alone: GB200/GB300 report
 *   the same sentinel clique (32766) in different domains.  A zero cluster
 *   UUID means no multi-node domain (an HGX board): no hardware identity.
 * - Ascend: the super pod, "ascend:<super pod id>" from DCMI.
 * - otherwise: none; the config alone says where the node is.
 *
 * The key's form is the one supernodes[].identity takes
 * (sn_config_identity_valid).
 */
#include <stdbool.h>

#include "config/sn_checkctx.h"
#include "inventory/sn_nvml.h"

#define SN_IDENTITY_KEY_MAX 64	/* "nvlink:" 36 "/" 10, NUL */
#define SN_IDENTITY_WHY_MAX 320 /* cut by sn_error_cut */

enum sn_identity_kind {
	SN_IDENTITY_CONFIG = 0, /* no hardware source here: config alone */
	SN_IDENTITY_NVLINK,	/* key = nvlink:UUID/CLIQUE */
	SN_IDENTITY_ASCEND,	/* key = ascend:ID */
	SN_IDENTITY_NONE,  /* the hardware says: in no domain (zero UUID) */
	SN_IDENTITY_ERROR, /* the hardware could not tell: why */
};

/* struct sn_identity - a node's identity; fixed size, no ownership. */
struct sn_identity {
	enum sn_identity_kind kind;
	char key[SN_IDENTITY_KEY_MAX]; /* "" unless NVLINK or ASCEND */
	char why[SN_IDENTITY_WHY_MAX]; /* CONFIG and ERROR: the reason */
	unsigned int devices;	       /* GPUs or NPU cards that agree */
};

/*
 * sn_identity_from_fabric - the identity n GPUs' fabric info gives (pure):
 * NVLINK when all completed with SUCCESS in one non-zero (uuid, clique);
 * NONE when a GPU has no fabric (NOT_SUPPORTED) or every UUID is zero;
 * CONFIG when the library lacks the call (cannot tell); ERROR when a GPU failed, is not
 * registered yet (state other than COMPLETED), its probe failed, or the
 * GPUs disagree (the why names both).
 */
void sn_identity_from_fabric(const struct sn_nvml_fabric *f, unsigned int n,
			     struct sn_identity *out);

/*
 * sn_identity_read - this node's identity: NVML for vendor nvidia (and for
 * a config without node.accelerators, where an NVML that does not load
 * means CONFIG), DCMI for ascend, CONFIG for the others.  Bounded by
 * SN_MANIFEST_MAX_ACCELS GPUs.  An NVML call can hang: run it in a child
 * with a time limit (the check runner does).
 */
void sn_identity_read(const struct sn_check_ctx *ctx, struct sn_identity *out);

/* sn_identity_kind_name - "nvlink", "ascend", "none", "config", "error". */
const char *sn_identity_kind_name(enum sn_identity_kind kind);

/*
 * sn_identity_json - one line of JSON for --identity --json:
 * {"node", "kind", "identity" (null unless known), "why", "devices",
 *  "supernode" (configured, or null), "expected" (its identity, or null)}.
 * Returns a malloc()ed string (caller frees) or NULL when out of memory.
 */
char *sn_identity_json(const struct sn_identity *id, const char *node,
		       const struct sn_config *cfg);

#endif
