/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_cuda.h: the data fill and check on the GPU, through the CUDA driver
 * API loaded with dlopen (libcuda.so.1) and kernels given as PTX text
 * (sb_ptx.c), so that nothing NVIDIA is needed to build.  The NCCL
 * backend uses it when it loads, and its host path through cudaMemcpy
 * otherwise.
 *
 * Device pointers and streams are the CUDA runtime's, which the driver
 * API shares: a stream here is a cudaStream_t, a pointer a device
 * address.  Every call runs in the calling thread's current context (the
 * runtime's primary context after cudaSetDevice).
 */
#ifndef SB_CUDA_H
#define SB_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "sb.h"

#define SB_PTX_FILL "sb_fill"
#define SB_PTX_CHECK "sb_check"
#define SB_CUDA_WHY 512 /* bytes of a reason, with NUL */

extern const char sb_ptx[];

struct sb_cuda;

/** The kernels and scratch memory of one GPU (its context). */
struct sb_cuda_dev {
	void *module;
	void *fill, *check; /* CUfunction */
	uint64_t tabs;	    /* device: max_segs x 32 floats */
	uint64_t wrong;	    /* device: one uint64_t counter */
	size_t max_segs;
	unsigned int blocks; /* grid cap: 8 per multiprocessor */
};

/*
 * sb_cuda_open - load the driver API (SUPERNODE_BENCH_LIBCUDA, else
 * libcuda.so.1) and cuInit it.  Returns the handle (sb_cuda_close() it),
 * or NULL with a reason in @why (@size bytes): the library missing, a
 * symbol missing, cuInit's error.
 */
struct sb_cuda *sb_cuda_open(char *why, size_t size);
void sb_cuda_close(struct sb_cuda *cu);

/*
 * sb_cuda_dev_init - JIT-load sb_ptx in the current context and take the
 * scratch for up to @max_segs runs per check.  Returns 0, or -1 with the
 * reason (the driver's error, with the JIT log when it has one) in @why;
 * @d then holds nothing to free.
 */
int sb_cuda_dev_init(struct sb_cuda *cu, struct sb_cuda_dev *d, size_t max_segs,
		     char *why, size_t size);
void sb_cuda_dev_fini(struct sb_cuda *cu, struct sb_cuda_dev *d);

/*
 * sb_cuda_fill - on @stream: zero @zero floats of @zbuf (none when 0),
 * then write run @s into @buf; waits for the stream.  Returns 0 or -1
 * (message printed).
 */
int sb_cuda_fill(struct sb_cuda *cu, struct sb_cuda_dev *d, void *stream,
		 float *zbuf, size_t zero, float *buf, const struct sb_seg *s);

/*
 * sb_cuda_check - count on @stream the floats of @buf that differ from
 * the @n runs @segs (n <= max_segs); waits for the stream.  Returns the
 * exact count, or -1 (message printed).
 */
int64_t sb_cuda_check(struct sb_cuda *cu, struct sb_cuda_dev *d, void *stream,
		      const float *buf, const struct sb_seg *segs, size_t n);

#endif /* SB_CUDA_H */
