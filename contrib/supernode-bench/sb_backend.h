/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_backend.h: what the measuring loop (sb_driver.c) needs from a backend
 * (MPI in host memory, NCCL on GPUs) and from the control plane that
 * joins the processes (MPI, or NCCL itself when started without MPI).
 */
#ifndef SB_BACKEND_H
#define SB_BACKEND_H

#include "sb.h"

/** Control plane between the processes of one group. */
struct sb_ctl {
	int prank; /* this process in the group */
	int nprocs;
	int (*barrier)(struct sb_ctl *ctl);
	/* element-wise sum of @n doubles over the processes, in place */
	int (*sum)(struct sb_ctl *ctl, double *v, int n);
	/* @len bytes from process 0 to all; NULL when there is none */
	int (*bcast)(struct sb_ctl *ctl, void *buf, size_t len);
	void *priv;
};

/** A backend bound to one group of ranks. */
struct sb_backend {
	const char *name;
	int nranks;	    /* ranks in the group (GPUs for NCCL) */
	int nlocal;	    /* ranks this process drives (-g) */
	int first_rank;	    /* group rank of this process's first one */
	bool mpi_semantics; /* in-place reduce-scatter result at 0 */
	struct sb_ctl *ctl;
	/* false when the backend has no such operation (shown as N/A) */
	bool (*supports)(struct sb_backend *b, enum sb_op op, bool inplace);
	/* put the pattern into the input of every local rank */
	int (*fill)(struct sb_backend *b, enum sb_op op,
		    const struct sb_counts *c, bool inplace);
	/* run @iters operations back to back and wait for them */
	int (*run)(struct sb_backend *b, enum sb_op op,
		   const struct sb_counts *c, bool inplace, int iters);
	/* wrong elements in the results of the local ranks, or -1 */
	int64_t (*check)(struct sb_backend *b, enum sb_op op,
			 const struct sb_counts *c, bool inplace);
	void (*fini)(struct sb_backend *b);
	void *priv;
};

/** Options that the measuring loop takes. */
struct sb_opts {
	size_t min_bytes, max_bytes;
	long factor;
	long warmup, iters;
	bool check;
	bool ops[SB_NOPS];
	double min_busbw; /* GB/s; 0 = none */
	int ngpus;	  /* -g */
	const char *json, *plot;
	const char *groups;  /* NULL or "supernode" */
	const char *id_file; /* NCCL without MPI */
	bool quiet;	     /* no table (--json -) */
	const char *prom;    /* --prom FILE: Prometheus textfile (sb_prom.c) */
	bool one_rank;	     /* --one-rank: a single rank may run (one GPU) */
};

/* Input layout: the pattern goes at @off, @len floats (sb_driver.c). */
void sb_input_layout(enum sb_op op, bool inplace, int rank,
		     const struct sb_counts *c, size_t *off, size_t *len);
size_t sb_nsizes(const struct sb_opts *o);
int sb_measure(struct sb_backend *b, const struct sb_opts *o, enum sb_op op,
	       const char *group, bool print, struct sb_result *out);
double sb_now_us(void);

#ifdef SB_HAVE_MPI
int sb_mpi_init(int *argc, char ***argv, struct sb_ctl **world);
struct sb_ctl *sb_mpi_split(struct sb_ctl *world, int colour, int key);
int sb_mpi_backend(struct sb_ctl *ctl, size_t max_bytes, struct sb_backend *b);
void sb_mpi_ctl_free(struct sb_ctl *ctl);
void sb_mpi_fini(void);
#endif
int sb_nccl_backend(struct sb_ctl *ctl, const struct sb_opts *o,
		    struct sb_backend *b);

/*
 * sb_backend_open - the backend @backend ("mpi" or "nccl") over @ctl (NULL:
 * NCCL joins the processes by Slurm's task variables) for the options @o.
 * Returns 0, or -1 (message printed) with @b closed again (sb_backend.c).
 */
int sb_backend_open(struct sb_ctl *ctl, const char *backend,
		    const struct sb_opts *o, struct sb_backend *b);

#endif /* SB_BACKEND_H */
