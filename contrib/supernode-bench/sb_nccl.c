// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_nccl.c: the NCCL backend.  NCCL and the CUDA runtime are loaded with
 * dlopen, so the build needs neither.  One process drives -g GPUs (as
 * nccl-tests' -g); processes join through the control plane given (MPI:
 * the unique id is broadcast over it) or, without MPI, through a shared
 * file (--id-file) with rank and size from SLURM_PROCID/SLURM_NTASKS;
 * then NCCL itself carries the timings and counts between processes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_backend.h"
#include "sb_cuda.h"
#include "sb_hook.h"

#define NCCL_ID_BYTES 128
#define NCCL_FLOAT 7
#define NCCL_DOUBLE 8
#define NCCL_SUM 0
#define CUDA_H2D 1
#define CUDA_D2H 2
#define SB_MAX_GPUS 64

typedef struct {
	char b[NCCL_ID_BYTES];
} nccl_id_t;
typedef void *nccl_comm_t;
typedef void *cuda_stream_t;

/* The entry points we use, with their C signatures. */
struct nccl_api {
	int (*get_id)(nccl_id_t *);
	int (*init_rank)(nccl_comm_t *, int, nccl_id_t, int);
	int (*group_start)(void);
	int (*group_end)(void);
	int (*allreduce)(const void *, void *, size_t, int, int, nccl_comm_t,
			 cuda_stream_t);
	int (*allgather)(const void *, void *, size_t, int, nccl_comm_t,
			 cuda_stream_t);
	int (*reducescatter)(const void *, void *, size_t, int, int,
			     nccl_comm_t, cuda_stream_t);
	int (*broadcast)(const void *, void *, size_t, int, int, nccl_comm_t,
			 cuda_stream_t);
	int (*send)(const void *, size_t, int, int, nccl_comm_t, cuda_stream_t);
	int (*recv)(void *, size_t, int, int, nccl_comm_t, cuda_stream_t);
	int (*destroy)(nccl_comm_t);
	/* optional, as nccl-tests uses them when NCCL has them (NULL if not) */
	int (*mem_alloc)(void **, size_t); /* ncclMemAlloc, NCCL >= 2.19 */
	int (*mem_free)(void *);
	int (*alltoall)(const void *, void *, size_t, int, nccl_comm_t,
			cuda_stream_t); /* ncclAlltoAll, NCCL >= 2.28 */
	const char *(*error)(int);
	int (*version)(int *);
	int (*set_device)(int);
	int (*device_count)(int *);
	int (*malloc)(void **, size_t);
	int (*free)(void *);
	int (*memcpy)(void *, const void *, size_t, int);
	int (*stream_create)(cuda_stream_t *, unsigned int);
	int (*stream_sync)(cuda_stream_t);
	int (*stream_query)(cuda_stream_t);
	int (*device_sync)(void);
	const char *(*cuda_error)(int);
	/* optional (NULL if not): for the messages */
	const char *(*last_error)(nccl_comm_t); /* ncclGetLastError, 2.13 */
	int (*runtime_version)(int *);		/* cudaRuntimeGetVersion */
	int (*driver_version)(int *);		/* cudaDriverGetVersion */
};

struct gpu {
	int dev;
	int rank;
	nccl_comm_t comm;
	cuda_stream_t stream;
	float *send, *recv;
	double *scratch;	 /* control plane over NCCL */
	struct sb_cuda_dev kern; /* fill and check kernels (sb_cuda.c) */
};

struct nccl_be {
	struct nccl_api api;
	void *lib_nccl, *lib_cuda;
	int ngpu;
	struct gpu gpu[SB_MAX_GPUS];
	float *host; /* staging for fill and check */
	size_t max_floats;
	struct sb_cuda *cu;	      /* NULL: fill and check on the host */
	struct sb_seg *segs;	      /* check runs, one per rank at most */
	char where[SB_CUDA_WHY + 64]; /* "on the GPU ..." or "on the host ..." */
#ifdef SB_TEST_KNOBS
	long corrupt; /* test knob: floats spoiled per check */
#endif
	struct sb_ctl own_ctl; /* when started without MPI */
};

static struct nccl_be *be_of(struct sb_backend *b)
{
	return b->priv;
}

/* Load one symbol; -1 with a message when missing. */
static int sym(void *lib, const char *name, void *fp)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, SB_PREFIX "%s not found: %s\n", name,
			dlerror());
		return -1;
	}
	memcpy(fp, &p, sizeof(p));
	return 0;
}

static void *open_first(const char *env, const char *const *names)
{
	const char *e = getenv(env);
	void *h;

	if (e && *e)
		return dlopen(e, RTLD_NOW | RTLD_GLOBAL);
	for (; *names; names++)
		if ((h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL)))
			return h;
	return NULL;
}

/*
 * What nccl-tests uses when NCCL has it: buffers from ncclMemAlloc (its
 * AllocateBuffs since NCCL 2.19) and ncclAlltoAll (its alltoall since
 * 2.28), so both tools measure the same thing.
 */
static void opt_syms(struct nccl_be *n)
{
	void *p[3] = { dlsym(n->lib_nccl, "ncclMemAlloc"),
		       dlsym(n->lib_nccl, "ncclMemFree"),
		       dlsym(n->lib_nccl, "ncclAlltoAll") };
	void *m[3] = { dlsym(n->lib_nccl, "ncclGetLastError"),
		       dlsym(n->lib_cuda, "cudaRuntimeGetVersion"),
		       dlsym(n->lib_cuda, "cudaDriverGetVersion") };

	memcpy(&n->api.last_error, &m[0], sizeof(m[0]));
	memcpy(&n->api.runtime_version, &m[1], sizeof(m[1]));
	memcpy(&n->api.driver_version, &m[2], sizeof(m[2]));

	if (p[0] && p[1]) {
		memcpy(&n->api.mem_alloc, &p[0], sizeof(p[0]));
		memcpy(&n->api.mem_free, &p[1], sizeof(p[1]));
	}
	if (p[2])
		memcpy(&n->api.alltoall, &p[2], sizeof(p[2]));
}

static int load_api(struct nccl_be *n)
{
	static const char *const cudart[] = { "libcudart.so", "libcudart.so.13",
					      "libcudart.so.12",
					      "libcudart.so.11.0", NULL };
	static const char *const nccl[] = { "libnccl.so.2", "libnccl.so",
					    NULL };
	struct nccl_api *a = &n->api;

	n->lib_cuda = open_first("SUPERNODE_BENCH_CUDART", cudart);
	if (!n->lib_cuda) {
		fprintf(stderr,
			SB_PREFIX
			"cannot load the CUDA runtime (libcudart.so; SUPERNODE_BENCH_CUDART=path): %s\n",
			dlerror());
		return -1;
	}
	n->lib_nccl = open_first("SUPERNODE_BENCH_NCCL", nccl);
	if (!n->lib_nccl) {
		fprintf(stderr,
			SB_PREFIX
			"cannot load NCCL (libnccl.so.2; SUPERNODE_BENCH_NCCL=path): %s\n",
			dlerror());
		return -1;
	}
	opt_syms(n);
	return sym(n->lib_nccl, "ncclGetUniqueId", &a->get_id) |
			       sym(n->lib_nccl, "ncclCommInitRank",
				   &a->init_rank) |
			       sym(n->lib_nccl, "ncclGroupStart",
				   &a->group_start) |
			       sym(n->lib_nccl, "ncclGroupEnd", &a->group_end) |
			       sym(n->lib_nccl, "ncclAllReduce",
				   &a->allreduce) |
			       sym(n->lib_nccl, "ncclAllGather",
				   &a->allgather) |
			       sym(n->lib_nccl, "ncclReduceScatter",
				   &a->reducescatter) |
			       sym(n->lib_nccl, "ncclBroadcast",
				   &a->broadcast) |
			       sym(n->lib_nccl, "ncclSend", &a->send) |
			       sym(n->lib_nccl, "ncclRecv", &a->recv) |
			       sym(n->lib_nccl, "ncclCommDestroy",
				   &a->destroy) |
			       sym(n->lib_nccl, "ncclGetErrorString",
				   &a->error) |
			       sym(n->lib_nccl, "ncclGetVersion", &a->version) |
			       sym(n->lib_cuda, "cudaSetDevice",
				   &a->set_device) |
			       sym(n->lib_cuda, "cudaGetDeviceCount",
				   &a->device_count) |
			       sym(n->lib_cuda, "cudaMalloc", &a->malloc) |
			       sym(n->lib_cuda, "cudaFree", &a->free) |
			       sym(n->lib_cuda, "cudaMemcpy", &a->memcpy) |
			       sym(n->lib_cuda, "cudaStreamCreateWithFlags",
				   &a->stream_create) |
			       sym(n->lib_cuda, "cudaStreamSynchronize",
				   &a->stream_sync) |
			       sym(n->lib_cuda, "cudaStreamQuery",
				   &a->stream_query) |
			       sym(n->lib_cuda, "cudaDeviceSynchronize",
				   &a->device_sync) |
			       sym(n->lib_cuda, "cudaGetErrorString",
				   &a->cuda_error) ?
		       -1 :
		       0;
}

#define CUDA_INSUFFICIENT_DRIVER 35 /* cudaErrorInsufficientDriver */

/* A CUDA version as the runtime gives it (12040) as text ("12.4"). */
static void cuda_version_text(int v, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10);
}

/*
 * The runtime needs a newer driver than this node's: both versions and
 * the two ways out (cudaErrorInsufficientDriver, whatever call met it).
 */
static void cuda_driver_too_old(struct nccl_be *n, const char *what)
{
	int rt = 0, drv = 0;
	char r[16], d[16];

	if (n->api.runtime_version)
		n->api.runtime_version(&rt);
	if (n->api.driver_version)
		n->api.driver_version(&drv);
	cuda_version_text(rt, r, sizeof(r));
	cuda_version_text(drv, d, sizeof(d));
	if (!rt) {
		fprintf(stderr,
			SB_PREFIX
			"%s: the CUDA runtime needs a newer NVIDIA driver than this node's: install a newer driver, or set SUPERNODE_BENCH_CUDART to an older libcudart\n",
			what);
	} else if (!drv) {
		fprintf(stderr,
			SB_PREFIX
			"%s: the CUDA runtime is CUDA %s and no NVIDIA driver is loaded on this node: install one for CUDA %s or newer\n",
			what, r, r);
	} else {
		fprintf(stderr,
			SB_PREFIX
			"%s: the CUDA runtime is CUDA %s, this node's NVIDIA driver supports CUDA %s: install a driver for CUDA %s or newer, or set SUPERNODE_BENCH_CUDART to a libcudart of CUDA %s or older\n",
			what, r, d, r, d);
	}
}

/* A CUDA runtime call that failed with @rc: its name and the reason. */
static int cuda_fail(struct nccl_be *n, const char *what, int rc)
{
	if (rc == CUDA_INSUFFICIENT_DRIVER)
		cuda_driver_too_old(n, what);
	else
		fprintf(stderr, SB_PREFIX "%s: %s (CUDA error %d)\n", what,
			n->api.cuda_error(rc), rc);
	return -1;
}

/* An NCCL call that failed with @rc: its name, the reason, NCCL's detail. */
static int nccl_fail(struct nccl_be *n, const char *what, int rc)
{
	const char *last = n->api.last_error ? n->api.last_error(NULL) : NULL;

	fprintf(stderr, SB_PREFIX "%s: %s%s%s\n", what, n->api.error(rc),
		last && *last ? ": " : "", last && *last ? last : "");
	return -1;
}

/* A call that must succeed; the message names the function, never code. */
#define NCCL_CHECK(n, what, call)                      \
	({                                             \
		int _rc = (call);                      \
		_rc ? nccl_fail((n), (what), _rc) : 0; \
	})
#define CUDA_CHECK(n, what, call)                      \
	({                                             \
		int _rc = (call);                      \
		_rc ? cuda_fail((n), (what), _rc) : 0; \
	})

#define CUDA_NOT_READY 600 /* cudaErrorNotReady */

/*
 * Wait for every local GPU's stream, polling as nccl-tests does (a
 * blocking synchronize adds microseconds to small messages).
 */
static int sync_all(struct nccl_be *n)
{
	int left = n->ngpu, done[SB_MAX_GPUS] = { 0 };

	while (left) {
		for (int g = 0; g < n->ngpu; g++) {
			int rc;

			if (done[g])
				continue;
			rc = n->api.stream_query(n->gpu[g].stream);
			if (rc == CUDA_NOT_READY)
				continue;
			if (CUDA_CHECK(n, "cudaStreamQuery", rc))
				return -1;
			done[g] = 1;
			left--;
		}
	}
	return 0;
}

/*
 * Control plane over NCCL (no MPI): an allreduce of doubles over all
 * ranks; the first local GPU carries this process's values, the others
 * zeros, so the sum is over processes.
 */
static int nccl_sum(struct sb_ctl *ctl, double *v, int cnt)
{
	struct nccl_be *n = ctl->priv;
	struct nccl_api *a = &n->api;
	size_t sz = cnt * sizeof(double);
	double zero[16] = { 0 };

	if (cnt > 16)
		return -1;
	for (int g = 0; g < n->ngpu; g++) {
		a->set_device(n->gpu[g].dev);
		if (CUDA_CHECK(n, "cudaMemcpy",
			       a->memcpy(n->gpu[g].scratch, g ? zero : v, sz,
					 CUDA_H2D)) ||
		    CUDA_CHECK(n, "cudaDeviceSynchronize", a->device_sync()))
			return -1;
	}
	a->group_start();
	for (int g = 0; g < n->ngpu; g++) {
		a->set_device(n->gpu[g].dev);
		a->allreduce(n->gpu[g].scratch, n->gpu[g].scratch, cnt,
			     NCCL_DOUBLE, NCCL_SUM, n->gpu[g].comm,
			     n->gpu[g].stream);
	}
	if (NCCL_CHECK(n, "ncclGroupEnd", a->group_end()) || sync_all(n))
		return -1;
	a->set_device(n->gpu[0].dev);
	return CUDA_CHECK(n, "cudaMemcpy",
			  a->memcpy(v, n->gpu[0].scratch, sz, CUDA_D2H));
}

static int nccl_barrier(struct sb_ctl *ctl)
{
	double x = 0;

	return nccl_sum(ctl, &x, 1);
}

/* Wait for @path to hold a whole unique id (rank 0 renames it in place). */
static int read_id(const char *path, nccl_id_t *id)
{
	for (int i = 0; i < 6000; i++) { /* 60 s */
		int fd = open(path, O_RDONLY);

		if (fd >= 0) {
			ssize_t r = read(fd, id, sizeof(*id));

			close(fd);
			if (r == (ssize_t)sizeof(*id))
				return 0;
		}
		usleep(10000);
	}
	fprintf(stderr, SB_PREFIX "no NCCL id in %s after 60 s\n", path);
	return -1;
}

static int write_id(const char *path, const nccl_id_t *id)
{
	char tmp[4096];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, id, sizeof(*id)) != (ssize_t)sizeof(*id) ||
	    fsync(fd) || close(fd) || rename(tmp, path)) {
		fprintf(stderr, SB_PREFIX "cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Process rank and count without MPI: Slurm's, else one process. */
static void env_rank(int *prank, int *nprocs)
{
	const char *r = getenv("SLURM_PROCID"), *s = getenv("SLURM_NTASKS");
	long v;

	*prank = 0;
	*nprocs = 1;
	if (r && s && !sb_parse_uint(s, 1, 1 << 20, &v)) {
		*nprocs = (int)v;
		if (!sb_parse_uint(r, 0, v - 1, &v))
			*prank = (int)v;
	}
}

/* The unique id, the same in every process of the group. */
static int share_id(struct nccl_be *n, struct sb_ctl *ctl,
		    const struct sb_opts *o, nccl_id_t *id)
{
	if (ctl->prank == 0 &&
	    NCCL_CHECK(n, "ncclGetUniqueId", n->api.get_id(id)))
		return -1;
	if (ctl->nprocs == 1)
		return 0;
	if (ctl->bcast)
		return ctl->bcast(ctl, id, sizeof(*id));
	if (!o->id_file) {
		fprintf(stderr,
			SB_PREFIX
			"%d processes without MPI: give --id-file PATH on a shared file system\n",
			ctl->nprocs);
		return -1;
	}
	if (ctl->prank == 0)
		return write_id(o->id_file, id);
	return read_id(o->id_file, id);
}

/* This process's first device: -g GPUs per process, by local rank. */
static int first_device(int ngpus)
{
	static const char *const vars[] = { "SLURM_LOCALID",
					    "OMPI_COMM_WORLD_LOCAL_RANK",
					    "LOCAL_RANK", NULL };
	long v;

	for (int i = 0; vars[i]; i++)
		if (!sb_parse_uint(getenv(vars[i]), 0, 1 << 20, &v))
			return (int)v * ngpus;
	return 0;
}

/* A data buffer of @bytes: ncclMemAlloc when NCCL has it, else cudaMalloc. */
static int buf_alloc(struct nccl_be *n, float **buf, size_t bytes)
{
	if (n->api.mem_alloc)
		return NCCL_CHECK(n, "ncclMemAlloc",
				  n->api.mem_alloc((void **)buf, bytes));
	return CUDA_CHECK(n, "cudaMalloc", n->api.malloc((void **)buf, bytes));
}

static void buf_free(struct nccl_be *n, float *buf)
{
	if (buf && n->api.mem_free)
		n->api.mem_free(buf);
	else if (buf)
		n->api.free(buf);
}

static int setup_gpus(struct nccl_be *n, struct sb_ctl *ctl, int ngpus,
		      const nccl_id_t *id)
{
	struct nccl_api *a = &n->api;
	int ndev, first = first_device(ngpus);
	size_t bytes = n->max_floats * sizeof(float);

	if (CUDA_CHECK(n, "cudaGetDeviceCount", a->device_count(&ndev)))
		return -1;
	if (first + ngpus > ndev) {
		fprintf(stderr,
			SB_PREFIX
			"process %d wants GPUs %d..%d, this node has %d\n",
			ctl->prank, first, first + ngpus - 1, ndev);
		return -1;
	}
	n->ngpu = ngpus;
	for (int g = 0; g < ngpus; g++) {
		struct gpu *u = &n->gpu[g];

		u->dev = first + g;
		u->rank = ctl->prank * ngpus + g;
		if (CUDA_CHECK(n, "cudaSetDevice", a->set_device(u->dev)) ||
		    CUDA_CHECK(n, "cudaStreamCreateWithFlags",
			       a->stream_create(&u->stream, 1)) ||
		    buf_alloc(n, &u->send, bytes) ||
		    buf_alloc(n, &u->recv, bytes) ||
		    CUDA_CHECK(n, "cudaMalloc",
			       a->malloc((void **)&u->scratch,
					 16 * sizeof(double))))
			return -1;
	}
	if (NCCL_CHECK(n, "ncclGroupStart", a->group_start()))
		return -1;
	for (int g = 0; g < ngpus; g++) {
		a->set_device(n->gpu[g].dev);
		a->init_rank(&n->gpu[g].comm, ctl->nprocs * ngpus, *id,
			     n->gpu[g].rank);
	}
	return NCCL_CHECK(n, "ncclGroupEnd", a->group_end());
}

static bool nccl_supports(struct sb_backend *b, enum sb_op op, bool inplace)
{
	(void)b;
	/* send and receive from one buffer would race */
	return !(inplace && (op == SB_ALLTOALL || op == SB_SENDRECV));
}

static int nccl_fill(struct sb_backend *b, enum sb_op op,
		     const struct sb_counts *c, bool inplace)
{
	struct nccl_be *n = be_of(b);
	size_t off, len, all = c->count * sizeof(float);

	for (int g = 0; g < n->ngpu; g++) {
		struct gpu *u = &n->gpu[g];
		float *in = inplace ? u->recv : u->send;
		struct sb_seg s;

		sb_input_layout(op, inplace, u->rank, c, &off, &len);
		if (n->cu) {
			sb_seg_copy(&s, u->rank, off, len, 0);
			n->api.set_device(u->dev);
			if (sb_cuda_fill(n->cu, &u->kern, u->stream, u->recv,
					 c->count, in, &s))
				return -1;
			continue;
		}
		memset(n->host, 0, all);
		n->api.set_device(u->dev);
		if (CUDA_CHECK(n, "cudaMemcpy",
			       n->api.memcpy(u->recv, n->host, all, CUDA_H2D)))
			return -1;
		sb_fill(n->host + off, len, u->rank, 0);
		if (CUDA_CHECK(n, "cudaMemcpy",
			       n->api.memcpy(in, n->host,
					     (off + len) * sizeof(float),
					     CUDA_H2D)) ||
		    CUDA_CHECK(n, "cudaDeviceSynchronize",
			       n->api.device_sync()))
			return -1;
	}
	return 0;
}

/* Enqueue one operation of GPU @u (inside a group). */
static int enqueue(struct nccl_be *n, int nranks, struct gpu *u, enum sb_op op,
		   const struct sb_counts *c, bool ip)
{
	struct nccl_api *a = &n->api;
	float *r = u->recv, *s = ip ? u->recv : u->send;
	size_t blk = c->block;

	switch (op) {
	case SB_ALLREDUCE:
		return a->allreduce(s, r, c->count, NCCL_FLOAT, NCCL_SUM,
				    u->comm, u->stream);
	case SB_ALLGATHER:
		return a->allgather(ip ? r + (size_t)u->rank * blk : s, r, blk,
				    NCCL_FLOAT, u->comm, u->stream);
	case SB_REDUCESCATTER:
		return a->reducescatter(s, ip ? r + (size_t)u->rank * blk : r,
					blk, NCCL_FLOAT, NCCL_SUM, u->comm,
					u->stream);
	case SB_BROADCAST:
		return a->broadcast(s, r, c->count, NCCL_FLOAT, 0, u->comm,
				    u->stream);
	case SB_SENDRECV:
		return a->send(s, c->count, NCCL_FLOAT, (u->rank + 1) % nranks,
			       u->comm, u->stream) ||
		       a->recv(r, c->count, NCCL_FLOAT,
			       (u->rank + nranks - 1) % nranks, u->comm,
			       u->stream);
	case SB_ALLTOALL:
		if (a->alltoall)
			return a->alltoall(s, r, blk, NCCL_FLOAT, u->comm,
					   u->stream);
		for (int p = 0; p < nranks; p++)
			if (a->send(s + p * blk, blk, NCCL_FLOAT, p, u->comm,
				    u->stream) ||
			    a->recv(r + p * blk, blk, NCCL_FLOAT, p, u->comm,
				    u->stream))
				return -1;
		return 0;
	default:
		return -1;
	}
}

static int nccl_run(struct sb_backend *b, enum sb_op op,
		    const struct sb_counts *c, bool inplace, int iters)
{
	struct nccl_be *n = be_of(b);

	for (int i = 0; i < iters; i++) {
		int rc = 0;

		n->api.group_start();
		for (int g = 0; g < n->ngpu; g++) {
			n->api.set_device(n->gpu[g].dev);
			rc |= enqueue(n, b->nranks, &n->gpu[g], op, c, inplace);
		}
		if (NCCL_CHECK(n, "ncclGroupEnd", n->api.group_end()) || rc) {
			fprintf(stderr, SB_PREFIX "%s failed\n",
				sb_op_name(op));
			return -1;
		}
	}
	return sync_all(n);
}

#ifdef SB_TEST_KNOBS
/*
 * Test knob SUPERNODE_BENCH_TEST_CORRUPT=K (test build only): spoil K
 * floats of each result, spread over it, before the check (NaN, -1, 0,
 * +inf in turn; no pattern value or sum is < 1), so #wrong must read K
 * per GPU exactly.
 */
static int corrupt(struct nccl_be *n, float *res, size_t len)
{
	static const float bad[] = { __builtin_nanf(""), -1.0f, 0.0f,
				     __builtin_inff() };

	for (long j = 0; j < n->corrupt && (size_t)j < len; j++)
		if (CUDA_CHECK(n, "cudaMemcpy",
			       n->api.memcpy(res + (size_t)j * len / n->corrupt,
					     &bad[j % 4], sizeof(float),
					     CUDA_H2D)))
			return -1;
	return 0;
}
#endif

/* Wrong floats of GPU @u's result at @loc, counted on the GPU. */
static int64_t check_gpu(struct nccl_be *n, struct gpu *u, int nranks,
			 enum sb_op op, const struct sb_counts *c, size_t loc)
{
	size_t k = sb_check_plan(op, u->rank, nranks, c, n->segs, nranks);

	if (!k)
		return -1;
	return sb_cuda_check(n->cu, &u->kern, u->stream, u->recv + loc, n->segs,
			     k);
}

static int64_t nccl_check(struct sb_backend *b, enum sb_op op,
			  const struct sb_counts *c, bool inplace)
{
	struct nccl_be *n = be_of(b);
	int64_t wrong = 0;

	for (int g = 0; g < n->ngpu; g++) {
		struct gpu *u = &n->gpu[g];
		size_t loc = sb_result_location(op, inplace, u->rank, c, false);

		n->api.set_device(u->dev);
#ifdef SB_TEST_KNOBS
		if (n->corrupt && corrupt(n, u->recv + loc, c->recv))
			return -1;
#endif
		if (n->cu) {
			int64_t w = check_gpu(n, u, b->nranks, op, c, loc);

			if (w < 0)
				return -1;
			wrong += w;
			continue;
		}
		if (CUDA_CHECK(n, "cudaMemcpy",
			       n->api.memcpy(n->host, u->recv + loc,
					     c->recv * sizeof(float),
					     CUDA_D2H)))
			return -1;
		wrong += sb_check(op, n->host, c->recv, u->rank, b->nranks, c);
	}
	return wrong;
}

static void nccl_fini(struct sb_backend *b)
{
	struct nccl_be *n = be_of(b);

	if (!n)
		return;
	for (int g = 0; g < n->ngpu; g++) {
		n->api.set_device(n->gpu[g].dev);
		if (n->cu)
			sb_cuda_dev_fini(n->cu, &n->gpu[g].kern);
		if (n->gpu[g].comm)
			n->api.destroy(n->gpu[g].comm);
		buf_free(n, n->gpu[g].send);
		buf_free(n, n->gpu[g].recv);
		n->api.free(n->gpu[g].scratch);
	}
	sb_cuda_close(n->cu);
	free(n->segs);
	free(n->host);
	free(n);
	b->priv = NULL;
}

/*
 * The fill and check kernels on every local GPU, or the host path with
 * the reason in n->where (SUPERNODE_BENCH_HOST_CHECK=1 asks for it).
 */
static void gpu_kernels(struct nccl_be *n, int nranks)
{
	const char *host = getenv("SUPERNODE_BENCH_HOST_CHECK");
	char why[SB_CUDA_WHY] = "SUPERNODE_BENCH_HOST_CHECK is set";
	int g = 0;

	n->segs = calloc(nranks, sizeof(*n->segs));
	if (!n->segs)
		snprintf(why, sizeof(why), "out of memory");
	else if (!(host && !strcmp(host, "1")))
		n->cu = sb_cuda_open(why, sizeof(why));
	for (; n->cu && g < n->ngpu; g++) {
		n->api.set_device(n->gpu[g].dev);
		if (sb_cuda_dev_init(n->cu, &n->gpu[g].kern, nranks, why,
				     sizeof(why)))
			break;
	}
	if (n->cu && g == n->ngpu) {
		snprintf(n->where, sizeof(n->where),
			 "on the GPU (CUDA driver API, PTX kernels)");
		return;
	}
	while (n->cu && g-- > 0) {
		n->api.set_device(n->gpu[g].dev);
		sb_cuda_dev_fini(n->cu, &n->gpu[g].kern);
	}
	sb_cuda_close(n->cu);
	n->cu = NULL;
	snprintf(n->where, sizeof(n->where),
		 "on the host through cudaMemcpy (%s)", why);
}

/**
 * sb_nccl_backend - the NCCL backend: @o->ngpus GPUs in this process,
 * processes joined by @ctl (MPI) or, when @ctl is NULL, by Slurm's task
 * variables and @o->id_file.  Returns 0 or -1 (message printed).
 */
int sb_nccl_backend(struct sb_ctl *ctl, const struct sb_opts *o,
		    struct sb_backend *b)
{
	struct nccl_be *n = calloc(1, sizeof(*n));
	nccl_id_t id;
	int ver = 0, ndev;

	memset(b, 0, sizeof(*b));
	if (!n)
		return -1;
	b->priv = n;
	b->fini = nccl_fini;
	if (o->ngpus < 1 || o->ngpus > SB_MAX_GPUS || load_api(n))
		return -1;
	if (!ctl) {
		ctl = &n->own_ctl;
		env_rank(&ctl->prank, &ctl->nprocs);
		ctl->barrier = nccl_barrier;
		ctl->sum = nccl_sum;
		ctl->priv = n;
	}
	n->max_floats = o->max_bytes / sizeof(float);
	/* CUDA first: a driver too old for the runtime is named with both
	 * versions here, not as NCCL's "unhandled cuda error". */
	if (CUDA_CHECK(n, "cudaGetDeviceCount", n->api.device_count(&ndev)) ||
	    share_id(n, ctl, o, &id) || setup_gpus(n, ctl, o->ngpus, &id))
		return -1;
	n->api.version(&ver);
	gpu_kernels(n, ctl->nprocs * o->ngpus);
	/* host staging only for the host path: -e bytes of it */
	if (!n->cu && !(n->host = malloc(n->max_floats * sizeof(float)))) {
		fprintf(stderr, SB_PREFIX "no host memory for the check\n");
		return -1;
	}
#ifdef SB_TEST_KNOBS
	sb_parse_uint(getenv(SB_CORRUPT_ENV), 0, 1 << 20, &n->corrupt);
#endif
	if (ctl->prank == 0)
		printf("# NCCL version %d, %d process(es) x %d GPU(s)\n"
		       "# data fill and check %s\n",
		       ver, ctl->nprocs, o->ngpus, n->where);
	b->name = "nccl";
	b->nranks = ctl->nprocs * o->ngpus;
	b->nlocal = o->ngpus;
	b->first_rank = ctl->prank * o->ngpus;
	b->ctl = ctl;
	b->supports = nccl_supports;
	b->fill = nccl_fill;
	b->run = nccl_run;
	b->check = nccl_check;
	return 0;
}
