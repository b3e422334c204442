/* SPDX-License-Identifier: GPL-2.0-or-later */
/* supernodectl discover: which nodes to ask, by partition (sn_discover_plan.h). */
#include <stdlib.h>
#include <string.h>

#include "util/sn_hostlist.h"
#include "placement/sn_discover_plan.h"

#define PLAN_LINE_MAX 1024 /* bytes of one sinfo line */

/* sinfo's fields of one line: "NODE PARTITION[*] AVAIL STATE". */
struct plan_fields {
	char buf[PLAN_LINE_MAX + 1];
	char *node, *part, *avail, *state;
	bool dflt;
};

/* Split line into f (pointers into f->buf): exactly four fields. */
static int fields_cut(const char *line, struct plan_fields *f,
		      struct sn_error *err)
{
	char **field[] = { &f->node, &f->part, &f->avail, &f->state };
	char *save = NULL, *tok;
	size_t k = 0;

	if (strlen(line) > PLAN_LINE_MAX) {
		sn_error_set(err, "line longer than %d bytes", PLAN_LINE_MAX);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	strcpy(f->buf, line);
	for (tok = strtok_r(f->buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (k == 4)
			break;
		*field[k++] = tok;
	}
	if (k != 4 || tok) {
		sn_error_set(err, "not 'NODE PARTITION AVAIL STATE': %.80s",
			     line);
		return -1;
	}
	return 0;
}

static int fields_split(const char *line, struct plan_fields *f,
			struct sn_error *err)
{
	size_t n;

	if (fields_cut(line, f, err))
		return -1;
	n = strlen(f->part);
	if (f->part[n - 1] == '*') {
		f->part[--n] = '\0';
		f->dflt = true;
	}
	if (!n || n > SN_DISCOVER_PART_MAX) {
		sn_error_set(err, "%s: partition name of %zu bytes (1-%d)",
			     f->node, n, SN_DISCOVER_PART_MAX);
		return -1;
	}
	if (!sn_discover_name_ok(f->node)) {
		sn_error_set(err, "'%.80s' is not a node name", f->node);
		return -1;
	}
	return 0;
}

static struct sn_discover_target *target_find(struct sn_discover_plan *p,
					      const char *node)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->t[i].node, node))
			return &p->t[i];
	return NULL;
}

static void target_free(struct sn_discover_target *t)
{
	free(t->node);
	free(t->state);
	free(t->part);
	free(t->not_up);
}

/* A new node, from its first line. */
static struct sn_discover_target *target_add(struct sn_discover_plan *p,
					     const struct plan_fields *f,
					     struct sn_error *err)
{
	struct sn_discover_target *t;

	if (p->n >= SN_DISCOVER_MAX_NODES) {
		sn_error_set(err, "more than %d nodes", SN_DISCOVER_MAX_NODES);
		return NULL;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		void *q = realloc(p->t, cap * sizeof(*p->t));

		if (!q)
			goto fail;
		p->t = q;
		p->cap = cap;
	}
	t = &p->t[p->n];
	memset(t, 0, sizeof(*t));
	t->node = strdup(f->node);
	t->state = strdup(f->state);
	if (!t->node || !t->state) {
		target_free(t);
		goto fail;
	}
	p->n++;
	return t;
fail:
	sn_error_set(err, "out of memory");
	return NULL;
}

/* Take f's partition for t when it is up and better than t's. */
static int target_part(struct sn_discover_target *t,
		       const struct plan_fields *f, struct sn_error *err)
{
	char buf[SN_DISCOVER_PART_MAX + 64];
	char *s;

	if (strcmp(f->avail, "up")) {
		if (t->not_up)
			return 0;
		snprintf(buf, sizeof(buf), "%s (%s)", f->part, f->avail);
		s = strdup(buf);
		if (!s)
			goto fail;
		t->not_up = s;
		return 0;
	}
	if (t->part && (t->in_default || !f->dflt))
		return 0;
	if (!(s = strdup(f->part)))
		goto fail;
	free(t->part);
	t->part = s;
	t->in_default = f->dflt;
	return 0;
fail:
	sn_error_set(err, "out of memory");
	return -1;
}

int sn_discover_plan_line(struct sn_discover_plan *p, const char *line,
			  struct sn_error *err)
{
	struct sn_discover_target *t;
	struct plan_fields f;

	if (fields_split(line, &f, err))
		return -1;
	t = target_find(p, f.node);
	if (!t && !(t = target_add(p, &f, err)))
		return -1;
	return target_part(t, &f, err);
}

/* sinfo's %T of a node still ending a job: "completing", "completing*". */
static bool state_completing(const char *state)
{
	return !strncmp(state, "completing", 10);
}

char *sn_discover_plan_completing(const struct sn_discover_plan *p, size_t *n,
				  struct sn_error *err)
{
	char **names = calloc(p->n ? p->n : 1, sizeof(*names));
	char *list = NULL;

	*n = 0;
	if (!names) {
		sn_error_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++)
		if (state_completing(p->t[i].state))
			names[(*n)++] = p->t[i].node;
	if (*n)
		list = sn_hostlist_compress(names, *n, err);
	else
		sn_error_set(err, "no node completing");
	free(names);
	return list;
}

/* Not asked: why, or NULL when t is asked. */
static const char *target_why(const struct sn_discover_target *t, char *buf,
			      size_t size)
{
	if (strcmp(t->state, "idle")) {
		snprintf(buf, size, "not idle (%.40s): not asked", t->state);
		return buf;
	}
	if (!t->part) {
		snprintf(buf, size,
			 "idle, in no partition that is up (%.300s): not asked",
			 t->not_up ? t->not_up : "none");
		return buf;
	}
	return NULL;
}

static bool part_listed(const struct sn_discover_plan *p, const char *part)
{
	for (size_t i = 0; i < p->n_parts; i++)
		if (!strcmp(p->parts[i], part))
			return true;
	return false;
}

static int parts_list(struct sn_discover_plan *p, struct sn_error *err)
{
	p->parts = calloc(p->n ? p->n : 1, sizeof(*p->parts));
	if (!p->parts)
		goto fail;
	for (size_t i = 0; i < p->n; i++) {
		if (part_listed(p, p->t[i].part))
			continue;
		if (!(p->parts[p->n_parts] = strdup(p->t[i].part)))
			goto fail;
		p->n_parts++;
	}
	return 0;
fail:
	sn_error_set(err, "out of memory");
	return -1;
}

int sn_discover_plan_finish(struct sn_discover_plan *p, struct sn_discover *d,
			    struct sn_error *err)
{
	char buf[SN_DISCOVER_PART_MAX + 128];
	size_t kept = 0;

	for (size_t i = 0; i < p->n; i++) {
		const char *why = target_why(&p->t[i], buf, sizeof(buf));

		if (!why) {
			p->t[kept++] = p->t[i];
			continue;
		}
		if (sn_discover_add_missing(d, p->t[i].node, why, err))
			return -1;
		target_free(&p->t[i]);
	}
	p->n = kept;
	return parts_list(p, err);
}

char *sn_discover_plan_nodes(const struct sn_discover_plan *p, const char *part,
			     size_t *n, struct sn_error *err)
{
	char **names = calloc(p->n ? p->n : 1, sizeof(*names));
	char *list = NULL;

	*n = 0;
	if (!names) {
		sn_error_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].part && !strcmp(p->t[i].part, part))
			names[(*n)++] = p->t[i].node;
	if (*n)
		list = sn_hostlist_compress(names, *n, err);
	else
		sn_error_set(err, "no node to ask in partition %.80s", part);
	free(names);
	return list;
}

void sn_discover_plan_free(struct sn_discover_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		target_free(&p->t[i]);
	for (size_t i = 0; i < p->n_parts; i++)
		free(p->parts[i]);
	free(p->t);
	free(p->parts);
	memset(p, 0, sizeof(*p));
}
