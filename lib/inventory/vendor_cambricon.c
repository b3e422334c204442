/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PLACEHOLDER: the cambricon backend is being written (issue 18). */
#include <stdio.h>

#include "inventory/sn_vendor_lib.h"

static int cambricon_read(void *dl, struct sn_vendor_node *out)
{
	(void)dl;
	snprintf(out->error, sizeof(out->error), "not yet read");
	return -1;
}

const struct sn_vendor_backend sn_vendor_cambricon = { SN_ACCEL_CAMBRICON,
						       cambricon_read };
