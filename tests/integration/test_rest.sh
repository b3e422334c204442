#!/usr/bin/env bash
# --supernode through slurmrestd (Slurm >= 24.11; registered only when the
# build targets one).  The cluster runs slurmrestd as the unprivileged user
# daemon with rest_auth/local on a unix socket (cluster start --rest daemon);
# the client is that user.  A REST client asks for N whole supernodes with
# "spank_environment": ["SUPERNODE=N"] in the job description, which the data
# parser copies into job_desc->spank_job_env, where job_submit reads it:
#  - the OpenAPI of the running slurmrestd documents spank_environment;
#  - SUPERNODE=1 runs as daemon on one whole supernode (2 nodes, 4 CPUs, the
#    supernode features), exclusive by what the scheduler does;
#  - SUPERNODE=bogus and SUPERNODE=3 are refused: the REST reply carries only
#    Slurm's error (2014), our message reaches slurmrestd's log;
#  - "SPANK_SUPERNODE=1" (the prolog's name for it) is dropped: a plain job;
#  - another uid's connection is rejected by rest_auth/local (HTTP 401).
source "$(dirname "$0")/lib.sh"
[[ -x ${SN_SLURM_PREFIX:-}/sbin/slurmrestd ]] || { echo "SKIP: no slurmrestd under SN_SLURM_PREFIX"; exit 77; }
USER_RUN=(setpriv --reuid=daemon --regid=daemon --clear-groups)
cluster_up "it-rest-$$" --rest daemon
SOCK=${SUPERNODE_CLUSTER_REST:?cluster env gave no SUPERNODE_CLUSTER_REST}
RLOG=$SUPERNODE_CLUSTER_DIR/log/slurmrestd.log
mkdir "$WORK/out"
chown daemon: "$WORK/out"
chmod 0755 "$WORK"

# rest METHOD PATH [JSON]: the reply body (as user daemon).
rest() {
	"${USER_RUN[@]}" curl -sS --max-time 30 --unix-socket "$SOCK" \
		-H 'Content-Type: application/json' -X "$1" ${3:+--data "$3"} "http://localhost$2"
}

# submit SPANK_ENV_ENTRY: the reply of POST job/submit for a 'sleep 20' job.
submit() {
	rest POST "$API/job/submit" "$(jq -n --arg dir "$WORK/out" --arg spank "$1" '{
		script: "#!/bin/sh\nsleep 20\n",
		job: {name: "rest", current_working_directory: $dir,
		      environment: ["PATH=/bin:/usr/bin"], spank_environment: [$spank]}}')"
}

openapi=$(rest GET /openapi/v3)
API=$(jq -r '.paths | keys[]' <<<"$openapi" | sed -n 's|^\(/slurm/v0\.0\.[0-9]*\)/job/submit$|\1|p' | sort -V | tail -n 1)
echo "# API $API"
ver=${API##*/}
assert_eq "OpenAPI: ${ver}_job_desc_msg.spank_environment" \
	"Environment variables for job prolog/epilog scripts as set by SPANK plugins" \
	"$(jq -r --arg s "${ver}_job_desc_msg" '.components.schemas[$s].properties.spank_environment.description' <<<"$openapi")"

r=$(submit SUPERNODE=1)
j1=$(jq -r .job_id <<<"$r")
assert_eq "SUPERNODE=1: errors" "[]" "$(jq -c .errors <<<"$r")"
wait_state "$j1" RUNNING
n1=$(job_field "$j1" NodeList)
assert_eq "SUPERNODE=1: user" "daemon(1)" "$(job_field "$j1" UserId)"
assert_eq "SUPERNODE=1: node count" 2 "$(job_field "$j1" NumNodes)"
assert_eq "SUPERNODE=1: CPUs (both nodes whole)" 4 "$(job_field "$j1" NumCPUs)"
assert_eq "SUPERNODE=1: features" "[sn01|sn02]" "$(job_field "$j1" Features)"
case $n1 in
'sna[1-2]' | 'snb[1-2]') pass "SUPERNODE=1: nodes $n1 are one whole supernode" ;;
*) fail "SUPERNODE=1: nodes $n1 are not one whole supernode" ;;
esac
# Exclusive by what the scheduler does: a 1-CPU job on a node of job 1 waits.
jx=$(sbatch --parsable -N1 -n1 -w "$(scontrol show hostnames "$n1" | head -n1)" -o /dev/null --wrap true)
assert_eq "1-CPU job on a node of the REST job" "PENDING Resources" "$(pending_verdict "$jx")"
scancel "$jx" "$j1"

for v in bogus 3; do
	r=$(submit "SUPERNODE=$v")
	assert_eq "SUPERNODE=$v: job_id" null "$(jq -r .job_id <<<"$r")"
	assert_eq "SUPERNODE=$v: REST errors" \
		'[{"description":"Batch job submission failed","error_number":2014,"error":"Requested node configuration is not available"}]' \
		"$(jq -c '[.errors[] | {description, error_number, error}]' <<<"$r")"
done
assert_contains "slurmrestd log" "error: supernode: --supernode=bogus is not a whole number (allowed: 1 to 2)" "$(<"$RLOG")"
assert_contains "slurmrestd log" "error: supernode: --supernode=3 is out of range (allowed: 1 to 2)" "$(<"$RLOG")"

r=$(submit SPANK_SUPERNODE=1)
j2=$(jq -r .job_id <<<"$r")
assert_eq "SPANK_SUPERNODE=1: errors" "[]" "$(jq -c .errors <<<"$r")"
assert_eq "SPANK_SUPERNODE=1: node count (a plain job)" 1 "$(job_field "$j2" NumNodes)"
assert_eq "SPANK_SUPERNODE=1: features" "(null)" "$(job_field "$j2" Features)"
assert_contains "slurmctld log" "job_submit/supernode: uid 1: dropped the job's own SPANK environment entry 'SPANK_SUPERNODE=1'" \
	"$(<"$SUPERNODE_CLUSTER_DIR/log/slurmctld.log")"
scancel "$j2"

code=$(setpriv --reuid=bin --regid=bin --clear-groups curl -s -o /dev/null -w '%{http_code}' \
	--max-time 10 --unix-socket "$SOCK" "http://localhost$API/jobs" || true)
assert_eq "user bin's connection: HTTP status" 401 "$code"
assert_contains "slurmrestd log" "rejecting socket connection with uid:2 gid:2" "$(<"$RLOG")"
finish
