/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What --supernode-env=show prints (sn_taskenv.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "env/sn_ownership.h"
#include "util/sn_strbuf.h"
#include "env/sn_taskenv.h"

bool sn_taskenv_shows(enum sn_env_mode mode, const struct sn_taskenv_task *t)
{
	return mode == SN_ENV_SHOW && t->local_rank == 0;
}

/* One line about v: "PREFIX NODE: task RANK: TEXT". */
static void show_var(struct sn_strbuf *sb, const char *node, uint32_t rank,
		     const struct sn_ownership_var *v)
{
	char *text = sn_ownership_show(v);

	if (!text)
		sn_strbuf_fail(sb, ENOMEM);
	sn_strbuf_appendf(sb, SN_TASKENV_SHOW "%s: task %u: %s\n", node, rank,
			  text ? text : "");
	free(text);
}

char *sn_taskenv_show_head(const char *node, const struct sn_taskenv_task *t,
			   const char *accels_why, const char *marker,
			   const char *const *step_cur)
{
	struct sn_strbuf sb = { 0 };

	sn_strbuf_appendf(
		&sb,
		SN_TASKENV_SHOW
		"node %s, task %u of %u on it (rank %u of %u); accelerators: %s\n",
		node, t->local_rank, t->local_size, t->global_rank,
		t->world_size,
		accels_why[0] ? accels_why : "not looked at (batch script)");
	for (size_t i = 0; i < SN_OWNERSHIP_STEP_VARS; i++) {
		struct sn_ownership_var v = {
			.name = sn_ownership_step_vars[i][0],
			.cur = step_cur[i],
		};

		sn_ownership_observe(marker, sn_ownership_step_vars[i][1], &v);
		show_var(&sb, node, t->local_rank, &v);
	}
	return sn_strbuf_take(&sb, NULL);
}

char *sn_taskenv_show_vars(const char *node, uint32_t rank,
			   const struct sn_ownership_var *v, size_t n)
{
	struct sn_strbuf sb = { 0 };

	for (size_t i = 0; i < n; i++)
		if (v[i].written || !sn_ownership_writes(&v[i]))
			show_var(&sb, node, rank, &v[i]);
	return sn_strbuf_take(&sb, NULL);
}

char *sn_taskenv_show_notes(const char *node, uint32_t rank,
			    const struct sn_taskenv *env, bool show)
{
	struct sn_strbuf sb = { 0 };

	for (size_t i = 0; i < env->n_notes; i++) {
		if (show)
			sn_strbuf_appendf(&sb,
					  SN_TASKENV_SHOW
					  "%s: task %u: note: %s\n",
					  node, rank, env->notes[i].text);
		else if (env->notes[i].warn)
			sn_strbuf_appendf(&sb, "supernode: %s: %s\n", node,
					  env->notes[i].text);
	}
	return sn_strbuf_take(&sb, NULL);
}
