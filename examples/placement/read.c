/*
 * read.c - input a line at a time, and the bytes kept from it.
 *
 * How it works. A pt_reader reads a file, standard input or bytes in memory
 * through one buffer of PT_READ_BUF bytes (four line limits), the same way
 * for all three: a line is handed out from the buffer as soon as its LF is
 * in it, without its end (LF or CR LF), so the parser sees one line at a
 * time and stops reading at the first bad one. What is left of the buffer
 * when no LF is in it moves to its start and more is read behind it; a
 * buffer full of bytes with no LF is a line past the limit by far, refused
 * there (an endless line, such as /dev/zero, or a sparse file of NUL bytes,
 * costs one buffer). The limit, PT_MAX_LINE, is on the line without its end,
 * whichever end it has; a line that fits the buffer is reported with its
 * length, one that does not as "more than" the limit, whatever the sizes of
 * the reads (a decision waits for an LF, the end of the input, or a full
 * buffer), so the same bytes always give the same message.
 *
 * Nothing that is kept points into the buffer: the parser copies the bytes
 * of the ids it keeps into a pt_arena, blocks that never move, so memory
 * follows what the file holds (its members, shards and ids), not its size
 * or its count of lines.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* ---- the arena ------------------------------------------------------------- */

#define ARENA_FIRST ((size_t)4 << 10)
#define ARENA_MAX ((size_t)1 << 20)

struct pt_block {
	pt_block *next;
	size_t used, cap;
	char data[];
};

pl_bytes pt_arena_put(pt_arena *a, const char *p, size_t n)
{
	if (n == 0)
		return (pl_bytes){NULL, 0};
	pt_block *b = a->head;
	if (b == NULL || b->cap - b->used < n) {
		size_t cap = b ? (b->cap < ARENA_MAX / 2 ? b->cap * 2 : ARENA_MAX) : ARENA_FIRST;
		if (cap < n)
			cap = n;
		pt_block *nb = pt_alloc(sizeof *nb + cap);
		nb->next = b;
		nb->used = 0;
		nb->cap = cap;
		a->head = b = nb;
		a->bytes += sizeof *nb + cap;
	}
	char *q = b->data + b->used;
	memcpy(q, p, n);
	b->used += n;
	return (pl_bytes){q, (uint64_t)n};
}

void pt_arena_free(pt_arena *a)
{
	for (pt_block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->bytes = 0;
}

/* ---- the reader ------------------------------------------------------------ */

static void reader_init(pt_reader *r, int fd, size_t cap)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->cap = cap;
	r->buf = pt_alloc(cap + 1);
	r->buf[0] = '\0';
}

int pt_reader_open(pt_reader *r, const char *path, pt_err *e)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
	if (fd < 0)
		return pt_fail(e, 0, "cannot open: %s", strerror(errno));
	struct stat sb;
	int known = fstat(fd, &sb) == 0;
	if (known && S_ISDIR(sb.st_mode)) {
		if (fd)
			close(fd);
		return pt_fail(e, 0, "is a directory, not a snapshot file");
	}
	/* a regular file past the limit is refused by its size, unread */
	if (known && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > PT_MAX_FILE) {
		if (fd)
			close(fd);
		return pt_fail(e, 0, "the file is %llu bytes, past the limit of %llu bytes (64 GiB) for a snapshot file",
			       (unsigned long long)sb.st_size, (unsigned long long)PT_MAX_FILE);
	}
	reader_init(r, fd, PT_READ_BUF);
	return 0;
}

void pt_reader_mem(pt_reader *r, const char *text, size_t len)
{
	/* a buffer no bigger than the bytes need: the same lines, the same
	 * errors (no line of fewer bytes than the buffer fills it) */
	reader_init(r, -1, len < PT_READ_BUF ? len + 1 : PT_READ_BUF);
	r->src = text;
	r->src_len = len;
}

void pt_reader_close(pt_reader *r)
{
	if (r->fd > 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
}

/* More bytes behind buf[len]: 0, or -1 with e. Sets eof at the end. */
static int fill(pt_reader *r, pt_err *e)
{
	size_t room = r->cap - r->len, got;
	if (r->max_read && room > r->max_read)
		room = r->max_read;
	if (r->fd < 0) {
		got = r->src_len - r->src_pos < room ? r->src_len - r->src_pos : room;
		if (got)
			memcpy(r->buf + r->len, r->src + r->src_pos, got);
		r->src_pos += got;
	} else {
		ssize_t n;
		double t0 = r->timing ? pt_now() : 0;
		do
			n = read(r->fd, r->buf + r->len, room);
		while (n < 0 && errno == EINTR);
		if (r->timing)
			r->read_s += pt_now() - t0;
		if (n < 0)
			return pt_fail(e, 0, "read error: %s", strerror(errno));
		got = (size_t)n;
	}
	r->len += got;
	r->eof = got == 0;
	r->bytes += got;
	r->buf[r->len] = '\0';
	if (r->bytes > PT_MAX_FILE)
		return pt_fail(e, 0, "the input is past the limit of %llu bytes (64 GiB) for a snapshot file",
			       (unsigned long long)PT_MAX_FILE);
	return 0;
}

int pt_reader_line(pt_reader *r, char **p, size_t *n, pt_err *e)
{
	r->line++;
	for (;;) {
		char *s = r->buf + r->pos;
		size_t avail = r->len - r->pos;
		char *nl = r->scanned < avail ? memchr(s + r->scanned, '\n', avail - r->scanned) : NULL;
		if (nl != NULL || (r->eof && avail > 0)) {
			size_t len = nl ? (size_t)(nl - s) : avail;
			r->pos += nl ? len + 1 : len;
			r->scanned = 0;
			if (len > 0 && s[len - 1] == '\r')
				len--;
			if (r->skip_bom && r->line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
				s += 3; /* a UTF-8 byte order mark */
				len -= 3;
			}
			if (len > PT_MAX_LINE)
				return pt_fail(e, r->line, "the line is %zu bytes, past the limit of %u bytes for a line", len,
					       PT_MAX_LINE);
			s[len] = '\0';
			*p = s;
			*n = len;
			return 1;
		}
		if (r->eof) {
			r->line--; /* no line: the count of lines read */
			return 0;
		}
		r->scanned = avail;
		if (avail >= r->cap)
			return pt_fail(e, r->line, "the line is more than %u bytes, past the limit of %u bytes for a line",
				       PT_MAX_LINE, PT_MAX_LINE);
		/* the line so far to the buffer's start, when little room is left */
		if (r->pos > 0 && r->cap - r->len < r->cap / 4 + 1) {
			memmove(r->buf, s, avail);
			r->pos = 0;
			r->len = avail;
		}
		if (fill(r, e))
			return -1;
	}
}
