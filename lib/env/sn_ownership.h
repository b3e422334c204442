/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ENVMARK_H
#define SN_ENVMARK_H

#include <stdbool.h>

#include "env/sn_jobenv.h"

/*
 * The ownership marker: telling our own variables from the user's.
 *
 * Steps inherit the environment of the step that launched them (srun inside
 * a batch script sees the batch step's SUPERNODE_NODE_RANK=0).  We set a
 * variable only where it is unset, *or* where it still holds exactly the
 * value we set earlier: SN_ENVMARK_VAR lists "NAME=hash" for every variable
 * we set (hash: 32-bit FNV-1a of the value, 8 hex digits).  A value the user
 * changed or set himself no longer matches, and stays.
 */
#define SN_ENVMARK_VAR "SUPERNODE_ENV_SET"

/*
 * sn_envmark_owns - true if marker records name with this exact value
 * (never for sn_env_unread: a value not read whole is the job's).
 */
bool sn_envmark_owns(const char *marker, const char *name, const char *value);

/*
 * sn_envmark_build - the marker for the variables in env, considering only
 * those with set[i] true.  Returns a malloc()ed string or NULL.
 */
char *sn_envmark_build(const struct sn_jobenv *env, const bool *set);

#endif
