// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake_cuda.c: a libcuda.so.1 for the tests of sb_cuda.c on a machine
 * without a GPU (the hardware edge, as tests/fake_nvml is NVML's).  Device
 * memory is host memory; a "launch" of sb_fill or sb_check runs the PTX
 * kernels' algorithm in C, thread by thread of the grid asked for (each
 * thread keeps k = (off + i) mod 31 by adding the grid's size mod 31, as
 * the PTX does), so the launch arguments, the grid, the tables and the
 * counter that sb_cuda.c sets up are all exercised.
 *
 * Knobs (environment):
 *   FAKE_CUDA_INIT_RC=N    cuInit returns N
 *   FAKE_CUDA_PTX_ERROR=1  cuModuleLoadDataEx returns 218 (invalid PTX)
 *                          with "ptxas fatal: fake" in the error log
 *   FAKE_CUDA_SMS=N        multiprocessors (default 2: a grid of 16
 *                          blocks of 256, so long runs loop)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_INVALID_PTX 218
#define CUDA_ERROR_NOT_FOUND 500

struct fake_fn {
	const char *name;
};

static struct fake_fn fill_fn = { "sb_fill" }, check_fn = { "sb_check" };
static int fake_module;
static unsigned int last_blocks;

/* For the tests: the grid of the last launch. */
unsigned int fake_cuda_last_blocks(void)
{
	return last_blocks;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

int cuInit(unsigned int flags)
{
	(void)flags;
	return env_int("FAKE_CUDA_INIT_RC", 0);
}

int cuGetErrorString(int rc, const char **s)
{
	switch (rc) {
	case CUDA_ERROR_INVALID_VALUE:
		*s = "invalid argument";
		return 0;
	case 3:
		*s = "initialization error";
		return 0;
	case CUDA_ERROR_INVALID_PTX:
		*s = "a PTX JIT compilation failed";
		return 0;
	case CUDA_ERROR_NOT_FOUND:
		*s = "named symbol not found";
		return 0;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

int cuCtxGetDevice(int *dev)
{
	*dev = 0;
	return 0;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	if (attr != 16)
		return CUDA_ERROR_INVALID_VALUE;
	*v = env_int("FAKE_CUDA_SMS", 2);
	return 0;
}

int cuModuleLoadDataEx(void **mod, const void *image, unsigned int n, int *opts,
		       void **vals)
{
	const char *ptx = image;
	char *log = NULL;

	for (unsigned int i = 0; i < n; i++)
		if (opts[i] == 5)
			log = vals[i];
	if (env_int("FAKE_CUDA_PTX_ERROR", 0)) {
		if (log)
			strcpy(log, "ptxas fatal: fake");
		return CUDA_ERROR_INVALID_PTX;
	}
	if (!strstr(ptx, ".entry sb_fill(") || !strstr(ptx, ".entry sb_check("))
		return CUDA_ERROR_INVALID_PTX;
	*mod = &fake_module;
	return 0;
}

int cuModuleUnload(void *mod)
{
	return mod == &fake_module ? 0 : CUDA_ERROR_INVALID_VALUE;
}

int cuModuleGetFunction(void **fn, void *mod, const char *name)
{
	if (mod != &fake_module)
		return CUDA_ERROR_INVALID_VALUE;
	if (!strcmp(name, fill_fn.name))
		*fn = &fill_fn;
	else if (!strcmp(name, check_fn.name))
		*fn = &check_fn;
	else
		return CUDA_ERROR_NOT_FOUND;
	return 0;
}

/* One thread of either kernel, as the PTX walks its floats. */
static void thread(const struct fake_fn *fn, uint64_t i, uint64_t stride,
		   void **args)
{
	float *buf = (float *)(uintptr_t) * (uint64_t *)args[0];
	uint64_t n = *(uint64_t *)args[1], off = *(uint64_t *)args[2];
	const float *tab = (const float *)(uintptr_t) * (uint64_t *)args[3];
	uint32_t k = (uint32_t)((off + i) % 31), step = stride % 31;
	uint64_t wrong = 0;

	for (; i < n; i += stride) {
		if (fn == &fill_fn)
			buf[i] = tab[k];
		else
			wrong += buf[i] != tab[k];
		k += step;
		if (k >= 31)
			k -= 31;
	}
	if (wrong)
		*(uint64_t *)(uintptr_t) * (uint64_t *)args[4] += wrong;
}

int cuLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
		   unsigned int bx, unsigned int by, unsigned int bz,
		   unsigned int shmem, void *stream, void **args, void **extra)
{
	uint64_t threads = (uint64_t)gx * bx;

	(void)stream;
	if ((f != &fill_fn && f != &check_fn) || !gx || !bx || gy != 1 ||
	    gz != 1 || by != 1 || bz != 1 || shmem || !args || extra)
		return CUDA_ERROR_INVALID_VALUE;
	last_blocks = gx;
	for (uint64_t t = 0; t < threads; t++)
		thread(f, t, threads, args);
	return 0;
}

int cuMemAlloc_v2(uint64_t *p, size_t bytes)
{
	void *m = calloc(1, bytes);

	if (!m)
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	*p = (uint64_t)(uintptr_t)m;
	return 0;
}

int cuMemFree_v2(uint64_t p)
{
	free((void *)(uintptr_t)p);
	return 0;
}

int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes)
{
	memcpy((void *)(uintptr_t)dst, src, bytes);
	return 0;
}

int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes)
{
	memcpy(dst, (const void *)(uintptr_t)src, bytes);
	return 0;
}

int cuMemsetD32Async(uint64_t p, unsigned int v, size_t n, void *stream)
{
	uint32_t *u = (uint32_t *)(uintptr_t)p;

	(void)stream;
	for (size_t i = 0; i < n; i++)
		u[i] = v;
	return 0;
}

int cuStreamSynchronize(void *stream)
{
	(void)stream;
	return 0;
}
