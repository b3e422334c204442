/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/sn_ephemeral.h"
#include "util/sn_file.h"
#include "util/sn_number.h"

int sn_ephemeral_range_read(const char *path, uint16_t *lo, uint16_t *hi,
			    struct sn_error *err)
{
	char buf[64], a[16], b[16], extra[2];
	long long x, y;
	struct sn_error why;

	/* procfs: the bounded reader, which refuses a FIFO without waiting */
	if (sn_file_read_small(path, buf, sizeof(buf), &why) < 0) {
		if (errno == EINVAL)
			sn_error_set(err, "%s", why.msg);
		else
			sn_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (sscanf(buf, "%15s %15s %1s", a, b, extra) != 2 ||
	    !sn_number_parse(a, &x) || !sn_number_parse(b, &y) || x < 1 ||
	    y > 65535 || x > y) {
		sn_error_set(err,
			     "%s: expected two port numbers, found '%.40s'",
			     path, buf);
		return -1;
	}
	*lo = (uint16_t)x;
	*hi = (uint16_t)y;
	return 0;
}
