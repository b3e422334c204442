// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_cuda.c: the data fill and check on the GPU (sb_cuda.h).  The driver
 * API is loaded with dlopen and declared here with its C signatures
 * (cuda.h's, by value: CUresult is an int, handles are pointers, a device
 * address is an unsigned 64-bit integer).  One fill is a memset and one
 * kernel launch; one check uploads the runs' tables, zeroes a counter,
 * launches one kernel per run and reads the counter back, so a 4 GiB
 * buffer costs milliseconds instead of the host's seconds.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_cuda.h"

#define CU_ATTR_SM_COUNT 16   /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
#define CU_JIT_ERROR_LOG 5    /* CU_JIT_ERROR_LOG_BUFFER */
#define CU_JIT_ERROR_SIZE 6   /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
#define SB_CUDA_THREADS 256   /* per block */
#define SB_CUDA_TAB_FLOATS 32 /* a table's slot: 31 floats, padded */

/* The driver entry points used, with their C signatures. */
struct sb_cuda {
	void *lib;
	int (*init)(unsigned int);
	int (*ctx_get_device)(int *);
	int (*dev_attr)(int *, int, int);
	int (*load)(void **, const void *, unsigned int, int *, void **);
	int (*unload)(void *);
	int (*get_function)(void **, void *, const char *);
	int (*launch)(void *, unsigned int, unsigned int, unsigned int,
		      unsigned int, unsigned int, unsigned int, unsigned int,
		      void *, void **, void **);
	int (*mem_alloc)(uint64_t *, size_t);
	int (*mem_free)(uint64_t);
	int (*htod)(uint64_t, const void *, size_t);
	int (*dtoh)(void *, uint64_t, size_t);
	int (*memset32)(uint64_t, unsigned int, size_t, void *);
	int (*sync)(void *);
	int (*error)(int, const char **);
};

/* The symbols, by name, and where each goes. */
#define SYM(name, field)                              \
	{                                             \
		name, offsetof(struct sb_cuda, field) \
	}
static const struct {
	const char *name;
	size_t at;
} cu_syms[] = {
	SYM("cuInit", init),
	SYM("cuCtxGetDevice", ctx_get_device),
	SYM("cuDeviceGetAttribute", dev_attr),
	SYM("cuModuleLoadDataEx", load),
	SYM("cuModuleUnload", unload),
	SYM("cuModuleGetFunction", get_function),
	SYM("cuLaunchKernel", launch),
	SYM("cuMemAlloc_v2", mem_alloc),
	SYM("cuMemFree_v2", mem_free),
	SYM("cuMemcpyHtoD_v2", htod),
	SYM("cuMemcpyDtoH_v2", dtoh),
	SYM("cuMemsetD32Async", memset32),
	SYM("cuStreamSynchronize", sync),
	SYM("cuGetErrorString", error),
};

static const char *cu_err(struct sb_cuda *cu, int rc)
{
	const char *s = NULL;

	if (cu->error && cu->error(rc, &s) == 0 && s)
		return s;
	return "unknown CUDA error";
}

/* A driver call that must succeed: print it and return -1 when not. */
static int cu_ok(struct sb_cuda *cu, int rc, const char *what)
{
	if (!rc)
		return 0;
	fprintf(stderr, SB_PREFIX "%s: %s (CUDA driver error %d)\n", what,
		cu_err(cu, rc), rc);
	return -1;
}

/**
 * sb_cuda_open - load libcuda and its entry points, cuInit(0).
 * Returns the handle, or NULL with @why set.
 */
struct sb_cuda *sb_cuda_open(char *why, size_t size)
{
	const char *path = getenv("SUPERNODE_BENCH_LIBCUDA");
	struct sb_cuda *cu = calloc(1, sizeof(*cu));
	int rc;

	if (!path || !*path)
		path = "libcuda.so.1";
	if (!cu) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	cu->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		snprintf(why, size, "cannot load %s: %s", path, dlerror());
		goto fail;
	}
	for (size_t i = 0; i < sizeof(cu_syms) / sizeof(cu_syms[0]); i++) {
		void *p = dlsym(cu->lib, cu_syms[i].name);

		if (!p) {
			snprintf(why, size, "%s has no %s", path,
				 cu_syms[i].name);
			goto fail;
		}
		memcpy((char *)cu + cu_syms[i].at, &p, sizeof(p));
	}
	rc = cu->init(0);
	if (rc) {
		snprintf(why, size, "cuInit: %s (error %d)", cu_err(cu, rc),
			 rc);
		goto fail;
	}
	return cu;
fail:
	sb_cuda_close(cu);
	return NULL;
}

/** sb_cuda_close - unload what sb_cuda_open() loaded (NULL: nothing). */
void sb_cuda_close(struct sb_cuda *cu)
{
	if (!cu)
		return;
	if (cu->lib)
		dlclose(cu->lib);
	free(cu);
}

/* JIT-compile sb_ptx; the driver's error log goes into @why. */
static int load_module(struct sb_cuda *cu, struct sb_cuda_dev *d, char *why,
		       size_t size)
{
	char log[SB_CUDA_WHY] = "";
	int opts[] = { CU_JIT_ERROR_LOG, CU_JIT_ERROR_SIZE };
	void *vals[] = { log, (void *)(uintptr_t)sizeof(log) };
	int rc = cu->load(&d->module, sb_ptx, 2, opts, vals);

	if (rc) {
		d->module = NULL;
		log[sizeof(log) - 1] = '\0';
		snprintf(why, size, "cuModuleLoadDataEx: %s (error %d)%s%.300s",
			 cu_err(cu, rc), rc, log[0] ? ": " : "", log);
		return -1;
	}
	rc = cu->get_function(&d->fill, d->module, SB_PTX_FILL);
	if (!rc)
		rc = cu->get_function(&d->check, d->module, SB_PTX_CHECK);
	if (rc) {
		snprintf(why, size, "cuModuleGetFunction: %s (error %d)",
			 cu_err(cu, rc), rc);
		return -1;
	}
	return 0;
}

/* Grid size: 8 blocks per multiprocessor, at least one. */
static int grid_cap(struct sb_cuda *cu, struct sb_cuda_dev *d, char *why,
		    size_t size)
{
	int dev, sms, rc = cu->ctx_get_device(&dev);

	if (!rc)
		rc = cu->dev_attr(&sms, CU_ATTR_SM_COUNT, dev);
	if (rc) {
		snprintf(why, size, "no current GPU: %s (error %d)",
			 cu_err(cu, rc), rc);
		return -1;
	}
	d->blocks = sms > 0 ? 8u * (unsigned int)sms : 8u;
	return 0;
}

/**
 * sb_cuda_dev_init - module and scratch in the current context.
 * Returns 0, or -1 with @why set and nothing held.
 */
int sb_cuda_dev_init(struct sb_cuda *cu, struct sb_cuda_dev *d, size_t max_segs,
		     char *why, size_t size)
{
	size_t tab_bytes = SB_CUDA_TAB_FLOATS * sizeof(float);
	int rc;

	memset(d, 0, sizeof(*d));
	if (!max_segs || max_segs > SIZE_MAX / tab_bytes) {
		snprintf(why, size, "%zu runs per check", max_segs);
		return -1;
	}
	if (grid_cap(cu, d, why, size) || load_module(cu, d, why, size))
		goto fail;
	rc = cu->mem_alloc(&d->tabs, max_segs * tab_bytes);
	if (!rc)
		rc = cu->mem_alloc(&d->wrong, sizeof(uint64_t));
	if (rc) {
		snprintf(why, size, "cuMemAlloc: %s (error %d)", cu_err(cu, rc),
			 rc);
		goto fail;
	}
	d->max_segs = max_segs;
	return 0;
fail:
	sb_cuda_dev_fini(cu, d);
	return -1;
}

/** sb_cuda_dev_fini - free what sb_cuda_dev_init() took (in its context). */
void sb_cuda_dev_fini(struct sb_cuda *cu, struct sb_cuda_dev *d)
{
	if (d->tabs)
		cu->mem_free(d->tabs);
	if (d->wrong)
		cu->mem_free(d->wrong);
	if (d->module)
		cu->unload(d->module);
	memset(d, 0, sizeof(*d));
}

/* Launch @fn over run @s of @buf with table slot @tab (and @wrong). */
static int launch_run(struct sb_cuda *cu, struct sb_cuda_dev *d, void *fn,
		      void *stream, const float *buf, const struct sb_seg *s,
		      uint64_t tab)
{
	uint64_t p = (uint64_t)(uintptr_t)(buf + s->start);
	uint64_t n = s->len, off = s->off, wrong = d->wrong;
	void *args[] = { &p, &n, &off, &tab, &wrong };
	size_t blocks = (s->len + SB_CUDA_THREADS - 1) / SB_CUDA_THREADS;

	if (!s->len)
		return 0;
	if (blocks > d->blocks)
		blocks = d->blocks;
	return cu_ok(cu,
		     cu->launch(fn, (unsigned int)blocks, 1, 1, SB_CUDA_THREADS,
				1, 1, 0, stream, args, NULL),
		     fn == d->fill ? "launch " SB_PTX_FILL :
				     "launch " SB_PTX_CHECK);
}

/* Copy the tables of @n runs into the device's slots. */
static int put_tables(struct sb_cuda *cu, struct sb_cuda_dev *d,
		      const struct sb_seg *segs, size_t n)
{
	float host[SB_CUDA_TAB_FLOATS * 16];
	size_t per = sizeof(host) / sizeof(host[0]) / SB_CUDA_TAB_FLOATS;

	for (size_t i = 0; i < n; i += per) {
		size_t m = n - i < per ? n - i : per;

		memset(host, 0, sizeof(host));
		for (size_t j = 0; j < m; j++)
			memcpy(host + j * SB_CUDA_TAB_FLOATS, segs[i + j].tab,
			       sizeof(segs[i + j].tab));
		if (cu_ok(cu,
			  cu->htod(d->tabs + i * SB_CUDA_TAB_FLOATS *
						     sizeof(float),
				   host,
				   m * SB_CUDA_TAB_FLOATS * sizeof(float)),
			  "cuMemcpyHtoD"))
			return -1;
	}
	return 0;
}

/** sb_cuda_fill - zero @zero floats of @zbuf, write @s into @buf, wait. */
int sb_cuda_fill(struct sb_cuda *cu, struct sb_cuda_dev *d, void *stream,
		 float *zbuf, size_t zero, float *buf, const struct sb_seg *s)
{
	if (put_tables(cu, d, s, 1))
		return -1;
	if (zero &&
	    cu_ok(cu, cu->memset32((uint64_t)(uintptr_t)zbuf, 0, zero, stream),
		  "cuMemsetD32Async"))
		return -1;
	if (launch_run(cu, d, d->fill, stream, buf, s, d->tabs))
		return -1;
	return cu_ok(cu, cu->sync(stream), "cuStreamSynchronize");
}

/** sb_cuda_check - the exact count of wrong floats in @n runs, or -1. */
int64_t sb_cuda_check(struct sb_cuda *cu, struct sb_cuda_dev *d, void *stream,
		      const float *buf, const struct sb_seg *segs, size_t n)
{
	size_t slot = SB_CUDA_TAB_FLOATS * sizeof(float);
	uint64_t wrong = 0;

	if (n > d->max_segs) {
		fprintf(stderr, SB_PREFIX "%zu runs to check, room for %zu\n",
			n, d->max_segs);
		return -1;
	}
	if (put_tables(cu, d, segs, n) ||
	    cu_ok(cu, cu->memset32(d->wrong, 0, 2, stream), "cuMemsetD32Async"))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (launch_run(cu, d, d->check, stream, buf, &segs[i],
			       d->tabs + i * slot))
			return -1;
	if (cu_ok(cu, cu->sync(stream), "cuStreamSynchronize") ||
	    cu_ok(cu, cu->dtoh(&wrong, d->wrong, sizeof(wrong)),
		  "cuMemcpyDtoH"))
		return -1;
	return wrong > INT64_MAX ? -1 : (int64_t)wrong;
}
