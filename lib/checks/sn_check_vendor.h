/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHECK_VENDOR_H
#define SN_CHECK_VENDOR_H

#include "checks/sn_check.h"
#include "config/sn_checkctx.h"
#include "inventory/sn_accel.h"

/*
 * sn_check_vendor_lib - judge the accelerators of ctx's vendor through its
 * management library (check_vendor.c), within ctx->deadline_ms.  pci is
 * the PCI scan of check_accel.c (NULL when it failed): the bus ids the
 * library must list.  Appends its verdicts to out.
 */
void sn_check_vendor_lib(const struct sn_check_ctx *ctx,
			 const struct sn_accel_pci_list *pci,
			 struct sn_results *out);

#endif
