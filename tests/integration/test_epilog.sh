#!/usr/bin/env bash
# The epilog on a real local Slurm: a --supernode job runs; between its
# prolog and its epilog the job raises fixture counters on both nodes; each
# node's record shows the exact deltas; the node over a crit threshold is
# drained with our reason; once its ports pass, `supernodectl health`
# resumes it; an admin-drained node is never resumed; `supernodectl report`
# shows the job across both nodes.
source "$(dirname "$0")/lib.sh"
source "$SRC/contrib/local-cluster/fake-sysfs.sh"
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
CTL=$BUILD/contrib/supernodectl/supernodectl
for p in "$PROLOG" "$EPILOG" "$CTL"; do [[ -x $p ]] || { echo "SKIP: $p not built"; exit 77; }; done

name="it-epilog-$$"
fx=$(mktemp -d)
for n in sna1 sna2 snb1 snb2; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
	ib_counter "$fx/$n/sys" mlx5_0 1 symbol_error 100
	ib_counter "$fx/$n/sys" mlx5_0 1 port_xmit_data 1000
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
  textfile_dir: $fx/prom/%n
  thresholds:
    symbol_error: {warn: 5/h, crit: 1000/h}
paths:
  sysfs: $fx/%n/sys
  state_dir: $fx/%n/state
  kmsg: $fx/kmsg
YAML
: >"$fx/kmsg"
# The epilog's stderr (syslog's copy is not readable here) goes to a file.
printf '#!/bin/sh\nexec %s "$@" 2>>%s\n' "$EPILOG" "$fx/epilog.log" >"$fx/epilog"
chmod 0755 "$fx/epilog"
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$fx/epilog
PrologFlags=Alloc,DeferBatch
PrologEpilogTimeout=60
CONF
cluster_up "$name" --config "$fx/supernode.yaml" --extra "$fx/extra.conf"
trap 'cluster_down; rm -rf "$fx"' EXIT

# The job raises the counters of its own two nodes: +7 symbol errors on the
# first, +5000 on the second, and 250 data words (1000 bytes) sent on both.
cat >job.sh <<SH
#!/bin/bash
#SBATCH --supernode=1
set -e
nodes=(\$(scontrol show hostnames "\$SLURM_JOB_NODELIST"))
c=$fx/\${nodes[0]}/sys/class/infiniband/mlx5_0/ports/1/counters
echo 107 >\$c/symbol_error; echo 1250 >\$c/port_xmit_data
c=$fx/\${nodes[1]}/sys/class/infiniband/mlx5_0/ports/1/counters
echo 5100 >\$c/symbol_error; echo 1250 >\$c/port_xmit_data
# a step on both nodes: each writes the job's config (the batch host's is
# the batch step's), which the epilog removes
srun -N2 true
ls $fx/\${nodes[1]}/state/jobconfig/ >$fx/jobconfig.during
SH
j=$(sbatch --parsable -o /dev/null job.sh)
wait_state "$j" COMPLETED
mapfile -t nodes < <(scontrol show hostnames "$(job_field "$j" NodeList)")
n0=${nodes[0]} n1=${nodes[1]}
for _ in $(seq 1 100); do
	[[ -f $fx/records/$j/$n0.json && -f $fx/records/$j/$n1.json ]] && break
	sleep 0.1
done

rec0=$fx/records/$j/$n0.json rec1=$fx/records/$j/$n1.json
jqs() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
assert_eq "$n0 record: symbol_error delta" 7 "$(jqs "$rec0" 'd["ports"][0]["deltas"]["symbol_error"]')"
assert_eq "$n0 record: bytes sent (250 words x 4)" 1000 "$(jqs "$rec0" 'd["ports"][0]["bytes_sent"]')"
assert_eq "$n0 record: worst" WARN "$(jqs "$rec0" 'd["worst"]')"
assert_eq "$n0 record: baseline" ok "$(jqs "$rec0" 'd["baseline"]')"
assert_eq "$n0 record: supernode" "$(jqs "$rec0" 'd["supernode"]')" "$(job_field "$j" NodeList | sed 's/sna.*/sn01/; s/snb.*/sn02/')"
assert_eq "$n1 record: symbol_error delta" 5000 "$(jqs "$rec1" 'd["ports"][0]["deltas"]["symbol_error"]')"
assert_eq "$n1 record: worst" CRIT "$(jqs "$rec1" 'd["worst"]')"
reason=$(sinfo -h -n "$n1" -o '%E')
# A job under an hour: its count is judged over one hour (issue 12).
secs=$(jqs "$rec1" 'd["end"] - d["start"]')
assert_eq "$n1 drained with our reason" "supernode: EPILOG_SYMBOL_ERROR mlx5_0/1 +5000 in $secs s = 5000/h (crit 1000/h)" "$reason"
assert_eq "$n1 record: drain_outcome" drained "$(jqs "$rec1" 'd["drain_outcome"]')"
assert_eq "$n0 not drained" idle "$(sinfo -h -n "$n0" -o '%t' | tr -d '*')"
assert_contains "Prometheus textfile of $n1" 'supernode_port_symbol_error_total{device="mlx5_0",port="1"} 5100' "$(cat "$fx/prom/$n1/supernode.prom")"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$fx/prom/$n1/supernode.prom" 2>&1) && rc=0 || rc=$?
	assert_eq "promtool check metrics on $n1's textfile (exit; output: $out)" 0 "$rc"
fi
assert_eq "baseline removed after the epilog" "" "$(ls "$fx/$n1/state/baseline/")"
assert_eq "the job's config of $n1 there while the job ran" "$j.$n1" "$(cat "$fx/jobconfig.during")"
for n in "$n0" "$n1"; do
	assert_eq "the job's config and node cache of $n removed after the epilog" "" \
		"$(ls "$fx/$n/state/jobconfig/" "$fx/$n/state/taskenv/" | grep "^$j\.")"
done

# supernodectl report: both nodes, the CRIT one first.
out=$("$CTL" report "$j")
assert_contains "report header" "job $j" "$out"
assert_eq "report: first row is the CRIT node" "$n1" "$(sed -n 3p <<<"$out" | awk '{print $1}')"
assert_eq "report: second row" "$n0" "$(sed -n 4p <<<"$out" | awk '{print $1}')"
out=$("$CTL" report --node "$n1" --last 5)
assert_contains "report --node $n1 --last 5" "$j" "$out"

# health: the ports pass, but a counter's rate over a past job is no check
# health can run again, so the epilog's drain waits for a person (issue 17
# item 9); an admin's is never lifted either.
SLURMD_NODENAME=$n1 "$CTL" health >/dev/null 2>&1 || true
assert_eq "$n1 left drained by supernodectl health" "$reason" "$(sinfo -h -n "$n1" -o '%E')"
scontrol update nodename="$n1" state=resume
scontrol update nodename="$n0" state=drain reason="bad dimm, ticket 4711"
SLURMD_NODENAME=$n0 "$CTL" health >/dev/null 2>&1 || true
assert_eq "admin-drained $n0 keeps its reason" "bad dimm, ticket 4711" "$(sinfo -h -n "$n0" -o '%E')"
scontrol update nodename="$n0" state=resume

# A job whose baseline is gone (as if the prolog had not run): the record
# says so, every delta is unknown, and nothing is drained although the
# counters jump past the crit threshold.
cat >nobase.sh <<SH
#!/bin/bash
#SBATCH --supernode=1
rm -f $fx/*/state/baseline/\$SLURM_JOB_ID.json
for n in \$(scontrol show hostnames "\$SLURM_JOB_NODELIST"); do
	echo 999999 >$fx/\$n/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error
done
SH
j2=$(sbatch --parsable -o /dev/null nobase.sh)
wait_state "$j2" COMPLETED
n=$(scontrol show hostnames "$(job_field "$j2" NodeList)" | head -n 1)
for _ in $(seq 1 100); do [[ -f $fx/records/$j2/$n.json ]] && break; sleep 0.1; done
rec=$fx/records/$j2/$n.json
assert_eq "no baseline: record says" missing "$(jqs "$rec" 'd["baseline"]')"
assert_eq "no baseline: symbol_error delta unknown" None "$(jqs "$rec" 'd["ports"][0]["deltas"]["symbol_error"]')"
assert_eq "no baseline: no drain" "" "$(drained_nodes)"

# Issue 9 item 7: a user plants record_dir/<next job id> as a link to a
# folder of theirs.  The epilog follows no link: nothing is written there,
# its log says why, it exits 0 (no "Epilog error" drain).  Job ids are
# sequential; links for the next three cover an id skipped.
mkdir "$fx/victim"
for k in 1 2 3; do ln -s "$fx/victim" "$fx/records/$((j2 + k))"; done
j3=$(sbatch --parsable -o /dev/null --supernode=1 --wrap true)
wait_state "$j3" COMPLETED
for _ in $(seq 1 100); do
	grep -q "job $j3: record not written" "$fx/epilog.log" 2>/dev/null && break
	sleep 0.1
done
assert_eq "planted link: nothing written through it" "" "$(ls -A "$fx/victim")"
assert_contains "planted link: the epilog says why" \
	"job $j3: record not written (the node is not drained for it): a symbolic link, not followed: $fx/records/$j3" \
	"$(cat "$fx/epilog.log")"
assert_eq "planted link: no drain" "" "$(drained_nodes)"
finish
