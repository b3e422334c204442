#!/usr/bin/env bash
# A busy cluster, measured (issue 20 item 3): one local cluster of 64
# supernodes of 4 nodes (256 `slurmd -N`), block method on Slurm >= 24.05,
# feature method (64 supernodes: exactly its 64 alternatives) before.
#   1. Submission: SUBMITS held submissions (--supernode=1, --supernode=2 on
#      block, plain), in four phases with and without JobSubmitPlugins
#      (on, off, off, on: slurmctld restarted between them, the slurmds
#      stay), 4 clients at once; slurmctld's own time per submission is
#      sdiag's ave_time of REQUEST_SUBMIT_BATCH_JOB; with the plugin against
#      without it.  Per phase also slurmctld's VmHWM (reset through
#      clear_refs) and utime+stime (/proc).
#   2. Placement: JOBS jobs (sleeps), time from submission to running of
#      the first 64; every running-jobs sample (squeue, about 1 s apart)
#      must show each --supernode job on whole supernodes and no other job
#      on them (100 %, busy_check.awk).
#   3. Faults under load, once the cluster is full: slurmd and its steps
#      killed (SIGKILL: a node that dies) on FAULTS nodes of running
#      --supernode jobs, FAULTS other nodes made
#      to fail the prolog (their fake IB port goes DOWN: the next job's
#      prolog drains them).  Every job ends COMPLETED, requeued at most
#      MAX_REQUEUES times (Restarts=), the killed nodes down, the others
#      drained with our reason, every --supernode job's epilog records
#      readable (supernodectl report).
#   --short (the ctest integration.busy): 8 supernodes, 50 jobs, 2 + 2
#   faults, no submission phases and no timing asserts.
#
#   tests/bench/busy_cluster.sh [--build DIR] [--slurm PREFIX] [--short]
#       [--supernodes K] [--size S] [--jobs N] [--submits N] [--faults F]
#       [--max-requeues N]                                       (as root)
# --max-requeues N: the cap asserted on Restarts= (default 5, Slurm's
# MaxBatchRequeue default); given, it is also written as
# placement.max_requeues into supernode.yaml (issue 20 item 1).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$SRC/build SLURM='' SHORT='' K='' S=4 JOBS='' SUBMITS='' FAULTS='' CAP=5 CAP_SET=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--slurm) SLURM=$2; shift 2 ;;
	--short) SHORT=1; shift ;;
	--supernodes) K=$2; shift 2 ;;
	--size) S=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--submits) SUBMITS=$2; shift 2 ;;
	--faults) FAULTS=$2; shift 2 ;;
	--max-requeues) CAP=$2; CAP_SET=1; shift 2 ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
if [[ -n $SHORT ]]; then
	K=${K:-8} JOBS=${JOBS:-50} SUBMITS=${SUBMITS:-0} FAULTS=${FAULTS:-2}
else
	K=${K:-64} JOBS=${JOBS:-200} SUBMITS=${SUBMITS:-1000} FAULTS=${FAULTS:-4}
fi
BUILD=$(cd "$BUILD" && pwd)
TOOL=$SRC/contrib/local-cluster/cluster
PROLOG=$BUILD/prolog/supernode-prolog
EPILOG=$BUILD/epilog/supernode-epilog
CTL=$BUILD/contrib/supernodectl/supernodectl
for p in "$PROLOG" "$EPILOG" "$CTL"; do
	[[ -x $p ]] || { echo "SKIP: $p not built"; exit 77; }
done
[[ $(id -u) == 0 ]] || { echo "SKIP: needs root (slurmd runs jobs)"; exit 77; }
SLURM_OPT=()
if [[ -n $SLURM ]]; then
	SLURM_OPT=(--slurm "$SLURM")
	PATH=$SLURM/bin:$SLURM/sbin:$PATH
fi
source "$SRC/contrib/local-cluster/fake-sysfs.sh"

# The method by release: block from 24.05 (topology/block), feature before.
ver=$(slurmctld -V | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if (($(awk '{ print $1 * 100 + $2 }' <<<"$ver") >= 2405)); then
	METHOD=block TOPO=block MAXSN=2
else
	METHOD=feature TOPO=none MAXSN=1
	((K <= 64)) || { echo "the feature method holds at most 64 supernodes" >&2; exit 2; }
fi

name=busy-$$
root=${SUPERNODE_CLUSTER_ROOT:-/tmp/supernode-clusters}
fx=$(mktemp -d)
chmod 0755 "$fx"
FAILS=0 CHECKS=0
pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL - $*"; }
now() { date +%s%3N; }
cleanup() {
	local rc=$?
	if ((rc != 0)) && [[ -n ${SUPERNODE_CLUSTER_DIR:-} ]]; then
		tail -n 20 "$SUPERNODE_CLUSTER_DIR/log/slurmctld.log" || true
	fi
	"$TOOL" stop "$name" --root "$root" >/dev/null 2>&1 || true
	rm -rf "$fx"
	return "$rc"
}
trap cleanup EXIT

# The local cluster's node names (contrib/local-cluster/cluster).
L=abcdefghijklmnopqrstuvwxyz
prefix() {
	if (($1 <= 26)); then echo "sn${L:$1-1:1}"; else
		local k=$(($1 - 27))
		echo "sn${L:k/26:1}${L:k%26:1}"
	fi
}
nodes=()
for ((i = 1; i <= K; i++)); do
	for ((j = 1; j <= S; j++)); do nodes+=("$(prefix "$i")$j"); done
done
for n in "${nodes[@]}"; do
	ib_port "$fx/$n/sys" mlx5_0 1 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)"
done
: >"$fx/kmsg"
{
	echo "supernodes:"
	for ((i = 1; i <= K; i++)); do
		printf '  - name: sn%02d\n    nodes: %s[1-%d]\n' "$i" "$(prefix "$i")" "$S"
	done
	echo "placement:"
	echo "  method: $METHOD"
	echo "  max_supernodes: $MAXSN"
	if [[ -n $CAP_SET ]]; then echo "  max_requeues: $CAP"; fi
	cat <<-YAML
		node:
		  ports:
		    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
		prolog:
		  timeout: 30
		  check_timeout: 20
		epilog:
		  record_dir: $fx/records
		paths:
		  sysfs: $fx/%n/sys
		  state_dir: $fx/%n/state
		  kmsg: $fx/kmsg
	YAML
} >"$fx/supernode.yaml"
printf '#!/bin/sh\nexec %s --config %s 2>>%s\n' "$PROLOG" "$root/$name/etc/supernode.yaml" \
	"$fx/prolog-slurmctld.log" >"$fx/prolog-slurmctld"
printf '#!/bin/sh\nexec %s "$@" 2>>%s\n' "$EPILOG" "$fx/epilog.log" >"$fx/epilog"
chmod 0755 "$fx/prolog-slurmctld" "$fx/epilog"
# SlurmdTimeout: how soon a killed slurmd's node goes down (and its job is
# requeued); 30 s (the tool's) for 256 slurmds on a loaded machine.
cat >"$fx/extra.conf" <<CONF
Prolog=$PROLOG
Epilog=$fx/epilog
PrologSlurmctld=$fx/prolog-slurmctld
PrologFlags=Alloc
PrologEpilogTimeout=60
AuthInfo=socket=$root/$name/run/munge.socket,cred_expire=5
SlurmdTimeout=$([[ -n $SHORT ]] && echo 10 || echo 30)
MinJobAge=3600
CONF
t0=$(now)
"$TOOL" start "$name" --root "$root" --build "$BUILD" "${SLURM_OPT[@]}" --supernodes "$K" \
	--size "$S" --topology "$TOPO" --config "$fx/supernode.yaml" --extra "$fx/extra.conf" >/dev/null
eval "$("$TOOL" env "$name" --root "$root")"
T_START=$(($(now) - t0))
DIR=$SUPERNODE_CLUSTER_DIR
echo "# $(slurmctld -V), method $METHOD, $K supernodes of $S nodes, up in $((T_START / 1000)) s"

ctld_pid() { cat "$DIR/run/slurmctld.pid"; }
ctld_ticks() { awk '{ print $14 + $15 }' "/proc/$(ctld_pid)/stat"; }
ctld_hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$(ctld_pid)/status"; }

# restart_ctld on|off: slurmctld again, with or without JobSubmitPlugins
# (its state and the slurmds stay).
restart_ctld() {
	local pid i
	sed -i '/^JobSubmitPlugins=/d' "$SLURM_CONF"
	[[ $1 == on ]] && echo JobSubmitPlugins=supernode >>"$SLURM_CONF"
	pid=$(ctld_pid)
	kill -TERM "$pid"
	for ((i = 0; i < 300; i++)); do
		[[ -e /proc/$pid ]] || break
		sleep 0.1
	done
	(cd "$DIR" && env SLURM_CONF="$SLURM_CONF" slurmctld -f "$SLURM_CONF" \
		</dev/null >>"$DIR/log/slurmctld.stderr" 2>&1 8>&- 9>&-)
	for ((i = 0; i < 300; i++)); do
		scontrol ping 2>/dev/null | grep -q UP && sinfo -h >/dev/null 2>&1 && break
		sleep 0.2
	done
	local want=supernode
	[[ $1 == on ]] || want='(null)'
	[[ $(scontrol show config | sed -n 's/^JobSubmitPlugins *= *//p') == "$want" ]] ||
		{ echo "slurmctld did not come back with JobSubmitPlugins=$want" >&2; exit 1; }
}

# kind I: the I-th job's kind: sn1, sn2 (block only), plain.
kind() {
	case $(($1 % 5)) in
	0 | 3) echo sn1 ;;
	1) [[ $METHOD == block ]] && echo sn2 || echo sn1 ;;
	*) echo plain ;;
	esac
}
args_of() {
	case $1 in
	sn1) echo --supernode=1 ;;
	sn2) echo --supernode=2 ;;
	*) echo -n1 ;;
	esac
}

# ---- 1. submission: with and without the plugin, on off off on ----
declare -A sub_n=() sub_us=() sub_hwm=() sub_cpu=() sub_wall=()
if ((SUBMITS > 0)); then
	for phase in on off off on; do
		restart_ctld "$phase"
		sdiag -r >/dev/null
		echo 5 >"/proc/$(ctld_pid)/clear_refs"
		c0=$(ctld_ticks) w0=$(now)
		for ((c = 0; c < 4; c++)); do
			for ((i = c; i < SUBMITS / 2; i += 4)); do
				k=$(kind "$i")
				# shellcheck disable=SC2046 # one option
				sbatch --hold -J "$k" -o /dev/null $(args_of "$k") --wrap true >/dev/null ||
					echo "# submission $i ($phase): sbatch failed" >&2
			done &
		done
		wait
		w=$(($(now) - w0)) c1=$(ctld_ticks)
		line=$(sdiag | grep 'REQUEST_SUBMIT_BATCH_JOB ')
		n=$(sed -n 's/.*count:\([0-9]*\).*/\1/p' <<<"$line")
		us=$(sed -n 's/.*total_time:\([0-9]*\).*/\1/p' <<<"$line")
		sub_n[$phase]=$((${sub_n[$phase]:-0} + n))
		sub_us[$phase]=$((${sub_us[$phase]:-0} + us))
		sub_hwm[$phase]=$((${sub_hwm[$phase]:-0} + $(ctld_hwm)))
		sub_cpu[$phase]=$((${sub_cpu[$phase]:-0} + (c1 - c0) * 10))
		sub_wall[$phase]=$((${sub_wall[$phase]:-0} + w))
		echo "# submission phase $phase: $n RPCs, total_time $us us, VmHWM $(ctld_hwm) kB, CPU $(((c1 - c0) * 10)) ms, wall $w ms"
		scancel -u root
		for ((i = 0; i < 100; i++)); do
			[[ -z $(squeue -h -t PD,R,CG -o %i) ]] && break
			sleep 0.2
		done
	done
fi

# ---- 2. placement and 3. faults ----
declare -A sub_ms=() first_run=() dur=()
ids=()
cpu0=$(ctld_ticks)
# The submitter, in the background: "JOBID MS" per job as sbatch returns.
: >"$fx/submitted"
(
	for ((i = 0; i < JOBS; i++)); do
		k=$(kind "$i")
		if [[ -z $SHORT ]]; then d=$((20 + i % 5 * 10)); elif [[ $k == plain ]]; then
			d=$((1 + i % 3))
		else d=$((4 + i % 5)); fi
		# shellcheck disable=SC2046 # one option
		id=$(sbatch --parsable ${SHORT:+--hold} -J "$k" -o /dev/null $(args_of "$k") --wrap "sleep $d") ||
			{ echo "# job $i: sbatch failed" >&2; continue; }
		echo "$id $(now) $d" >>"$fx/submitted"
	done
	# --short: submitted held, released at once, so that the cluster is
	# full even where sbatch is slower than the jobs are short (26.05 on a
	# loaded machine ran at most 4 of them at a time).
	if [[ -n $SHORT ]]; then scontrol release "$(cut -d' ' -f1 "$fx/submitted" | paste -sd,)"; fi
	touch "$fx/submitted.done"
) &
submitter=$!
# read_submitted: the jobs submitted so far into ids and sub_ms.
read_submitted() {
	local id ms d
	while read -r id ms d; do
		[[ -n ${sub_ms[$id]:-} ]] && continue
		sub_ms[$id]=$ms dur[$id]=$d
		ids+=("$id")
	done <"$fx/submitted"
}
# crash NODE: SIGKILL to its slurmd and slurmstepds (they keep the node's
# slurmd log open), as a node that dies: its job is requeued once
# slurmctld marks the node down (SlurmdTimeout).
crash() {
	local pids
	pids=$(find /proc/[0-9]*/fd -lname "$DIR/log/slurmd-$1.log" 2>/dev/null | cut -d/ -f3 | sort -u) || true # find: some vanish
	[[ -n $pids ]] || { echo "# crash $1: no process found" >&2; return 0; }
	# shellcheck disable=SC2086 # one word per pid; some may be gone
	kill -KILL $pids 2>/dev/null || true
}
samples=0 viol=0 sn_seen=0 fault_ms='' kill_nodes=() kill_jobs=() drain_nodes=() max_running=0
if [[ -n $SHORT ]]; then deadline=$(($(now) + 150000)); else deadline=$(($(now) + 1500000)); fi
while (($(now) < deadline)); do
	read_submitted
	out=$(squeue -h -t R -o '%i %j %N' 2>/dev/null) || { sleep 1; continue; }
	t=$(now)
	running=0
	while read -r id _; do
		[[ -n $id ]] || continue
		running=$((running + 1))
		[[ -n ${first_run[$id]:-} ]] || first_run[$id]=$t
	done <<<"$out"
	((running > max_running)) && max_running=$running
	if [[ -n $out ]]; then
		res=$(awk -v size="$S" -f "$SRC/tests/bench/busy_check.awk" <<<"$out")
		grep VIOLATION <<<"$res" || true
		read -r _ _ snj bad <<<"$(tail -n 1 <<<"$res")"
		samples=$((samples + 1)) viol=$((viol + bad)) sn_seen=$((sn_seen + snj))
	fi
	# Faults, once the cluster is full (or a minute on): FAULTS slurmds
	# killed, FAULTS nodes of other supernodes made to fail the prolog.
	if [[ -z $fault_ms ]] && ((${#ids[@]})) && { ((running >= (K < 64 ? K : 64))) ||
		(($(now) - ${sub_ms[${ids[0]}]} > (SHORT ? 30000 : 60000))); }; then
		# The --supernode jobs furthest from their end first: a dead
		# node's job must not finish (at least 2 s left) before the crash.
		mapfile -t snrun < <(while read -r id nm list; do
			[[ $nm == sn* ]] && echo "$((first_run[$id] + dur[$id] * 1000 - t)) $id $list"
		done <<<"$out" | sort -rn)
		if ((${#snrun[@]} >= 2 * FAULTS)) && ((${snrun[FAULTS - 1]%% *} >= 2000)); then
			fault_ms=$(now)
			for ((f = 0; f < 2 * FAULTS; f++)); do
				read -r _ id list <<<"${snrun[f]}"
				mapfile -t hn < <(scontrol show hostnames "$list")
				if ((f < FAULTS)); then
					kill_nodes+=("${hn[0]}")
					kill_jobs+=("$id")
					crash "${hn[0]}"
				else
					drain_nodes+=("${hn[-1]}")
					ib_port "$fx/${hn[-1]}/sys" mlx5_0 1 "1: DOWN" "3: Disabled" "400 Gb/sec (4X NDR)"
				fi
			done
			echo "# faults at $(((fault_ms - t0) / 1000)) s, $running jobs running: slurmd killed on ${kill_nodes[*]}, prolog to fail on ${drain_nodes[*]}"
		fi
	fi
	[[ -e $fx/submitted.done && -z $(squeue -h -o %i 2>/dev/null) ]] && break
	sleep 1
done
wait "$submitter" || true
read_submitted
cpu1=$(ctld_ticks)
T_RUN=$(($(now) - t0))
echo "# placement and faults done at $((T_RUN / 1000)) s"

# ---- asserts ----
if ((viol == 0 && samples > 0)); then
	pass "$samples samples of running jobs, $sn_seen --supernode job sightings: 100 % on whole supernodes, none shared"
else
	fail "$samples samples: $viol violations in $sn_seen --supernode job sightings"
fi
[[ -n $fault_ms ]] && pass "faults injected with $max_running jobs running at most" ||
	fail "faults never injected (at most $max_running jobs ran)"
declare -A st=() rs=() nm=() stt=() nl=()
# One line per job: id state restarts name start-epoch nodes.
while read -r id a b c d e; do
	st[$id]=$a rs[$id]=$b nm[$id]=$c stt[$id]=$d nl[$id]=$e
done < <(scontrol -o show job | awk '{
	delete f
	for (i = 1; i <= NF; i++) if (split($i, kv, "=") >= 2) f[kv[1]] = substr($i, length(kv[1]) + 2)
	t = f["StartTime"]; gsub(/[-T:]/, " ", t)
	print f["JobId"], f["JobState"], f["Restarts"], f["JobName"], mktime(t), f["NodeList"]
}')
notdone=() overcap=() affected=() back=()
for id in "${ids[@]}"; do
	[[ ${st[$id]:-} == COMPLETED ]] || notdone+=("$id:${st[$id]:-gone}")
	((${rs[$id]:-0} <= CAP)) || overcap+=("$id:${rs[$id]}")
	if ((${rs[$id]:-0} > 0)); then
		affected+=("$id")
		# seconds from the faults to its last start
		back+=($((stt[$id] - fault_ms / 1000)))
		echo "# job $id (${nm[$id]}): requeued ${rs[$id]} times, last start $((stt[$id] - fault_ms / 1000)) s after the faults, on ${nl[$id]}"
	fi
done
((${#notdone[@]} == 0)) && pass "all $JOBS jobs COMPLETED" ||
	fail "jobs not COMPLETED: ${notdone[*]}"
((${#overcap[@]} == 0)) && pass "every job requeued at most $CAP times (max_requeues)" ||
	fail "jobs requeued more than $CAP times: ${overcap[*]}"
# Each dead node's job, and at least one job per prolog-drained node.
((${#affected[@]} >= 2 * FAULTS)) && pass "${#affected[@]} jobs requeued by the faults, all back and done" ||
	fail "only ${#affected[@]} jobs requeued, expected at least $((2 * FAULTS))"
for id in "${kill_jobs[@]}"; do
	((${rs[$id]:-0} >= 1)) && pass "job $id on a dead node: requeued (${rs[$id]}), then ${st[$id]} on ${nl[$id]}" ||
		fail "job $id on a dead node: Restarts=${rs[$id]:-?}, ${st[$id]:-gone}"
done
# The bound (full run only): a dead node is seen after SlurmdTimeout (30 s),
# a requeued job waits at most for the longest job (60 s) to free a whole
# supernode; 90 s more for a loaded machine.
if [[ -z $SHORT ]] && ((${#back[@]})); then
	worst=$(printf '%s\n' "${back[@]}" | sort -n | tail -n 1)
	((worst <= 180)) && pass "every requeued job ran again within $worst s of the faults (bound 180 s)" ||
		fail "a requeued job ran again only $worst s after the faults (bound 180 s)"
fi
for n in "${kill_nodes[@]}"; do
	s=$(sinfo -h -n "$n" -o %t)
	[[ $s == down* ]] && pass "$n (slurmd killed): $s" || fail "$n (slurmd killed): $s, expected down"
done
for n in "${drain_nodes[@]}"; do
	r=$(sinfo -h -n "$n" -o %E)
	[[ $r == "supernode: IB_PORT_DOWN mlx5_0/1 state=DOWN expected ACTIVE"* ]] &&
		pass "$n drained by the prolog: $r" || fail "$n not drained by the prolog: '$r' ($(sinfo -h -n "$n" -o %t))"
done
nrec=0 badrec=()
for id in "${ids[@]}"; do
	[[ ${nm[$id]:-} == sn* && ${st[$id]:-} == COMPLETED ]] || continue
	nrec=$((nrec + 1))
	"$CTL" report "$id" >/dev/null 2>"$fx/report.err" || badrec+=("$id: $(head -c 200 "$fx/report.err")")
done
((${#badrec[@]} == 0 && nrec > 0)) && pass "supernodectl report reads the records of all $nrec --supernode jobs" ||
	fail "records unreadable (of $nrec): ${badrec[*]}"

echo "# asserts done at $((($(now) - t0) / 1000)) s"

# ---- figures ----
pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int((NR - 1) * p + 0.5) + 1; print a[i] + 0 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
echo
echo "| figure | value | baseline | ratio |"
echo "|---|---|---|---|"
echo "| cluster start, $((K * S)) slurmd | $((T_START / 1000)) s | | |"
if ((SUBMITS > 0)); then
	on_us=$(awk -v t="${sub_us[on]}" -v n="${sub_n[on]}" 'BEGIN { printf "%.0f", t / n }')
	off_us=$(awk -v t="${sub_us[off]}" -v n="${sub_n[off]}" 'BEGIN { printf "%.0f", t / n }')
	echo "| slurmctld per submission (sdiag REQUEST_SUBMIT_BATCH_JOB, ${sub_n[on]} vs ${sub_n[off]}) | $on_us µs | $off_us µs without the plugin | $(ratio "$on_us" "$off_us") |"
	echo "| our job_submit per submission (difference) | $((on_us - off_us)) µs | | |"
	echo "| submissions' wall (4 clients) | ${sub_wall[on]} ms | ${sub_wall[off]} ms | $(ratio "${sub_wall[on]}" "${sub_wall[off]}") |"
	echo "| slurmctld CPU (utime+stime) per 1,000 submissions | $((sub_cpu[on] * 1000 / sub_n[on])) ms | $((sub_cpu[off] * 1000 / sub_n[off])) ms | $(ratio "${sub_cpu[on]}" "${sub_cpu[off]}") |"
	echo "| slurmctld VmHWM (mean of 2 phases) | $((sub_hwm[on] / 2)) kB | $((sub_hwm[off] / 2)) kB | $(ratio "${sub_hwm[on]}" "${sub_hwm[off]}") |"
fi
firsts=()
for id in "${ids[@]:0:64}"; do
	[[ -n ${first_run[$id]:-} ]] && firsts+=($(((first_run[$id] - sub_ms[$id]) / 100)))
done
if ((${#firsts[@]})); then
	echo "| submission to running, first ${#firsts[@]} jobs: median / p90 / max | $(printf '%s\n' "${firsts[@]}" | pct 0.5 | awk '{ print $1 / 10 }') / $(printf '%s\n' "${firsts[@]}" | pct 0.9 | awk '{ print $1 / 10 }') / $(printf '%s\n' "${firsts[@]}" | pct 1 | awk '{ print $1 / 10 }') s | | |"
fi
echo "| running samples whole and unshared | $((samples)) samples, $sn_seen sightings, $viol violations | | $( ((viol == 0)) && echo 100 % || echo FAIL) |"
echo "| jobs requeued by $FAULTS killed slurmd + $FAULTS prolog drains | ${#affected[@]} (restarts max $(printf '%s\n' 0 "${rs[@]}" | sort -n | tail -n 1), cap $CAP) | | |"
if ((${#back[@]})); then
	echo "| faults to requeued job running again: median / max | $(printf '%s\n' "${back[@]}" | pct 0.5) / $(printf '%s\n' "${back[@]}" | pct 1) s | | |"
fi
echo "| slurmctld CPU during placement + faults (with the plugin) | $(((cpu1 - cpu0) * 10)) ms | | |"
echo "| slurmctld VmHWM at the end | $(ctld_hwm) kB | | |"
echo "| whole run | $((T_RUN / 1000)) s | | |"
echo
echo "$CHECKS checks, $FAILS failed"
((FAILS == 0))
