/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CONFIG_SECTIONS_H
#define SN_CONFIG_SECTIONS_H

/* Private to the config loader: the sections that live in their own file. */
#include "config/sn_config.h"
#include "config/yaml_walk.h"

/*
 * config.c: a config from a document already parsed (the job's snapshot,
 * config_snapshot.c): the walk and every check after it, as
 * sn_config_load_buffer() does once libyaml has parsed the file; path is
 * for messages.  doc stays the caller's.  NULL with err set.
 */
struct sn_config *sn_config_from_doc(const char *path, yaml_document_t *doc,
				     struct sn_error *err);

/* config_node.c: node: (the manifest), prolog:, drain: */
int sn_config_section_node(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target);
int sn_config_section_prolog(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target);
int sn_config_section_drain(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target);

/* config_epilog.c: epilog: */
int sn_config_section_epilog(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target);
int sn_config_epilog_finish(struct sn_config *cfg, struct sn_error *err);
void sn_config_epilog_free(struct sn_config *cfg);

/* config_bench.c: bench: (numbers only: nothing to free) */
int sn_config_section_bench(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target);
void sn_config_bench_defaults(struct sn_config *cfg);

/* Defaults, cross-section checks and release of what config_node.c owns. */
void sn_config_node_defaults(struct sn_config *cfg);
int sn_config_node_finish(struct sn_config *cfg, struct sn_error *err);
void sn_config_node_free(struct sn_config *cfg);

/*
 * config_path.c: the one rule for every path key (paths.*, epilog.*_dir): copy
 * into *dst as yaml_walk_strdup(), then refuse it unless it is
 * absolute and sn_path_expand() takes it (only %n, %h and %% after a %).
 */
int sn_config_path(struct yaml_walk *w, yaml_node_t *v, const char *path,
		   char **dst);

#endif
