/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_DEPRECATED_H
#define SN_CONFIG_DEPRECATED_H

/*
 * Old config forms that keep loading (etc/README.md, "Upgrading"): a
 * supernode.yaml that an earlier commit accepted loads with its old
 * meaning and one deprecation warning per use, naming file:line:col, the
 * key and today's form; `supernodectl config migrate` rewrites each use
 * into today's form.  One row per form, in the order they were changed.
 */
#include <stddef.h>

/* What a form is, and so how the loader recognises it. */
enum sn_dep_kind {
	SN_DEP_BARE_LIMIT,    /* epilog threshold: bare N on a rate counter */
	SN_DEP_UNJUDGED_NAME, /* epilog threshold: no counter of that name */
	SN_DEP_KEY_RENAME,    /* SECTION.OLD, read as SECTION.NEW */
	SN_DEP_REFUSED,	      /* never accepted: refused, naming new_form */
};

/*
 * struct sn_deprecated - one row: the old form, today's form, the commit
 * that changed it (its short id) and the commits that accepted the old
 * form.  For SN_DEP_KEY_RENAME, section/old_key/new_key name the key
 * ("prolog", "timeout_s", "timeout"); NULL otherwise.
 */
struct sn_deprecated {
	const char *
		id; /* "bare-limit", "unjudged-counter", "key:prolog.timeout_s" */
	enum sn_dep_kind kind;
	const char *section, *old_key, *new_key;
	const char *old_form; /* as an admin wrote it */
	const char *new_form; /* what migrate writes */
	const char *since;    /* commit that changed the form, or "field" */
	const char *accepted; /* commits that loaded it */
};

extern const struct sn_deprecated sn_deprecated[];
extern const size_t sn_deprecated_count;

/* sn_deprecated_kind - the row of a kind without a key (first match). */
const struct sn_deprecated *sn_deprecated_kind(enum sn_dep_kind kind);

/*
 * sn_deprecated_rename - the SN_DEP_KEY_RENAME or SN_DEP_REFUSED row for
 * key in the mapping at path ("" for the top, "prolog", "env"), or NULL.
 */
const struct sn_deprecated *sn_deprecated_rename(const char *path,
						 const char *key);

/*
 * struct sn_config_dep_use - one use of a deprecated form in a file: the
 * warning and the edit that `config migrate` makes.  The edit replaces
 * bytes [start, end) of the file with text; text NULL means "comment the
 * entry out" (start is its key's first byte, end its value's end).
 * Owned by struct sn_config (msg and text malloc()ed).
 */
struct sn_config_dep_use {
	const struct sn_deprecated *row;
	char *msg; /* "FILE:LINE:COL: PATH: deprecated: ...; write ..." */
	unsigned line, col; /* 1-based */
	size_t start, end;  /* byte offsets into the file */
	char *text;	    /* replacement, or NULL: comment out */
};

#endif
