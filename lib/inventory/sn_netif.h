/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_NETIF_H
#define SN_NETIF_H

/*
 * A network interface's addresses: getifaddrs() on the live node (sysfs
 * has none), or, for a tree other than /sys (a fixture), the file
 * <sysfs>/supernode-live/ifaddrs/<ifname> (SN_LIVE_DIR, sn_ib_port.h):
 * one address a line, with or without "/prefix" ("10.0.0.7/24",
 * "fe80::1/64"), as `ip -o addr` shows them; an empty file is an
 * interface without an address.
 */
#include <limits.h>
#include <netinet/in.h>

#include "inventory/sn_pcie.h"

#define SN_NETIF_TEXT_MAX 64 /* a line as read, with NUL */

/* struct sn_netif_addrs - what an interface holds.  No pointers. */
struct sn_netif_addrs {
	enum sn_attr status;   /* OK: the counts are valid (may be 0); BAD:
			      * a line is not an address (text) */
	unsigned n;	       /* usable: IPv4, IPv6 other than fe80::/10 */
	unsigned n_link_local; /* IPv6 link-local: not reachable from
				* another node without a scope */
	char first[INET6_ADDRSTRLEN]; /* the first usable one, no prefix */
	char text[SN_NETIF_TEXT_MAX]; /* BAD: the line; NOT_REGULAR: its
				       * kind; getifaddrs failing: strerror */
	char path[PATH_MAX];	      /* the file read; "" when live */
};

/*
 * sn_netif_addrs_read - the addresses of ifname: getifaddrs() when sysfs
 * is "/sys", else the stand-in file (read through sn_file_open_regular():
 * no link followed, never blocks; at most 4 KiB).  Returns 0 (failures
 * are in out->status); -1 with errno EINVAL for a bad interface name.
 */
int sn_netif_addrs_read(const char *sysfs, const char *ifname,
			struct sn_netif_addrs *out);

#endif
