/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_IB_PORT_PRIVATE_H
#define SN_IB_PORT_PRIVATE_H

/* Shared by ib_port.c and ib_port_counters.c only; not for adapters. */
#include <stdbool.h>
#include <stddef.h>

/* A device name sysfs may hold (no '/', not "." or "..", bounded). */
bool sn_ib_port_dev_name_ok(const char *s);

/*
 * "<sysfs>/class/infiniband/<dev>/ports/<port>[/<rel>]" into buf (size
 * bytes); -1 if it does not fit.
 */
int sn_ib_port_path(char *buf, size_t size, const char *sysfs, const char *dev,
		    unsigned port, const char *rel);

/* path is a directory (stat follows links: sysfs is made of them). */
bool sn_ib_port_is_dir(const char *path);

#endif
