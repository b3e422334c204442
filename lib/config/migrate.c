/* SPDX-License-Identifier: GPL-2.0-or-later */
/* supernode.yaml rewritten into today's form (sn_config_migrate.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/sn_config.h"
#include "config/sn_config_migrate.h"

/* One edit: bytes [a, b) of the file become text (NULL: comment out). */
struct edit {
	size_t a, b;
	const char *text;
};

static int edit_cmp(const void *x, const void *y)
{
	const struct edit *e = x, *f = y;

	return e->a < f->a ? -1 : e->a > f->a;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * An entry [a, b) that was never applied.  Alone on its lines: each of
 * them becomes a comment ("# " after its indentation).  Sharing a line (a
 * flow mapping): cut out with the comma on one side.
 */
static void comment_out(struct sn_strbuf *out, const char *buf, size_t len,
			struct edit *e, size_t *pos)
{
	size_t ls = e->a, le = e->b, p;

	while (ls > 0 && buf[ls - 1] != '\n')
		ls--;
	for (p = ls; p < e->a && blank(buf[p]);)
		p++;
	while (le < len && blank(buf[le]))
		le++;
	if (p == e->a && (le == len || buf[le] == '\n' || buf[le] == '#')) {
		while (le < len && buf[le] != '\n')
			le++;
		sn_strbuf_appendn(out, buf + *pos, ls - *pos);
		for (p = ls; p < le;) {
			size_t q = p, eol;

			while (q < le && blank(buf[q]))
				q++;
			for (eol = q; eol < le && buf[eol] != '\n';)
				eol++;
			sn_strbuf_appendn(out, buf + p, q - p);
			sn_strbuf_append(out, "# ");
			sn_strbuf_appendn(out, buf + q, eol - q);
			if (p == ls)
				sn_strbuf_append(out,
						 "  # never applied: "
						 "no counter of that name");
			p = eol;
			if (p < le) /* the newline */
				sn_strbuf_appendn(out, buf + p++, 1);
		}
		*pos = le;
		return;
	}
	/* in a flow mapping: ", key: {..}" or "key: {..}, " */
	le = e->b;
	while (le < len && blank(buf[le]))
		le++;
	if (le < len && buf[le] == ',') {
		for (le++; le < len && blank(buf[le]);)
			le++;
		ls = e->a;
	} else {
		le = e->b;
		for (ls = e->a; ls > 0 && blank(buf[ls - 1]);)
			ls--;
		if (ls > 0 && buf[ls - 1] == ',')
			ls--;
		else
			ls = e->a;
	}
	sn_strbuf_appendn(out, buf + *pos, ls - *pos);
	*pos = le;
}

/* Apply cfg's edits to buf into out. */
static int edits_apply(const struct sn_config *cfg, const char *buf, size_t len,
		       struct sn_strbuf *out)
{
	struct edit *ed = calloc(cfg->n_deprecated + 1, sizeof(*ed));
	size_t pos = 0;

	if (!ed)
		return -1;
	for (size_t i = 0; i < cfg->n_deprecated; i++) {
		ed[i].a = cfg->deprecated[i].start;
		ed[i].b = cfg->deprecated[i].end;
		ed[i].text = cfg->deprecated[i].text;
	}
	qsort(ed, cfg->n_deprecated, sizeof(*ed), edit_cmp);
	for (size_t i = 0; i < cfg->n_deprecated; i++) {
		if (ed[i].a < pos || ed[i].b > len || ed[i].a > ed[i].b)
			continue; /* inside an entry already cut */
		if (!ed[i].text) {
			comment_out(out, buf, len, &ed[i], &pos);
			continue;
		}
		sn_strbuf_appendn(out, buf + pos, ed[i].a - pos);
		sn_strbuf_append(out, ed[i].text);
		pos = ed[i].b;
	}
	sn_strbuf_appendn(out, buf + pos, len - pos);
	free(ed);
	return sn_strbuf_failed(out) ? -1 : 0;
}

int sn_config_migrate(const char *path, const char *buf, size_t len,
		      struct sn_strbuf *out, size_t *changed,
		      struct sn_error *err)
{
	struct sn_config *cfg = sn_config_load_buffer(path, buf, len, err);
	struct sn_config *again = NULL;
	int rc = -1;

	*changed = 0;
	if (!cfg)
		return -1;
	if (edits_apply(cfg, buf, len, out)) {
		sn_error_set(err, "%s: out of memory", path);
		goto out;
	}
	*changed = cfg->n_deprecated;
	again = sn_config_load_buffer(path, sn_strbuf_str(out), out->len, err);
	if (!again)
		goto out; /* a bug: err is the loader's message */
	if (again->n_deprecated) {
		sn_error_set(err, "%s: migrate left %s (a bug)", path,
			     again->deprecated[0].msg);
		goto out;
	}
	rc = 0;
out:
	sn_config_free(again);
	sn_config_free(cfg);
	return rc;
}
