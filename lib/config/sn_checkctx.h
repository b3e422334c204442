/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHECKCTX_H
#define SN_CHECKCTX_H

#include <limits.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_hostlist.h"

/* Defaults of paths.imex_ctl, paths.imex_channels and paths.dcmi. */
#define SN_IMEX_CTL_DEFAULT "/usr/bin/nvidia-imex-ctl"
#define SN_IMEX_CHANNELS_DEFAULT "/dev/nvidia-caps-imex-channels"
#define SN_DCMI_DEFAULT "libdcmi.so"

/*
 * struct sn_check_ctx - what every check needs: the config (manifest) and
 * the node's paths with %n/%h already expanded.  Filled by
 * sn_check_ctx_init(); checks only read it.
 */
struct sn_check_ctx {
	const struct sn_config *cfg;
	const char *nodename; /* this node's Slurm name: the caller's, or host */
	char host[SN_HOST_NAME_SIZE]; /* %h: sn_slurm_env_host() */
	char sysfs[PATH_MAX]; /* paths.sysfs: "/sys" or a fixture tree */
	char dev[PATH_MAX];   /* paths.dev */
	char nvml[PATH_MAX];  /* paths.nvml: library dlopen()ed for NVIDIA */
	char hwloc_xml[PATH_MAX]; /* paths.hwloc_xml; "" = discover live */
	char kmsg[PATH_MAX];	  /* paths.kmsg: /dev/kmsg or a fixture file */
	char state_dir[PATH_MAX]; /* paths.state_dir */
	char imex_ctl[PATH_MAX];  /* paths.imex_ctl: nvidia-imex-ctl */
	char imex_channels[PATH_MAX]; /* paths.imex_channels: channelN folder */
	char dcmi[PATH_MAX]; /* paths.dcmi: Ascend libdcmi dlopen()ed */
	/*
	 * The management library of node.accelerators.vendor as configured
	 * (paths.<lib_key> of config/sn_vendor.h: nvml, dcmi, rocm_smi,
	 * cndev, mtml, mxsml, xpuml), expanded; "" = not configured: the
	 * vendor's default places are tried (inventory/sn_vendor_lib.h).
	 */
	char accel_lib[PATH_MAX];
	/*
	 * When the running check group must be done, in CLOCK_MONOTONIC
	 * milliseconds (sn_now_ms); set by the runner in each group's child
	 * to the limit it kills at: min(check_timeout, time left in the
	 * prolog).  0 (sn_check_ctx_init): none given, a group that paces
	 * itself counts prolog.check_timeout from its own start.
	 */
	int64_t deadline_ms;
};

/*
 * sn_check_ctx_init - expand the config's paths for nodename (and this
 * host's name).  Returns 0, or -1 with err set if a path does not fit.
 */
int sn_check_ctx_init(struct sn_check_ctx *ctx, const struct sn_config *cfg,
		      const char *nodename, struct sn_error *err);

/* One refusal of sn_check_ctx_trust(): the config key and the message. */
typedef void (*sn_trust_out)(void *arg, const char *key, const char *msg);

/*
 * sn_check_ctx_trust - walk, as the prolog and epilog will on this node,
 * every folder they write (paths.state_dir, epilog.record_dir,
 * epilog.textfile_dir, with %n/%h of ctx), every library they load
 * (paths.nvml, paths.dcmi) and the program they run (paths.imex_ctl; only
 * when it is there), by the rules of sn_safedir.h, creating nothing.  A
 * folder not there yet is fine: it is made under checked folders.  Calls
 * out(arg, key, message) per refusal; returns how many.
 */
size_t sn_check_ctx_trust(const struct sn_check_ctx *ctx, sn_trust_out out,
			  void *arg);

#endif
