/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The failed-start count in a job's AdminComment (sn_requeue.h): parse,
 * decide, format.  Pure; the Slurm calls are in requeue_slurm.c.
 */
#include <stdio.h>
#include <string.h>

#include "drain/sn_requeue.h"

#define SN_RQ_COUNTING " failed starts "
#define SN_RQ_HELD " held after "

/* Where our segment starts in comment, or NULL. */
static const char *segment_find(const char *comment, const char *tag)
{
	size_t tl = strlen(tag);
	const char *p = comment, *found = NULL;

	if (!tl)
		return NULL;
	while ((p = strstr(p, tag))) {
		if (!strncmp(p + tl, SN_RQ_COUNTING, strlen(SN_RQ_COUNTING)) ||
		    !strncmp(p + tl, SN_RQ_HELD, strlen(SN_RQ_HELD)))
			found = p;
		p += tl;
	}
	return found;
}

int sn_requeue_parse(const char *comment, const char *tag,
		     struct sn_requeue_count *out)
{
	const char *seg, *r;
	unsigned failed, restart;
	size_t tl;

	memset(out, 0, sizeof(*out));
	if (!comment || !tag || !(seg = segment_find(comment, tag)))
		return 0;
	tl = strlen(tag);
	if (sscanf(seg + tl, " failed starts %u", &failed) == 1) {
		out->held = false;
	} else if (sscanf(seg + tl, " held after %u", &failed) == 1) {
		out->held = true;
	} else {
		return 0;
	}
	r = strstr(seg, "(restart ");
	if (!r || sscanf(r, "(restart %u", &restart) != 1) {
		out->held = false;
		return 0;
	}
	out->failed = failed;
	out->restart = restart;
	return 1;
}

void sn_requeue_decide(const struct sn_requeue_count *old, uint32_t restart,
		       uint32_t max, struct sn_requeue_decision *d)
{
	if (!max)
		max = 1;
	if (old && old->failed && old->restart == restart) {
		d->failed = old->failed;
		d->counted = false;
	} else {
		d->failed = (old ? old->failed : 0) + 1;
		d->counted = true;
	}
	d->hold = d->failed >= max;
}

uint32_t sn_requeue_effective(uint32_t cfg_max, uint32_t slurm_max)
{
	uint32_t m = cfg_max;

	if (m == SN_REQUEUE_DEFAULT)
		m = slurm_max ? slurm_max : SN_REQUEUE_FALLBACK;
	return m ? m : 1;
}

/* Append text to buf (len so far, at most cap bytes), cleaned. */
static void put_clean(char *buf, size_t *len, size_t cap, const char *text)
{
	for (; *text && *len < cap; text++) {
		unsigned char c = (unsigned char)*text;

		buf[(*len)++] = c == '"'		? '\'' :
				(c < 0x20 || c == 0x7f) ? ' ' :
							  (char)c;
	}
	buf[*len] = '\0';
}

/* Our segment, at most SN_REQUEUE_TEXT_MAX bytes, into seg. */
static void segment_build(char *seg, const char *tag,
			  const struct sn_requeue_decision *d, uint32_t max,
			  uint32_t restart, const char *last)
{
	char head[160];
	size_t len = 0, tl = strlen(tag);

	if (!max)
		max = 1;
	if (d->hold)
		snprintf(
			head, sizeof(head),
			" held after %u failed starts, placement.max_requeues %u (restart %u); last: ",
			d->failed, max, restart);
	else
		snprintf(head, sizeof(head),
			 " failed starts %u of %u (restart %u); last: ",
			 d->failed, max, restart);
	seg[0] = '\0';
	put_clean(seg, &len, SN_REQUEUE_TEXT_MAX, tag);
	put_clean(seg, &len, SN_REQUEUE_TEXT_MAX, head);
	/* "NODE: TAG REASON" reads "NODE: REASON": the tag is said once. */
	if (last) {
		const char *colon = strstr(last, ": ");

		if (colon && tl && !strncmp(colon + 2, tag, tl)) {
			char node[128];

			snprintf(node, sizeof(node), "%.*s",
				 (int)(colon + 2 - last), last);
			put_clean(seg, &len, SN_REQUEUE_TEXT_MAX, node);
			last = colon + 2 + tl;
			while (*last == ' ')
				last++;
		}
		put_clean(seg, &len, SN_REQUEUE_TEXT_MAX + 1, last);
	}
	if (len > SN_REQUEUE_TEXT_MAX)
		strcpy(seg + SN_REQUEUE_TEXT_MAX - 3, "...");
}

int sn_requeue_format(char *buf, size_t size, const char *comment,
		      const char *tag, const struct sn_requeue_decision *d,
		      uint32_t max, uint32_t restart, const char *last)
{
	char seg[SN_REQUEUE_TEXT_MAX + 2];
	const char *end;
	size_t keep = 0;
	int n;

	segment_build(seg, tag, d, max, restart, last);
	if (comment) {
		end = segment_find(comment, tag);
		keep = end ? (size_t)(end - comment) : strlen(comment);
		while (keep &&
		       (comment[keep - 1] == ' ' || comment[keep - 1] == ';'))
			keep--;
	}
	n = keep ? snprintf(buf, size, "%.*s %s", (int)keep, comment, seg) :
		   snprintf(buf, size, "%s", seg);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
