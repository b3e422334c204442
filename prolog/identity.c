/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --identity [--json]: which supernode the hardware puts this node in
 * (lib/inventory/identity.c), read in a child with prolog.check_timeout
 * (an NVML call can hang), and what the config says.  supernodectl
 * discover runs it on every node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "sn_prolog.h"
#include "util/sn_child.h"
#include "inventory/sn_identity.h"

static int identity_child(void *arg, int fd)
{
	const struct sn_check_ctx *ctx = arg;
	struct sn_identity id;

	sn_identity_read(ctx, &id);
	return write(fd, &id, sizeof(id)) == (ssize_t)sizeof(id) ? 0 : 1;
}

/* Read the identity in a child; a hang or a crash is an ERROR identity. */
static void identity_bounded(const struct sn_check_ctx *ctx,
			     struct sn_identity *id)
{
	uint32_t limit = ctx->cfg->prolog.check_timeout_s * 1000;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = sn_run_in_child(identity_child, (void *)ctx, limit, sizeof(*id),
			     &buf, &len);
	memset(id, 0, sizeof(*id));
	if (rc == 0 && len == sizeof(*id)) {
		memcpy(id, buf, sizeof(*id));
		id->key[sizeof(id->key) - 1] = '\0';
		id->why[sizeof(id->why) - 1] = '\0';
	} else {
		id->kind = SN_IDENTITY_ERROR;
		snprintf(id->why, sizeof(id->why),
			 rc == -1 ? "no answer within %u ms (hung driver?)" :
				    "the reading child failed (%d)",
			 rc == -1 ? limit : (unsigned)rc);
	}
	free(buf);
}

static void print_text(const struct sn_identity *id, const char *node,
		       const struct sn_config *cfg)
{
	const struct sn_node *n = sn_config_find_node(cfg, node);
	const struct sn_supernode *sn = n ? &cfg->supernodes[n->supernode] :
					    NULL;

	printf("node       %s\n", node);
	if (id->key[0])
		printf("identity   %s (%u %s)\n", id->key, id->devices,
		       id->kind == SN_IDENTITY_ASCEND ? "NPU cards" : "GPUs");
	else
		printf("identity   %s: %s\n", sn_identity_kind_name(id->kind),
		       id->why);
	printf("supernode  %s\n", sn ? sn->name : "(in no supernode)");
	if (sn)
		printf("expected   %s\n",
		       sn->identity ? sn->identity : "(not recorded)");
}

int sn_prolog_identity(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	struct sn_check_ctx ctx;
	struct sn_identity id;
	struct sn_error err;
	char *json;

	if (sn_check_ctx_init(&ctx, cfg, args->node, &err)) {
		sn_log(LOG_ERR, "%s", err.msg);
		return SN_EXIT_USAGE;
	}
	identity_bounded(&ctx, &id);
	if (!args->json) {
		print_text(&id, ctx.nodename, cfg);
	} else {
		json = sn_identity_json(&id, ctx.nodename, cfg);
		if (!json) {
			sn_log(LOG_ERR, "out of memory");
			return SN_EXIT_UNKNOWN;
		}
		puts(json);
		free(json);
	}
	fflush(stdout);
	return id.kind == SN_IDENTITY_ERROR ? SN_EXIT_UNKNOWN : SN_EXIT_OK;
}
