/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugstack.conf arguments, parsed strictly:
 *   required /path/supernode.so config=/etc/slurm/supernode.yaml
 * Unknown keys, repeated keys, empty or relative paths are errors.
 */
#include <stdio.h>
#include <string.h>

#include "sn_spank.h"

int args_parse(int ac, char **av, struct sn_spank *st)
{
	int have_config = 0;

	snprintf(st->config_path, sizeof(st->config_path), "%s",
		 SN_CONFIG_DEFAULT_PATH);
	for (int i = 0; i < ac; i++) {
		const char *val;

		if (strncmp(av[i], "config=", 7)) {
			slurm_error(
				"%s: plugstack.conf: unknown argument '%s' (allowed: config=PATH)",
				SN_PLUGIN, av[i]);
			return -1;
		}
		val = av[i] + 7;
		if (have_config++) {
			slurm_error("%s: plugstack.conf: config= given twice",
				    SN_PLUGIN);
			return -1;
		}
		if (val[0] != '/' ||
		    (size_t)snprintf(st->config_path, sizeof(st->config_path),
				     "%s", val) >= sizeof(st->config_path)) {
			slurm_error(
				"%s: plugstack.conf: config=%s: expected an absolute path",
				SN_PLUGIN, val);
			return -1;
		}
	}
	return 0;
}
