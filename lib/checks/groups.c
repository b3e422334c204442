/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The prolog's check groups, in report order.  Kept out of runner.c so
 * that a group may use the runner (check_fabric.c runs nvidia-imex-ctl
 * through sn_run_in_child) without a call cycle.
 */
#include "checks/sn_runner.h"
#include "util/sn_child.h"

const struct sn_check_group sn_check_groups[] = {
	{ "accelerators", sn_check_accelerators },
	{ "ports", sn_check_ports },
	{ "topology", sn_check_topology },
	{ "fabric", sn_check_fabric },
};
const unsigned sn_check_groups_count =
	sizeof(sn_check_groups) / sizeof(sn_check_groups[0]);
