/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SOCKET_IFACE_H
#define SN_SOCKET_IFACE_H

/*
 * The network interface the collective library bootstraps over
 * (NCCL_SOCKET_IFNAME, HCCL_SOCKET_IFNAME, ...): one answer for the
 * prolog's check (checks/check_ports.c) and, later, the job environment
 * (env/, which exports it).
 */
#include "config/sn_config.h"

/*
 * sn_socket_iface_get - the configured socket interface (env.socket_ifname)
 * or NULL when the config names none (then nothing is judged or set).
 * @var: when not NULL, receives the variable the vendor's collective
 *	library reads it from (the vendor table's socket_var:
 *	"HCCL_SOCKET_IFNAME" for Ascend, "NCCL_SOCKET_IFNAME" for NVIDIA,
 *	Hygon, AMD), or "env.socket_ifname" where the vendor documents none
 *	(and without node.accelerators).  Static strings; the interface
 *	name belongs to cfg.
 */
const char *sn_socket_iface_get(const struct sn_config *cfg, const char **var);

#endif
