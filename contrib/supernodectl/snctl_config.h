/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SNCTL_CONFIG_H
#define SNCTL_CONFIG_H

/*
 * supernodectl config ...: the subcommands, one file each (config_cmd.c
 * dispatches; validate lives there too).
 */
#include "snctl.h"

/* The top switch `config slurm` writes over the supernodes' leaf switches. */
#define SNCTL_TOP_SWITCH "top"

/*
 * config_check.c: supernode.yaml against the running cluster (libslurm, in
 * a child with a time limit).  argv[0] is "check".  Exit 0 match, 1
 * mismatch or Slurm not reachable, 2 usage.
 */
int snctl_config_check(const struct snctl_global *g, int argc, char **argv);

/*
 * config_slurm.c: print slurm.conf NodeName/Feature lines, topology.conf
 * and the plugstack line for the config.  argv[0] is "slurm".
 */
int snctl_config_slurm(const struct snctl_global *g, int argc, char **argv);

/*
 * config_migrate.c: the config in today's form on stdout, or with --write
 * in place keeping FILE.orig.  argv[0] is "migrate".  Exit 0 done, 1
 * invalid config or not written, 2 usage.
 */
int snctl_config_migrate(const struct snctl_global *g, int argc, char **argv);

#endif
