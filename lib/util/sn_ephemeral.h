/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_EPHEMERAL_H
#define SN_EPHEMERAL_H

/*
 * The kernel's ephemeral (outgoing) port range, read from procfs.  Used by
 * the job environment (MASTER_PORT avoids it) and by supernodectl's
 * warning (config/sn_config.h, sn_config_port_warning), so it sits below
 * both.  It never decides whether the config loads.
 */
#include <stdint.h>

#include "util/sn_error.h"

#define SN_EPHEMERAL_PATH "/proc/sys/net/ipv4/ip_local_port_range"

/*
 * sn_ephemeral_range_read - parse ip_local_port_range ("32768\t60999").
 * @path: the file; read with the bounded reader (a FIFO is refused without
 *	waiting).
 * @lo, @hi: receive the range's first and last port (1 <= lo <= hi <= 65535).
 * Returns 0, or -1 with err set (unreadable or malformed); err may be NULL.
 */
int sn_ephemeral_range_read(const char *path, uint16_t *lo, uint16_t *hi,
			    struct sn_error *err);

#endif
