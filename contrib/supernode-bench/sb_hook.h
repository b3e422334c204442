/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sb_hook.h: what the soak and --diagnose put around a backend's
 * operations (sb_hook.c):
 *
 *  - the watchdog: every operation (one at a time) and every barrier or
 *    sum of the control plane is armed with a deadline; a thread that
 *    finds one still running past it reports the hang while it hangs
 *    and ends the process with SB_EXIT_HANG;
 *  - the test-only knob SUPERNODE_BENCH_TEST_SLOW="RANK:US[:AFTER_S[:LEAK_MIB]]":
 *    world rank RANK sleeps US µs before each operation, from AFTER_S
 *    seconds after the start, and leaks LEAK_MIB MiB (touched) per soak
 *    window.  For the tests (a slow node, a slowdown, a hang, a leak)
 *    only.
 *
 * The test knobs (SUPERNODE_BENCH_TEST_SLOW here, SUPERNODE_BENCH_TEST_CORRUPT
 * in sb_nccl.c) are compiled only with SB_TEST_KNOBS, set for the test
 * build supernode-bench-test (never installed).  The installed
 * supernode-bench ignores both variables and says so on stderr: nobody can
 * make --diagnose --drain blame a node or fake a soak flag with them.
 */
#ifndef SB_HOOK_H
#define SB_HOOK_H

#include "sb_backend.h"
#include "sb_soak.h"

/* The test knob that spoils results before the check (sb_nccl.c). */
#define SB_CORRUPT_ENV "SUPERNODE_BENCH_TEST_CORRUPT"

/* Called from the watchdog thread when an operation hangs, before exit. */
typedef void (*sb_hang_fn)(const char *what, size_t bytes, double waited_s);

/*
 * sb_knobs_check - before anything runs.  Test build: a malformed
 * SUPERNODE_BENCH_TEST_SLOW is refused (-1, message printed).  Installed
 * build: each test knob that is set is reported ignored on stderr; 0.
 */
int sb_knobs_check(void);

int sb_hook_init(int world_rank, double op_timeout_s, sb_hang_fn on_hang);
void sb_hook_backend(struct sb_backend *b);
void sb_hook_window(void);

#endif /* SB_HOOK_H */
