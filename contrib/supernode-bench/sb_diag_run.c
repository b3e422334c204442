// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_diag_run.c: --diagnose on an MPI world: every rank's node name, the
 * pairwise test (sendrecv of -e bytes between every pair of ranks, the
 * circle method: n - 1 rounds of n/2 disjoint pairs at once, so pairs on
 * one node are its GPU pairs), the bisection (allreduce of -e bytes on
 * both halves at once), the decisions (sb_diagnose.c), the report from
 * rank 0 and, with --drain, the confirmed nodes drained through the
 * project's drain code (tag from the config's drain.tag).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_diag.h"
#include "sb_hook.h"
#include "sb_mode.h"
#include "sb_out.h"

#ifdef SB_HAVE_CONFIG
#include "config/sn_config.h"
#include "drain/sn_drain.h"
#include "drain/sn_drain_cap.h"
#endif

/* What one diagnosis holds while it runs. */
struct diag_run {
	struct sb_ctl *world;
	const char *backend;
	struct sb_opts o; /* -e bytes only, no check, not printed */
	struct sb_diag d;
	double *pair;
	int *node_of;
	char (*names)[SB_DIAG_NAME_SIZE];
	bool slurm_names; /* every rank had SLURMD_NODENAME */
};

/* Every rank's node name, through the world's sum (one byte a double). */
static int gather_names(struct diag_run *x)
{
	int n = x->world->nprocs, me = x->world->prank;
	const char *env = getenv("SLURMD_NODENAME");
	char mine[SB_DIAG_NAME_SIZE], host[256] = "";
	double *v = calloc((size_t)n * SB_DIAG_NAME_SIZE + 1, sizeof(*v));

	if (!v)
		return -1;
	if (!env && !gethostname(host, sizeof(host) - 1))
		env = host;
	sb_diag_name_clean(env, mine);
	for (int i = 0; i < SB_DIAG_NAME_SIZE; i++)
		v[(size_t)me * SB_DIAG_NAME_SIZE + i] = (unsigned char)mine[i];
	v[(size_t)n * SB_DIAG_NAME_SIZE] = getenv("SLURMD_NODENAME") ? 1 : 0;
	if (x->world->sum(x->world, v, n * SB_DIAG_NAME_SIZE + 1)) {
		free(v);
		return -1;
	}
	x->slurm_names = v[(size_t)n * SB_DIAG_NAME_SIZE] == n;
	x->d.nnodes = 0;
	for (int r = 0; r < n; r++) {
		char name[SB_DIAG_NAME_SIZE];
		int k;

		for (int i = 0; i < SB_DIAG_NAME_SIZE; i++)
			name[i] = (char)v[(size_t)r * SB_DIAG_NAME_SIZE + i];
		name[SB_DIAG_NAME_SIZE - 1] = '\0';
		for (k = 0; k < x->d.nnodes && strcmp(x->names[k], name); k++)
			;
		if (k == x->d.nnodes)
			strcpy(x->names[x->d.nnodes++], name);
		x->node_of[r] = k;
	}
	free(v);
	return 0;
}

/* A backend over @ctl as the main run opens it. */
static int open_backend(struct diag_run *x, struct sb_ctl *ctl,
			struct sb_backend *b)
{
	if (sb_backend_open(ctl, x->backend, &x->o, b))
		return -1;
	sb_hook_backend(b);
	return 0;
}

/*
 * @op on the group this process is in (colour), its busbw on every
 * member (GB/s); a group of one measures nothing (0).
 */
static int measure_group(struct diag_run *x, int colour, enum sb_op op,
			 double *busbw)
{
	struct sb_ctl *ctl = sb_mpi_split(x->world, colour, x->world->prank);
	struct sb_backend b = { 0 };
	struct sb_result r = { 0 };
	int rc = -1;

	*busbw = 0;
	if (!ctl)
		return -1;
	if (ctl->nprocs < 2) {
		rc = 0;
	} else if (!open_backend(x, ctl, &b)) {
		/* the best of two: a scheduling hiccup is not a slow link */
		rc = 0;
		for (int k = 0; k < 2 && !rc; k++) {
			rc = sb_measure(&b, &x->o, op, "diagnose", false, &r);
			if (!rc && r.nrows)
				*busbw = fmax(*busbw, sb_row_busbw(&r.rows[0]));
			free(r.rows);
		}
		b.fini(&b);
	}
	sb_mpi_ctl_free(ctl);
	return rc;
}

/* The pairwise test: fills x->pair (n x n, NAN on the diagonal). */
static int run_pairs(struct diag_run *x)
{
	int n = x->world->nprocs, me = x->world->prank;

	for (size_t i = 0; i < (size_t)n * n; i++)
		x->pair[i] = 0;
	for (int r = 0; r < sb_rounds(n); r++) {
		int p = sb_round_partner(n, r, me);
		int colour = p < 0 ? n + me : me < p ? me : p;
		double bw;

		if (measure_group(x, colour, SB_SENDRECV, &bw))
			return -1;
		if (p > me)
			x->pair[me * n + p] = x->pair[p * n + me] = bw;
	}
	if (x->world->sum(x->world, x->pair, n * n))
		return -1;
	for (int i = 0; i < n; i++)
		x->pair[i * n + i] = NAN;
	return 0;
}

/* The bisection's callback: allreduce on [lo, mid) and [mid, hi) at once. */
static int measure_halves(int lo, int mid, int hi, double out[2], void *arg)
{
	struct diag_run *x = arg;
	int me = x->world->prank;
	int half = me >= lo && me < mid ? 0 : me >= mid && me < hi ? 1 : -1;
	int colour = half >= 0 ? half : 2 + me;
	double bw, v[2] = { 0, 0 };

	if (measure_group(x, colour, SB_ALLREDUCE, &bw))
		return -1;
	if (me == lo || me == mid) /* one report per half */
		v[half] = bw;
	if (x->world->sum(x->world, v, 2))
		return -1;
	out[0] = v[0];
	out[1] = v[1];
	return 0;
}

#ifdef SB_HAVE_CONFIG
/* "# drain NODE: not drained: ..." when lib/drain's cap refuses it. */
static void cap_refused(const struct sn_config *cfg, const char *name,
			const struct sn_drain_tally *t, size_t s,
			enum sn_drain_cap_verdict v, unsigned permille)
{
	if (v == SN_CAP_SUPERNODE)
		printf("# drain %s: not drained: supernode %s has %u of %zu nodes drained by us, its cap at %u/1000 is %u\n",
		       name, cfg->supernodes[s].name, t->supernode[s],
		       cfg->supernodes[s].size, permille,
		       sn_drain_cap_of(permille,
				       (uint32_t)cfg->supernodes[s].size));
	else
		printf("# drain %s: not drained: the cluster has %u of %zu nodes drained by us, its cap at %u/1000 is %u\n",
		       name, t->cluster, cfg->n_nodes, permille,
		       sn_drain_cap_of(permille, (uint32_t)cfg->n_nodes));
}

/*
 * Drain each confirmed node with our tag and the precise reason, within
 * the cap (lib/drain/sn_drain_cap.h): the nodes of its supernode and of
 * the cluster already drained by us count, so runs do not compound.
 */
static int drain_confirmed(const struct diag_run *x, const char *config,
			   unsigned permille)
{
	char def[4096], first[256], reason[SN_REASON_LINE_SIZE];
	const struct sb_diag *d = &x->d;
	struct sn_drain_tally tally;
	struct sn_config *cfg;
	struct sn_error err;
	int rc = 0;

	if (!x->slurm_names) {
		fprintf(stderr, SB_PREFIX
			"--drain: not every rank has SLURMD_NODENAME (run inside the allocation): nothing drained\n");
		return -1;
	}
	if (!config) {
		sn_config_default_path(def, sizeof(def));
		config = def;
	}
	if (!(cfg = sn_config_load(config, &err))) {
		fprintf(stderr, SB_PREFIX "--drain: %s: nothing drained\n",
			err.msg);
		return -1;
	}
	if (sn_drain_tally_load(cfg, cfg->drain_tag, 15000, &tally, &err)) {
		fprintf(stderr, SB_PREFIX "--drain: %s: nothing drained\n",
			err.msg);
		sn_config_free(cfg);
		return -1;
	}
	for (int k = 0; k < d->nnodes; k++) {
		const struct sn_node *node =
			sn_config_find_node(cfg, x->names[k]);
		size_t s = node ? node->supernode : SIZE_MAX;
		enum sn_drain_cap_verdict v;
		enum sn_drain_outcome out;

		if (sb_diag_reason(d, k, first, sizeof(first)) ||
		    sn_reason_compose(reason, sizeof(reason), cfg->drain_tag,
				      first, 1))
			continue;
		v = sn_drain_cap_admit(cfg, permille, &tally, s);
		if (v != SN_CAP_OK) {
			cap_refused(cfg, x->names[k], &tally, s, v, permille);
			continue;
		}
		out = sn_drain_logged(x->names[k], reason, cfg->drain_tag,
				      15000);
		if (out != SN_DRAIN_DONE)
			sn_drain_cap_release(&tally, s);
		printf("# drain %s: %s (%s)\n", x->names[k],
		       sn_drain_outcome_name(out), reason);
		rc |= out == SN_DRAIN_ERROR ? -1 : 0;
	}
	sn_drain_tally_free(&tally);
	sn_config_free(cfg);
	return rc;
}
#else
static int drain_confirmed(const struct diag_run *x, const char *config,
			   unsigned permille)
{
	(void)x, (void)config, (void)permille;
	fprintf(stderr, SB_PREFIX
		"--drain needs supernode-bench built inside slurm-supernode\n");
	return -1;
}
#endif

static int json_fill(FILE *f, void *arg)
{
	struct diag_run *x = arg;

	return sb_diag_write_json(f, &x->d, x->o.max_bytes);
}

static int report(struct diag_run *x, const struct sb_mode *m)
{
	sb_diag_write_table(stdout, &x->d, x->o.max_bytes);
	if (!m->o->json)
		return 0;
	return sb_out_memstream_write(m->o->json, "--json", json_fill, x);
}

static int exit_of(enum sb_diag_verdict v)
{
	return v == SB_DIAG_CLEAN  ? 0 :
	       v == SB_DIAG_SHARED ? SB_EXIT_SHARED_FAULT :
				     1;
}

static int diagnose(struct diag_run *x, const struct sb_mode *m)
{
	int n = x->world->nprocs;
	bool print = x->world->prank == 0;

	if (gather_names(x) || run_pairs(x))
		return 3;
	x->d.nranks = n;
	x->d.pair = x->pair;
	x->d.node_of = x->node_of;
	x->d.names = (const char(*)[SB_DIAG_NAME_SIZE])x->names;
	x->d.fraction = m->slow_fraction;
	x->d.max_permille = m->max_drain_permille;
	if (sb_diag_alloc(&x->d) || sb_diag_pairs(&x->d) ||
	    sb_bisect_run(n, x->d.fraction, measure_halves, x, &x->d.bisect))
		return 3;
	sb_diag_decide(&x->d);
	if (print && report(x, m))
		return 3;
	if (print && m->drain && x->d.verdict == SB_DIAG_FOUND &&
	    drain_confirmed(x, m->config, m->max_drain_permille))
		return 3;
	if (print && m->drain && x->d.verdict == SB_DIAG_SHARED)
		printf("# --drain: breaker tripped, nothing drained\n");
	return exit_of(x->d.verdict);
}

/**
 * sb_diag_run - --diagnose over the MPI world @world with the measuring
 * options of @m->o (-e: the message size of both tests, -w, -n).
 * Returns the exit status: 0 clean, 1 slow pairs or nodes found (drained
 * with --drain when confirmed), SB_EXIT_SHARED_FAULT when the breaker
 * tripped, 2 usage, 3 could not run.
 */
int sb_diag_run(struct sb_ctl *world, const char *backend,
		const struct sb_mode *m)
{
	struct diag_run x = { .world = world, .backend = backend, .o = *m->o };
	int n = world->nprocs, rc;

	if (n < 2 || n > SB_DIAG_MAX_RANKS) {
		if (world->prank == 0)
			fprintf(stderr,
				SB_PREFIX
				"--diagnose takes 2 to %d ranks, not %d\n",
				SB_DIAG_MAX_RANKS, n);
		return n < 2 ? 3 : 2;
	}
	if (sb_hook_init(world->prank, m->soak.op_timeout_s, NULL))
		return 2;
	x.o.min_bytes = x.o.max_bytes;
	x.o.check = false;
	x.pair = calloc((size_t)n * n, sizeof(*x.pair));
	x.node_of = calloc(n, sizeof(*x.node_of));
	x.names = calloc(n, sizeof(*x.names));
	rc = x.pair && x.node_of && x.names ? diagnose(&x, m) : 3;
	sb_diag_free(&x.d);
	free(x.pair);
	free(x.node_of);
	free(x.names);
	return rc;
}
