/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHECK_GROUPS_H
#define SN_CHECK_GROUPS_H

/*
 * The prolog's check groups: each reads the node through the expanded
 * paths of struct sn_check_ctx (config/sn_checkctx.h) and appends its
 * verdicts to a result list (checks/sn_check.h).
 */
#include "checks/sn_check.h"
#include "config/sn_checkctx.h"

/* A check group: appends its verdicts to out; returns 0 (even with CRITs). */
typedef int (*sn_check_fn)(const struct sn_check_ctx *ctx,
			   struct sn_results *out);

/* The check groups (each in its own file). */
int sn_check_accelerators(const struct sn_check_ctx *ctx,
			  struct sn_results *out);
int sn_check_ports(const struct sn_check_ctx *ctx, struct sn_results *out);
int sn_check_topology(const struct sn_check_ctx *ctx, struct sn_results *out);
/*
 * sn_check_fabric - the NVLink fabric gate (node.accelerators.nvlink_domain),
 * IMEX (.imex) and the identity guard (supernodes[].identity); adds nothing
 * when none of them is configured (check_fabric.c).
 */
int sn_check_fabric(const struct sn_check_ctx *ctx, struct sn_results *out);

#endif
