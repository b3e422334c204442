/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvml_floor LIB [--attach] - the prolog's floor: what no --check on an
 * NVIDIA node can avoid beyond its own spawn, i.e. loading NVML and its
 * init/count/shutdown.  prolog_bench.sh spawns it as it spawns the prolog.
 * --attach: also a handle and the name of every GPU, the least any check
 * of a GPU asks (NVML attaches each GPU on its first device query: where
 * persistence mode is off, the driver then initialises it).
 * Exit 0 with the count on stdout; 1 if LIB or a call fails.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int (*init)(void), (*count)(unsigned *), (*shutdown)(void);
	int (*handle)(unsigned, void **), (*name)(void *, char *, unsigned);
	int attach = argc == 3 && !strcmp(argv[2], "--attach");
	unsigned n = 0;
	char buf[96];
	void *h, *dev;

	if (argc < 2 || argc > 2 + attach ||
	    !(h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr,
			"usage: nvml_floor LIBNVIDIA-ML [--attach] (%s)\n",
			argc >= 2 ? dlerror() : "no library");
		return 1;
	}
	*(void **)&init = dlsym(h, "nvmlInit_v2");
	*(void **)&count = dlsym(h, "nvmlDeviceGetCount_v2");
	*(void **)&shutdown = dlsym(h, "nvmlShutdown");
	*(void **)&handle = dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&name = dlsym(h, "nvmlDeviceGetName");
	if (!init || !count || !shutdown || !handle || !name || init() ||
	    count(&n))
		return 1;
	for (unsigned i = 0; attach && i < n; i++)
		if (handle(i, &dev) || name(dev, buf, sizeof(buf)))
			return 1;
	if (shutdown())
		return 1;
	printf("%u\n", n);
	return 0;
}
