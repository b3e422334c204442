/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sn_file.h"
#include "util/sn_plugin_version.h"
#include "util/sn_plugstack.h"

#define PLUGSTACK_MAX_BYTES (1u << 20)

struct walk {
	const char *plugindir, *name;
	struct sn_plugstack_hit *hit;
	unsigned files;
};

static int file_walk(struct walk *w, const char *conf, int depth,
		     struct sn_error *err);

/* "include GLOB": every file it matches, in glob's (sorted) order. */
static int include_walk(struct walk *w, const char *conf, const char *pat,
			int depth, struct sn_error *err)
{
	char full[PATH_MAX], dir[PATH_MAX];
	glob_t g = { 0 };
	int rc = 0;

	int n;

	snprintf(dir, sizeof(dir), "%s", conf);
	if (pat[0] == '/')
		n = snprintf(full, sizeof(full), "%s", pat);
	else
		n = snprintf(full, sizeof(full), "%s/%s", dirname(dir), pat);
	if (n < 0 || (size_t)n >= sizeof(full) || glob(full, 0, NULL, &g))
		return 0; /* nothing matches: Slurm reads nothing either */
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = file_walk(w, g.gl_pathv[i], depth + 1, err);
	globfree(&g);
	return rc < 0 && depth > 0 ? 0 : rc;
}

/* One line: 1 if it names the plugin (hit filled), else 0 or include's. */
static int line_check(struct walk *w, const char *conf, unsigned lineno,
		      const char *line, int depth, struct sn_error *err)
{
	char kind[16], so[PATH_MAX];
	const char *base;
	int end = 0;

	if (sscanf(line, " %15s %4095s%n", kind, so, &end) != 2)
		return 0;
	if (!strcmp(kind, "include"))
		return include_walk(w, conf, so, depth, err);
	if (strcmp(kind, "required") && strcmp(kind, "optional"))
		return 0;
	base = strrchr(so, '/');
	if (strcmp(base ? base + 1 : so, w->name))
		return 0;
	w->hit->path = so[0] == '/' ? strdup(so) :
				      sn_plugin_find(w->plugindir, so);
	w->hit->file = strdup(conf);
	w->hit->line = lineno;
	w->hit->args = strdup(line + end + strspn(line + end, " \t"));
	return 1;
}

static int file_walk(struct walk *w, const char *conf, int depth,
		     struct sn_error *err)
{
	char *text, *line, *save = NULL;
	unsigned lineno = 0;
	size_t len = 0;
	int rc = 0;

	if (depth > SN_PLUGSTACK_MAX_DEPTH ||
	    ++w->files > SN_PLUGSTACK_MAX_FILES)
		return 0;
	text = sn_file_load(conf, PLUGSTACK_MAX_BYTES, &len, err);
	if (!text)
		return -1;
	/* strtok_r skips empty lines: count them from the text itself. */
	for (line = text; line && !rc; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		if (line[strspn(line, " \t")] == '#')
			continue;
		rc = line_check(w, conf, lineno, line, depth, err);
	}
	free(text);
	return rc;
}

int sn_plugstack_find(const char *conf, const char *plugindir, const char *name,
		      struct sn_plugstack_hit *hit, struct sn_error *err)
{
	struct walk w = { .plugindir = plugindir, .name = name, .hit = hit };

	memset(hit, 0, sizeof(*hit));
	if (!conf || !*conf) {
		sn_error_set(err, "no PlugStackConfig file named");
		return -1;
	}
	return file_walk(&w, conf, 0, err);
}

void sn_plugstack_hit_free(struct sn_plugstack_hit *hit)
{
	free(hit->path);
	free(hit->file);
	free(hit->args);
	memset(hit, 0, sizeof(*hit));
}
