/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHILD_H
#define SN_CHILD_H
/*
 * Children with time limits, and the clock they are timed by.  A child runs
 * fn(arg, fd); what it writes to fd comes back in the parent, bounded.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* sn_now_ms - CLOCK_MONOTONIC in milliseconds. */
int64_t sn_now_ms(void);

/*
 * sn_run_in_child - run fn(arg) in a child with a time limit; what the child
 * writes to fd (its second argument) comes back in *buf (malloc()ed, at most
 * max_bytes; caller frees).  Returns the child's exit status (0-255), or -1
 * on timeout (child killed), -2 if it died of a signal, -3 if it could not
 * be started.
 */
int sn_run_in_child(int (*fn)(void *arg, int fd), void *arg,
		    uint32_t timeout_ms, size_t max_bytes, char **buf,
		    size_t *len);

/*
 * Several children at once (the check runner): start each, wait for all,
 * read each one's status.  The parent owns buf (malloc()ed, at most max
 * bytes) once sn_child_wait_all returned.
 */
struct sn_child {
	pid_t pid;
	int fd; /* read end; -1 once EOF */
	char *buf;
	size_t len, max;
	int64_t deadline;
	uint32_t limit_ms; /* its time limit, for the timeout message */
	int timed_out;
	int status;	 /* waitpid status, valid if reaped */
	int start_errno; /* why it could not be started */
	int reaped;
	int done;     /* the child finished: its output is whole */
	int done_rc;  /* then its status (0-255) */
	int deferred; /* then whether it still runs deferred cleanup */
};

/*
 * sn_child_start - start fn(arg, fd) in a child to be killed at start +
 * limit_ms (sn_now_ms clock), its output bounded to max bytes.  Returns 0,
 * or -1 with c->start_errno set.
 */
int sn_child_start(struct sn_child *c, int (*fn)(void *, int), void *arg,
		   int64_t start, uint32_t limit_ms, size_t max);

/*
 * sn_child_wait_all - read every child's output until EOF or its deadline,
 * kill those that overrun, reap them with a short grace (a child stuck in
 * the kernel is left behind, never waited for).
 */
void sn_child_wait_all(struct sn_child *cs, unsigned n);

/*
 * sn_child_status - the exit status (0-255), -1 timed out (killed), -2 died
 * of a signal or not reaped, -3 never started.  A child that finished its
 * output (c->done) has that status even when not reaped yet, or killed in
 * its deferred cleanup.
 */
int sn_child_status(const struct sn_child *c);

/*
 * sn_child_defer - in a child of sn_child_start or sn_run_in_child: run
 * fn(arg) after the child's output and status have gone to the parent,
 * which then need not wait for it (NVML's shutdown: milliseconds the
 * prolog's check no longer waits for).  The parent leaves such a child
 * unreaped when it has not exited yet: for short-lived callers only (the
 * programs), whose children init reaps.  At most 4; last in, first run.
 * Returns 0, or -1 outside such a child or when full (then the caller
 * cleans up itself, at once).
 */
int sn_child_defer(void (*fn)(void *), void *arg);

/*
 * sn_child_sigchld_default - take SIGCHLD's default action while children
 * run if the caller ignores it (the kernel would reap them itself); *old is
 * what to restore with sigaction(SIGCHLD, old, NULL).
 */
void sn_child_sigchld_default(struct sigaction *old);

#endif
