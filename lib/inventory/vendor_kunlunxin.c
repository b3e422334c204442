/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: the kunlunxin backend is being written (issue 18). */
#include <stdio.h>

#include "inventory/sn_vendor_lib.h"

static int kunlunxin_read(void *dl, struct sn_vendor_node *out)
{
	(void)dl;
	snprintf(out->error, sizeof(out->error), "not yet read");
	return -1;
}

const struct sn_vendor_backend sn_vendor_kunlunxin = { SN_ACCEL_KUNLUNXIN,
						       kunlunxin_read };
