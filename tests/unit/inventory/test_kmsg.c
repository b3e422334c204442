/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_kmsg_position / sn_kmsg_read_since: our record and text fixtures, the
 * real logs in fixtures/nvidia/kmsg, a
 * played /dev/kmsg behind /dev/null through the read hook (EAGAIN, EPIPE,
 * the per-call bounds), and the real /dev/kmsg when readable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "unit.h"

#include "inventory/sn_kmsg.h"

#define OWN SN_FIXTURES "/kmsg/"
#define REAL SN_FIXTURES "/nvidia/kmsg/"

/* What a read_since call handed out. */
struct seen {
	size_t n;
	uint64_t seq[64];
	char msg[64][256];
	int level[64];
	int facility[64];
	size_t stop_after; /* 0 = never stop */
	size_t total;	   /* all records, also past 64 */
	uint64_t last;
};

static int collect(const struct sn_kmsg_record *r, void *arg)
{
	struct seen *s = arg;

	assert_int_equal(strlen(r->msg), r->len);
	if (s->n < 64) {
		s->seq[s->n] = r->seq;
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", r->msg);
		s->level[s->n] = r->level;
		s->facility[s->n] = r->facility;
		s->n++;
	}
	if (s->total)
		assert_true(r->seq >= s->last);
	s->total++;
	s->last = r->seq;
	return s->stop_after && s->total >= s->stop_after;
}

static uint64_t position(const char *path)
{
	uint64_t seq = 12345;

	assert_int_equal(sn_kmsg_position(path, &seq), 0);
	return seq;
}

static int since(const char *path, uint64_t seq, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return sn_kmsg_read_since(path, seq, collect, s);
}

/* ---- our fixtures ----------------------------------------------------- */

static void test_records_position(void **state)
{
	(void)state;
	assert_int_equal(position(OWN "records.kmsg"), 105);
	assert_int_equal(position(OWN "noise.kmsg"), 3);
	assert_int_equal(position(OWN "dmesg.log"), 5);
	assert_int_equal(position(OWN "empty.log"), 0);
}

static void test_records_since(void **state)
{
	struct seen s;

	(void)state;
	assert_int_equal(since(OWN "records.kmsg", 102, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.seq[0], 103);
	assert_int_equal(s.seq[2], 105);
	assert_string_equal(s.msg[0], "user space says hello");
	assert_int_equal(s.facility[0], 1);
	assert_int_equal(s.level[0], 4);
	assert_string_equal(
		s.msg[2],
		"NVRM: Xid (PCI:0000:1b:00): 94, pid=1234, name=python3, Contained: SM (0x1). RST: No, D-RST: No");

	/* the dictionary lines are not records */
	assert_int_equal(since(OWN "records.kmsg", 100, &s), 0);
	assert_int_equal(s.n, 5);
	assert_string_equal(
		s.msg[0],
		"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07");
	assert_string_equal(
		s.msg[1],
		"NVRM: Xid (PCI:0000:1b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.");
	assert_int_equal(s.level[1], 3);

	assert_int_equal(since(OWN "records.kmsg", 105, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(since(OWN "records.kmsg", 99, &s), 0);
	assert_int_equal(s.n, 6);
}

/* A baseline older than the oldest record: the records between are lost. */
static void test_records_lost_and_restarted(void **state)
{
	struct seen s;

	(void)state;
	assert_int_equal(since(OWN "records.kmsg", 0, &s), SN_KMSG_LOST);
	assert_int_equal(s.n, 6);
	assert_int_equal(since(OWN "records.kmsg", 42, &s), SN_KMSG_LOST);
	/* a baseline newer than every record: the log restarted (reboot) */
	assert_int_equal(since(OWN "records.kmsg", 1000, &s),
			 SN_KMSG_RESTARTED);
	assert_int_equal(s.n, 0);
}

static void test_records_noise(void **state)
{
	struct seen s;

	(void)state;
	assert_int_equal(since(OWN "noise.kmsg", 0, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.msg[0], "first");
	assert_string_equal(s.msg[1], "second");
	assert_string_equal(s.msg[2], "third");
}

static void test_text_lines(void **state)
{
	struct seen s;

	(void)state;
	assert_int_equal(since(OWN "dmesg.log", 0, &s), 0);
	assert_int_equal(s.n, 4); /* line 3 is empty */
	assert_int_equal(s.seq[0], 1);
	assert_int_equal(s.seq[2], 4);
	assert_int_equal(s.level[2], -1);
	assert_int_equal(s.facility[2], -1);
	assert_contains(s.msg[2], "NVRM: Xid (PCI:0000:1b:00): 48");
	assert_int_equal(since(OWN "dmesg.log", 3, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.msg[1],
			    "[   11.000000] mlx5_core 0000:0c:00.0: Link down");
	assert_int_equal(since(OWN "empty.log", 0, &s), 0);
	assert_int_equal(s.n, 0);
}

static void test_callback_stops(void **state)
{
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(sn_kmsg_read_since(OWN "records.kmsg", 101, collect,
					    &s),
			 SN_KMSG_STOPPED);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.last, 103);
}

static void test_errors(void **state)
{
	uint64_t seq = 7;
	struct seen s;

	(void)state;
	assert_int_equal(sn_kmsg_position(OWN "nope.kmsg", &seq), -ENOENT);
	assert_int_equal(seq, 0);
	assert_int_equal(sn_kmsg_position(OWN, &seq),
			 -EINVAL); /* a directory */
	assert_int_equal(since(OWN "nope.kmsg", 0, &s), -ENOENT);
	assert_int_equal(sn_kmsg_read_since(OWN "records.kmsg", 0, NULL, NULL),
			 -EINVAL);
}

/* A NUL byte in a text line ends its message: len is strlen(msg) (fuzz_kmsg). */
static void test_text_nul_byte(void **state)
{
	char path[] = "/tmp/sn-kmsg-nul-XXXXXX";
	static const char text[] =
		"NVRM: Xid\0 (PCI:0000:1b:00): 79\nnext line\n";
	struct seen s;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
			 (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(since(path, 0, &s), 0); /* collect() checks len */
	assert_int_equal(s.n, 2);
	assert_string_equal(s.msg[0], "NVRM: Xid");
	assert_int_equal(s.seq[1], 2);
	assert_string_equal(s.msg[1], "next line");
	unlink(path);
}

/* A text line longer than a record is cut; the numbering goes on. */
static void test_long_line(void **state)
{
	char path[] = "/tmp/sn-kmsg-long-XXXXXX";
	size_t big = SN_KMSG_RECORD_MAX + 5000;
	char *line = malloc(big + 1);
	struct seen s;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0 && line);
	memset(line, 'x', big);
	line[big] = '\n';
	assert_int_equal(write(fd, line, big + 1), (ssize_t)(big + 1));
	assert_int_equal(write(fd, "short\n", 6), 6);
	close(fd);
	memset(&s, 0, sizeof(s));
	assert_int_equal(sn_kmsg_position(path, &s.last), 0);
	assert_int_equal(s.last, 2);
	assert_int_equal(since(path, 1, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.msg[0], "short");
	unlink(path);
	free(line);
}

/* ---- the real logs ---------------------------------------------------- */

/* Physical lines (a last line without newline counts) and empty ones. */
static void count_lines(const char *path, uint64_t *lines, uint64_t *blank)
{
	FILE *f = fopen(path, "r");
	int c, prev = '\n';

	assert_non_null(f);
	*lines = *blank = 0;
	while ((c = fgetc(f)) != EOF) {
		if (c == '\n') {
			(*lines)++;
			*blank += prev == '\n';
		}
		prev = c;
	}
	if (prev != '\n')
		(*lines)++;
	fclose(f);
}

static void check_real_file(const char *dir, const char *name)
{
	char path[512];
	uint64_t pos, lines, blank;
	struct seen s;
	int flags;

	snprintf(path, sizeof(path), "%s%s", dir, name);
	pos = position(path);
	flags = since(path, 0, &s);
	assert_true(flags >= 0);
	assert_int_equal(s.last, pos); /* position = last record */
	assert_int_equal(since(path, pos, &s), 0);
	assert_int_equal(s.n, 0);
	if (strstr(name, "gpud-kmsg.")) {
		assert_int_equal(flags, SN_KMSG_LOST); /* starts at 3964/3973 */
		return;
	}
	count_lines(path, &lines, &blank);
	assert_int_equal(pos, lines);
	assert_int_equal(since(path, 0, &s), 0);
	assert_int_equal(s.total, lines - blank);
	assert_int_equal(since(path, pos - 2, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.seq[1], pos);
}

static void test_real_logs(void **state)
{
	DIR *d = opendir(REAL);
	struct dirent *e;
	size_t files = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		check_real_file(REAL, e->d_name);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 9);
}

static void test_real_records(void **state)
{
	struct seen s;

	(void)state;
	assert_int_equal(position(REAL "gpud-kmsg.1.log"), 4010);
	assert_int_equal(since(REAL "gpud-kmsg.1.log", 4007, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.seq[0], 4008);
	assert_string_equal(
		s.msg[2],
		"IPv6: ADDRCONF(NETDEV_CHANGE): calic24dd7712a6: link becomes ready");
	assert_int_equal(since(REAL "gpud-kmsg.1.log", 3963, &s), 0);
	assert_int_equal(s.total, 47);
	/* eight records that all carry sequence number 3973 (no final \n) */
	assert_int_equal(position(REAL "gpud-kmsg.2.peermem.log"), 3973);
	assert_int_equal(since(REAL "gpud-kmsg.2.peermem.log", 3972, &s), 0);
	assert_int_equal(s.n, 8);
	assert_string_equal(s.msg[7], "test");
}

/* ---- a played /dev/kmsg (char device + read hook) ----------------------- */

enum step {
	REC,
	EPIPE_STEP,
	EAGAIN_STEP,
	BAD
};

static const struct {
	enum step step;
	const char *text;
} * play;
static size_t play_len, play_pos;
static uint64_t gen_first, gen_count, gen_pos; /* generated records */

static ssize_t play_read(int fd, void *buf, size_t len)
{
	const char *text;
	size_t n;

	(void)fd;
	if (play_pos >= play_len || play[play_pos].step == EAGAIN_STEP) {
		errno = EAGAIN;
		return -1;
	}
	if (play[play_pos].step == EPIPE_STEP) {
		play_pos++;
		errno = EPIPE;
		return -1;
	}
	text = play[play_pos++].text;
	n = strlen(text);
	assert_true(n <= len);
	memcpy(buf, text, n);
	return (ssize_t)n;
}

static ssize_t gen_read(int fd, void *buf, size_t len)
{
	unsigned long long i = gen_pos;

	(void)fd;
	if (gen_pos >= gen_count) {
		errno = EAGAIN;
		return -1;
	}
	gen_pos++;
	return snprintf(buf, len, "6,%llu,%llu,-;generated %llu\n",
			gen_first + i, i, i);
}

#define PLAY(script)                                             \
	do {                                                     \
		play = (const void *)(script);                   \
		play_len = sizeof(script) / sizeof((script)[0]); \
		play_pos = 0;                                    \
		sn_kmsg_set_read_hook(play_read);                \
	} while (0)

static int hook_off(void **state)
{
	(void)state;
	sn_kmsg_set_read_hook(NULL);
	return 0;
}

static void test_device_records(void **state)
{
	static const struct {
		enum step step;
		const char *text;
	} script[] = {
		{ REC,
		  "6,500,1,-;NVRM: loading\n SUBSYSTEM=pci\n DEVICE=+pci:0000:1b:00.0\n" },
		{ REC,
		  "4,501,2,-;NVRM: Xid (PCI:0000:1b:00): 48, pid=1, name=a, DBE\n" },
		{ REC, "4,502,3,c;tail\\x0awith an escaped newline\n" },
		{ EAGAIN_STEP, NULL },
		{ REC, "6,503,4,-;never read: EAGAIN came first\n" },
	};
	uint64_t seq;
	struct seen s;

	(void)state;
	PLAY(script);
	assert_int_equal(sn_kmsg_position("/dev/null", &seq), 0);
	assert_int_equal(seq, 502);
	PLAY(script);
	assert_int_equal(since("/dev/null", 500, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(
		s.msg[0], "NVRM: Xid (PCI:0000:1b:00): 48, pid=1, name=a, DBE");
	assert_string_equal(s.msg[1], "tail\\x0awith an escaped newline");
}

/* EPIPE: records were overwritten; reading goes on at the oldest one. */
static void test_device_epipe(void **state)
{
	static const struct {
		enum step step;
		const char *text;
	} script[] = {
		{ REC, "6,10,1,-;old\n" },
		{ EPIPE_STEP, NULL },
		{ REC, "6,20,2,-;after the overwrite\n" },
		{ REC, "6,21,3,-;newest\n" },
	};
	struct seen s;

	(void)state;
	PLAY(script);
	assert_int_equal(since("/dev/null", 9, &s), SN_KMSG_LOST);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.seq[1], 20);
	PLAY(script);
	assert_int_equal(sn_kmsg_position("/dev/null", &s.last), 0);
	assert_int_equal(s.last, 21);
}

static void test_device_not_kmsg(void **state)
{
	static const struct {
		enum step step;
		const char *text;
	} script[] = {
		{ REC, "6,1,1,-;fine\n" },
		{ BAD, "garbage without a kmsg header\n" },
	};
	uint64_t seq;
	struct seen s;

	(void)state;
	PLAY(script);
	assert_int_equal(since("/dev/null", 0, &s), -EINVAL);
	assert_int_equal(s.n, 1); /* what came before stays handed out */
	PLAY(script);
	assert_int_equal(sn_kmsg_position("/dev/null", &seq), -EINVAL);
}

/* More records than one call hands out: MORE, then the rest. */
static void test_device_bounds(void **state)
{
	struct seen s;

	(void)state;
	gen_first = 1000;
	gen_count = SN_KMSG_MAX_RECORDS + 50;
	gen_pos = 0;
	sn_kmsg_set_read_hook(gen_read);
	assert_int_equal(since("/dev/null", 999, &s), SN_KMSG_MORE);
	assert_int_equal(s.total, SN_KMSG_MAX_RECORDS);
	gen_pos = 0;
	assert_int_equal(since("/dev/null", s.last, &s), 0);
	assert_int_equal(s.total, 50);
	assert_int_equal(s.last, 1000 + SN_KMSG_MAX_RECORDS + 49);
}

/* The real /dev/kmsg, when this process may read it: never blocks. */
static void test_live_kmsg(void **state)
{
	uint64_t seq;
	struct seen s;
	int rc;

	(void)state;
	rc = sn_kmsg_position("/dev/kmsg", &seq);
	if (rc) {
		print_message("/dev/kmsg: %s\n", strerror(-rc));
		skip();
	}
	rc = since("/dev/kmsg", seq, &s);
	assert_true(rc >= 0);
	assert_false(rc & SN_KMSG_LOST);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.seq[i] > seq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_position),
		cmocka_unit_test(test_records_since),
		cmocka_unit_test(test_records_lost_and_restarted),
		cmocka_unit_test(test_records_noise),
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_text_nul_byte),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_real_logs),
		cmocka_unit_test(test_real_records),
		cmocka_unit_test_teardown(test_device_records, hook_off),
		cmocka_unit_test_teardown(test_device_epipe, hook_off),
		cmocka_unit_test_teardown(test_device_not_kmsg, hook_off),
		cmocka_unit_test_teardown(test_device_bounds, hook_off),
		cmocka_unit_test(test_live_kmsg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
