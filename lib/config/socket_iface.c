/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The collective library's socket interface (sn_socket_iface.h). */
#include <stddef.h>

#include "config/sn_socket_iface.h"
#include "config/sn_vendor.h"

const char *sn_socket_iface_get(const struct sn_config *cfg, const char **var)
{
	const struct sn_vendor *v = sn_vendor_of(cfg->node.accel.vendor);

	if (var)
		*var = v->socket_var ? v->socket_var : "env.socket_ifname";
	return cfg->socket_ifname;
}
