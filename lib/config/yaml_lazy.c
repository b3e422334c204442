/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libyaml loaded on first use (util/sn_lazylib.h), not at program start.
 *
 * sbatch, salloc and srun load supernode.so for every submission and step,
 * with or without --supernode, and most of them never parse the config
 * (spank/local.c passes a well-formed N on to slurmctld).  With libyaml in
 * supernode.so's DT_NEEDED, each of them mapped and relocated it anyway:
 * about 0.3 ms of the plugin's 0.75 ms dlopen() in sbatch on the bench
 * machine (uprobes on dlopen, 40 submissions, median).
 *
 * This file defines the libyaml functions lib/ (and the tests' baselines)
 * call.  RTLD_LOCAL: libyaml has no plugins of its own.  When libyaml
 * cannot be loaded, yaml_parser_initialize() fails with errno ELIBACC, so
 * the config loader says "cannot initialise libyaml: Can not access a
 * needed shared library" and nothing else is reached.
 */
#include <dlfcn.h>
#include <stddef.h>

#include <yaml.h>

#include "util/sn_lazylib.h"

static struct sn_lazylib lazy_yaml = {
	.path = SN_YAML_PATH,
	.soname = SN_YAML_SONAME,
	.flags = RTLD_NOW | RTLD_LOCAL,
};

SN_LAZY(lazy_yaml, int, yaml_parser_initialize, (yaml_parser_t * p), (p), 0)
SN_LAZY_VOID(lazy_yaml, yaml_parser_delete, (yaml_parser_t * p), (p))
SN_LAZY_VOID(lazy_yaml, yaml_parser_set_input_string,
	     (yaml_parser_t * p, const unsigned char *in, size_t size),
	     (p, in, size))
SN_LAZY(lazy_yaml, int, yaml_parser_parse, (yaml_parser_t * p, yaml_event_t *e),
	(p, e), 0)
SN_LAZY(lazy_yaml, int, yaml_parser_load,
	(yaml_parser_t * p, yaml_document_t *d), (p, d), 0)
SN_LAZY_VOID(lazy_yaml, yaml_event_delete, (yaml_event_t * e), (e))
SN_LAZY(lazy_yaml, int, yaml_document_initialize,
	(yaml_document_t * d, yaml_version_directive_t *v,
	 yaml_tag_directive_t *start, yaml_tag_directive_t *end, int si,
	 int ei),
	(d, v, start, end, si, ei), 0)
SN_LAZY_VOID(lazy_yaml, yaml_document_delete, (yaml_document_t * d), (d))
SN_LAZY(lazy_yaml, int, yaml_document_add_scalar,
	(yaml_document_t * d, const yaml_char_t *tag, const yaml_char_t *value,
	 int length, yaml_scalar_style_t style),
	(d, tag, value, length, style), 0)
SN_LAZY(lazy_yaml, int, yaml_document_add_sequence,
	(yaml_document_t * d, const yaml_char_t *tag,
	 yaml_sequence_style_t style),
	(d, tag, style), 0)
SN_LAZY(lazy_yaml, int, yaml_document_add_mapping,
	(yaml_document_t * d, const yaml_char_t *tag,
	 yaml_mapping_style_t style),
	(d, tag, style), 0)
SN_LAZY(lazy_yaml, int, yaml_document_append_sequence_item,
	(yaml_document_t * d, int sequence, int item), (d, sequence, item), 0)
SN_LAZY(lazy_yaml, int, yaml_document_append_mapping_pair,
	(yaml_document_t * d, int mapping, int key, int value),
	(d, mapping, key, value), 0)
