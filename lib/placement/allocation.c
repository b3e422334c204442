/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocation check: is a job's node list exactly N whole supernodes?  The
 * controller prolog (supernode-prolog --controller) asks this for every
 * --supernode job, because --switches (placement.method: switch) is soft:
 * after its wait Slurm places the job wherever nodes are free.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement/sn_allocation.h"
#include "util/sn_hostlist.h"

/* Scratch state of one check. */
struct walk {
	const struct sn_config *cfg;
	struct sn_allocation *out;
	uint32_t *held;	     /* per supernode: nodes of it in the list */
	unsigned char *seen; /* per config node (cfg->nodes order) */
};

static void problem_add(struct sn_allocation *out,
			enum sn_alloc_problem_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem_add(struct sn_allocation *out,
			enum sn_alloc_problem_kind kind, const char *fmt, ...)
{
	struct sn_alloc_problem *p;
	va_list ap;

	if (out->n_problems >= SN_ALLOC_MAX_PROBLEMS) {
		out->dropped++;
		return;
	}
	p = &out->problems[out->n_problems++];
	p->kind = kind;
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
}

/* Count each host into its supernode; note foreign and repeated hosts. */
static void hosts_walk(struct walk *w, const struct sn_names *hosts)
{
	for (size_t i = 0; i < hosts->count; i++) {
		const struct sn_node *n =
			sn_config_find_node(w->cfg, hosts->names[i]);
		size_t idx;

		if (!n) {
			w->out->foreign++;
			problem_add(w->out, SN_ALLOC_FOREIGN,
				    "node %.64s is in no supernode",
				    hosts->names[i]);
			continue;
		}
		idx = (size_t)(n - w->cfg->nodes);
		if (w->seen[idx]) {
			w->out->twice++;
			problem_add(w->out, SN_ALLOC_TWICE,
				    "node %.64s is listed twice", n->name);
			continue;
		}
		w->seen[idx] = 1;
		if (!w->held[n->supernode]++)
			w->out->touched++;
	}
}

/* "snb2,snb3,snb4,snb5 +3 more": the members of sn not in the list. */
static void missing_text(const struct walk *w, size_t sn, char *buf,
			 size_t size)
{
	const struct sn_supernode *s = &w->cfg->supernodes[sn];
	size_t named = 0, more = 0, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->size; i++) {
		const struct sn_node *n =
			sn_config_find_node(w->cfg, s->members[i]);

		if (!n || w->seen[n - w->cfg->nodes])
			continue;
		if (named >= SN_ALLOC_MISSING_NAMED) {
			more++;
			continue;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%.64s",
					 named++ ? "," : "", s->members[i]);
		if (used >= size)
			return;
	}
	if (more)
		snprintf(buf + used, size - used, " +%zu more", more);
}

/* Partial supernodes in config order; names of the whole ones into names. */
static void supernodes_judge(struct walk *w, char *names, size_t size)
{
	const struct sn_config *cfg = w->cfg;
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		char missing[160];

		if (!w->held[i])
			continue;
		if (w->held[i] == cfg->supernodes[i].size) {
			w->out->whole++;
			if (used < size)
				used += (size_t)snprintf(
					names + used, size - used, "%s%s",
					used ? "," : "",
					cfg->supernodes[i].name);
			continue;
		}
		w->out->partial++;
		missing_text(w, i, missing, sizeof(missing));
		problem_add(w->out, SN_ALLOC_PARTIAL,
			    "%s partial: %u of %zu nodes (missing %s)",
			    cfg->supernodes[i].name, w->held[i],
			    cfg->supernodes[i].size, missing);
	}
}

/* The one-line verdict: exact, or every problem kept, "; "-separated. */
static void summary_build(struct sn_allocation *out, const char *whole)
{
	size_t used, size = sizeof(out->summary);

	if (!out->n_problems) {
		snprintf(out->summary, size, "exactly %u whole supernode%s: %s",
			 out->want, out->want == 1 ? "" : "s", whole);
		return;
	}
	used = (size_t)snprintf(out->summary, size,
				"not %u whole supernode%s:", out->want,
				out->want == 1 ? "" : "s");
	for (size_t i = 0; i < out->n_problems && used < size; i++)
		used += (size_t)snprintf(out->summary + used, size - used,
					 "%s %s", i ? ";" : "",
					 out->problems[i].text);
	if (out->dropped && used < size)
		snprintf(out->summary + used, size - used, "; +%zu more",
			 out->dropped);
}

int sn_allocation_check(const struct sn_config *cfg, const char *nodelist,
			uint32_t want, struct sn_allocation *out,
			struct sn_error *err)
{
	struct sn_names hosts = { 0 };
	struct walk w = { .cfg = cfg, .out = out };
	struct sn_error herr;
	char whole[512];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->want = want;
	if (!want) {
		sn_error_set(err, "asked for 0 supernodes");
		return -1;
	}
	if (sn_hostlist_expand(nodelist, SN_HOSTLIST_MAX, &hosts, &herr)) {
		sn_error_set(err, "cannot parse the node list '%.200s': %s",
			     nodelist ? nodelist : "", herr.msg);
		return -1;
	}
	w.held = calloc(cfg->n_supernodes ? cfg->n_supernodes : 1,
			sizeof(*w.held));
	w.seen = calloc(cfg->n_nodes ? cfg->n_nodes : 1, 1);
	if (!w.held || !w.seen) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	out->hosts = hosts.count;
	hosts_walk(&w, &hosts);
	supernodes_judge(&w, whole, sizeof(whole));
	if (out->whole != want)
		problem_add(
			out, SN_ALLOC_COUNT,
			"%zu node%s touch %zu supernode%s, %zu of them whole; the job asked for %u whole",
			out->hosts, out->hosts == 1 ? "" : "s", out->touched,
			out->touched == 1 ? "" : "s", out->whole, want);
	summary_build(out, whole);
	rc = out->n_problems || out->dropped ? 1 : 0;
out:
	free(w.held);
	free(w.seen);
	sn_names_free(&hosts);
	return rc;
}
