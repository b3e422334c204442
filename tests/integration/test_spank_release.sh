#!/usr/bin/env bash
# Issue 11 item 4: SPANK behaviour that changed between Slurm releases,
# checked on the real daemons of the release under test with a probe plugin
# (the cluster's plugstack.conf holds only it):
#  - from 24.05 srun's remote option callbacks run once per node, before
#    twice (CHANGELOG/slurm-24.05.md);
#  - from 25.05 any non-zero return of a SPANK callback is an error, before
#    only a negative one (CHANGELOG/slurm-25.05.md).
# Our plugin's callbacks return 0 or -1 only, so they mean the same on all.
source "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler for the probe plugin"; exit 77; }

fx=$(mktemp -d)
chmod 0755 "$fx"
cat >"$fx/probe.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <slurm/spank.h>
SPANK_PLUGIN(probe, 1);
static int task_rc;
static int log_cb(int val, const char *optarg, int remote)
{
	FILE *f;
	(void)val;
	if (!remote || !(f = fopen(optarg, "a")))
		return 0;
	fprintf(f, "callback\n");
	fclose(f);
	return 0;
}
static int rc_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	task_rc = atoi(optarg);
	return 0;
}
struct spank_option spank_options[] = {
	{ "probe-log", "FILE", "a line in FILE per remote callback", 1, 0, log_cb },
	{ "probe-rc", "N", "slurm_spank_task_init returns N", 1, 1, rc_cb },
	SPANK_OPTIONS_TABLE_END
};
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	return task_rc;
}
C
# The Slurm under test: its spank.h (plugin_version must match).
cc -shared -fPIC ${SN_SLURM_PREFIX:+-I"$SN_SLURM_PREFIX/include"} -o "$fx/probe.so" "$fx/probe.c"
echo "required $fx/probe.so" >"$fx/plugstack.conf"
echo "PlugStackConfig=$fx/plugstack.conf" >"$fx/extra.conf"
cluster_up "it-spankrel-$$" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

read -r _ ver < <(sinfo --version)
at_least() { [[ $(printf '%s\n' "$1" "$ver" | sort -V | head -n1) == "$1" ]]; }

srun -N 2 --probe-log="$fx/callbacks" true
if at_least 24.05; then want=2; else want=4; fi
assert_eq "Slurm $ver: remote option callbacks of srun -N 2 --probe-log" "$want" "$(wc -l <"$fx/callbacks")"

set +e
srun -N 1 --probe-rc=1 true 2>/dev/null
rc=$?
set -e
if at_least 25.05; then want=1; else want=0; fi
assert_eq "Slurm $ver: srun's exit when task_init returns 1" "$want" "$rc"
set +e
srun -N 1 --probe-rc=0 true
rc=$?
set -e
assert_eq "Slurm $ver: srun's exit when task_init returns 0" 0 "$rc"
finish
