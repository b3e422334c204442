/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A config reloaded only when its file changed: slurmctld's job_submit
 * plugin asks for it on every --supernode submission, and a stat() is all
 * an unchanged file costs.
 */
#include <string.h>

#include "config/sn_config_cache.h"

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int sn_config_cache_refresh(struct sn_config_cache *c)
{
	struct stat st;

	if (stat(c->path, &st))
		memset(&st, 0, sizeof(st));
	if (c->tried && same_file(&st, &c->st))
		return 0;
	c->st = st;
	c->tried = 1;
	sn_config_free(c->cfg);
	c->err.msg[0] = '\0';
	c->cfg = sn_config_load(c->path, &c->err);
	return 1;
}

void sn_config_cache_free(struct sn_config_cache *c)
{
	sn_config_free(c->cfg);
	c->cfg = NULL;
	c->tried = 0;
}
