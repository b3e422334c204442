// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_hook.c: the watchdog and the test-only knob around a backend's
 * operations (see sb_hook.h); the knob only in the test build
 * (SB_TEST_KNOBS).  A hooked backend runs its operations one
 * at a time, each armed with a deadline of --op-timeout; so are the
 * control plane's barrier and sum.  The watchdog thread looks every
 * 100 ms; it is the only other thread and touches nothing but the armed
 * deadline until it reports a hang and calls _exit().
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_hook.h"

/* Backends and control planes hooked at once (diagnose: world + pair). */
#define SLOTS 8

typedef int (*run_fn)(struct sb_backend *, enum sb_op, const struct sb_counts *,
		      bool, int);
typedef int (*barrier_fn)(struct sb_ctl *);
typedef int (*sum_fn)(struct sb_ctl *, double *, int);

static struct {
	int rank;
	double t0_us, limit_us;
#ifdef SB_TEST_KNOBS
	struct sb_knob knob;
	void *leaks[4096];
	size_t nleaks;
#endif
	sb_hang_fn on_hang;
	atomic_llong deadline_us; /* 0: nothing armed */
	atomic_int what;	  /* the op armed, or -1: barrier/sum */
	atomic_size_t bytes;
	struct {
		void *key;
		run_fn run;
		barrier_fn barrier;
		sum_fn sum;
	} slot[SLOTS];
	int next;
} hk;

static void arm(int what, size_t bytes)
{
	if (hk.limit_us <= 0)
		return;
	atomic_store(&hk.what, what);
	atomic_store(&hk.bytes, bytes);
	atomic_store(&hk.deadline_us, (long long)(sb_now_us() + hk.limit_us));
}

static void disarm(void)
{
	atomic_store(&hk.deadline_us, 0);
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		long long d = atomic_load(&hk.deadline_us);
		double now = sb_now_us();
		int what;

		if (!d || now <= d) {
			usleep(100000);
			continue;
		}
		what = atomic_load(&hk.what);
		fprintf(stderr,
			SB_PREFIX
			"HANG: rank %d: %s of %zu B has not returned after %.1f s (limit %.1f s per operation)\n",
			hk.rank, what < 0 ? "barrier/sum" : sb_op_name(what),
			atomic_load(&hk.bytes), (now - d + hk.limit_us) / 1e6,
			hk.limit_us / 1e6);
		if (hk.on_hang)
			hk.on_hang(what < 0 ? "barrier/sum" : sb_op_name(what),
				   atomic_load(&hk.bytes),
				   (now - d + hk.limit_us) / 1e6);
		_exit(SB_EXIT_HANG);
	}
	return NULL;
}

#ifdef SB_TEST_KNOBS
static void knob_bad(const char *env)
{
	fprintf(stderr,
		SB_PREFIX
		"%s='%s': want RANK:US[:AFTER_S[:LEAK_MIB]] (test only)\n",
		SB_KNOB_ENV, env);
}

int sb_knobs_check(void)
{
	struct sb_knob k;

	if (sb_knob_parse(getenv(SB_KNOB_ENV), &k)) {
		knob_bad(getenv(SB_KNOB_ENV));
		return -1;
	}
	return 0;
}

/* Read the knob for world rank @world_rank: 0, or -1 (printed). */
static int knob_read(int world_rank)
{
	const char *env = getenv(SB_KNOB_ENV);

	if (sb_knob_parse(env, &hk.knob)) {
		knob_bad(env);
		return -1;
	}
	if (hk.knob.on && hk.knob.rank == world_rank)
		fprintf(stderr,
			SB_PREFIX
			"TEST KNOB: rank %d sleeps %.0f us per operation from %.0f s, leaks %.0f MiB per window\n",
			world_rank, hk.knob.us, hk.knob.after_s,
			hk.knob.leak_mib);
	return 0;
}

static bool knob_active(void)
{
	return hk.knob.on && hk.knob.rank == hk.rank &&
	       sb_now_us() - hk.t0_us >= hk.knob.after_s * 1e6;
}
#else
int sb_knobs_check(void)
{
	static const char *const env[] = { SB_KNOB_ENV, SB_CORRUPT_ENV };

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		if (getenv(env[i]))
			fprintf(stderr,
				SB_PREFIX
				"%s is set and ignored: test knobs exist only in the test build (supernode-bench-test)\n",
				env[i]);
	return 0;
}

static int knob_read(int world_rank)
{
	(void)world_rank;
	return 0;
}
#endif

/**
 * sb_hook_init - this process is world rank @world_rank; arm operations
 * with @op_timeout_s (0: no watchdog), calling @on_hang from the
 * watchdog; read the test-only knob (test build).  Returns 0, or -1 with
 * the reason printed (a knob that does not parse, no thread).
 */
int sb_hook_init(int world_rank, double op_timeout_s, sb_hang_fn on_hang)
{
	pthread_t th;

	hk.rank = world_rank;
	hk.t0_us = sb_now_us();
	hk.limit_us = op_timeout_s * 1e6;
	hk.on_hang = on_hang;
	if (knob_read(world_rank))
		return -1;
	if (hk.limit_us > 0 && pthread_create(&th, NULL, watch, NULL)) {
		fprintf(stderr, SB_PREFIX "cannot start the watchdog\n");
		return -1;
	}
	return 0;
}

static int find(void *key)
{
	for (int i = 0; i < SLOTS; i++)
		if (hk.slot[i].key == key)
			return i;
	return -1;
}

static int hooked_run(struct sb_backend *b, enum sb_op op,
		      const struct sb_counts *c, bool inplace, int iters)
{
	int i = find(b), rc = 0;

	if (i < 0)
		return -1;
	for (int k = 0; k < iters && !rc; k++) {
		arm(op, c->bytes);
#ifdef SB_TEST_KNOBS
		if (knob_active())
			usleep((useconds_t)hk.knob.us);
#endif
		rc = hk.slot[i].run(b, op, c, inplace, 1);
		disarm();
	}
	return rc;
}

static int hooked_barrier(struct sb_ctl *ctl)
{
	int i = find(ctl), rc;

	if (i < 0)
		return -1;
	arm(-1, 0);
	rc = hk.slot[i].barrier(ctl);
	disarm();
	return rc;
}

static int hooked_sum(struct sb_ctl *ctl, double *v, int n)
{
	int i = find(ctl), rc;

	if (i < 0)
		return -1;
	arm(-1, 0);
	rc = hk.slot[i].sum(ctl, v, n);
	disarm();
	return rc;
}

/* A slot for @key: its own if hooked before, else the next one round. */
static int slot_for(void *key)
{
	int i = find(key);

	if (i >= 0)
		return i;
	i = hk.next;
	hk.next = (hk.next + 1) % SLOTS;
	memset(&hk.slot[i], 0, sizeof(hk.slot[i]));
	hk.slot[i].key = key;
	return i;
}

/**
 * sb_hook_backend - put the watchdog and the knob around @b's operations
 * and its control plane's barrier and sum.  Hooking again (a backend at
 * the same address, after the last one was closed) is harmless.
 */
void sb_hook_backend(struct sb_backend *b)
{
	int i;

	if (b->run != hooked_run) {
		i = slot_for(b);
		hk.slot[i].run = b->run;
		b->run = hooked_run;
	}
	if (b->ctl && b->ctl->barrier != hooked_barrier) {
		i = slot_for(b->ctl);
		hk.slot[i].barrier = b->ctl->barrier;
		hk.slot[i].sum = b->ctl->sum;
		b->ctl->barrier = hooked_barrier;
		b->ctl->sum = hooked_sum;
	}
}

/**
 * sb_hook_window - a soak window starts: in the test build, the knob's
 * AFTER_S counts from the first window (not from sb_hook_init: MPI and
 * NCCL setup took over 2 s on a loaded host, and the slowdown then began
 * a window early), and the knob's rank leaks its MiB (written, so that
 * they count in RSS) once the knob is active.  Nothing in the installed
 * build.
 */
void sb_hook_window(void)
{
#ifdef SB_TEST_KNOBS
	static bool started;
	size_t len = (size_t)(hk.knob.leak_mib * 1048576);
	void *p;

	if (!started) {
		started = true;
		hk.t0_us = sb_now_us();
	}
	if (!len || !knob_active() || hk.nleaks >= 4096)
		return;
	p = malloc(len);
	if (!p)
		return;
	memset(p, 0x5a, len);
	hk.leaks[hk.nleaks++] = p; /* kept: a leak on purpose */
#endif
}
