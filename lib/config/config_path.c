/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path keys of the config: the one rule every path key (paths.*,
 * epilog.*_dir) takes, and the %n/%h expansion it is checked with.  Below
 * config.c and the section files (config_node.c, config_epilog.c), which all
 * call it; it calls only the YAML walker.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config_sections.h"
#include "config/sn_config.h"
#include "config/yaml_walk.h"

int sn_config_path(struct yaml_walk *w, yaml_node_t *v, const char *path,
		   char **dst)
{
	char probe[4096];

	if (yaml_walk_strdup(w, v, path, dst))
		return -1;
	if ((*dst)[0] != '/')
		return yaml_walk_fail(w, v, path,
				      "'%.200s' is not an absolute path", *dst);
	if (sn_path_expand(*dst, "n", "h", probe, sizeof(probe)))
		return yaml_walk_fail(
			w, v, path,
			"'%.200s': only %%n, %%h and %%%% may follow %%", *dst);
	return 0;
}

int sn_path_expand(const char *tmpl, const char *nodename, const char *hostname,
		   char *out, size_t size)
{
	size_t used = 0;

	for (const char *p = tmpl; *p; p++) {
		const char *piece = p;
		size_t len = 1;

		if (*p == '%') {
			p++;
			if (*p == 'n')
				piece = nodename;
			else if (*p == 'h')
				piece = hostname;
			else if (*p == '%')
				piece = "%";
			else
				return -1;
			if (!piece)
				return -1;
			len = strlen(piece);
		}
		if (used + len >= size)
			return -1;
		memcpy(out + used, piece, len);
		used += len;
	}
	if (used >= size)
		return -1;
	out[used] = '\0';
	return 0;
}
