/*
 * read_perfscript.c: reads `perf script` text in blocks and feeds its complete
 * lines, and whole cached blocks, to the folding (read_perfscript.h).
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "common/spool.h"
#include "sp-fold/read/read_perfscript.h"
#include "sp-fold/read/read_ps_state.h"
#include "common/banned.h"

/* Feeds the complete lines of buf[0..len) and returns the bytes used. */
static int
feed(struct fold_ps *st, const char *buf, size_t len, bool eof, size_t *used)
{
	const char *p = buf, *end = buf + len, *nl, *blank = NULL;
	int rc = 0, blk = -1;

	while (!rc && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !eof)
			break;
		blk = -1;
		if (nl && *p != '\n' && *p != ' ' && *p != '\t' && *p != '#') {
			blk = fold_ps_block_end(nl + 1, end, &blank);
			if (!blk && !eof)
				break;
		}
		st->lineno++;
		rc = fold_ps_line(st, p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		if (!rc && blk == 1 && st->have_pname && !st->nmarks &&
		    (rc = fold_ps_cached_block(st, p, blank, &p)) == 1) {
			fold_ps_sample_done(st);
			rc = 0;
		}
	}
	*used = (size_t)(p - buf);
	return rc;
}

static void
ps_release(struct fold_ps *st)
{
	sp_buf_release(&st->pname);
	sp_buf_release(&st->frames);
	sp_buf_release(&st->stack);
	sp_buf_release(&st->tmp);
	free(st->marks);
	free(st->counts);
	free(st->event);
	sp_htab_free(st->cache[0]);
	sp_htab_free(st->cache[1]);
	sp_htab_free(st->pnames);
	sp_htab_free(st->agg);
	while (st->npn)
		free(st->pnstr[--st->npn]);
	free(st->pnstr);
	sp_buf_release(&st->cdata);
	sp_buf_release(&st->qbuf);
	free(st->q);
	fold_psinl_free(st->inl);
}

/*
 * Turns each CR LF in buf[from..*len) into LF (text saved on Windows
 * folds as the same text).  A CR at the very end stays: its LF may come
 * with the next read, so the next call starts one byte back.
 */
static void
strip_crlf(uint8_t *buf, size_t from, size_t *len)
{
	size_t r, w = from;

	for (r = from; r < *len; r++)
		if (buf[r] != '\r' || r + 1 == *len || buf[r + 1] != '\n')
			buf[w++] = buf[r];
	*len = w;
}

/* Folds through a buffer of reads (mapping files costs more page faults). */
static int
feed_read(struct fold_ps *st, FILE *in)
{
	struct sp_buf buf = SP_BUF_INIT;
	size_t got, used, from;
	bool eof = false, first = true, crlf = false;
	int rc = 0;

	while (!rc && !eof) {
		if (buf.alloc - buf.len < 32768 && sp_buf_grow(&buf, 1 << 18)) {
			rc = -ENOMEM;
			break;
		}
		got = fread(buf.data + buf.len, 1, buf.alloc - buf.len - 1, in);
		if (st->lineno == 0 &&
		    sp_spool_magic(buf.data, buf.len + got)) {
			warnx("%sthis is a spool, not perf script text: read "
			      "it with sp-dump first (sp-dump FILE | sp-fold)",
			      st->name);
			rc = -EBADMSG;
			break;
		}
		from = buf.len ? buf.len - 1 : 0;
		buf.len += got;
		/* Whether lines end in CR LF is told by the first line, so
		 * LF text, the usual, is not scanned once more. */
		if (first) {
			const uint8_t *nl = memchr(buf.data, '\n', buf.len);

			crlf = nl && nl > buf.data && nl[-1] == '\r';
			first = !nl && got;
		}
		if (crlf)
			strip_crlf(buf.data, from, &buf.len);
		eof = got == 0;
		rc = feed(st, (char *)buf.data, buf.len, eof, &used);
		/* A line (or a sample's block) without end, /dev/zero's:
		 * the record stream's cap, not all the memory there is. */
		if (!rc && !used && !eof && buf.len >= SP_RECORDS_MAX_LINE)
			rc = -E2BIG;
		sp_buf_consume(&buf, used);
	}
	sp_buf_release(&buf);
	return rc;
}

int
fold_read_perfscript(FILE *in, const char *name, const struct fold_opts *o,
		     struct fold_set *set)
{
	struct fold_ps st = { .o = o, .set = set, .name = name };
	int rc = 0;

	st.cache[0] = sp_htab_new();
	st.cache[1] = sp_htab_new();
	st.pnames = sp_htab_new();
	st.agg = sp_htab_new();
	if (!st.cache[0] || !st.cache[1] || !st.pnames || !st.agg ||
	    (o->count.event_filter &&
	     !(st.event = strdup(o->count.event_filter))) ||
	    (o->name.inl && !(st.inl = fold_psinl_new(o->context))))
		rc = -ENOMEM;
	if (!rc)
		rc = feed_read(&st, in);
	if (!rc)
		rc = fold_ps_flush_hits(&st);
	if (!rc && ferror(in)) {
		warnx("%sread error", name);
		rc = -EIO;
	} else if (rc == -ENOMEM) {
		warnx("%sline %llu: out of memory", name,
		      (unsigned long long)st.lineno);
	} else if (rc == -E2BIG) {
		warnx("%sline %llu: longer than %u MiB, not perf script text",
		      name, (unsigned long long)st.lineno + 1,
		      SP_RECORDS_MAX_LINE >> 20);
	} else if (rc == -EOVERFLOW) {
		warnx("%sline %llu: the sample weights add up past 2^64-1",
		      name, (unsigned long long)st.lineno);
	}
	if (st.unrecognized > FOLD_PS_MAX_WARN)
		warnx("%s%llu unrecognized lines in all", name,
		      (unsigned long long)st.unrecognized);
	ps_release(&st);
	return rc ? 1 : 0;
}
