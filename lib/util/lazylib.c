/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries loaded on first use (sn_lazylib.h): the one dlopen() and
 * lookup behind every SN_LAZY() function.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "util/sn_lazylib.h"

void *sn_lazylib_sym(struct sn_lazylib *l, const char *name)
{
	void *h = __atomic_load_n(&l->handle, __ATOMIC_ACQUIRE);
	void *f;

	if (!h && !__atomic_load_n(&l->tried, __ATOMIC_ACQUIRE)) {
		if (l->path && l->path[0] == '/')
			h = dlopen(l->path, l->flags);
		if (!h)
			h = dlopen(l->soname, l->flags);
		__atomic_store_n(&l->handle, h, __ATOMIC_RELEASE);
		__atomic_store_n(&l->tried, true, __ATOMIC_RELEASE);
	}
	if (!h) {
		errno = ELIBACC;
		return NULL;
	}
	f = l->version ? dlvsym(h, name, l->version) : dlsym(h, name);
	if (!f)
		errno = ELIBACC;
	return f;
}
