/*
 * write_speedscope.c: --format speedscope, speedscope's JSON file format with
 * one sampled profile per thread in time order, so its timeline view
 * shows what each thread did when.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "common/satmath.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/write/write_speedscope.h"
#include "common/banned.h"

struct ss {
	FILE *out;
	const struct fold_profile *prof;
	const struct fold_name_opts *name;
	const struct fold_count_opts *count;
	struct sp_htab *names; /* frame name -> index */
	struct sp_buf order;   /* frame names in index order, NUL-separated */
	uint32_t **ents;       /* entry -> frame indexes, [0] = count */
	bool *dropped;         /* entry -> filtered out */
	struct sp_buf tmp, tmp2;
	struct sp_buf srcs;  /* the sources of tmp's names (const char *) */
	struct sp_buf lines; /* their Python functions' first lines */
	struct sp_buf slots; /* one thread's struct slot */
};

/*
 * Writes a JSON string.  JSON is UTF-8: a byte that starts no well-formed
 * character (a Latin-1 symbol name, a cut one) becomes U+FFFD.
 */
static void
put_json(FILE *out, const char *s, size_t n)
{
	size_t i, len;

	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, out);
		else if (!(len = sp_utf8_len(s + i, n - i)))
			fputs("\\ufffd", out);
		else {
			fwrite(s + i, 1, len, out);
			i += len - 1;
		}
	}
	fputc('"', out);
}

/*
 * The index of a frame: a name, its source file and its function's first
 * line (a Python frame's, else ""), kept in `order` as "name\0file\0line\0"
 * in index order.  The source's line is left out: it is where a sample
 * was, which differs from sample to sample of one function, and
 * speedscope would show each line as a function of its own.
 */
static int64_t
frame_index(struct ss *ss, const char *s, size_t n, const char *source,
	    unsigned line)
{
	uint64_t *slot;
	bool inserted = false;

	sp_buf_reset(&ss->tmp2);
	if (sp_buf_add(&ss->tmp2, s, n) || sp_buf_addc(&ss->tmp2, 0) ||
	    sp_buf_add(&ss->tmp2, source ? source : "",
		       fold_source_file_len(source)) ||
	    sp_buf_addc(&ss->tmp2, 0) ||
	    (line && sp_buf_addf(&ss->tmp2, "%u", line)))
		return -ENOMEM;
	slot = sp_htab_slot(ss->names, ss->tmp2.data, ss->tmp2.len,
			    sp_htab_count(ss->names), &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted && (sp_buf_add(&ss->order, ss->tmp2.data, ss->tmp2.len) ||
			 sp_buf_addc(&ss->order, 0)))
		return -ENOMEM;
	return (int64_t)*slot;
}

/* The frame indexes of an entry, computed on first use. */
static const uint32_t *
entry_frames(struct ss *ss, uint32_t e)
{
	const struct fold_profile *prof = ss->prof;
	const struct fold_entry *en = &prof->ents[e];
	const char *comm, *p, *end, *semi, *src, *const *srcs;
	const unsigned *lines;
	unsigned line;
	size_t nsrc;
	uint32_t *v;
	size_t n = 1;
	bool keep;
	int64_t ix;

	if (ss->ents[e])
		return ss->ents[e];
	comm = en->name == UINT32_MAX ? NULL : prof->m->strs[en->name];
	if (fold_model_sourced(prof->m, ss->name, comm, en->pid, en->tid,
			       en->stack, &ss->tmp, &ss->srcs, &ss->lines,
			       &keep))
		return NULL;
	if (!keep) {
		ss->tmp.len = 0;
		ss->dropped[e] = true;
	}
	srcs = (const char *const *)ss->srcs.data;
	nsrc = ss->srcs.len / sizeof(*srcs);
	lines = (const unsigned *)ss->lines.data;
	v = calloc(ss->tmp.len + 2, sizeof(*v));
	if (!v)
		return NULL;
	p = (const char *)ss->tmp.data;
	end = p ? p + ss->tmp.len : p;
	for (; p && p < end; p = semi + 1) {
		semi = memchr(p, ';', (size_t)(end - p));
		semi = semi ? semi : end;
		src = n - 1 < nsrc ? srcs[n - 1] : NULL;
		line = n - 1 < nsrc ? lines[n - 1] : 0;
		if (n++ == 1 && !ss->name->no_comm)
			continue; /* the thread names the profile */
		ix = frame_index(ss, p, (size_t)(semi - p), src, line);
		if (ix < 0) {
			free(v);
			return NULL;
		}
		v[++v[0]] = (uint32_t)ix;
	}
	return ss->ents[e] = v;
}

static bool
same_thread(const struct fold_profile *prof, uint32_t a, uint32_t b)
{
	const struct fold_entry *x = &prof->ents[prof->ticks[a].entry];
	const struct fold_entry *y = &prof->ents[prof->ticks[b].entry];

	return x->pid == y->pid && x->tid == y->tid;
}

/* A sample as written: an entry (IDLE for none) and its weight. */
struct slot {
	uint32_t entry;
	uint64_t weight;
};

#define IDLE UINT32_MAX

/* The profile's head, named after the thread's last name. */
static void
profile_head(struct ss *ss, const struct fold_entry *e, uint64_t start,
	     uint64_t end)
{
	const struct fold_profile *prof = ss->prof;
	FILE *out = ss->out;
	char *name;

	if (asprintf(&name, "%s (%" PRId32 "/%" PRIu64 ")",
		     e->name == UINT32_MAX ? "?" : prof->m->strs[e->name],
		     e->pid, e->tid) < 0)
		name = NULL;
	fputs("{\"type\":\"sampled\",\"name\":", out);
	put_json(out, name ? name : "?", name ? strlen(name) : 1);
	fprintf(out,
		",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
		",\"endValue\":%" PRIu64 ",\"samples\":[",
		start, end);
	free(name);
}

/*
 * Lays one thread's kept ticks order[from..to) on the time axis: each
 * sample weighs the period, or less when the next one came sooner, and
 * the time to the next one beyond that is an idle (empty) sample, so
 * speedscope's time order view shows each sample where it happened.
 */
static int
lay_out(struct ss *ss, const uint32_t *order, size_t from, size_t to,
	uint64_t *start)
{
	const struct fold_profile *prof = ss->prof;
	uint64_t period = fold_model_period_ns(prof->m), prev = 0, gap;
	struct slot sl;
	size_t i;
	bool any = false;

	sp_buf_reset(&ss->slots);
	for (i = from; i < to; i++) {
		const struct fold_tick *t = &prof->ticks[order[i]];

		if (!entry_frames(ss, t->entry))
			return -ENOMEM;
		if (ss->dropped[t->entry])
			continue;
		if (any) {
			struct slot *last =
			    (struct slot *)(ss->slots.data + ss->slots.len) - 1;

			gap = t->ts > prev ? t->ts - prev : 0;
			last->weight = gap < last->weight ? gap : last->weight;
			sl = (struct slot){ IDLE, gap - last->weight };
			if (sl.weight &&
			    sp_buf_add(&ss->slots, &sl, sizeof(sl)))
				return -ENOMEM;
		} else {
			*start = t->ts - prof->first_ts;
		}
		any = true;
		prev = t->ts;
		/* A sample lasts its period, or the time it counts (an
		 * off-CPU wait) in a view of time. */
		sl = (struct slot){ t->entry, ss->count->weight_time ? t->weight
								     : period };
		if (sp_buf_add(&ss->slots, &sl, sizeof(sl)))
			return -ENOMEM;
	}
	return 0;
}

/* One thread's profile: ticks order[from..to), less filtered ones. */
static int
profile(struct ss *ss, const uint32_t *order, size_t from, size_t to)
{
	const struct fold_profile *prof = ss->prof;
	const struct slot *sl;
	const uint32_t *v;
	uint64_t start = 0, end;
	size_t i, j, n;

	if (lay_out(ss, order, from, to, &start))
		return -ENOMEM;
	sl = (const struct slot *)ss->slots.data;
	n = ss->slots.len / sizeof(*sl);
	for (end = start, i = 0; i < n; i++)
		end = sp_sat_add_u64(end, sl[i].weight);
	profile_head(ss, &prof->ents[prof->ticks[order[to - 1]].entry], start,
		     end);
	for (i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", ss->out);
		v = sl[i].entry == IDLE ? NULL : ss->ents[sl[i].entry];
		for (j = 1; v && j <= v[0]; j++)
			fprintf(ss->out, j > 1 ? ",%" PRIu32 : "%" PRIu32,
				v[j]);
		fputc(']', ss->out);
	}
	fputs("],\"weights\":[", ss->out);
	for (i = 0; i < n; i++)
		fprintf(ss->out, i ? ",%" PRIu64 : "%" PRIu64, sl[i].weight);
	fputs("]}", ss->out);
	return 0;
}

/*
 * A frame: its name, its source file when the records had one, and its
 * function's first line when it is a Python frame.
 */
static void
put_frame(FILE *out, const char *name, const char *file, const char *line,
	  bool first)
{
	fputs(first ? "{\"name\":" : ",{\"name\":", out);
	put_json(out, name, strlen(name));
	if (*file) {
		fputs(",\"file\":", out);
		put_json(out, file, strlen(file));
	}
	if (*line)
		fprintf(out, ",\"line\":%s", line);
	fputc('}', out);
}

static void
put_frames(struct ss *ss)
{
	const char *p = (const char *)ss->order.data;
	const char *end = p ? p + ss->order.len : p, *source, *line;

	fputs("],\"shared\":{\"frames\":[", ss->out);
	for (; p && p < end; p = line + strlen(line) + 1) {
		source = p + strlen(p) + 1;
		line = source + strlen(source) + 1;
		put_frame(ss->out, p, source, line,
			  p == (const char *)ss->order.data);
	}
	fputs("]}}\n", ss->out);
}

static int
write_profiles(struct ss *ss, uint32_t *order)
{
	const struct fold_profile *prof = ss->prof;
	size_t i, from = 0;

	fputs("{\"$schema\":\"https://www.speedscope.app/"
	      "file-format-schema.json\",\"exporter\":\"sp-fold\","
	      "\"name\":",
	      ss->out);
	put_json(ss->out, "sp-fold", 7);
	fputs(",\"activeProfileIndex\":0,\"profiles\":[", ss->out);
	for (i = 1; i <= prof->nticks; i++) {
		if (i < prof->nticks &&
		    same_thread(prof, order[i - 1], order[i]))
			continue;
		if (from)
			fputc(',', ss->out);
		if (profile(ss, order, from, i))
			return -ENOMEM;
		from = i;
	}
	put_frames(ss);
	return 0;
}

int
fold_write_speedscope(FILE *out, const struct fold_profile *prof,
		      const struct fold_name_opts *name,
		      const struct fold_count_opts *count)
{
	struct ss ss = {
		.out = out, .prof = prof, .name = name, .count = count
	};
	uint32_t *order = calloc(prof->nticks + 1, sizeof(*order));
	size_t i;
	int rc = -ENOMEM;

	ss.names = sp_htab_new();
	ss.ents = calloc(prof->nents + 1, sizeof(*ss.ents));
	ss.dropped = calloc(prof->nents + 1, sizeof(*ss.dropped));
	if (order && ss.names && ss.ents && ss.dropped) {
		for (i = 0; i < prof->nticks; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, prof->nticks, sizeof(*order),
			fold_profile_tick_cmp, (void *)prof);
		rc = write_profiles(&ss, order);
	}
	for (i = 0; ss.ents && i < prof->nents; i++)
		free(ss.ents[i]);
	free(ss.ents);
	free(ss.dropped);
	free(order);
	sp_htab_free(ss.names);
	sp_buf_release(&ss.order);
	sp_buf_release(&ss.tmp);
	sp_buf_release(&ss.tmp2);
	sp_buf_release(&ss.srcs);
	sp_buf_release(&ss.lines);
	sp_buf_release(&ss.slots);
	return rc;
}
