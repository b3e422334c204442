/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvml_floor LIB - the prolog's floor: what no --check on an NVIDIA node
 * can avoid beyond its own spawn, i.e. loading NVML and its
 * init/count/shutdown.  prolog_bench.sh spawns it as it spawns the prolog.
 * Exit 0 with the count on stdout; 1 if LIB or a call fails.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*init)(void), (*count)(unsigned *), (*shutdown)(void);
	unsigned n = 0;
	void *h;

	if (argc != 2 || !(h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "usage: nvml_floor LIBNVIDIA-ML (%s)\n",
			argc == 2 ? dlerror() : "no library");
		return 1;
	}
	*(void **)&init = dlsym(h, "nvmlInit_v2");
	*(void **)&count = dlsym(h, "nvmlDeviceGetCount_v2");
	*(void **)&shutdown = dlsym(h, "nvmlShutdown");
	if (!init || !count || !shutdown || init() || count(&n) || shutdown())
		return 1;
	printf("%u\n", n);
	return 0;
}
