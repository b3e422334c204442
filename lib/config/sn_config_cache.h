/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_CACHE_H
#define SN_CONFIG_CACHE_H

#include <sys/stat.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

/*
 * struct sn_config_cache - a config loaded once and loaded again only when
 * its file changed (for a daemon that reads it per request: slurmctld's
 * job_submit plugin).  Changed means another inode, device, size, mtime or
 * ctime than at the last load, so an editor's rename counts as new.  The
 * cache owns cfg; zero-initialise it, free it with sn_config_cache_free().
 */
struct sn_config_cache {
	const char *path;      /* borrowed: the file to watch */
	struct stat st;	       /* of the file at the last load (zero: absent) */
	int tried;	       /* a load was attempted */
	struct sn_config *cfg; /* NULL: err says why */
	struct sn_error err;
};

/*
 * sn_config_cache_refresh - load the config when its file changed since
 * the last load (or was never loaded).  Returns 1 when it loaded (cfg or
 * err is new), 0 when nothing changed.  Never fails itself: a config that
 * does not load leaves cfg NULL and err set until the file changes.
 */
int sn_config_cache_refresh(struct sn_config_cache *c);

/* sn_config_cache_free - free the loaded config; the cache can be reused. */
void sn_config_cache_free(struct sn_config_cache *c);

#endif
