#!/usr/bin/env bash
# Issue 9, item 8: a user's own SPANK plugin can hand SPANK_SUPERNODE=1 to
# the prolog and epilog directly (Slurm prefixes spank_job_env entries with
# SPANK_, except those that already start with it), without the SUPERNODE=
# that job_submit converts.  The job_submit plugin drops such entries, so
# the prolog and epilog see SPANK_SUPERNODE only for jobs slurmctld placed
# as whole supernodes.  The user loads the forging plugin the way any user
# can: a private copy of slurm.conf whose PlugStackConfig names it.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
for p in "$PROLOG" "$EPILOG"; do [[ -x $p ]] || { echo "SKIP: $p not built"; exit 77; }; done
command -v cc >/dev/null || { echo "SKIP: no C compiler for the forging plugin"; exit 77; }

fx=$(mktemp -d)
chmod 0755 "$fx"
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
	ib_counter "$fx/$n/sys" mlx5_0 1 symbol_error 0
done
cat >"$fx/supernode.yaml" <<YAML
supernodes:
  - name: sn01
    nodes: sna[1-2]
  - name: sn02
    nodes: snb[1-2]
node:
  ports:
    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
epilog:
  record_dir: $fx/records
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
YAML
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$EPILOG
PrologFlags=Alloc
PrologEpilogTimeout=60
CONF
cluster_up "it-forge-$$" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT
chmod 0755 "$WORK"

# The user's plugin: SPANK_SUPERNODE=1 as a job control variable.
cat >forge.c <<'C'
#include <slurm/spank.h>
SPANK_PLUGIN(forge, 1);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac; (void)av;
	if (spank_context() == S_CTX_ALLOCATOR || spank_context() == S_CTX_LOCAL)
		return spank_job_control_setenv(sp, "SPANK_SUPERNODE", "1", 1);
	return 0;
}
C
# The Slurm under test: its spank.h (plugin_version must match).
cc -shared -fPIC ${SN_SLURM_PREFIX:+-I"$SN_SLURM_PREFIX/include"} -o forge.so forge.c
echo "required $WORK/forge.so" >plugstack.conf
sed "s|^PlugStackConfig=.*|PlugStackConfig=$WORK/plugstack.conf|" "$SLURM_CONF" >slurm.conf
chmod 0644 forge.so plugstack.conf slurm.conf

USER_RUN=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
forged=$(SLURM_CONF=$WORK/slurm.conf "${USER_RUN[@]}" sbatch --parsable -o /dev/null -N 1 \
	--wrap 'echo "$SLURM_SPANK_SPANK_SUPERNODE"')
wait_state "$forged" COMPLETED
assert_contains "slurmctld dropped the forged entry" \
	"dropped the job's own SPANK environment entry 'SPANK_SUPERNODE=1'" \
	"$(grep "uid 65534: dropped" "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log")"

# A real --supernode job next: its record proves the epilog writes records.
real=$("${USER_RUN[@]}" sbatch --parsable -o /dev/null --supernode=1 --wrap true)
wait_state "$real" COMPLETED
for _ in $(seq 1 100); do [[ -d $fx/records/$real ]] && break; sleep 0.1; done
assert_eq "a --supernode job has its records" 2 "$(find "$fx/records/$real" -name '*.json' | wc -l)"
assert_eq "the forged job has no record (the epilog did not take it for a supernode job)" \
	no "$([[ -e $fx/records/$forged ]] && echo yes || echo no)"
finish
