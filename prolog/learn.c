/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --learn: print the node: manifest of the node it runs on, to start the
 * config from a known-good node.  What the manifest says is decided in
 * lib/checks/learn.c (sn_learn_write); here it runs in a child under the
 * config's check_timeout x 3 (NVML can hang), after a header line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <time.h>

#include "checks/sn_learn.h"
#include "util/sn_child.h"
#include "config/sn_checkctx.h"
#include "sn_prolog.h"

static int learn_child(void *arg, int fd)
{
	const struct sn_check_ctx *ctx = arg;
	FILE *f = fdopen(fd, "w");
	time_t now = time(NULL);
	char when[32];

	if (!f)
		return 1;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	fprintf(f,
		"# node: manifest learned on %s by %s --learn, %s.\n"
		"# Check it against what the node should have, then put it into supernode.yaml.\n"
		"node:\n",
		ctx->nodename, SN_PROLOG_NAME, when);
	sn_learn_write(f, ctx);
	return fclose(f) ? 1 : 0;
}

int sn_prolog_learn(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	struct sn_check_ctx ctx;
	struct sn_error err;
	char *out = NULL;
	size_t len = 0;
	int rc;

	if (sn_check_ctx_init(&ctx, cfg, args->node, &err)) {
		sn_log(LOG_ERR, "%s", err.msg);
		return SN_EXIT_USAGE;
	}
	rc = sn_run_in_child(learn_child, &ctx,
			     cfg->prolog.check_timeout_s * 3000, 1u << 20, &out,
			     &len);
	if (rc != 0) {
		sn_log(LOG_ERR, "--learn %s",
		       rc == -1 ? "timed out" : "failed");
		free(out);
		return SN_EXIT_UNKNOWN;
	}
	fwrite(out, 1, len, stdout);
	free(out);
	return SN_EXIT_OK;
}
