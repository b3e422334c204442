/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn-drain-reason NODE TAG REASON: drain NODE through sn_drain_logged(),
 * the path the prolog and the epilog take, with any REASON (quotes,
 * newlines, tabs, any length), so that test_drain.sh can read back what
 * slurmctld stored.  Prints the outcome's name; exit 0 when drained.
 */
#include <stdio.h>

#include "drain/sn_drain.h"
#include "util/sn_log.h"

int main(int argc, char **argv)
{
	enum sn_drain_outcome o;

	if (argc != 4) {
		fprintf(stderr, "usage: sn-drain-reason NODE TAG REASON\n");
		return 2;
	}
	sn_log_open("sn-drain-reason");
	o = sn_drain_logged(argv[1], argv[3], argv[2], 10000);
	printf("%s\n", sn_drain_outcome_name(o));
	return o == SN_DRAIN_DONE ? 0 : 1;
}
