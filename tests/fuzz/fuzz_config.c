/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_config: supernode.yaml through sn_config_load_buffer() (what
 * sn_config_load() calls after reading the file: a NUL-terminated buffer),
 * then what a loaded config is used for: node lookup, the effective N,
 * path expansion, thresholds.  Properties: a config that loads has
 * supernodes of equal, non-zero size and a sorted, complete node index.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "config/sn_config.h"

static void use_paths(const struct sn_config *cfg)
{
	const char *paths[] = { cfg->sysfs,
				cfg->dev,
				cfg->state_dir,
				cfg->nvml,
				cfg->hwloc_xml,
				cfg->kmsg,
				cfg->epilog.record_dir,
				cfg->epilog.textfile_dir };
	char out[PATH_MAX];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i])
			sn_path_expand(paths[i], "gpu-a001", "host1", out,
				       sizeof(out));
}

static void check_index(const struct sn_config *cfg)
{
	size_t total = 0;

	FZ_ASSERT(cfg->n_supernodes > 0);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		FZ_ASSERT(cfg->supernodes[i].size == cfg->supernode_size);
		FZ_ASSERT(cfg->supernodes[i].size > 0);
		total += cfg->supernodes[i].size;
	}
	FZ_ASSERT(total == cfg->n_nodes);
	for (size_t i = 0; i < cfg->n_nodes; i++) {
		const struct sn_node *n = &cfg->nodes[i];

		if (i)
			FZ_ASSERT(strcmp(cfg->nodes[i - 1].name, n->name) < 0);
		FZ_ASSERT(n->supernode < cfg->n_supernodes);
		FZ_ASSERT(n->rank < cfg->supernode_size);
		/* looked up again by name, at most the first 64 */
		if (i < 64)
			FZ_ASSERT(sn_config_find_node(cfg, n->name) == n);
	}
	FZ_ASSERT(!sn_config_find_node(cfg, ""));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fz_string(data, size);
	struct sn_config *cfg;
	struct sn_error err;

	cfg = sn_config_load_buffer("fuzz.yaml", buf, size, &err);
	if (cfg) {
		check_index(cfg);
		FZ_ASSERT(sn_config_effective_max(cfg) >= 1);
		FZ_ASSERT(sn_config_effective_max(cfg) <= cfg->n_supernodes);
		sn_placement_method_name(cfg->method);
		use_paths(cfg);
		sn_threshold_find(&cfg->epilog, "symbol_error");
		sn_config_free(cfg);
	} else {
		FZ_ASSERT(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	free(buf);
	return 0;
}
