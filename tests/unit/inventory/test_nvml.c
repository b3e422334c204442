/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NVML loader (lib/nvml.c) against the fake libnvidia-ml.so.1 of
 * tests/fake_nvml: loading and its failures, every value of a GPU, the
 * knobs (lost, unknown, count, init failure, hang), a library without the
 * optional functions, and the real 2x H200 capture (fixtures/nvidia).
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_nvml.h"

#define SYNTH SN_FIXTURES "/accel/nvml-4xh100-sxm.json"
#define PCIE SN_FIXTURES "/accel/nvml-2xl40s-pcie.json"
#define REAL SN_FIXTURES "/nvidia/nvml-h200x2.json"

static const char *const knobs[] = {
	"SN_FAKE_NVML_FIXTURE", "SN_FAKE_NVML_HANG",  "SN_FAKE_NVML_LOST",
	"SN_FAKE_NVML_UNKNOWN", "SN_FAKE_NVML_COUNT", "SN_FAKE_NVML_INIT_FAIL",
};

static int clear_knobs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	return 0;
}

/* Absolute paths of the fake libraries (tests/fake_nvml/CMakeLists.txt). */
#ifdef SN_FAKE_NVML
#define FAKE SN_FAKE_NVML
#define FAKE_MIN SN_FAKE_NVML_MIN
#else
#define FAKE NULL
#define FAKE_MIN NULL
#endif
static const char *const fake_lib = FAKE;
static const char *const fake_min_lib = FAKE_MIN;

/* The fake's path, or skip the test when this build has none. */
static const char *fake_path(void)
{
	if (!fake_lib)
		skip();
	return fake_lib;
}

static const char *fake_min_path(void)
{
	if (!fake_min_lib)
		skip();
	return fake_min_lib;
}

static struct sn_nvml *open_fake(const char *fixture)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;

	setenv("SN_FAKE_NVML_FIXTURE", fixture, 1);
	err_reset(&err);
	if (sn_nvml_open(fake_path(), &nvml, &err))
		fail_msg("sn_nvml_open: %s", err.msg);
	return nvml;
}

static unsigned int active_links(const struct sn_nvml_gpu *g)
{
	unsigned int n = 0;

	for (unsigned int l = 0; l < g->n_links; l++)
		n += g->links[l].active;
	return n;
}

/* ---- pure helpers ------------------------------------------------------- */

static void test_bdf_normalize(void **state)
{
	char out[SN_BDF_SIZE];

	(void)state;
	assert_int_equal(
		sn_pci_bdf_normalize("00000000:1B:00.0", out, sizeof(out)), 0);
	assert_string_equal(out, "0000:1b:00.0");
	assert_int_equal(sn_pci_bdf_normalize("0000:5a:00.1", out, sizeof(out)),
			 0);
	assert_string_equal(out, "0000:5a:00.1");
	assert_int_equal(
		sn_pci_bdf_normalize("00010000:E1:1F.7", out, sizeof(out)), 0);
	assert_string_equal(out, "10000:e1:1f.7");
	assert_int_equal(
		sn_pci_bdf_normalize("FFFFFFFF:FF:FF.0", out, sizeof(out)), -1);
	assert_int_equal(sn_pci_bdf_normalize("0000:1b:00", out, sizeof(out)),
			 -1);
	assert_string_equal(out, "");
	assert_int_equal(
		sn_pci_bdf_normalize("0000:1b:00.0x", out, sizeof(out)), -1);
	assert_int_equal(sn_pci_bdf_normalize("000000000:1b:00.0", out,
					      sizeof(out)),
			 -1);
	assert_int_equal(sn_pci_bdf_normalize("", out, sizeof(out)), -1);
	assert_int_equal(sn_pci_bdf_normalize(NULL, out, sizeof(out)), -1);
	assert_int_equal(sn_pci_bdf_normalize("0000:1b:00.0", out, 8), -1);
}

static void test_error_strings(void **state)
{
	(void)state;
	assert_string_equal(sn_nvml_error_string(NULL,
						 SN_NVML_ERROR_GPU_IS_LOST),
			    "GPU is lost");
	assert_string_equal(sn_nvml_error_string(NULL, SN_NVML_ERROR_UNKNOWN),
			    "Unknown Error");
	assert_string_equal(sn_nvml_error_string(NULL,
						 SN_NVML_ERROR_NOT_SUPPORTED),
			    "Not Supported");
	assert_string_equal(sn_nvml_error_string(NULL, 12345),
			    "Unknown NVML return code");
	assert_true(sn_nvml_rc_is_failure(SN_NVML_ERROR_GPU_IS_LOST));
	assert_true(sn_nvml_rc_is_failure(SN_NVML_ERROR_UNKNOWN));
	assert_false(sn_nvml_rc_is_failure(SN_NVML_ERROR_NOT_SUPPORTED));
	assert_false(sn_nvml_rc_is_failure(SN_NVML_SUCCESS));
}

/* ---- loading ------------------------------------------------------------ */

static void test_open_missing_library(void **state)
{
	struct sn_nvml *nvml = (struct sn_nvml *)1;
	struct sn_error err;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_nvml_open("/nonexistent/libnvidia-ml.so.1", &nvml,
				      &err),
			 -1);
	assert_null(nvml);
	assert_string_equal(
		err.msg,
		"NVIDIA's NVML library not found where paths.nvml points: install the NVIDIA driver's libnvidia-ml package, or correct paths.nvml: /nonexistent/libnvidia-ml.so.1");
	/* The default, a name for the loader's search, that it does not find. */
	err_reset(&err);
	assert_int_equal(sn_nvml_open("libsn-no-such-nvml.so.1", &nvml, &err),
			 -1);
	assert_string_equal(
		err.msg,
		"NVIDIA's NVML library (libsn-no-such-nvml.so.1) not found: install the NVIDIA driver's libnvidia-ml package, or set paths.nvml");
	err_reset(&err);
	assert_int_equal(sn_nvml_open("", &nvml, &err), -1);
	assert_contains(err.msg, "paths.nvml is empty");
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("sn_nvml_open blocked on a FIFO");
}

/*
 * paths.nvml naming a FIFO: refused at once, naming what it is (dlopen()
 * would wait for a writer forever; the alarm fails the test instead).
 */
static void test_open_fifo_refused(void **state)
{
	char dir[] = "/tmp/sn-nvml-XXXXXX", path[64], want[128];
	struct sn_nvml *nvml = (struct sn_nvml *)1;
	struct sn_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libnvidia-ml.so.1", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	signal(SIGALRM, on_alarm);
	alarm(10);
	err_reset(&err);
	assert_int_equal(sn_nvml_open(path, &nvml, &err), -1);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	assert_null(nvml);
	snprintf(want, sizeof(want), "not a regular file (fifo): %s", path);
	assert_string_equal(err.msg, want);
	unlink(path);
	rmdir(dir);
}

static void test_open_not_nvml(void **state)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_nvml_open("libm.so.6", &nvml, &err), -1);
	assert_null(nvml);
	assert_contains(err.msg, "no symbol nvmlInit_v2");
}

static void test_init_fail(void **state)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;
	const char *path = fake_path();

	(void)state;
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	setenv("SN_FAKE_NVML_INIT_FAIL", "1", 1);
	err_reset(&err);
	assert_int_equal(sn_nvml_open(path, &nvml, &err), -1);
	assert_null(nvml);
	assert_contains(err.msg, "nvmlInit_v2: Driver Not Loaded (9)");
}

static void test_bad_fixture_fails_init(void **state)
{
	struct sn_nvml *nvml = NULL;
	struct sn_error err;
	const char *path = fake_path();

	(void)state;
	setenv("SN_FAKE_NVML_FIXTURE", SN_FIXTURES "/accel/README.md", 1);
	err_reset(&err);
	assert_int_equal(sn_nvml_open(path, &nvml, &err), -1);
	assert_contains(err.msg, "nvmlInit_v2: Unknown Error (999)");
}

static void test_open_close_repeatedly(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++) {
		struct sn_nvml *nvml = open_fake(i % 2 ? SYNTH : PCIE);
		unsigned int count = 0;

		assert_int_equal(sn_nvml_device_count(nvml, &count),
				 SN_NVML_SUCCESS);
		assert_int_equal(count, i % 2 ? 4 : 2);
		sn_nvml_close(nvml);
	}
	sn_nvml_close(NULL);
}

/* ---- values ------------------------------------------------------------- */

static void test_read_synthetic(void **state)
{
	struct sn_nvml *nvml = open_fake(SYNTH);
	struct sn_nvml_gpu *g = malloc(sizeof(*g));
	char driver[SN_NVML_DRIVER_VERSION_SIZE];
	unsigned int count = 0;

	(void)state;
	assert_non_null(g);
	assert_int_equal(sn_nvml_driver_version(nvml, driver, sizeof(driver)),
			 SN_NVML_SUCCESS);
	assert_string_equal(driver, "550.90.07");
	assert_int_equal(sn_nvml_device_count(nvml, &count), SN_NVML_SUCCESS);
	assert_int_equal(count, 4);
	assert_int_equal(sn_nvml_read_gpu(nvml, 2, SN_NVML_READ_COUNTERS, g),
			 SN_NVML_SUCCESS);
	assert_null(g->lost_call);
	assert_int_equal(g->index, 2);
	assert_string_equal(g->bus_id, "0000:52:00.0");
	assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(g->uuid,
			    "GPU-00000000-0000-4000-8000-000000000002");
	assert_int_equal(g->gen_cur.value, 5);
	assert_int_equal(g->width_max.value, 16);
	assert_int_equal(g->remap_rc, SN_NVML_SUCCESS);
	assert_int_equal(g->retired_pending.rc, SN_NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(g->links_rc, SN_NVML_SUCCESS);
	assert_int_equal(g->n_links, 18);
	assert_int_equal(active_links(g), 18);
	assert_int_equal(g->links[17].errors[SN_NVLINK_ERR_CRC_DATA].rc,
			 SN_NVML_SUCCESS);
	/* Past the last link NVML says "invalid argument": not a GPU error. */
	assert_int_equal(sn_nvml_read_gpu(nvml, 4, 0, g),
			 SN_NVML_ERROR_INVALID_ARGUMENT);
	free(g);
	sn_nvml_close(nvml);
}

static void test_read_without_counters(void **state)
{
	struct sn_nvml *nvml = open_fake(SYNTH);
	struct sn_nvml_gpu *g = malloc(sizeof(*g));

	(void)state;
	assert_non_null(g);
	assert_int_equal(sn_nvml_read_gpu(nvml, 0, 0, g), SN_NVML_SUCCESS);
	assert_int_equal(g->n_links, 18);
	assert_int_equal(g->links[0].errors[SN_NVLINK_ERR_REPLAY].rc,
			 SN_NVML_ERROR_NOT_SUPPORTED);
	free(g);
	sn_nvml_close(nvml);
}

static void test_read_pcie_gpu_without_nvlink(void **state)
{
	struct sn_nvml *nvml = open_fake(PCIE);
	struct sn_nvml_gpu *g = malloc(sizeof(*g));

	(void)state;
	assert_non_null(g);
	assert_int_equal(sn_nvml_read_gpu(nvml, 1, SN_NVML_READ_COUNTERS, g),
			 SN_NVML_SUCCESS);
	assert_string_equal(g->bus_id, "0000:d8:00.0");
	assert_int_equal(g->links_rc, SN_NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(g->n_links, 0);
	assert_int_equal(g->remap_rc, SN_NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(g->retired_pending.rc, SN_NVML_SUCCESS);
	assert_int_equal(g->retired_pending.value, 0);
	assert_int_equal(g->gen_cur.value, 1);
	assert_int_equal(g->gen_max.value, 4);
	assert_null(g->lost_call);
	free(g);
	sn_nvml_close(nvml);
}

/* ---- knobs -------------------------------------------------------------- */

static void test_lost_handle(void **state)
{
	struct sn_nvml *nvml;
	struct sn_nvml_gpu *g;

	(void)state;
	fake_path();
	g = malloc(sizeof(*g));
	assert_non_null(g);
	setenv("SN_FAKE_NVML_LOST", "1", 1);
	nvml = open_fake(SYNTH);
	assert_int_equal(sn_nvml_read_gpu(nvml, 1, 0, g),
			 SN_NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(g->handle_rc, SN_NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(g->lost_rc, SN_NVML_ERROR_GPU_IS_LOST);
	assert_string_equal(g->lost_call, "nvmlDeviceGetHandleByIndex_v2");
	assert_string_equal(g->bus_id, "");
	assert_int_equal(sn_nvml_read_gpu(nvml, 0, 0, g), SN_NVML_SUCCESS);
	free(g);
	sn_nvml_close(nvml);
}

static void test_lost_later_stops_queries(void **state)
{
	struct sn_nvml *nvml;
	struct sn_nvml_gpu *g;

	(void)state;
	fake_path();
	g = malloc(sizeof(*g));
	assert_non_null(g);
	setenv("SN_FAKE_NVML_LOST", "3:later", 1);
	nvml = open_fake(SYNTH);
	assert_int_equal(sn_nvml_read_gpu(nvml, 3, SN_NVML_READ_COUNTERS, g),
			 SN_NVML_SUCCESS);
	assert_int_equal(g->lost_rc, SN_NVML_ERROR_GPU_IS_LOST);
	assert_string_equal(g->lost_call, "nvmlDeviceGetPciInfo_v3");
	assert_int_equal(g->pci_rc, SN_NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(g->name_rc, SN_NVML_NOT_QUERIED);
	assert_int_equal(g->width_cur.rc, SN_NVML_NOT_QUERIED);
	assert_int_equal(g->remap_rc, SN_NVML_NOT_QUERIED);
	assert_int_equal(g->ecc_uncorrected.rc, SN_NVML_NOT_QUERIED);
	assert_int_equal(g->links_rc, SN_NVML_NOT_QUERIED);
	assert_int_equal(g->n_links, 0);
	free(g);
	sn_nvml_close(nvml);
}

static void test_unknown_handle(void **state)
{
	struct sn_nvml *nvml;
	struct sn_nvml_gpu *g;

	(void)state;
	fake_path();
	g = malloc(sizeof(*g));
	assert_non_null(g);
	setenv("SN_FAKE_NVML_UNKNOWN", "0", 1);
	nvml = open_fake(SYNTH);
	assert_int_equal(sn_nvml_read_gpu(nvml, 0, 0, g),
			 SN_NVML_ERROR_UNKNOWN);
	assert_string_equal(sn_nvml_error_string(nvml, g->handle_rc),
			    "Unknown Error");
	free(g);
	sn_nvml_close(nvml);
}

static void test_count_override(void **state)
{
	struct sn_nvml *nvml;
	unsigned int count = 0;

	(void)state;
	setenv("SN_FAKE_NVML_COUNT", "3", 1);
	nvml = open_fake(SYNTH);
	assert_int_equal(sn_nvml_device_count(nvml, &count), SN_NVML_SUCCESS);
	assert_int_equal(count, 3);
	sn_nvml_close(nvml);
}

/* Run fn in a child with a 1 s alarm; returns its wait status. */
static int run_with_alarm(const char *hang, int (*fn)(void))
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("SN_FAKE_NVML_HANG", hang, 1);
		alarm(1);
		_exit(fn());
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static int child_count(void)
{
	struct sn_nvml *nvml = NULL;
	unsigned int count = 0;

	if (sn_nvml_open(fake_lib, &nvml, NULL))
		return 2;
	sn_nvml_device_count(nvml, &count);
	return 3; /* returned: the fake did not hang */
}

static int child_read(void)
{
	struct sn_nvml *nvml = NULL;
	struct sn_nvml_gpu *g = malloc(sizeof(*g));

	if (!g || sn_nvml_open(fake_lib, &nvml, NULL))
		return 2;
	sn_nvml_read_gpu(nvml, 0, 0, g);
	return 3;
}

static void test_hang_where_told(void **state)
{
	int status;

	(void)state;
	fake_path();
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	status = run_with_alarm("nvmlDeviceGetCount_v2", child_count);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGALRM);
	status = run_with_alarm("nvmlDeviceGetNvLinkState", child_read);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGALRM);
	/* Told to hang elsewhere, the same call returns. */
	status = run_with_alarm("nvmlDeviceGetRemappedRowsXX", child_count);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

/* ---- a library without the optional functions --------------------------- */

static void test_minimal_library(void **state)
{
	struct sn_nvml *nvml = NULL;
	struct sn_nvml_gpu *g;
	char driver[SN_NVML_DRIVER_VERSION_SIZE];
	struct sn_error err;
	const char *path = fake_min_path();

	(void)state;
	g = malloc(sizeof(*g));
	assert_non_null(g);
	setenv("SN_FAKE_NVML_FIXTURE", SYNTH, 1);
	err_reset(&err);
	if (sn_nvml_open(path, &nvml, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sn_nvml_driver_version(nvml, driver, sizeof(driver)),
			 SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_string_equal(driver, "");
	assert_int_equal(sn_nvml_read_gpu(nvml, 0, SN_NVML_READ_COUNTERS, g),
			 SN_NVML_SUCCESS);
	assert_null(g->lost_call);
	assert_int_equal(g->pci_rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_string_equal(g->bus_id, "");
	assert_int_equal(g->name_rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(g->width_cur.rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(g->remap_rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(g->retired_pending.rc,
			 SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(g->ecc_corrected.rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	assert_int_equal(g->links_rc, SN_NVML_ERROR_FUNCTION_NOT_FOUND);
	/* Without nvmlErrorString the built-in texts are used. */
	assert_string_equal(sn_nvml_error_string(nvml,
						 SN_NVML_ERROR_GPU_IS_LOST),
			    "GPU is lost");
	free(g);
	sn_nvml_close(nvml);
}

/* ---- real data: 2x H200, driver 580.159.04 ------------------------------ */

static void test_real_h200x2(void **state)
{
	static const unsigned long long crc_data[2][18] = {
		{ 6, 8, 1, 8, 3, 3, 11, 4, 10, 3, 25, 3, 6, 8, 4, 6, 12, 3 },
		{ 13, 26, 14, 6, 10, 14, 6, 13, 8, 18, 6, 6, 8, 11, 3, 2, 7,
		  12 },
	};
	static const char *const bus[2] = { "0000:00:06.0", "0000:00:07.0" };
	static const unsigned int replay[2] = { 5, 1 };
	struct sn_nvml_gpu *g;
	char driver[SN_NVML_DRIVER_VERSION_SIZE];
	struct sn_nvml *nvml;
	unsigned int count = 0;

	(void)state;
	fake_path();
	g = malloc(sizeof(*g));
	assert_non_null(g);
	nvml = open_fake(REAL);
	assert_int_equal(sn_nvml_driver_version(nvml, driver, sizeof(driver)),
			 SN_NVML_SUCCESS);
	assert_string_equal(driver, "580.159.04");
	assert_int_equal(sn_nvml_device_count(nvml, &count), SN_NVML_SUCCESS);
	assert_int_equal(count, 2);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(sn_nvml_read_gpu(nvml, i,
						  SN_NVML_READ_COUNTERS, g),
				 SN_NVML_SUCCESS);
		assert_null(g->lost_call);
		assert_string_equal(g->name, "NVIDIA H200");
		assert_string_equal(g->bus_id, bus[i]);
		assert_int_equal(g->gen_cur.value, 5);
		assert_int_equal(g->gen_max.value, 5);
		assert_int_equal(g->width_cur.value, 16);
		assert_int_equal(g->width_max.value, 16);
		assert_int_equal(g->replay.value, replay[i]);
		assert_int_equal(g->ecc_uncorrected.rc, SN_NVML_SUCCESS);
		assert_int_equal(g->ecc_uncorrected.value, 0);
		assert_int_equal(g->remap_rc, SN_NVML_SUCCESS);
		assert_int_equal(g->remap_pending, 0);
		assert_int_equal(g->remap_failure, 0);
		assert_int_equal(g->retired_pending.rc,
				 SN_NVML_ERROR_NOT_SUPPORTED);
		assert_int_equal(g->n_links, 18);
		assert_int_equal(active_links(g), 18);
		for (unsigned int l = 0; l < 18; l++) {
			assert_int_equal(
				g->links[l].errors[SN_NVLINK_ERR_CRC_DATA].value,
				crc_data[i][l]);
			assert_int_equal(
				g->links[l].errors[SN_NVLINK_ERR_REPLAY].value,
				0);
		}
	}
	assert_string_equal(g->uuid,
			    "GPU-73b1e10b-c9e7-0efd-e256-35f5d7cf7cb9");
	free(g);
	sn_nvml_close(nvml);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, clear_knobs, clear_knobs)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bdf_normalize),
		T(test_error_strings),
		T(test_open_missing_library),
		T(test_open_not_nvml),
		T(test_open_fifo_refused),
		T(test_init_fail),
		T(test_bad_fixture_fails_init),
		T(test_open_close_repeatedly),
		T(test_read_synthetic),
		T(test_read_without_counters),
		T(test_read_pcie_gpu_without_nvlink),
		T(test_lost_handle),
		T(test_lost_later_stops_queries),
		T(test_unknown_handle),
		T(test_count_override),
		T(test_hang_where_told),
		T(test_minimal_library),
		T(test_real_h200x2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
