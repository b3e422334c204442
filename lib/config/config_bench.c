/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode.yaml: the bench: section, read by supernode-bench to decide
 * pass or fail without a --min-busbw on its command line:
 *
 *   bench:
 *     rated_busbw_gbps: 50     # per rank, GB/s (400 Gb/s InfiniBand = 50)
 *     min_fraction: 0.8        # pass at >= 0.8 x rated (default 0.8)
 */
#include "config/config_sections.h"

#define SN_BENCH_MAX_GBPS 100000.0 /* GB/s: far above any fabric */

static int bench_rated(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	struct sn_bench_settings *b = target;
	double x;

	if (yaml_walk_double(w, v, path, 0, SN_BENCH_MAX_GBPS, &x))
		return -1;
	if (x <= 0)
		return yaml_walk_fail(w, v, path, "must be greater than 0");
	b->rated_busbw_gbps = x;
	return 0;
}

static int bench_fraction(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	struct sn_bench_settings *b = target;
	double x;

	if (yaml_walk_double(w, v, path, 0, 1, &x))
		return -1;
	if (x <= 0)
		return yaml_walk_fail(w, v, path, "must be greater than 0");
	b->min_fraction = x;
	b->has_min_fraction = true;
	return 0;
}

static const struct yaml_key_rule bench_rules[] = {
	{ "rated_busbw_gbps", bench_rated, false },
	{ "min_fraction", bench_fraction, false },
	{ NULL, NULL, false },
};

int sn_config_section_bench(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target)
{
	struct sn_bench_settings *b = &((struct sn_config *)target)->bench;

	if (yaml_walk_mapping(w, v, path, bench_rules, b))
		return -1;
	/* A fraction of nothing would be silently ignored: refuse it. */
	if (b->has_min_fraction && b->rated_busbw_gbps <= 0)
		return yaml_walk_fail(w, v, path,
				      "min_fraction needs rated_busbw_gbps");
	return 0;
}

void sn_config_bench_defaults(struct sn_config *cfg)
{
	cfg->bench.rated_busbw_gbps = 0;
	cfg->bench.min_fraction = SN_BENCH_DEFAULT_FRACTION;
	cfg->bench.has_min_fraction = false;
}
