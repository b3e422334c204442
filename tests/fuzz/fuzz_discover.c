/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_discover: what supernodectl discover reads from the nodes (lines of
 * supernode-prolog --identity --json, from an srun step or a file) and
 * from sinfo: each part is one line for sn_discover_add_line; when it
 * starts with '!', a node name for sn_discover_add_missing; with '#', a
 * sinfo line for sn_discover_plan_line; with '>', a step's output (whole
 * or cut short) for sn_discover_add_output.  Then sn_discover_plan_finish,
 * sn_discover_plan_nodes for each partition, sn_discover_group and
 * sn_discover_print (to /dev/null).
 *
 * Input: parts cut at NUL bytes (at most 64).
 * Properties: every group has nodes, a non-empty hostlist and an identity
 * sn_config_identity_valid takes; the groups' sizes and the nodes not
 * placed add up to the nodes kept; names are unique; the output's counts
 * never exceed its lines; each partition of the plan has a node to ask.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "placement/sn_discover.h"
#include "placement/sn_discover_plan.h"

#define MAX_PARTS 64

static void check(const struct sn_discover *d)
{
	size_t placed = 0;

	for (size_t i = 0; i < d->n_groups; i++) {
		const struct sn_discover_group *g = &d->groups[i];

		FZ_ASSERT(g->size > 0 && g->nodes && g->nodes[0]);
		FZ_ASSERT(g->name && sn_config_identity_valid(g->identity));
		for (size_t j = 0; j < i; j++)
			FZ_ASSERT(strcmp(d->groups[j].name, g->name));
		placed += g->size;
	}
	FZ_ASSERT(placed + sn_discover_unplaced(d) == d->n_nodes);
}

/* A step's output: counts bounded by its lines; a cut only without '\n'. */
static void output(struct sn_discover *d, const char *text)
{
	struct sn_discover_output o;
	size_t len = strlen(text), lines = 0;

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	sn_discover_add_output(d, text, len, &o);
	FZ_ASSERT(o.taken + o.refused <= lines);
	FZ_ASSERT(o.cut == (len && text[len - 1] != '\n'));
}

/* Every partition of the plan has its nodes as one hostlist. */
static void plan_check(const struct sn_discover_plan *p)
{
	struct sn_error err;
	size_t total = 0, k;
	char *nodes;

	for (size_t i = 0; i < p->n_parts; i++) {
		nodes = sn_discover_plan_nodes(p, p->parts[i], &k, &err);
		FZ_ASSERT(nodes && nodes[0] && k > 0);
		free(nodes);
		total += k;
	}
	FZ_ASSERT(total == p->n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[MAX_PARTS], *copy;
	struct sn_discover_plan p = { 0 };
	struct sn_discover d = { 0 };
	struct sn_error err;
	FILE *null = fopen("/dev/null", "w");
	size_t n;

	copy = fz_split(data, size, parts, MAX_PARTS, &n);

	for (size_t i = 0; i < n; i++) {
		if (parts[i][0] == '!')
			sn_discover_add_missing(&d, parts[i] + 1, "fuzz", &err);
		else if (parts[i][0] == '#')
			sn_discover_plan_line(&p, parts[i] + 1, &err);
		else if (parts[i][0] == '>')
			output(&d, parts[i] + 1);
		else
			sn_discover_add_line(&d, parts[i], &err);
	}
	if (!sn_discover_plan_finish(&p, &d, &err))
		plan_check(&p);
	sn_discover_plan_free(&p);
	if (!sn_discover_group(&d, NULL, &err)) {
		check(&d);
		if (null)
			sn_discover_print(null, &d);
	}
	if (null)
		fclose(null);
	sn_discover_free(&d);
	free(copy);
	return 0;
}
