/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of old config forms (sn_config_deprecated.h): what each meant,
 * what it is written as today, and the commit that changed it.  Found by
 * reading `git log -p` of lib/config, etc/supernode.yaml.example,
 * etc/examples/ and the config README: no key was ever removed or moved;
 * two value forms were refused later (rows 1-2).  The field cases'
 * spellings (shared/reference/field-cases.md 16 and 5) were never
 * accepted by any commit; the three that are a plain rename load with a
 * warning (rows 3-5), the ones without an exact equivalent are refused
 * naming today's form (rows 6-8).
 *
 * Kept refused, because loading them would be unsafe (etc/README.md,
 * "Upgrading"): a supernodes[].identity with a zero cluster UUID (05c3e78:
 * every node of the supernode would drain SUPERNODE_MISMATCH), an
 * epilog.record_dir or textfile_dir with a % sequence other than %n, %h,
 * %% (bc2a684: the epilog could not expand it and wrote no record for any
 * job; loading it would hide that), YAML deeper than 32 levels or with more
 * than 2^19 nodes (f39a88a, 6f5cfb3: slurmctld hung inside libyaml).
 */
#include <string.h>

#include "config/sn_config_deprecated.h"

const struct sn_deprecated sn_deprecated[] = {
	{
		.id = "bare-limit",
		.kind = SN_DEP_BARE_LIMIT,
		.old_form = "epilog.thresholds.COUNTER: {warn: N, crit: N} "
			    "on a counter whose limits are rates (N/h, N/TB)",
		.new_form = "{warn: N/job, crit: N/job} (a count per job, "
			    "as before)",
		.since = "9ecc6b1",
		.accepted = "72f68f4..9ecc6b1^",
	},
	{
		.id = "unjudged-counter",
		.kind = SN_DEP_UNJUDGED_NAME,
		.old_form = "epilog.thresholds.NAME where NAME is no counter "
			    "the epilog judges (never applied)",
		.new_form = "the entry commented out (it was never applied)",
		.since = "b552cb7",
		.accepted = "72f68f4..b552cb7^",
	},
	{
		.id = "key:prolog.timeout_s",
		.kind = SN_DEP_KEY_RENAME,
		.section = "prolog",
		.old_key = "timeout_s",
		.new_key = "timeout",
		.old_form = "prolog: {timeout_s: N}",
		.new_form = "prolog: {timeout: N}",
		.since = "field",
		.accepted = "field case 16",
	},
	{
		.id = "key:prolog.per_check_timeout_s",
		.kind = SN_DEP_KEY_RENAME,
		.section = "prolog",
		.old_key = "per_check_timeout_s",
		.new_key = "check_timeout",
		.old_form = "prolog: {per_check_timeout_s: N}",
		.new_form = "prolog: {check_timeout: N}",
		.since = "field",
		.accepted = "field case 16",
	},
	{
		.id = "key:env.socket_interface",
		.kind = SN_DEP_KEY_RENAME,
		.section = "env",
		.old_key = "socket_interface",
		.new_key = "socket_ifname",
		.old_form = "env: {socket_interface: NAME}",
		.new_form = "env: {socket_ifname: NAME}",
		.since = "field",
		.accepted = "field case 5",
	},
	{
		.id = "key:gpu",
		.kind = SN_DEP_REFUSED,
		.section = "",
		.old_key = "gpu",
		.old_form = "gpu: {expected_count: N}",
		.new_form = "node: {accelerators: {vendor: nvidia, count: N}} "
			    "(the vendor is not in the old form)",
		.since = "field",
		.accepted = "none (field case 11)",
	},
	{
		.id = "key:ib",
		.kind = SN_DEP_REFUSED,
		.section = "",
		.old_key = "ib",
		.old_form =
			"ib: {min_rate_gbps: R, link_layer: L, devices: [..]}",
		.new_form = "node: {ports: [{device: mlx5_0, link_layer: L, "
			    "min_rate_gbps: R}, ...]} (one entry per port: "
			    "the exact count is checked)",
		.since = "field",
		.accepted = "none (field case 8)",
	},
	{
		.id = "key:nvlink",
		.kind = SN_DEP_REFUSED,
		.section = "",
		.old_key = "nvlink",
		.old_form = "nvlink: {expected_links: N}",
		.new_form = "node: {accelerators: {vendor: nvidia, count: C, "
			    "nvlinks: N}}",
		.since = "field",
		.accepted = "none (field case 13)",
	},
};

const size_t sn_deprecated_count =
	sizeof(sn_deprecated) / sizeof(sn_deprecated[0]);

const struct sn_deprecated *sn_deprecated_kind(enum sn_dep_kind kind)
{
	for (size_t i = 0; i < sn_deprecated_count; i++)
		if (sn_deprecated[i].kind == kind)
			return &sn_deprecated[i];
	return NULL;
}

const struct sn_deprecated *sn_deprecated_rename(const char *path,
						 const char *key)
{
	for (size_t i = 0; i < sn_deprecated_count; i++) {
		const struct sn_deprecated *d = &sn_deprecated[i];

		if ((d->kind == SN_DEP_KEY_RENAME ||
		     d->kind == SN_DEP_REFUSED) &&
		    !strcmp(d->section, path) && !strcmp(d->old_key, key))
			return d;
	}
	return NULL;
}
