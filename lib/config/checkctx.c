/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_checkctx.h"
#include "config/sn_vendor.h"
#include "util/sn_hostlist.h"
#include "util/sn_safedir.h"
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

/* The configured vendor's paths.<lib_key>, or "" for its default places. */
static int accel_lib(struct sn_check_ctx *ctx, const struct sn_config *cfg,
		     struct sn_error *err)
{
	const struct sn_vendor *v = sn_vendor_of(cfg->node.accel.vendor);
	const char *set = cfg->vendor_lib[v->id];

	if (v->api == SN_VENDOR_API_NVML)
		set = cfg->nvml;
	else if (v->identity == SN_VENDOR_ID_DCMI)
		set = cfg->dcmi;
	if (!set || !v->lib_key)
		return 0;
	return expand(set, ctx->nodename, ctx->host, ctx->accel_lib,
		      sizeof(ctx->accel_lib), v->lib_key, err);
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
	return accel_lib(ctx, cfg, err);
}

/* The folder tmpl (may hold %n/%h) walked without creating; 1 if refused. */
static size_t folder_trust(const struct sn_check_ctx *ctx, const char *key,
			   const char *tmpl, sn_trust_out out, void *arg)
{
	char path[PATH_MAX];
	struct sn_error err;
	int fd;

	if (!tmpl)
		return 0;
	if (sn_path_expand(tmpl, ctx->nodename, ctx->host, path,
			   sizeof(path))) {
		out(arg, key, "path too long once %n/%h are expanded");
		return 1;
	}
	fd = sn_safedir_open(path, 0, false, &err);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT)
		return 0; /* made on first use, under checked folders */
	out(arg, key, err.msg);
	return 1;
}

/* The configured vendor's library when it is neither NVML nor DCMI. */
static size_t vendor_lib_trust(const struct sn_check_ctx *ctx, sn_trust_out out,
			       void *arg)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);
	char key[32];
	struct sn_error err;

	if (!ctx->accel_lib[0] || !strcmp(ctx->accel_lib, ctx->nvml) ||
	    !strcmp(ctx->accel_lib, ctx->dcmi))
		return 0;
	if (!sn_safedir_library(ctx->accel_lib, &err))
		return 0;
	snprintf(key, sizeof(key), "paths.%s", v->lib_key);
	out(arg, key, err.msg);
	return 1;
}

size_t sn_check_ctx_trust(const struct sn_check_ctx *ctx, sn_trust_out out,
			  void *arg)
{
	const struct sn_config *cfg = ctx->cfg;
	struct sn_error err;
	size_t n = 0;

	n += folder_trust(ctx, "paths.state_dir", ctx->state_dir, out, arg);
	n += folder_trust(ctx, "epilog.record_dir", cfg->epilog.record_dir, out,
			  arg);
	n += folder_trust(ctx, "epilog.textfile_dir", cfg->epilog.textfile_dir,
			  out, arg);
	if (sn_safedir_library(ctx->nvml, &err) && ++n)
		out(arg, "paths.nvml", err.msg);
	if (sn_safedir_library(ctx->dcmi, &err) && ++n)
		out(arg, "paths.dcmi", err.msg);
	n += vendor_lib_trust(ctx, out, arg);
	if (!access(ctx->imex_ctl, F_OK) &&
	    sn_safedir_program(ctx->imex_ctl, &err) && ++n)
		out(arg, "paths.imex_ctl", err.msg);
	return n;
}
