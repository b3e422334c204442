/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_jobconfig: the job's config (lib/config/config_snapshot.c), the
 * file a job's steps read as root instead of supernode.yaml.  The input is
 * the whole file, header included, handed to sn_config_snapshot_parse with
 * no key (any job, node and stamp), so that the document part is reached.
 * Properties: a config that loads holds at least one supernode, as many
 * as the header says is checked by the parser itself; its node index is
 * sorted and every node's supernode and rank are in range.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "config/sn_config_snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sn_config *cfg;
	struct sn_error err;

	cfg = sn_config_snapshot_parse((const char *)data, size,
				       "/etc/slurm/supernode.yaml", "fuzz",
				       NULL, &err);
	if (!cfg)
		return 0;
	FZ_ASSERT(cfg->n_supernodes > 0);
	for (size_t i = 0; i < cfg->n_nodes; i++) {
		const struct sn_node *n = &cfg->nodes[i];

		FZ_ASSERT(n->supernode < cfg->n_supernodes);
		FZ_ASSERT(n->rank < cfg->supernodes[n->supernode].size);
		FZ_ASSERT(!i || strcmp(cfg->nodes[i - 1].name, n->name) < 0);
	}
	sn_config_free(cfg);
	return 0;
}
