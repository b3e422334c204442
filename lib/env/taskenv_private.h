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

#endif
