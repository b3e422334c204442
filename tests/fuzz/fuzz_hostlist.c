/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hostlist: hostlist expressions (the nodes: of supernode.yaml, the
 * job's node list) through lib/hostlist.c: the shape check and count, then
 * Slurm's own parser (slurm_hostlist_*).  Bounded: byte 0 picks the limit
 * (1, 18, 1024 or SN_HOSTLIST_MAX hosts: 4096 in the fuzz build, see
 * CMakeLists.txt); the rest is the expression.
 *
 * Properties: an expression that expands gives 1..max hosts, each a
 * non-empty name without ',', '[', ']' or blanks; one that does not leaves
 * the result empty and says why.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "util/sn_hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t maxes[] = { 1, 18, 1024, SN_HOSTLIST_MAX };
	struct sn_names names;
	struct sn_error err;
	size_t max;
	char *expr;

	if (!size)
		return 0;
	max = maxes[data[0] & 3];
	expr = fz_string(data + 1, size - 1);
	if (sn_hostlist_expand(expr, max, &names, &err)) {
		FZ_ASSERT(!names.names && !names.count);
		FZ_ASSERT(err.msg[0]);
	} else {
		FZ_ASSERT(names.count >= 1 && names.count <= max);
		for (size_t i = 0; i < names.count; i++) {
			const char *h = names.names[i];

			FZ_ASSERT(h && *h);
			FZ_ASSERT(!strpbrk(h, ",[] \t\n"));
		}
	}
	sn_names_free(&names);
	free(expr);
	return 0;
}
