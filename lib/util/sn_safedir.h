/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SAFEDIR_H
#define SN_SAFEDIR_H

/*
 * The folders and files that root's prolog and epilog write where users may
 * write too (epilog.record_dir on shared storage, epilog.textfile_dir,
 * paths.state_dir): no symbolic link is ever followed and nothing is
 * written into a folder that a user owns.
 *
 * A folder is opened from "/" one component at a time with
 * openat(O_DIRECTORY | O_NOFOLLOW) (mkdirat() first when it is missing and
 * the caller creates), and each component is checked on its descriptor:
 *   - it must be owned by root, by this process's effective uid, or by a
 *     system account (uid 1 to 999) named in paths.trusted_owners
 *     (sn_safedir_trust_owners; Debian's prometheus owns
 *     /var/lib/prometheus): "folder owned by uid 65534 (nobody), not by
 *     root: PATH";
 *   - writable by group or others only with the sticky bit (as /tmp):
 *     "folder writable by group or others without the sticky bit: PATH";
 *   - a symbolic link is followed only when the folder holding it is owned
 *     by root (or us) and writable by no group or other, sticky or not: no
 *     one else can have made it or can change it (a stateless node's
 *     /var/spool -> /local/spool).  The walk then starts again from "/"
 *     along the link's target (at most SN_SAFEDIR_MAX_LINKS links), every
 *     component checked again; messages name the real path.  Any other
 *     link is refused: "a symbolic link, not followed: PATH".
 * The walk holds descriptors, so a component renamed or replaced during
 * it changes nothing: every later step is relative to what was checked.
 * sn_safedir_sub() (our own job and baseline folders) follows no link.
 *
 * Libraries that root loads (paths.nvml, paths.dcmi, and any later
 * library a config names) go through sn_safedir_dlopen(), programs it runs
 * (paths.imex_ctl) through sn_safedir_program(): the same walk
 * with owners root and us only (never a named account: its owner would
 * run code as root), and the file itself regular, owned by root (or us),
 * not writable by group or others.
 *
 * Files in such a folder: written under a temporary name "NAME.PID.tmp"
 * with openat(O_CREAT | O_EXCL | O_NOFOLLOW), fsync'd, renameat() over
 * NAME in the same folder, the folder fsync'd; read and locked only when
 * they are regular files of root (or us) with a single link.  A process
 * killed while writing leaves its "NAME.PID.tmp"; sn_safedir_sweep()
 * removes those of dead processes.
 *
 * Messages put the phrase first and the path last.
 */
#include <stdbool.h>
#include <stddef.h>

#include "util/sn_error.h"

/* Entries sn_safedir_sweep() looks at per call, at most. */
#define SN_SAFEDIR_SWEEP_MAX 256
/* Symbolic links one walk follows, at most (Linux's own limit). */
#define SN_SAFEDIR_MAX_LINKS 40
/* paths.trusted_owners: at most this many names of at most 32 bytes. */
#define SN_SAFEDIR_MAX_OWNERS 8
#define SN_SAFEDIR_OWNER_MAX 32
/* A trusted owner must be a system account: uid 1 to this - 1. */
#define SN_SAFEDIR_SYSTEM_UID_END 1000

/*
 * sn_safedir_trust_owners - the accounts (names, n of them; copied) whose
 * folders and files are trusted as root's, when they are system accounts
 * (uid 1 to 999; nobody, 65534, never is).  Process-wide; the config
 * loader sets it from paths.trusted_owners.  Returns 0, or -1 (nothing
 * changed) when n or a name is over the limits above.
 */
int sn_safedir_trust_owners(const char *const *names, size_t n);

/*
 * sn_safedir_library - whether the library path may be loaded by root (see
 * above).  A bare soname (no '/') is left to the dynamic loader's system
 * search, a missing file to dlopen() to report.  Returns 0, or -1 with err
 * set: "library owned by uid 65534 (nobody), not by root: PATH", "library
 * writable by group or others: PATH", "not a regular file (fifo): PATH",
 * or a folder's refusal as above.
 */
int sn_safedir_library(const char *path, struct sn_error *err);

/*
 * sn_safedir_program - the same for a program root runs (paths.imex_ctl):
 * "program owned by uid 65534 (nobody), not by root: PATH".  A missing
 * one is left to the caller.
 */
int sn_safedir_program(const char *path, struct sn_error *err);

/*
 * sn_safedir_dlopen - dlopen(path, flags) after sn_safedir_library(); the
 * one way a configured library is loaded.  Returns the handle, or NULL
 * with err set (the refusal, or "dlopen: " and dlerror()); after a failed
 * dlopen errno is ENOENT when the library is not there (the path does not
 * exist, or the loader's search found no such name), so that the caller
 * can say what to install, else ELIBBAD.
 */
void *sn_safedir_dlopen(const char *path, int flags, struct sn_error *err);

/*
 * sn_safedir_open - open the folder path (absolute; "." and ".." refused)
 * as above, creating missing components with mode when create.  Returns a
 * descriptor (O_RDONLY | O_DIRECTORY; the caller closes it), or -1 with
 * errno set (ENOENT: a component is missing and !create; ELOOP: a link;
 * EPERM: an untrusted owner or mode; ENOTDIR; ...) and err set.
 */
int sn_safedir_open(const char *path, unsigned mode, bool create,
		    struct sn_error *err);

/*
 * sn_safedir_sub - the same one step further: the folder name (no '/')
 * inside the trusted folder dirfd, whose path dir is for messages.
 */
int sn_safedir_sub(int dirfd, const char *dir, const char *name, unsigned mode,
		   bool create, struct sn_error *err);

/*
 * sn_safedir_write - make name in dirfd hold exactly data (len bytes),
 * atomically (see above); mode for the new file.  A stale "name.PID.tmp"
 * of ours (a dead process had our PID) is replaced.  Returns 0, or -1 with
 * err set ("cannot write: No space left on device: DIR/NAME.PID.tmp");
 * nothing is replaced then and no temporary is left.
 */
int sn_safedir_write(int dirfd, const char *dir, const char *name,
		     const void *data, size_t len, unsigned mode,
		     struct sn_error *err);

/*
 * sn_safedir_load - the regular file name in dirfd (no link followed,
 * never blocks), of at most max bytes, owned by root or us, one link; read
 * whole into a malloc()ed, NUL-terminated buffer (caller frees; *len
 * bytes).  Returns NULL with errno set and err set otherwise: ENOENT (no
 * such file), ELOOP (a symbolic link), EINVAL (not a regular file, or more
 * than one link), EPERM (another owner), EFBIG (over max), or a read
 * error.
 */
char *sn_safedir_load(int dirfd, const char *dir, const char *name, size_t max,
		      size_t *len, struct sn_error *err);

/*
 * sn_safedir_lock - an exclusive flock() on name in dirfd (created 0600 if
 * missing; an existing one must be a regular file of root or us), waiting
 * at most wait_ms.  Returns the descriptor to keep (close it to release),
 * or -1 with err set.
 */
int sn_safedir_lock(int dirfd, const char *dir, const char *name,
		    unsigned wait_ms, struct sn_error *err);

/*
 * sn_safedir_remove - remove the file name from the trusted folder dirfd
 * (dir: its path, for the message); a file already gone is no error.
 * Returns 0, or -1 with err set ("cannot remove: Permission denied:
 * DIR/NAME").
 */
int sn_safedir_remove(int dirfd, const char *dir, const char *name,
		      struct sn_error *err);

/*
 * sn_safedir_sweep - remove the stale temporaries of sn_safedir_write() in
 * dirfd: names "BASE.PID.tmp" (BASE starting with one of prefixes, a
 * NULL-terminated list, when prefixes is not NULL; PID 1 to 2^31-1 in
 * decimal) that are regular files owned by root or us, whose process is
 * gone (kill(PID, 0) fails with ESRCH).  At most SN_SAFEDIR_SWEEP_MAX
 * entries are looked at.  PIDs are this node's: in a folder that several
 * nodes write, pass prefixes only this node uses.  Returns the number of
 * files removed.
 */
size_t sn_safedir_sweep(int dirfd, const char *const *prefixes);

#endif
