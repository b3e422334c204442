/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvml_calls LIB [REPS] - what each NVML call of the prolog's accelerator
 * check costs on this machine: per call, the first call's wall time (cold:
 * in this process, after nvmlInit) and the median over REPS (default 31)
 * calls on GPU 0, in microseconds, and its return code;
 * the NVLink calls for every link index 0..17.  Where the prolog's
 * --check spends its time above the floor (nvml_floor: init, count,
 * shutdown).  Run by hand on a GPU machine (tests/device/prolog_h200.sh).
 * Exit 0, or 1 when LIB or nvmlInit fails.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINKS 18

typedef void *dev_t_;
static void *h;
static dev_t_ dev;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void *sym(const char *name)
{
	return dlsym(h, name);
}

/* One call of kind k with argument a (a link, a counter). */
static int call(int k, unsigned a)
{
	unsigned u[4];
	unsigned long long v;
	int e;
	char buf[256];

	switch (k) {
	case 0:
		return ((int (*)(unsigned, dev_t_ *))sym(
			"nvmlDeviceGetHandleByIndex_v2"))(0, &dev);
	case 1:
		return ((int (*)(dev_t_, void *))sym(
			"nvmlDeviceGetPciInfo_v3"))(dev, buf);
	case 2:
		return ((int (*)(dev_t_, char *, unsigned))sym(
			"nvmlDeviceGetName"))(dev, buf, 96);
	case 3:
		return ((int (*)(dev_t_, char *, unsigned))sym(
			"nvmlDeviceGetUUID"))(dev, buf, 96);
	case 4:
		return ((int (*)(dev_t_, unsigned *))sym(
			"nvmlDeviceGetCurrPcieLinkGeneration"))(dev, u);
	case 5:
		return ((int (*)(dev_t_, unsigned *))sym(
			"nvmlDeviceGetMaxPcieLinkGeneration"))(dev, u);
	case 6:
		return ((int (*)(dev_t_, unsigned *))sym(
			"nvmlDeviceGetCurrPcieLinkWidth"))(dev, u);
	case 7:
		return ((int (*)(dev_t_, unsigned *))sym(
			"nvmlDeviceGetMaxPcieLinkWidth"))(dev, u);
	case 8:
		return ((int (*)(dev_t_, unsigned *))sym(
			"nvmlDeviceGetPcieReplayCounter"))(dev, u);
	case 9:
		return ((int (*)(dev_t_, unsigned *, unsigned *, unsigned *,
				 unsigned *))sym("nvmlDeviceGetRemappedRows"))(
			dev, u, u + 1, u + 2, u + 3);
	case 10:
		return ((int (*)(dev_t_, int *))sym(
			"nvmlDeviceGetRetiredPagesPendingStatus"))(dev, &e);
	case 11:
		return ((int (*)(dev_t_, int, int, unsigned long long *))sym(
			"nvmlDeviceGetTotalEccErrors"))(dev, 1, 0, &v);
	case 12:
		return ((int (*)(dev_t_, unsigned, int *))sym(
			"nvmlDeviceGetNvLinkState"))(dev, a, &e);
	case 13:
		return ((int (*)(dev_t_, unsigned, int, unsigned long long *))
				sym("nvmlDeviceGetNvLinkErrorCounter"))(dev, a,
									0, &v);
	case 14: {
		/* nvmlFieldValue_t: 24 bytes up to value, 8 of value */
		unsigned char fv[40] = { 0 };

		*(unsigned *)fv = 230; /* GET_GPU_RECOVERY_ACTION */
		e = ((int (*)(dev_t_, int, void *))sym(
			"nvmlDeviceGetFieldValues"))(dev, 1, fv);
		return e ? e : *(int *)(fv + 20);
	}
	case 15: {
		unsigned char fi[64] = { 0 };

		*(unsigned *)fi = 40u | (3u << 24); /* v3 */
		return ((int (*)(dev_t_, void *))sym(
			"nvmlDeviceGetGpuFabricInfoV"))(dev, fi);
	}
	}
	return -1;
}

static const char *names[] = {
	"HandleByIndex_v2",
	"PciInfo_v3",
	"Name",
	"UUID",
	"CurrPcieLinkGeneration",
	"MaxPcieLinkGeneration",
	"CurrPcieLinkWidth",
	"MaxPcieLinkWidth",
	"PcieReplayCounter",
	"RemappedRows",
	"RetiredPagesPendingStatus",
	"TotalEccErrors",
	"NvLinkState",
	"NvLinkErrorCounter",
	"FieldValues(recovery action)",
	"GpuFabricInfoV",
};

static const char *syms[] = {
	"nvmlDeviceGetHandleByIndex_v2",
	"nvmlDeviceGetPciInfo_v3",
	"nvmlDeviceGetName",
	"nvmlDeviceGetUUID",
	"nvmlDeviceGetCurrPcieLinkGeneration",
	"nvmlDeviceGetMaxPcieLinkGeneration",
	"nvmlDeviceGetCurrPcieLinkWidth",
	"nvmlDeviceGetMaxPcieLinkWidth",
	"nvmlDeviceGetPcieReplayCounter",
	"nvmlDeviceGetRemappedRows",
	"nvmlDeviceGetRetiredPagesPendingStatus",
	"nvmlDeviceGetTotalEccErrors",
	"nvmlDeviceGetNvLinkState",
	"nvmlDeviceGetNvLinkErrorCounter",
	"nvmlDeviceGetFieldValues",
	"nvmlDeviceGetGpuFabricInfoV",
};

static double median_us(int k, unsigned a, int reps, int *rc, double *first)
{
	double *t = calloc((size_t)reps, sizeof(*t)), m;

	for (int i = 0; i < reps; i++) {
		double s = now_us();

		*rc = call(k, a);
		t[i] = now_us() - s;
	}
	*first = t[0];
	qsort(t, (size_t)reps, sizeof(*t), cmp);
	m = t[reps / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 31, rc;
	double total = 0, cold = 0, m, f;

	if (argc < 2 || !(h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) ||
	    ((int (*)(void))sym("nvmlInit_v2"))()) {
		fprintf(stderr, "usage: nvml_calls LIBNVIDIA-ML [REPS]\n");
		return 1;
	}
	if (reps < 1)
		reps = 1;
	for (int k = 0; k < 16; k++) {
		if (!sym(syms[k])) {
			printf("%-30s not in this NVML\n", names[k]);
			continue;
		}
		if (k == 12 || k == 13) {
			double sum = 0, fsum = 0;

			for (unsigned l = 0; l < LINKS; l++) {
				m = median_us(k, l, reps, &rc, &f);
				sum += m;
				fsum += f;
				printf("%-30s link %2u first %8.1f median %8.1f us rc %d\n",
				       names[k], l, f, m, rc);
			}
			printf("%-30s all %2u  first %8.1f median %8.1f us\n",
			       names[k], LINKS, fsum, sum);
			total += sum;
			cold += fsum;
			continue;
		}
		m = median_us(k, 0, reps, &rc, &f);
		total += m;
		cold += f;
		printf("%-30s first %8.1f median %8.1f us rc %d\n", names[k], f,
		       m, rc);
	}
	printf("total, once each: first calls %.1f us, medians %.1f us\n", cold,
	       total);
	((int (*)(void))sym("nvmlShutdown"))();
	return 0;
}
