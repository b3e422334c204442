// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_mpi.c: the MPI control plane and the MPI backend (host memory, one
 * rank per process, MPI_FLOAT and MPI_SUM).  MPI has no out-of-place
 * broadcast, so that column is N/A; in-place uses MPI_IN_PLACE and
 * MPI_Sendrecv_replace.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sb_backend.h"

struct mpi_ctl {
	struct sb_ctl ctl;
	MPI_Comm comm;
};

struct mpi_be {
	MPI_Comm comm;
	int rank;
	float *send, *recv;
};

static MPI_Comm comm_of(struct sb_ctl *ctl)
{
	return ((struct mpi_ctl *)ctl->priv)->comm;
}

static int mpi_barrier(struct sb_ctl *ctl)
{
	return MPI_Barrier(comm_of(ctl)) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_sum(struct sb_ctl *ctl, double *v, int n)
{
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM,
			     comm_of(ctl)) == MPI_SUCCESS ?
		       0 :
		       -1;
}

static int mpi_bcast(struct sb_ctl *ctl, void *buf, size_t len)
{
	return MPI_Bcast(buf, (int)len, MPI_BYTE, 0, comm_of(ctl)) ==
			       MPI_SUCCESS ?
		       0 :
		       -1;
}

static struct sb_ctl *ctl_new(MPI_Comm comm)
{
	struct mpi_ctl *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->comm = comm;
	m->ctl.priv = m;
	m->ctl.barrier = mpi_barrier;
	m->ctl.sum = mpi_sum;
	m->ctl.bcast = mpi_bcast;
	MPI_Comm_rank(comm, &m->ctl.prank);
	MPI_Comm_size(comm, &m->ctl.nprocs);
	return &m->ctl;
}

/** sb_mpi_init - MPI_Init and the world's control plane. */
int sb_mpi_init(int *argc, char ***argv, struct sb_ctl **world)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return -1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	*world = ctl_new(MPI_COMM_WORLD);
	return *world ? 0 : -1;
}

/** sb_mpi_split - the sub-group of @world's processes of the same @colour. */
struct sb_ctl *sb_mpi_split(struct sb_ctl *world, int colour, int key)
{
	MPI_Comm comm;

	if (MPI_Comm_split(comm_of(world), colour, key, &comm) != MPI_SUCCESS)
		return NULL;
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	return ctl_new(comm);
}

/** sb_mpi_ctl_free - free a control plane (and its communicator). */
void sb_mpi_ctl_free(struct sb_ctl *ctl)
{
	struct mpi_ctl *m;

	if (!ctl)
		return;
	m = ctl->priv;
	if (m->comm != MPI_COMM_WORLD)
		MPI_Comm_free(&m->comm);
	free(m);
}

/** sb_mpi_fini - MPI_Finalize. */
void sb_mpi_fini(void)
{
	MPI_Finalize();
}

static bool mpi_supports(struct sb_backend *b, enum sb_op op, bool inplace)
{
	(void)b;
	return !(op == SB_BROADCAST && !inplace);
}

static int mpi_fill(struct sb_backend *b, enum sb_op op,
		    const struct sb_counts *c, bool inplace)
{
	struct mpi_be *m = b->priv;
	float *in = inplace ? m->recv : m->send;
	size_t off, len;

	memset(m->recv, 0, c->count * sizeof(float));
	sb_input_layout(op, inplace, m->rank, c, &off, &len);
	sb_fill(in + off, len, m->rank, 0);
	return 0;
}

/* One operation; MPI_SUCCESS or an MPI error code. */
static int mpi_op(struct mpi_be *m, int n, enum sb_op op,
		  const struct sb_counts *c, bool ip)
{
	const void *s = ip ? MPI_IN_PLACE : m->send;
	float *r = m->recv;
	int nb = (int)c->block;
	int next = (m->rank + 1) % n, prev = (m->rank + n - 1) % n;

	switch (op) {
	case SB_ALLREDUCE:
		return MPI_Allreduce(s, r, (int)c->count, MPI_FLOAT, MPI_SUM,
				     m->comm);
	case SB_ALLGATHER:
		return MPI_Allgather(s, nb, MPI_FLOAT, r, nb, MPI_FLOAT,
				     m->comm);
	case SB_REDUCESCATTER:
		return MPI_Reduce_scatter_block(s, r, nb, MPI_FLOAT, MPI_SUM,
						m->comm);
	case SB_ALLTOALL:
		return MPI_Alltoall(s, nb, MPI_FLOAT, r, nb, MPI_FLOAT,
				    m->comm);
	case SB_BROADCAST:
		return MPI_Bcast(r, (int)c->count, MPI_FLOAT, 0, m->comm);
	case SB_SENDRECV:
		if (ip)
			return MPI_Sendrecv_replace(r, (int)c->count, MPI_FLOAT,
						    next, 0, prev, 0, m->comm,
						    MPI_STATUS_IGNORE);
		return MPI_Sendrecv(m->send, (int)c->count, MPI_FLOAT, next, 0,
				    r, (int)c->count, MPI_FLOAT, prev, 0,
				    m->comm, MPI_STATUS_IGNORE);
	default:
		return MPI_ERR_OTHER;
	}
}

static int mpi_run(struct sb_backend *b, enum sb_op op,
		   const struct sb_counts *c, bool inplace, int iters)
{
	struct mpi_be *m = b->priv;

	for (int i = 0; i < iters; i++) {
		int rc = mpi_op(m, b->nranks, op, c, inplace);

		if (rc != MPI_SUCCESS) {
			char msg[MPI_MAX_ERROR_STRING];
			int len;

			MPI_Error_string(rc, msg, &len);
			fprintf(stderr, SB_PREFIX "rank %d: %s: %s\n", m->rank,
				sb_op_name(op), msg);
			return -1;
		}
	}
	return 0;
}

static int64_t mpi_check(struct sb_backend *b, enum sb_op op,
			 const struct sb_counts *c, bool inplace)
{
	struct mpi_be *m = b->priv;
	size_t loc = sb_result_location(op, inplace, m->rank, c, true);

	return sb_check(op, m->recv + loc, c->recv, m->rank, b->nranks, c);
}

static void mpi_be_fini(struct sb_backend *b)
{
	struct mpi_be *m = b->priv;

	if (!m)
		return;
	free(m->send);
	free(m->recv);
	free(m);
	b->priv = NULL;
}

/**
 * sb_mpi_backend - the MPI backend over @ctl's communicator, with host
 * buffers for messages up to @max_bytes.  Returns 0 or -1.
 */
int sb_mpi_backend(struct sb_ctl *ctl, size_t max_bytes, struct sb_backend *b)
{
	struct mpi_be *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	if (max_bytes / sizeof(float) > INT32_MAX) {
		fprintf(stderr,
			SB_PREFIX
			"the MPI backend takes messages up to %zu bytes\n",
			(size_t)INT32_MAX * sizeof(float));
		free(m);
		return -1;
	}
	m->comm = comm_of(ctl);
	m->rank = ctl->prank;
	m->send = malloc(max_bytes);
	m->recv = malloc(max_bytes);
	memset(b, 0, sizeof(*b));
	b->priv = m;
	if (!m->send || !m->recv) {
		mpi_be_fini(b);
		return -1;
	}
	b->name = "mpi";
	b->nranks = ctl->nprocs;
	b->nlocal = 1;
	b->first_rank = ctl->prank;
	b->mpi_semantics = true;
	b->ctl = ctl;
	b->supports = mpi_supports;
	b->fill = mpi_fill;
	b->run = mpi_run;
	b->check = mpi_check;
	b->fini = mpi_be_fini;
	return 0;
}
