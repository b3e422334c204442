/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <unistd.h>

#include "config/sn_checkctx.h"
#include "util/sn_hostlist.h"
#include "util/sn_slurm_env.h"

static int expand(const char *tmpl, const char *node, const char *host,
		  char *out, size_t size, const char *key, struct sn_error *err)
{
	if (!tmpl) {
		out[0] = '\0';
		return 0;
	}
	if (sn_path_expand(tmpl, node, host, out, size)) {
		sn_error_set(
			err,
			"paths.%s: '%s' does not fit once %%n/%%h are expanded",
			key, tmpl);
		return -1;
	}
	return 0;
}

int sn_check_ctx_init(struct sn_check_ctx *ctx, const struct sn_config *cfg,
		      const char *nodename, struct sn_error *err)
{
	char *host = ctx->host;

	memset(ctx, 0, sizeof(*ctx));
	sn_slurm_env_host(host, sizeof(ctx->host));
	ctx->cfg = cfg;
	/* In ctx, not on this stack: --identity/--learn print it later. */
	ctx->nodename = nodename ? nodename : host;
	if (expand(cfg->sysfs, ctx->nodename, host, ctx->sysfs,
		   sizeof(ctx->sysfs), "sysfs", err) ||
	    expand(cfg->dev, ctx->nodename, host, ctx->dev, sizeof(ctx->dev),
		   "dev", err) ||
	    expand(cfg->nvml ? cfg->nvml : "libnvidia-ml.so.1", ctx->nodename,
		   host, ctx->nvml, sizeof(ctx->nvml), "nvml", err) ||
	    expand(cfg->hwloc_xml, ctx->nodename, host, ctx->hwloc_xml,
		   sizeof(ctx->hwloc_xml), "hwloc_xml", err) ||
	    expand(cfg->kmsg, ctx->nodename, host, ctx->kmsg, sizeof(ctx->kmsg),
		   "kmsg", err) ||
	    expand(cfg->state_dir, ctx->nodename, host, ctx->state_dir,
		   sizeof(ctx->state_dir), "state_dir", err) ||
	    expand(cfg->imex_ctl ? cfg->imex_ctl : SN_IMEX_CTL_DEFAULT,
		   ctx->nodename, host, ctx->imex_ctl, sizeof(ctx->imex_ctl),
		   "imex_ctl", err) ||
	    expand(cfg->imex_channels ? cfg->imex_channels :
					SN_IMEX_CHANNELS_DEFAULT,
		   ctx->nodename, host, ctx->imex_channels,
		   sizeof(ctx->imex_channels), "imex_channels", err) ||
	    expand(cfg->dcmi ? cfg->dcmi : SN_DCMI_DEFAULT, ctx->nodename, host,
		   ctx->dcmi, sizeof(ctx->dcmi), "dcmi", err))
		return -1;
	return 0;
}
