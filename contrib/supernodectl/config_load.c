/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading supernode.yaml for every command (report, health, config): one
 * helper below the commands, so that they call it and it calls none of
 * them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_checkctx.h"
#include "util/sn_slurm_env.h"

#include "snctl.h"

int snctl_config_load(const struct snctl_global *g, struct sn_config **cfg)
{
	char path[PATH_MAX];
	struct sn_error err;

	if (g->config)
		snprintf(path, sizeof(path), "%s", g->config);
	else
		sn_config_default_path(path, sizeof(path));
	*cfg = sn_config_load(path, &err);
	if (!*cfg) {
		sn_log_stderr("%s", err.msg);
		return -1;
	}
	return 0;
}

static void trust_out(void *arg, const char *key, const char *msg)
{
	(void)arg;
	sn_log_stderr("%s: %s", key, msg);
}

size_t snctl_config_trust(const struct sn_config *cfg)
{
	const char *node = getenv(SN_ENV_NODENAME);
	char host[256];
	struct sn_check_ctx ctx;
	struct sn_error err;

	if (!node || !*node)
		node = sn_slurm_env_host(host, sizeof(host));
	if (sn_check_ctx_init(&ctx, cfg, node, &err)) {
		sn_log_stderr("%s", err.msg);
		return 1;
	}
	return sn_check_ctx_trust(&ctx, trust_out, NULL);
}

void snctl_config_warn(const struct sn_config *cfg)
{
	struct sn_error warn;

	/* Old forms loaded with their old meaning (etc/README "Upgrading"). */
	for (size_t i = 0; i < cfg->n_deprecated; i++)
		sn_log_stderr("warning: %s", cfg->deprecated[i].msg);
	if (sn_config_port_warning(cfg, SN_CONFIG_PROCFS, &warn))
		sn_log_stderr("warning: %s", warn.msg);
}
