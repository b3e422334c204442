/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel log cursor (see sn_kmsg.h).  Record format and read semantics:
 * Linux Documentation/ABI/testing/dev-kmsg (one record per read(2),
 * EAGAIN with O_NONBLOCK at the end, EPIPE when the reader's record was
 * overwritten, EINVAL when the buffer is too small for a record).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inventory/sn_kmsg.h"

#define FILE_CHUNK 65536    /* read(2) size for regular files */
#define HEADER_FIELD_MAX 64 /* bytes of FLAGS[,...] before ';' */

static ssize_t (*read_hook)(int fd, void *buf, size_t len);

void sn_kmsg_set_read_hook(ssize_t (*hook)(int fd, void *buf, size_t len))
{
	read_hook = hook;
}

/* A source being read: a device, a record file or a text file. */
struct kmsg_src {
	int fd;
	int device;	     /* one record per read(2) */
	int text;	     /* files: 1 text lines, 0 records, -1 undecided */
	uint64_t line;	     /* files: physical line number */
	uint64_t file_bytes; /* files: bytes read so far */
	size_t fill, pos;    /* files: chunk[pos..fill) is unread */
	char chunk[FILE_CHUNK];
	char rec[SN_KMSG_RECORD_MAX + 1];
};

/* What one scan found, beyond the records handed out. */
struct kmsg_scan {
	uint64_t since;
	sn_kmsg_line_fn fn;
	void *arg;
	int any; /* a record was seen */
	uint64_t first_seq, last_seq;
	size_t scanned, handed, bytes;
	int flags;
};

/* ---- parsing ---------------------------------------------------------- */

/* One decimal field of at most 20 digits, ending in ','; -1 if not. */
static long parse_u64(const char *s, size_t len, size_t *i, uint64_t *out)
{
	size_t start = *i;
	uint64_t x = 0;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		unsigned d = (unsigned)(s[*i] - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		(*i)++;
	}
	if (*i == start || *i >= len || s[*i] != ',')
		return -1;
	(*i)++;
	*out = x;
	return 0;
}

/*
 * "PRIO,SEQ,USEC,FLAGS[,...];" at the start of s: fill r's numbers and
 * return the offset of the message, or -1 if s does not start so.
 */
static long parse_header(const char *s, size_t len, struct sn_kmsg_record *r)
{
	uint64_t prio, seq, usec;
	size_t i = 0, start;

	if (parse_u64(s, len, &i, &prio) || parse_u64(s, len, &i, &seq) ||
	    parse_u64(s, len, &i, &usec) || prio > 0xffffff)
		return -1;
	for (start = i; i < len && s[i] != ';'; i++)
		if (i - start >= HEADER_FIELD_MAX || s[i] == ' ' ||
		    s[i] == '\n')
			return -1;
	if (i >= len || i == start)
		return -1;
	r->facility = (int)(prio >> 3);
	r->level = (int)(prio & 7);
	r->seq = seq;
	r->usec = usec;
	return (long)i + 1;
}

/* Fill r from a kmsg record in rec[0..len); message ends at the first \n. */
static int record_from(char *rec, size_t len, struct sn_kmsg_record *r)
{
	long off = parse_header(rec, len, r);
	char *nl;

	if (off < 0)
		return -1;
	rec[len] = '\0';
	nl = memchr(rec + off, '\n', len - (size_t)off);
	if (nl)
		*nl = '\0';
	r->msg = rec + off;
	r->len = strlen(r->msg);
	return 0;
}

/* ---- reading ---------------------------------------------------------- */

/* Next device record: 1 = got one, 0 = end (EAGAIN/EOF), -errno. */
static int device_next(struct kmsg_src *s, struct sn_kmsg_record *r, int *lost)
{
	for (;;) {
		ssize_t n = read_hook ? read_hook(s->fd, s->rec,
						  SN_KMSG_RECORD_MAX) :
					read(s->fd, s->rec, SN_KMSG_RECORD_MAX);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			*lost = 1; /* position moved to the oldest record */
			return 2;  /* counted against the scan bound */
		}
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 0;
		if (record_from(s->rec, (size_t)n, r))
			return -EINVAL; /* not a kmsg device */
		return 1;
	}
}

/* Next physical line of a file into s->rec (cut to fit): 1, 0 = EOF, -errno. */
static int file_line(struct kmsg_src *s, size_t *len)
{
	size_t n = 0;
	int got = 0;

	for (;;) {
		char *start, *nl;
		size_t avail, take, room;

		if (s->pos == s->fill) {
			ssize_t r;

			if (s->file_bytes >= SN_KMSG_FILE_MAX_BYTES)
				return -EFBIG;
			r = read(s->fd, s->chunk, sizeof(s->chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return -errno;
			if (r == 0)
				break;
			s->fill = (size_t)r;
			s->pos = 0;
			s->file_bytes += (uint64_t)r;
		}
		got = 1;
		start = s->chunk + s->pos;
		avail = s->fill - s->pos;
		nl = memchr(start, '\n', avail);
		take = nl ? (size_t)(nl - start) : avail;
		room = SN_KMSG_RECORD_MAX - n;
		memcpy(s->rec + n, start, take < room ? take : room);
		n += take < room ? take : room;
		s->pos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	if (n && s->rec[n - 1] == '\r')
		n--;
	s->rec[n] = '\0';
	*len = n;
	return got;
}

/* Next file record: 1 = got one, 0 = end, -errno.  Skips what is not one. */
static int file_next(struct kmsg_src *s, struct sn_kmsg_record *r)
{
	size_t len = 0;
	int rc;

	while ((rc = file_line(s, &len)) == 1) {
		s->line++;
		if (s->text < 0 && len)
			s->text = parse_header(s->rec, len, r) < 0;
		if (s->text == 1 && len) {
			r->seq = s->line;
			r->usec = 0;
			r->level = -1;
			r->facility = -1;
			r->msg = s->rec;
			r->len = strlen(s->rec); /* a NUL byte ends it */
			return 1;
		}
		if (s->text == 0 && s->rec[0] != ' ' &&
		    !record_from(s->rec, len, r))
			return 1;
	}
	return rc;
}

static int src_open(struct kmsg_src *s, const char *path)
{
	struct stat st;

	s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (s->fd < 0)
		return -errno;
	if (fstat(s->fd, &st))
		return -errno;
	if (S_ISCHR(st.st_mode)) {
		s->device = 1;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > SN_KMSG_FILE_MAX_BYTES)
		return -EFBIG;
	s->text = -1;
	return 0;
}

/* Look at one record: track positions, hand it out if newer than since. */
static int scan_one(struct kmsg_scan *sc, const struct sn_kmsg_record *r)
{
	if (!sc->any) {
		sc->any = 1;
		sc->first_seq = r->seq;
		if (sc->fn && r->seq > sc->since && r->seq - sc->since > 1)
			sc->flags |= SN_KMSG_LOST;
	}
	sc->last_seq = r->seq;
	if (!sc->fn || r->seq <= sc->since)
		return 0;
	if (sc->handed >= SN_KMSG_MAX_RECORDS ||
	    sc->bytes + r->len > SN_KMSG_MAX_BYTES) {
		sc->flags |= SN_KMSG_MORE;
		return 1;
	}
	sc->handed++;
	sc->bytes += r->len;
	if (sc->fn(r, sc->arg)) {
		sc->flags |= SN_KMSG_STOPPED;
		return 1;
	}
	return 0;
}

/* Read the whole source (within bounds); 0, or -errno. */
static int scan(const char *path, struct kmsg_scan *sc)
{
	struct kmsg_src *s = calloc(1, sizeof(*s));
	struct sn_kmsg_record r;
	int rc, lost = 0;

	if (!s)
		return -ENOMEM;
	rc = src_open(s, path);
	if (rc)
		goto out;
	for (;;) {
		if (sc->scanned >= SN_KMSG_MAX_SCAN) {
			sc->flags |= SN_KMSG_MORE;
			rc = 0;
			break;
		}
		memset(&r, 0, sizeof(r));
		rc = s->device ? device_next(s, &r, &lost) : file_next(s, &r);
		sc->scanned++;
		if (rc == 2)
			continue;
		if (rc <= 0 || scan_one(sc, &r))
			break;
	}
	if (rc > 0)
		rc = 0;
	if (lost && sc->fn)
		sc->flags |= SN_KMSG_LOST;
out:
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return rc;
}

int sn_kmsg_position(const char *path, uint64_t *seq)
{
	struct kmsg_scan sc;
	int rc;

	memset(&sc, 0, sizeof(sc));
	sc.since = UINT64_MAX;
	*seq = 0;
	rc = scan(path, &sc);
	if (rc)
		return rc;
	if (sc.flags & SN_KMSG_MORE)
		return -EOVERFLOW;
	*seq = sc.any ? sc.last_seq : 0;
	return 0;
}

int sn_kmsg_read_since(const char *path, uint64_t seq, sn_kmsg_line_fn fn,
		       void *arg)
{
	struct kmsg_scan sc;
	int rc;

	if (!fn)
		return -EINVAL;
	memset(&sc, 0, sizeof(sc));
	sc.since = seq;
	sc.fn = fn;
	sc.arg = arg;
	rc = scan(path, &sc);
	if (rc)
		return rc;
	if (sc.any && sc.last_seq < seq &&
	    !(sc.flags & (SN_KMSG_MORE | SN_KMSG_STOPPED)))
		sc.flags |= SN_KMSG_RESTARTED;
	return sc.flags;
}
