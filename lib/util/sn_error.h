/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ERROR_H
#define SN_ERROR_H

#include <stddef.h>

/*
 * struct sn_error - one human-readable error message, owned by the caller.
 *
 * Every lib/ function that can fail takes a struct sn_error * (which may be
 * NULL) and fills msg with a single line that names what failed: the
 * phrase first and the path last ("cannot open: No such file or
 * directory: /etc/slurm/supernode.yaml"); config errors are "FILE:LINE:
 * COLUMN: KEY: problem".  The message is fixed storage (it is returned by
 * value through every layer and never freed): when it does not fit,
 * sn_error_cut() cuts it.
 */
#define SN_ERROR_MAX 1024 /* bytes of a message, with its NUL */

struct sn_error {
	char msg[SN_ERROR_MAX];
};

/*
 * sn_error_set - format into err->msg (printf style); err may be NULL.
 * The text is built whole, then cut by sn_error_cut() when it is longer.
 */
void sn_error_set(struct sn_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * sn_error_cut - copy text into out (size bytes, NUL-terminated), and when
 * it does not fit, cut it here: the one place in the project that cuts
 * text for fixed storage.  The cut keeps the leading phrase and the tail
 * of a path, and is marked with "...":
 *   - a text whose last ": " part is a path (it starts with '/', or holds
 *     a '/' and no space) keeps the phrase up to that ": " whole and the
 *     path's tail from a '/' on: "bad hwloc XML file: cannot open: No such
 *     file or directory: .../tests/unit/fixtures/topo/missing.xml";
 *   - a text that starts with a path ("FILE:LINE:COLUMN: KEY: problem")
 *     loses the path's head: ".../etc/supernode.yaml:3:5: env.force: ...";
 *   - when the phrase leaves no room for the path, the head is kept,
 *     "...", then the path's tail in the last third of the room;
 *   - a text without a path keeps its head: "cannot open shared object
 *     file: No such file or d...".
 * Returns strlen(text) (so a result >= size means cut), like snprintf;
 * a size below 8 truncates without a mark.  out and text must not overlap.
 */
size_t sn_error_cut(char *out, size_t size, const char *text);

#endif
