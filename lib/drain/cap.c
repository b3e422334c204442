/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The drain cap of bulk drains (sn_drain_cap.h), in integers. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "util/sn_child.h"
#include "drain/sn_drain.h"
#include "drain/sn_drain_cap.h"

uint32_t sn_drain_cap_of(unsigned permille, uint32_t n)
{
	uint64_t cap = (uint64_t)permille * n / 1000;

	if (!n)
		return 0;
	return cap < 1 ? 1 : (uint32_t)cap;
}

enum sn_drain_cap_verdict sn_drain_cap_admit(const struct sn_config *cfg,
					     unsigned permille,
					     struct sn_drain_tally *tally,
					     size_t s)
{
	int in_sn = s < tally->n_supernodes && s < cfg->n_supernodes;

	if (in_sn && tally->supernode[s] >=
			     sn_drain_cap_of(permille,
					     (uint32_t)cfg->supernodes[s].size))
		return SN_CAP_SUPERNODE;
	if (tally->cluster >= sn_drain_cap_of(permille, (uint32_t)cfg->n_nodes))
		return SN_CAP_CLUSTER;
	if (in_sn)
		tally->supernode[s]++;
	tally->cluster++;
	return SN_CAP_OK;
}

void sn_drain_cap_release(struct sn_drain_tally *tally, size_t s)
{
	if (s < tally->n_supernodes && tally->supernode[s])
		tally->supernode[s]--;
	if (tally->cluster)
		tally->cluster--;
}

int sn_drain_tally_count(const struct sn_config *cfg, const char *tag,
			 const char *const *names, const unsigned *states,
			 const char *const *reasons, size_t n,
			 struct sn_drain_tally *tally)
{
	memset(tally, 0, sizeof(*tally));
	tally->supernode = calloc(cfg->n_supernodes ? cfg->n_supernodes : 1,
				  sizeof(*tally->supernode));
	if (!tally->supernode)
		return -1;
	tally->n_supernodes = cfg->n_supernodes;
	for (size_t i = 0; i < n; i++) {
		const struct sn_node *node;

		if (!names[i] || !(states[i] & NODE_STATE_DRAIN) ||
		    !sn_reason_is_ours(reasons[i], tag))
			continue;
		node = sn_config_find_node(cfg, names[i]);
		if (!node)
			continue;
		tally->supernode[node->supernode]++;
		tally->cluster++;
	}
	return 0;
}

/* The child: the node table, counted; the counts through fd. */
static int tally_child(void *arg, int fd)
{
	const void *const *a = arg;
	const struct sn_config *cfg = a[0];
	const char *tag = a[1];
	node_info_msg_t *msg = NULL;
	struct sn_drain_tally t = { 0 };
	const char **names = NULL, **reasons = NULL;
	unsigned *states = NULL;
	size_t n, want;
	int rc = 1;

	slurm_init(NULL);
	if (slurm_load_node(0, &msg, SHOW_ALL) || !msg)
		goto out;
	n = msg->record_count;
	names = calloc(n + 1, sizeof(*names));
	reasons = calloc(n + 1, sizeof(*reasons));
	states = calloc(n + 1, sizeof(*states));
	if (!names || !reasons || !states)
		goto out;
	for (size_t i = 0; i < n; i++) {
		names[i] = msg->node_array[i].name;
		reasons[i] = msg->node_array[i].reason;
		states[i] = msg->node_array[i].node_state;
	}
	if (sn_drain_tally_count(cfg, tag, names, states, reasons, n, &t))
		goto out;
	want = sizeof(t.cluster) + t.n_supernodes * sizeof(*t.supernode);
	if (write(fd, &t.cluster, sizeof(t.cluster)) ==
		    (ssize_t)sizeof(t.cluster) &&
	    write(fd, t.supernode, want - sizeof(t.cluster)) ==
		    (ssize_t)(want - sizeof(t.cluster)))
		rc = 0;
out:
	sn_drain_tally_free(&t);
	free(names);
	free(reasons);
	free(states);
	if (msg)
		slurm_free_node_info_msg(msg);
	slurm_fini();
	return rc;
}

int sn_drain_tally_load(const struct sn_config *cfg, const char *tag,
			unsigned budget_ms, struct sn_drain_tally *tally,
			struct sn_error *err)
{
	const void *arg[2] = { cfg, tag };
	size_t want = sizeof(uint32_t) * (1 + cfg->n_supernodes), len = 0;
	char *out = NULL;
	int rc;

	memset(tally, 0, sizeof(*tally));
	rc = sn_run_in_child(tally_child, (void *)arg, budget_ms, want, &out,
			     &len);
	if (rc != 0 || len != want) {
		sn_error_set(
			err,
			"cannot count the nodes drained by us: slurmctld %s",
			rc == -1 ? "did not answer in time" :
				   "could not be read");
		free(out);
		return -1;
	}
	tally->supernode = calloc(cfg->n_supernodes ? cfg->n_supernodes : 1,
				  sizeof(*tally->supernode));
	if (!tally->supernode) {
		sn_error_set(err, "out of memory");
		free(out);
		return -1;
	}
	tally->n_supernodes = cfg->n_supernodes;
	memcpy(&tally->cluster, out, sizeof(uint32_t));
	memcpy(tally->supernode, out + sizeof(uint32_t),
	       want - sizeof(uint32_t));
	free(out);
	return 0;
}

void sn_drain_tally_free(struct sn_drain_tally *tally)
{
	free(tally->supernode);
	tally->supernode = NULL;
	tally->n_supernodes = 0;
}
