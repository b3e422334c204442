/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_TASKENV_PRIVATE_H
#define SN_TASKENV_PRIVATE_H

/* Shared by the files of lib/env/taskenv*.c only; not for adapters. */
#include <stdbool.h>

#include "env/sn_taskenv.h"

static inline bool port_usable(const struct sn_taskenv_port *p)
{
	return p->allowed && p->active && p->layer_ok;
}

/* taskenv_gather.c: node->in_supernode and supernode for self. */
void taskenv_node_place(const struct sn_config *cfg, const char *self,
			struct sn_taskenv_node *node);

/*
 * taskenv_gather.c: what sn_taskenv_node_prepare() returns for a gather
 * that returned rc (0 delivered) with want_topo asked; err set unless
 * SN_TASKENV_READY.
 */
enum sn_taskenv_ready taskenv_ready(int rc, unsigned want_topo,
				    const struct sn_taskenv_node *node,
				    struct sn_error *err);

#endif
