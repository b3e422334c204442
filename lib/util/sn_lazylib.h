/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_LAZYLIB_H
#define SN_LAZYLIB_H
/*
 * A system library loaded on the first call into it, not at program start:
 * no DT_NEEDED names it, so a process that never calls it (sbatch without
 * --supernode, a prolog check that needs no hwloc) never maps or relocates
 * it.  The library comes from the system's library path by its SONAME (the
 * one the build was made against), as a DT_NEEDED entry would; no
 * configured path is involved (sn_safedir_dlopen() is for those).
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
 * these, zero the rest).  @version: the symbol version for dlvsym(), or
 * NULL for dlsym().
 */
struct sn_lazylib {
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
