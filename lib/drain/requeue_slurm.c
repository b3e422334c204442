/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Count a failed start in the job's AdminComment and hold the job at the
 * cap, in a bounded child (sn_requeue.h), as sn_drain_bounded talks to
 * slurmctld: libslurm may exit() or wait MessageTimeout, a prolog may not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "drain/sn_requeue.h"
#include "util/sn_child.h"
#include "util/sn_log.h"
#include "util/sn_slurm.h"

/* Slurm's MaxBatchRequeue, read from slurmctld; 0 where it has none. */
static uint32_t slurm_max_read(void)
{
	slurm_conf_t *conf = NULL;
	uint32_t m;

	if (!SN_SLURM_HAS_MAX_BATCH_REQUEUE)
		return 0;
	if (slurm_load_ctl_conf((time_t)0, &conf) || !conf)
		return 0;
	m = sn_slurm_max_batch_requeue(conf, 0);
	sn_slurm_free_ctl_conf(conf);
	return m;
}

static int comment_write(uint32_t job_id, char *text,
			 struct sn_requeue_report *rep)
{
	job_desc_msg_t desc;

	slurm_init_job_desc_msg(&desc);
	sn_slurm_job_desc_id_set(&desc, job_id);
	desc.admin_comment = text;
	if (slurm_update_job(&desc)) {
		snprintf(rep->why, sizeof(rep->why),
			 "cannot set job %u's AdminComment: %s", job_id,
			 slurm_strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Requeue the job, then hold it as an admin (JobHeldAdmin: an admin
 * releases it, scontrol release, once the nodes are looked at; each
 * release buys one more start).  Not slurm_requeue(JOB_REQUEUE_HOLD) nor
 * a user hold: measured on 22.05, their reason (job_requeued_in_held_state,
 * JobHeldUser) became JobHeldAdmin after the prolog's exit on some runs
 * and not on others; the admin hold stays (Reason=None may show for a
 * moment, until slurmctld's next scheduling pass sets JobHeldAdmin on
 * every pending job at priority 0).  Between the two calls the requeued
 * job waits cred_expire + 1 s (its BeginTime), so it cannot start in
 * between.
 */
static int job_hold(uint32_t job_id, struct sn_requeue_report *rep)
{
	job_desc_msg_t desc;

	/* Already pending: another node's prolog of this attempt did it. */
	if (sn_slurm_requeue(job_id, 0) && errno != ESLURM_JOB_PENDING) {
		snprintf(rep->why, sizeof(rep->why),
			 "cannot requeue job %u: %s", job_id,
			 slurm_strerror(errno));
		return -1;
	}
	slurm_init_job_desc_msg(&desc);
	sn_slurm_job_desc_id_set(&desc, job_id);
	desc.priority = 0;
	desc.alloc_sid = ALLOC_SID_ADMIN_HOLD;
	if (slurm_update_job(&desc)) {
		snprintf(rep->why, sizeof(rep->why),
			 "job %u requeued but not held: %s", job_id,
			 slurm_strerror(errno));
		return -1;
	}
	return 0;
}

/* Read, decide, write, hold: into rep. */
static void count_in_child(const struct sn_requeue_req *req,
			   struct sn_requeue_report *rep)
{
	char text[1024 + SN_REQUEUE_TEXT_MAX + 2];
	struct sn_requeue_count old;
	job_info_msg_t *msg = NULL;
	const char *comment, *seg;

	rep->ok = -1;
	if (sn_slurm_load_job(&msg, req->job_id, SHOW_ALL) || !msg ||
	    msg->record_count < 1) {
		snprintf(rep->why, sizeof(rep->why),
			 "cannot read job %u from slurmctld: %s", req->job_id,
			 slurm_strerror(errno));
		goto out;
	}
	comment = msg->job_array[0].admin_comment;
	rep->restart = msg->job_array[0].restart_cnt;
	rep->max = sn_requeue_effective(
		req->max,
		req->max == SN_REQUEUE_DEFAULT ? slurm_max_read() : 0);
	sn_requeue_parse(comment, req->tag, &old);
	sn_requeue_decide(&old, rep->restart, rep->max, &rep->d);
	if (rep->d.counted) {
		/* An admin's comment too long to keep whole is cut at 1 KiB. */
		if (sn_requeue_format(text, sizeof(text), comment, req->tag,
				      &rep->d, rep->max, rep->restart,
				      req->last))
			snprintf(text, sizeof(text), "%s", "");
		if (comment_write(req->job_id, text, rep))
			goto out;
	}
	seg = rep->d.counted ? text : comment;
	seg = seg ? strstr(seg, req->tag) : NULL;
	snprintf(rep->text, sizeof(rep->text), "%s", seg ? seg : "");
	if (rep->d.hold && job_hold(req->job_id, rep))
		goto out;
	rep->ok = 0;
out:
	if (msg)
		slurm_free_job_info_msg(msg);
}

static int requeue_child(void *arg, int fd)
{
	struct sn_requeue_report rep;
	ssize_t n;

	memset(&rep, 0, sizeof(rep));
	slurm_init(NULL);
	count_in_child(arg, &rep);
	n = write(fd, &rep, sizeof(rep));
	slurm_fini();
	return n == (ssize_t)sizeof(rep) ? 0 : 1;
}

int sn_requeue_count_bounded(const struct sn_requeue_req *req,
			     struct sn_requeue_report *rep)
{
	char *out = NULL;
	size_t len = 0;

	memset(rep, 0, sizeof(*rep));
	rep->ok = -1;
	rep->run = sn_run_in_child(requeue_child, (void *)req, req->budget_ms,
				   sizeof(*rep), &out, &len);
	if (rep->run == 0 && len == sizeof(*rep)) {
		memcpy(rep, out, sizeof(*rep));
		rep->text[sizeof(rep->text) - 1] = '\0';
		rep->why[sizeof(rep->why) - 1] = '\0';
		rep->run = 0;
	} else {
		if (rep->run == 0)
			rep->run = 1;
		snprintf(
			rep->why, sizeof(rep->why),
			rep->run == -1 ?
				"libslurm or slurmctld did not answer in time" :
				"the child did not answer (status %d)",
			rep->run);
	}
	free(out);
	return rep->ok;
}

int sn_requeue_logged(const struct sn_requeue_req *req)
{
	struct sn_requeue_report rep;

	if (sn_requeue_count_bounded(req, &rep)) {
		sn_log(LOG_ERR,
		       "job %u: failed start not counted against placement.max_requeues: %s",
		       req->job_id, rep.why);
		return -1;
	}
	sn_log(LOG_ERR, "job %u: %s%s", req->job_id, rep.text,
	       rep.d.hold ? ": job held (scontrol release once fixed)" :
			    ": requeued");
	return 0;
}
