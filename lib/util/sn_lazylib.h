/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_LAZYLIB_H
#define SN_LAZYLIB_H
/*
 * A system library loaded on the first call into it, not at program start:
 * no DT_NEEDED names it, so a process that never calls it (sbatch without
 * --supernode, a prolog check that needs no hwloc) never maps or relocates
 * it.  The library is the one the build was made against: first the file
 * of its SONAME in the folder where the build found it (an absolute path
 * fixed at build time, in a system folder), else its SONAME through the
 * system's library path, as a DT_NEEDED entry would be.  No configured path
 * is involved (sn_safedir_dlopen() is for those).
 *
 * The absolute path first: a name without a slash makes ld.so map
 * /etc/ld.so.cache, search it and unmap it again on every dlopen(), and
 * that unmap stops the process's other threads for a TLB flush.  In a
 * fresh process with a second thread (as slurmstepd), libyaml took a
 * median 580 us by SONAME and 390 us by path, on the bench's 2-core VM.
 *
 * A file defines the library's functions it uses with SN_LAZY() and
 * SN_LAZY_VOID(); each resolves the real one on its first call and keeps
 * it.  When the library or the symbol is missing, the call returns the
 * given failure value with errno ELIBACC (a void function does nothing).
 * Safe from several threads: the worst case is two identical lookups.
 */
#include <errno.h>
#include <stdbool.h>

/*
 * struct sn_lazylib - one library: its SONAME and dlopen() flags (set
 * these, zero the rest).  @path: the absolute file tried first, or NULL
 * (or "") for the SONAME alone.  @version: the symbol version for
 * dlvsym(), or NULL for dlsym().
 */
struct sn_lazylib {
	const char *path;
	const char *soname;
	const char *version;
	int flags; /* RTLD_NOW, | RTLD_GLOBAL where its own plugins need it */
	void *handle;
	bool tried;
};

/*
 * sn_lazylib_sym - the real NAME in L, loading L on the first call.
 * Returns NULL with errno ELIBACC when L cannot be loaded (once tried, it
 * is not tried again) or has no NAME.
 */
void *sn_lazylib_sym(struct sn_lazylib *l, const char *name);

/* RET NAME(PARAMS) forwarding ARGS to the real one, FAIL when it is missing. */
#define SN_LAZY(lib, ret, name, params, args, fail)                 \
	ret name params                                             \
	{                                                           \
		typedef ret(*fn_t) params;                          \
		static fn_t fn;                                     \
		fn_t f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);    \
		if (!f) {                                           \
			f = (fn_t)sn_lazylib_sym(&(lib), #name);    \
			if (!f)                                     \
				return fail;                        \
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE); \
		}                                                   \
		return f args;                                      \
	}

/* void NAME(PARAMS): does nothing when the real one is missing. */
#define SN_LAZY_VOID(lib, name, params, args)                       \
	void name params                                            \
	{                                                           \
		typedef void(*fn_t) params;                         \
		static fn_t fn;                                     \
		fn_t f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);    \
		if (!f) {                                           \
			f = (fn_t)sn_lazylib_sym(&(lib), #name);    \
			if (!f)                                     \
				return;                             \
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE); \
		}                                                   \
		f args;                                             \
	}

#endif
