/*
 * sniff.c: an input's kind from its first line, the line kept (sniff.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/records.h"
#include "sp-fold/read/sniff.h"
#include "common/banned.h"

/* The first line, replayed, then the rest of the input. */
struct replay {
	struct sp_buf head;
	size_t off;
	FILE *rest;
};

static ssize_t
replay_read(void *cookie, char *buf, size_t size)
{
	struct replay *r = cookie;
	size_t n;

	if (r->off < r->head.len) {
		n = r->head.len - r->off;
		if (n > size)
			n = size;
		memcpy(buf, r->head.data + r->off, n);
		r->off += n;
		return (ssize_t)n;
	}
	n = fread(buf, 1, size, r->rest);
	if (n == 0 && ferror(r->rest)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return (ssize_t)n;
}

static int
replay_close(void *cookie)
{
	struct replay *r = cookie;

	sp_buf_release(&r->head);
	free(r);
	return 0;
}

enum sp_input_kind
fold_sniff(FILE *in, struct sp_buf *head)
{
	/* A line too long to tell, or a read that failed: the reader it
	 * goes to says so, from where it is. */
	if (sp_buf_getline(head, in, SP_RECORDS_MAX_LINE) <= 0)
		return SP_IN_UNKNOWN;
	return sp_input_kind((const char *)head->data, head->len);
}

FILE *
fold_replay(FILE *in, struct sp_buf *head)
{
	static const cookie_io_functions_t io = {
		.read = replay_read,
		.close = replay_close,
	};
	struct replay *r = calloc(1, sizeof(*r));
	FILE *f;

	if (!r) {
		sp_buf_release(head);
		return NULL;
	}
	r->head = *head;
	*head = (struct sp_buf)SP_BUF_INIT;
	r->rest = in;
	if (!(f = fopencookie(r, "r", io))) {
		replay_close(r);
		errno = ENOMEM;
	}
	return f;
}
