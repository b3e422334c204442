/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --learn: print the node: manifest of the node it runs on. */
#include <stdio.h>

#include "sn_prolog.h"

int sn_prolog_learn(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	(void)args;
	(void)cfg;
	fprintf(stderr, "%s: --learn is not built yet\n", SN_PROLOG_NAME);
	return SN_EXIT_USAGE;
}
