// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake_cudart.c: one library that is both the CUDA runtime and NCCL for
 * supernode-bench's NCCL backend (SUPERNODE_BENCH_CUDART and
 * SUPERNODE_BENCH_NCCL both name it), on a node whose driver is older
 * than the runtime: every CUDA call fails with cudaErrorInsufficientDriver
 * (35) and every NCCL call with ncclUnhandledCudaError (1), as the real
 * ones do there.  No GPU is needed.
 *
 * Knobs (environment):
 *   FAKE_CUDART_RUNTIME=N  cudaRuntimeGetVersion (default 12040: 12.4)
 *   FAKE_CUDART_DRIVER=N   cudaDriverGetVersion (default 12020: 12.2;
 *                          0: no driver loaded)
 */
#include <stddef.h>
#include <stdlib.h>

#define CUDA_INSUFFICIENT_DRIVER 35
#define NCCL_UNHANDLED_CUDA 1

static int env_int(const char *name, int def)
{
	const char *s = getenv(name);

	return s && *s ? atoi(s) : def;
}

int cudaRuntimeGetVersion(int *v)
{
	*v = env_int("FAKE_CUDART_RUNTIME", 12040);
	return 0;
}

int cudaDriverGetVersion(int *v)
{
	*v = env_int("FAKE_CUDART_DRIVER", 12020);
	return 0;
}

const char *cudaGetErrorString(int rc)
{
	return rc == CUDA_INSUFFICIENT_DRIVER ?
		       "CUDA driver version is insufficient for CUDA runtime version" :
		       "unknown error";
}

const char *ncclGetErrorString(int rc)
{
	return rc == NCCL_UNHANDLED_CUDA ?
		       "unhandled cuda error (run with NCCL_DEBUG=INFO for details)" :
		       "unknown result code";
}

const char *ncclGetLastError(void *comm)
{
	(void)comm;
	return "Cuda failure 35 'CUDA driver version is insufficient for CUDA runtime version'";
}

int ncclGetVersion(int *v)
{
	*v = 22809;
	return 0;
}

/* Every other entry point: the runtime's or NCCL's failure. */
#define CUDA_FAILS(name)                         \
	int name(void)                           \
	{                                        \
		return CUDA_INSUFFICIENT_DRIVER; \
	}
#define NCCL_FAILS(name)                    \
	int name(void)                      \
	{                                   \
		return NCCL_UNHANDLED_CUDA; \
	}
CUDA_FAILS(cudaGetDeviceCount)
CUDA_FAILS(cudaSetDevice)
CUDA_FAILS(cudaMalloc)
CUDA_FAILS(cudaFree)
CUDA_FAILS(cudaMemcpy)
CUDA_FAILS(cudaStreamCreateWithFlags)
CUDA_FAILS(cudaStreamSynchronize)
CUDA_FAILS(cudaStreamQuery)
CUDA_FAILS(cudaDeviceSynchronize)
NCCL_FAILS(ncclGetUniqueId)
NCCL_FAILS(ncclCommInitRank)
NCCL_FAILS(ncclGroupStart)
NCCL_FAILS(ncclGroupEnd)
NCCL_FAILS(ncclAllReduce)
NCCL_FAILS(ncclAllGather)
NCCL_FAILS(ncclReduceScatter)
NCCL_FAILS(ncclBroadcast)
NCCL_FAILS(ncclSend)
NCCL_FAILS(ncclRecv)
NCCL_FAILS(ncclCommDestroy)
