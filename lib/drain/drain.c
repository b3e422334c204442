/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "drain/sn_drain.h"

static int drains(const struct sn_result *r, int drain_unknown)
{
	return r->grade == SN_CRIT || (drain_unknown && r->grade == SN_UNKNOWN);
}

/* One byte of a reason as we store it (sn_reason_clean). */
static char reason_char(unsigned char c)
{
	if (c == '"')
		return '\'';
	if (c < 0x20 || c == 0x7f)
		return ' ';
	return c > 0x7f ? '?' : (char)c;
}

/* Does text, cleaned, start with the cleaned tag and then a space or end? */
static int starts_with_tag(const char *text, const char *tag, size_t tag_len)
{
	for (size_t i = 0; i < tag_len; i++)
		if (!text[i] || reason_char((unsigned char)text[i]) !=
					reason_char((unsigned char)tag[i]))
			return 0;
	return !text[tag_len] ||
	       reason_char((unsigned char)text[tag_len]) == ' ';
}

/* Append n cleaned bytes of s at *len (room was checked by the caller). */
static void put_clean(char *buf, size_t *len, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[(*len)++] = reason_char((unsigned char)s[i]);
	buf[*len] = '\0';
}

/*
 * TAG[ BODY][CUT]TAIL within limit bytes: BODY is cut (and CUT marks it)
 * before TAIL is dropped; the tag is never cut.
 */
static int reason_build(char *buf, size_t size, const char *tag,
			const char *text, const char *tail)
{
	size_t limit, tag_len, body_len, tail_len = strlen(tail), keep;
	size_t cut_len = strlen(SN_REASON_CUT), len = 0;
	const char *body;

	if (!size)
		return -1;
	buf[0] = '\0';
	if (!tag || !*tag)
		return -1;
	limit = size - 1 < SN_REASON_MAX ? size - 1 : SN_REASON_MAX;
	tag_len = strlen(tag);
	if (!text)
		text = "";
	body = text;
	if (starts_with_tag(text, tag, tag_len))
		body = text[tag_len] ? text + tag_len + 1 : text + tag_len;
	body_len = strlen(body);
	if (tag_len + 1 + cut_len > limit)
		return -1;
	keep = body_len;
	if (tag_len + (body_len ? 1 + body_len : 0) + tail_len > limit) {
		if (tag_len + 1 + cut_len + tail_len > limit)
			tail_len = 0; /* the count goes before the tag */
		keep = limit - tag_len - 1 - tail_len;
		if (keep < body_len)
			keep -= cut_len;
		else
			keep = body_len;
	}
	put_clean(buf, &len, tag, tag_len);
	if (body_len)
		put_clean(buf, &len, " ", 1);
	put_clean(buf, &len, body, keep);
	if (keep < body_len)
		put_clean(buf, &len, SN_REASON_CUT, cut_len);
	put_clean(buf, &len, tail, tail_len);
	return 0;
}

int sn_reason_clean(char *buf, size_t size, const char *tag, const char *text)
{
	return reason_build(buf, size, tag, text, "");
}

int sn_reason_compose(char *buf, size_t size, const char *tag,
		      const char *first, size_t n)
{
	char more[32] = "";

	if (n > 1)
		snprintf(more, sizeof(more), " (+%zu more)", n - 1);
	return reason_build(buf, size, tag, first, more);
}

size_t sn_drain_reason(const struct sn_results *r, const char *tag,
		       int drain_unknown, char *buf, size_t size)
{
	const struct sn_result *first = NULL;
	char line[SN_REASON_LINE_SIZE];
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < r->count; i++) {
		if (!drains(&r->items[i], drain_unknown))
			continue;
		if (!first)
			first = &r->items[i];
		n++;
	}
	if (!first || !size)
		return first ? n : 0;
	/* A longer line is cut here, to a length sn_reason_compose() cuts. */
	if (snprintf(line, sizeof(line), "%s %s %s %s%s%s", tag, first->code,
		     first->device, first->found,
		     first->expected[0] ? " expected " : "",
		     first->expected) < 0)
		line[0] = '\0';
	sn_reason_compose(buf, size, tag, line, n);
	return n;
}

int sn_reason_is_ours(const char *reason, const char *tag)
{
	size_t n = tag ? strlen(tag) : 0;

	/*
	 * "TAG CODE ...": the tag as we write it (cleaned), then a space;
	 * "snmp broken" is not "sn".
	 */
	if (!reason || !n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (reason[i] != reason_char((unsigned char)tag[i]))
			return 0;
	return reason[n] == ' ' || reason[n] == '\0';
}

int sn_reason_code(const char *reason, const char *tag, char *buf, size_t size)
{
	const char *code;
	size_t n;

	if (size)
		buf[0] = '\0';
	if (!size || !sn_reason_is_ours(reason, tag))
		return -1;
	code = reason + strlen(tag);
	code += strspn(code, " ");
	n = strcspn(code, " ");
	if (!n)
		return -1;
	snprintf(buf, size, "%.*s", (int)n, code);
	return 0;
}

/*
 * The codes of the prolog's checks (lib/checks: one family per check
 * group, and the runner's CHECK_TIMEOUT/CHECK_DIED, NO_MEMORY): conditions
 * that supernodectl health runs again, so it may lift their drains.  Not
 * here, so never lifted by health: the epilog's EPILOG_<COUNTER>, XID<n>,
 * SXID<n> (lib/records/record.c, format_reason: rates and events of a past
 * job that no static check can see again), the bench's BENCH_SLOW, and any
 * code we do not know.  GPU_RECOVERY_ACTION is both the prolog's and the
 * epilog's: NVML reports it again, and the prolog checks it.
 */
static const char *const health_families[] = {
	"ACCEL_", "CHECK_",  "FABRIC_",	   "GPU_",  "IB_",
	"IMEX_",  "NVLINK_", "NVML_",	   "PCIE_", "PORT_",
	"ROCE_",  "SOCKET_", "SUPERNODE_", "TOPO_",
};

int sn_reason_health_resumes(const char *reason, const char *tag)
{
	char code[64];

	if (sn_reason_code(reason, tag, code, sizeof(code)))
		return 0;
	if (!strcmp(code, "NO_MEMORY"))
		return 1;
	for (size_t i = 0;
	     i < sizeof(health_families) / sizeof(health_families[0]); i++) {
		size_t n = strlen(health_families[i]);

		if (!strncmp(code, health_families[i], n) && code[n])
			return 1;
	}
	return 0;
}

enum sn_drain_outcome sn_drain_after_mark(const char *before,
					  const char *reason, const char *tag)
{
	if (!reason || !*reason || (before && !strcmp(before, reason)))
		return SN_DRAIN_DONE;
	return sn_reason_is_ours(reason, tag) ? SN_DRAIN_OURS_ALREADY :
						SN_DRAIN_RACED;
}

enum sn_drain_outcome sn_node_state_decide(unsigned node_state,
					   const char *reason, const char *tag,
					   int want_drain)
{
	unsigned base = node_state & NODE_STATE_BASE;
	int drained = (node_state & NODE_STATE_DRAIN) != 0;
	int ours = sn_reason_is_ours(reason, tag);
	int other_hold = base == NODE_STATE_DOWN ||
			 (node_state & (NODE_STATE_FAIL | NODE_STATE_MAINT |
					NODE_STATE_REBOOT_REQUESTED |
					NODE_STATE_REBOOT_ISSUED));

	if (want_drain) {
		if (drained && ours)
			return SN_DRAIN_OURS_ALREADY;
		if (drained || other_hold)
			return SN_DRAIN_FOREIGN;
		return SN_DRAIN_DONE;
	}
	if (!drained || !ours || other_hold)
		return SN_RESUME_NOT_OURS;
	return sn_reason_health_resumes(reason, tag) ? SN_RESUME_DONE :
						       SN_RESUME_WAITS;
}

int sn_node_load(const char *node, unsigned *state, char *reason, size_t size,
		 struct sn_error *err)
{
	node_info_msg_t *msg = NULL;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) || !msg ||
	    msg->record_count < 1) {
		sn_error_set(err, "cannot read node %s from slurmctld: %s",
			     node, slurm_strerror(errno));
		if (msg)
			slurm_free_node_info_msg(msg);
		return -1;
	}
	*state = msg->node_array[0].node_state;
	snprintf(reason, size, "%s",
		 msg->node_array[0].reason ? msg->node_array[0].reason : "");
	slurm_free_node_info_msg(msg);
	return 0;
}

static int node_update(const char *node, uint32_t state, const char *reason,
		       struct sn_error *err)
{
	update_node_msg_t msg;

	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *)node;
	msg.node_state = state;
	msg.reason = (char *)reason; /* reason_uid: not set (see reference) */
	if (slurm_update_node(&msg)) {
		sn_error_set(err, "cannot update node %s: %s", node,
			     slurm_strerror(errno));
		return -1;
	}
	return 0;
}

enum sn_drain_outcome sn_node_drain(const char *node, const char *reason,
				    const char *tag, char *current, size_t size,
				    struct sn_error *err)
{
	char clean[SN_REASON_MAX + 1], before[SN_REASON_READ_SIZE];
	unsigned state;
	enum sn_drain_outcome o;

	/* Whoever composed it, slurmctld gets it tagged, clean and bounded. */
	if (sn_reason_clean(clean, sizeof(clean), tag, reason)) {
		sn_error_set(
			err,
			"cannot drain %s: the drain tag '%s' is empty or too long",
			node, tag ? tag : "");
		return SN_DRAIN_ERROR;
	}
	if (sn_node_load(node, &state, current, size, err))
		return SN_DRAIN_ERROR;
	o = sn_node_state_decide(state, current, tag, 1);
	if (o != SN_DRAIN_DONE)
		return o;
	snprintf(before, sizeof(before), "%s", current);
	/* DRAIN alone: a reason set since our read stays (see the header). */
	if (node_update(node, NODE_STATE_DRAIN, NULL, err) ||
	    sn_node_load(node, &state, current, size, err))
		return SN_DRAIN_ERROR;
	o = sn_drain_after_mark(before, current, tag);
	if (o != SN_DRAIN_DONE)
		return o;
	if (node_update(node, NODE_STATE_DRAIN, clean, err) ||
	    sn_node_load(node, &state, current, size, err))
		return SN_DRAIN_ERROR;
	/* Drained again by someone right after us: theirs is what stands. */
	return sn_reason_is_ours(current, tag) ? SN_DRAIN_DONE : SN_DRAIN_RACED;
}

enum sn_drain_outcome sn_node_resume(const char *node, const char *tag,
				     struct sn_error *err)
{
	char current[SN_REASON_READ_SIZE];
	unsigned state;
	enum sn_drain_outcome o;

	if (sn_node_load(node, &state, current, sizeof(current), err))
		return SN_DRAIN_ERROR;
	o = sn_node_state_decide(state, current, tag, 0);
	if (o != SN_RESUME_DONE)
		return o;
	if (node_update(node, NODE_RESUME, NULL, err))
		return SN_DRAIN_ERROR;
	return SN_RESUME_DONE;
}

const char *sn_drain_outcome_name(enum sn_drain_outcome o)
{
	switch (o) {
	case SN_DRAIN_DONE:
		return "drained";
	case SN_DRAIN_OURS_ALREADY:
		return "already drained by us";
	case SN_DRAIN_FOREIGN:
		return "not drained: drained or down by someone else";
	case SN_RESUME_DONE:
		return "resumed";
	case SN_RESUME_NOT_OURS:
		return "not ours";
	case SN_DRAIN_RACED:
		return "not drained: drained by someone else at the same time";
	case SN_RESUME_WAITS:
		return "ours, but waits for a person";
	default:
		return "not drained: slurmctld did not take it";
	}
}
