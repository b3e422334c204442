/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PLUGSTACK_H
#define SN_PLUGSTACK_H

/*
 * Slurm's plugstack.conf as slurmd and srun read it (spank(8)): lines
 * "required|optional PLUGIN [ARGS]" and "include GLOB" (a relative GLOB
 * is taken from the folder of the file that includes it), "#" comments.
 * A relative PLUGIN is looked for in PluginDir.  Read only; includes are
 * followed SN_PLUGSTACK_MAX_DEPTH deep and SN_PLUGSTACK_MAX_FILES files,
 * each of at most 1 MiB.
 */
#include <stddef.h>

#include "util/sn_error.h"

#define SN_PLUGSTACK_MAX_DEPTH 8
#define SN_PLUGSTACK_MAX_FILES 256u

/* What sn_plugstack_find found: the line naming the plugin, and where. */
struct sn_plugstack_hit {
	char *path; /* the plugin's file: absolute, or found in PluginDir; */
	/* NULL when the line names a file no PluginDir holds */
	char *file;    /* the plugstack file holding the line */
	unsigned line; /* its 1-based line */
	char *args; /* the plugin's arguments: the rest of the line, "" none */
};

/*
 * sn_plugstack_find - the first "required|optional" line of @conf (and
 * its includes) whose plugin's base name is @name ("supernode.so").
 * @plugindir: Slurm's PluginDir (colon-separated) for a relative plugin.
 * Returns 1 with *hit filled (free with sn_plugstack_hit_free), 0 when no
 * line names it, -1 with err set when @conf cannot be read.
 */
int sn_plugstack_find(const char *conf, const char *plugindir, const char *name,
		      struct sn_plugstack_hit *hit, struct sn_error *err);

/* sn_plugstack_hit_free - release a hit's strings; leaves it zeroed. */
void sn_plugstack_hit_free(struct sn_plugstack_hit *hit);

#endif
