/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_MIGRATE_H
#define SN_CONFIG_MIGRATE_H

/*
 * supernode.yaml in today's form (`supernodectl config migrate`).
 *
 * The rewrite is by text, not through libyaml: libyaml keeps no comments,
 * so a re-emitted document would lose the admin's notes and layout.  Only
 * the bytes of each deprecated use change (sn_config_dep_use's edit): a
 * bare limit gains "/job", a renamed key is renamed, an entry that was
 * never applied is commented out line by line ("# "), or cut from its flow
 * mapping ("{a: .., b: ..}") when it shares a line.  Every other byte,
 * comments included, is kept.  The result is loaded again and must load
 * with no deprecated form left.
 */
#include <stddef.h>

#include "util/sn_error.h"
#include "util/sn_strbuf.h"

/*
 * sn_config_migrate - buf (len bytes, the file path names in messages)
 * rewritten into out (appended; the caller frees it).  *changed is the
 * number of deprecated uses rewritten (0: out is buf unchanged).
 * Returns 0, or -1 with err set: the file does not load (the loader's
 * message), or the rewrite did not give a clean file (a bug: nothing is
 * written then).
 */
int sn_config_migrate(const char *path, const char *buf, size_t len,
		      struct sn_strbuf *out, size_t *changed,
		      struct sn_error *err);

#endif
