/*
 * sp-dump: prints a spool as the text record stream of sp-records(5), or
 * with --stacks one line per sample with its whole stack.  Records are
 * printed as they are read, so a live recorder can be watched; with
 * --runs, samples wait in runs (runs.h) until a record that must follow
 * them, or the end.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cli.h"
#include "common/ext.h"
#include "common/grow.h"
#include "common/heap.h"
#include "common/hex.h"
#include "common/htab.h"
#include "common/names.h"
#include "common/records.h"
#include "common/spool.h"
#include "common/version.h"
#include "sp-dump/runs.h"
#include "sp-dump/seen.h"
#include "common/banned.h"

struct dump {
	const char *name; /* input name for messages */
	struct sp_spool_reader *r;
	bool stacks;            /* --stacks: one line per sample */
	bool follow;            /* --follow: wait at end of input */
	struct dump_runs *runs; /* --runs: samples held in runs; or NULL */
	struct dump_seen *seen; /* (stack, pid) and (frame, pid) handled */
	struct sp_buf tmp;
	struct sp_buf pairs; /* host and stats fields (struct sp_rec_pair) */
	struct sp_ext_weight weight; /* for the next sample, when pending */
	bool weight_pending;
	enum sp_wait_state wait; /* of the next sample; SP_WAIT_NONE: none */
	struct sp_ext_pystack pystack; /* of the next sample, when pending */
	bool pystack_pending;
};

static const char synopsis[] = "usage: sp-dump [-fhrs] [-o FILE] [FILE]\n";

static void
usage(void)
{
	fputs(synopsis, stderr);
	fputs("Try 'sp-dump --help' for the options.\n", stderr);
	exit(2);
}

static void
help(void)
{
	fputs(synopsis, stdout);
	fputs("Prints a spool (FILE, a pipe, or standard input) as the text "
	      "record stream\nof sp-records(5).\n\n"
	      "  -f, --follow      at the end of a file, wait for more, as a "
	      "recorder writes it\n"
	      "  -r, --runs        samples as runs: a count per stack and "
	      "thread, no times\n"
	      "  -s, --stacks      one line per sample with its whole stack, "
	      "leaf first\n"
	      "  -o, --output FILE write to FILE instead of standard output\n"
	      "  -h, --help        this help\n"
	      "      --version     the version\n"
	      "See sp-dump(1).\n",
	      stdout);
	exit(sp_cli_close_stdout() ? 1 : 0);
}

/* The input has to wait: what is held goes out. */
static void
flush_stdout(void *ctx)
{
	struct dump *d = ctx;

	dump_runs_flush(d->runs);
	fflush(stdout);
}

static void
print_module(const struct sp_module *m)
{
	struct sp_rec rec = { .kind = SP_REC_MODULE, .u.module = *m };

	sp_rec_write(stdout, &rec);
}

static void
print_frame(const struct sp_spool_reader *r, uint32_t id,
	    const struct sp_frame *f)
{
	struct sp_rec rec = { .kind = SP_REC_FRAME };

	rec.u.frame.id = id;
	rec.u.frame.f = *f;
	rec.u.frame.f.module_id = SP_NONE;
	if (!sp_spool_reader_frame_needs_pid(r, id))
		rec.u.frame.f.module_id = sp_spool_reader_frame_context(
		    r, id, 0, &rec.u.frame.f.rel_ip);
	sp_rec_write(stdout, &rec);
}

/* Writes `kind` with `n` bytes as lowercase hex. */
static int
print_hex(struct dump *d, enum sp_rec_kind kind, uint32_t tag, const uint8_t *p,
	  size_t n)
{
	struct sp_rec rec = { .kind = kind };

	sp_buf_reset(&d->tmp);
	if (n > SIZE_MAX / 2 - 1 || sp_buf_grow(&d->tmp, 2 * n))
		return -ENOMEM;
	sp_hex_encode(p, n, (char *)d->tmp.data);
	d->tmp.len = 2 * n;
	rec.u.hex.tag = tag;
	rec.u.hex.hex = d->tmp.len ? (const char *)d->tmp.data : "";
	sp_rec_write(stdout, &rec);
	return 0;
}

/*
 * Collects the KEY=VALUE fields of a host or stats payload into
 * d->pairs, counters as decimal text in d->tmp; returns 0, -EBADMSG for a
 * malformed payload, or -ENOMEM.
 */
static int
collect_pairs(struct dump *d, const uint8_t *p, size_t n, bool counters)
{
	struct sp_ext_iter it = { p, p + n };
	struct sp_rec_pair pair;
	uint64_t val;
	int rc;

	sp_buf_reset(&d->pairs);
	sp_buf_reset(&d->tmp);
	while (
	    (rc = counters
		      ? sp_ext_counter_next(&it, &pair.key, &pair.key_len, &val)
		      : sp_ext_pair_next(&it, &pair.key, &pair.key_len,
					 &pair.val, &pair.val_len)) > 0) {
		if (counters) {
			/* An offset for now: d->tmp may move as it grows. */
			pair.val = (const char *)(uintptr_t)d->tmp.len;
			if (sp_buf_addf(&d->tmp, "%" PRIu64, val) ||
			    sp_buf_addc(&d->tmp, 0))
				return -ENOMEM;
			pair.val_len =
			    strlen((char *)d->tmp.data + (uintptr_t)pair.val);
		}
		if (sp_buf_add(&d->pairs, &pair, sizeof(pair)))
			return -ENOMEM;
	}
	return rc;
}

/* A malformed payload is reported before anything of it is printed. */
static int
print_pairs(struct dump *d, enum sp_rec_kind kind, const uint8_t *p, size_t n)
{
	struct sp_rec rec = { .kind = kind };
	struct sp_rec_pair *v = (struct sp_rec_pair *)d->pairs.data;
	size_t i;
	int rc = collect_pairs(d, p, n, kind == SP_REC_STATS);

	if (rc)
		return rc;
	v = (struct sp_rec_pair *)d->pairs.data;
	rec.u.pairs.v = v;
	rec.u.pairs.n = d->pairs.len / sizeof(*v);
	for (i = 0; kind == SP_REC_STATS && i < rec.u.pairs.n; i++)
		v[i].val = (const char *)d->tmp.data + (uintptr_t)v[i].val;
	sp_rec_write(stdout, &rec);
	return 0;
}

static int
print_ext(struct dump *d, const struct sp_spool_record *rec)
{
	const uint8_t *p = rec->u.ext.data;
	size_t n = rec->u.ext.len;
	struct sp_rec out = { .kind = SP_REC_UNKNOWN };
	struct sp_ext_comm c;
	struct sp_ext_lost l;
	struct sp_ext_exit e;
	struct sp_ext_buildid b;
	struct sp_ext_event ev;
	int32_t pid;

	switch (rec->tag) {
	case SP_EXT_PYCODE:
		if (sp_ext_pycode_decode(p, n, &out.u.pycode))
			return -EBADMSG;
		out.kind = SP_REC_PYCODE;
		break;
	case SP_EXT_PYNODE:
		if (sp_ext_pynode_decode(p, n, &out.u.pynode))
			return -EBADMSG;
		out.kind = SP_REC_PYNODE;
		break;
	case SP_EXT_PYSTACK:
		/* Printed right before the sample it belongs to. */
		if (sp_ext_pystack_decode(p, n, &d->pystack))
			return -EBADMSG;
		d->pystack_pending = true;
		return 0;
	case SP_EXT_HOST:
		return print_pairs(d, SP_REC_HOST, p, n);
	case SP_EXT_STATS:
		return print_pairs(d, SP_REC_STATS, p, n);
	case SP_EXT_COMM:
		if (sp_ext_comm_decode(p, n, &c))
			return -EBADMSG;
		out.kind = SP_REC_COMM;
		out.u.comm.ts = c.timestamp_ns;
		out.u.comm.pid = c.pid;
		out.u.comm.tid = c.tid;
		out.u.comm.exec = c.is_exec;
		out.u.comm.name = c.name;
		out.u.comm.name_len = c.name_len;
		break;
	case SP_EXT_LOST:
		if (sp_ext_lost_decode(p, n, &l))
			return -EBADMSG;
		out.kind = SP_REC_LOST;
		out.u.lost.ts = l.timestamp_ns;
		out.u.lost.count = l.count;
		break;
	case SP_EXT_EXIT:
		if (sp_ext_exit_decode(p, n, &e))
			return -EBADMSG;
		out.kind = SP_REC_EXIT;
		out.u.exit.ts = e.timestamp_ns;
		out.u.exit.pid = e.pid;
		out.u.exit.tid = e.tid;
		break;
	case SP_EXT_BUILDID:
		if (sp_ext_buildid_decode(p, n, &b))
			return -EBADMSG;
		return print_hex(d, SP_REC_BUILDID, b.module_id, b.id,
				 b.id_len);
	case SP_EXT_EVENT:
		if (sp_ext_event_decode(p, n, &ev))
			return -EBADMSG;
		out.kind = SP_REC_EVENT;
		out.u.event.index = ev.index;
		out.u.event.name = ev.name;
		out.u.event.name_len = ev.name_len;
		out.u.event.period = ev.period;
		out.u.event.freq = ev.freq;
		break;
	case SP_EXT_WEIGHT:
		/* Printed with the sample it belongs to. */
		if (sp_ext_weight_decode(p, n, &d->weight))
			return -EBADMSG;
		d->weight_pending = true;
		return 0;
	case SP_EXT_WAIT:
		/* Printed with the sample it belongs to, like the weight. */
		return sp_ext_wait_decode(p, n, &d->wait) ? -EBADMSG : 0;
	case SP_EXT_FORGET:
		if (sp_ext_forget_decode(p, n, &pid))
			return -EBADMSG;
		dump_seen_forget(d->seen, pid);
		out.kind = SP_REC_FORGET;
		out.u.forget.pid = pid;
		break;
	default:
		return print_hex(d, SP_REC_EXT, rec->tag, p, n);
	}
	sp_rec_write(stdout, &out);
	return 0;
}

/*
 * Writes a pframe for each module-less user frame of the stack, once per
 * (frame, pid).  Each (stack node, pid) is walked once: the walk stops at
 * a node already walked, whose frames all have their pframes, so a deep
 * chain of stacks costs its length, not its length squared.
 */
static int
emit_pframes(struct dump *d, uint32_t stack, int32_t pid)
{
	struct sp_rec out = { .kind = SP_REC_PFRAME };
	uint32_t prefix, frame;
	bool first = true;

	while (stack != SP_NONE &&
	       sp_spool_reader_stack(d->r, stack, &prefix, &frame)) {
		if (!first &&
		    dump_seen_has(d->seen, DUMP_SEEN_STACK, stack, pid))
			break;
		if (!first &&
		    dump_seen_add(d->seen, DUMP_SEEN_STACK, stack, pid))
			return -ENOMEM;
		first = false;
		stack = prefix;
		if (!sp_spool_reader_frame_needs_pid(d->r, frame))
			continue;
		if (dump_seen_has(d->seen, DUMP_SEEN_FRAME, frame, pid))
			continue;
		if (dump_seen_add(d->seen, DUMP_SEEN_FRAME, frame, pid))
			return -ENOMEM;
		out.u.pframe.frame = frame;
		out.u.pframe.pid = pid;
		out.u.pframe.module = sp_spool_reader_frame_context(
		    d->r, frame, pid, &out.u.pframe.rel_ip);
		sp_rec_write(stdout, &out);
	}
	return 0;
}

/*
 * Prints a stack leaf first as tab-separated fallback names.  Nothing is
 * kept: the time is that of the output, the memory that of one name.
 */
static int
print_stack(struct dump *d, uint32_t stack, int32_t pid)
{
	uint32_t prefix, frame, mod;
	const struct sp_module *m;
	uint64_t rel = 0;
	int rc;

	while (stack != SP_NONE &&
	       sp_spool_reader_stack(d->r, stack, &prefix, &frame)) {
		const struct sp_frame *f = sp_spool_reader_frame(d->r, frame);

		mod = sp_spool_reader_frame_context(d->r, frame, pid, &rel);
		m = mod == SP_NONE ? NULL : sp_spool_reader_module(d->r, mod);
		sp_buf_reset(&d->tmp);
		rc = sp_fallback_name(&d->tmp, f->mode, m ? m->path : NULL, rel,
				      f->abs_ip);
		if (rc)
			return rc;
		putchar('\t');
		sp_escape_file(stdout, (char *)d->tmp.data, d->tmp.len);
		stack = prefix;
	}
	return 0;
}

static int
print_sample(struct dump *d, const struct sp_spool_record *rec)
{
	struct sp_rec out = { .kind = SP_REC_SAMPLE };
	int rc;

	if (d->stacks) {
		/* --stacks lines are no sp-records(5) records. */
		printf("sample\t%" PRIu64 "\t%d\t%" PRIu64,
		       rec->u.sample.timestamp_ns, rec->u.sample.pid,
		       rec->u.sample.tid);
		rc = print_stack(d, rec->u.sample.stack_id, rec->u.sample.pid);
		putchar('\n');
		d->weight_pending = false;
		d->wait = SP_WAIT_NONE;
		d->pystack_pending = false;
		return rc;
	}
	if (!dump_seen_has(d->seen, DUMP_SEEN_STACK, rec->u.sample.stack_id,
			   rec->u.sample.pid)) {
		if (dump_seen_add(d->seen, DUMP_SEEN_STACK,
				  rec->u.sample.stack_id, rec->u.sample.pid))
			return -ENOMEM;
		rc = emit_pframes(d, rec->u.sample.stack_id, rec->u.sample.pid);
		if (rc)
			return rc;
	}
	out.u.sample.ts = rec->u.sample.timestamp_ns;
	out.u.sample.pid = rec->u.sample.pid;
	out.u.sample.tid = rec->u.sample.tid;
	out.u.sample.stack = rec->u.sample.stack_id;
	out.u.sample.has_event = d->weight_pending;
	out.u.sample.event = d->weight.event;
	out.u.sample.weight = d->weight.weight;
	out.u.sample.state = d->weight_pending ? d->wait : SP_WAIT_NONE;
	d->weight_pending = false;
	d->wait = SP_WAIT_NONE;
	if (d->runs && !d->pystack_pending)
		return dump_runs_add(d->runs, &out);
	/* A sample of its own follows the runs of the samples before it. */
	dump_runs_flush(d->runs);
	if (d->pystack_pending) {
		struct sp_rec py = { .kind = SP_REC_PYSTACK };

		py.u.pystack = &d->pystack;
		sp_rec_write(stdout, &py);
		d->pystack_pending = false;
	}
	sp_rec_write(stdout, &out);
	return 0;
}

/* The spool records that map one to one onto a text record. */
static void
convert(const struct sp_spool_record *rec, struct sp_rec *out)
{
	switch (rec->tag) {
	case SP_TAG_STACK:
		out->kind = SP_REC_STACK;
		out->u.stack.id = rec->u.stack.id;
		out->u.stack.prefix = rec->u.stack.prefix;
		out->u.stack.frame = rec->u.stack.frame_id;
		break;
	case SP_TAG_THREAD:
		out->kind = SP_REC_THREAD;
		out->u.thread.id = rec->u.thread.id;
		out->u.thread.pid = rec->u.thread.pid;
		out->u.thread.tid = rec->u.thread.tid;
		break;
	case SP_TAG_EXEC:
		out->kind = SP_REC_EXEC;
		out->u.exec.ts = rec->u.exec.timestamp_ns;
		out->u.exec.pid = rec->u.exec.pid;
		out->u.exec.python = rec->u.exec.is_python;
		break;
	case SP_TAG_DEACTIVATE:
		out->kind = SP_REC_DEACTIVATE;
		out->u.deactivate.pid = rec->u.deactivate.pid;
		break;
	}
}

/*
 * Whether a record may come after samples read before it without
 * changing what they mean: it defines ids, or the next sample takes it.
 */
static bool
keeps_runs(unsigned tag)
{
	switch (tag) {
	case SP_TAG_MODULE:
	case SP_TAG_FRAME:
	case SP_TAG_STACK:
	case SP_TAG_THREAD:
	case SP_EXT_BUILDID:
	case SP_EXT_EVENT:
	case SP_EXT_WEIGHT:
	case SP_EXT_WAIT:
	case SP_EXT_PYCODE:
	case SP_EXT_PYNODE:
	case SP_EXT_PYSTACK:
		return true;
	default:
		return false;
	}
}

static int
print_record(struct dump *d, const struct sp_spool_record *rec)
{
	struct sp_rec out = { .kind = SP_REC_UNKNOWN };

	if (rec->tag == SP_TAG_SAMPLE)
		return print_sample(d, rec);
	if (d->stacks)
		return 0;
	if (!keeps_runs(rec->tag))
		dump_runs_flush(d->runs);
	switch (rec->tag) {
	case SP_TAG_MODULE:
		print_module(&rec->u.module);
		return 0;
	case SP_TAG_FRAME:
		print_frame(d->r, rec->u.frame.id, &rec->u.frame.frame);
		return 0;
	case SP_TAG_STACK:
	case SP_TAG_THREAD:
	case SP_TAG_EXEC:
	case SP_TAG_DEACTIVATE:
		convert(rec, &out);
		sp_rec_write(stdout, &out);
		return 0;
	}
	return print_ext(d, rec);
}

static int
dump_records(struct dump *d)
{
	struct sp_spool_record rec;
	uint64_t start_us, interval_us;
	int rc;

	rc = sp_spool_reader_header(d->r, &start_us, &interval_us);
	if (rc == 0 && !d->stacks) {
		struct sp_rec out = { .kind = SP_REC_SPOOL };

		out.u.spool.version = SP_RECORDS_VERSION;
		out.u.spool.start_us = start_us;
		out.u.spool.interval_us = interval_us;
		sp_rec_write(stdout, &out);
	}
	while (rc == 0 && (rc = sp_spool_reader_next(d->r, &rec)) > 0) {
		rc = print_record(d, &rec);
		if (rc == -EBADMSG) {
			warnx("'%s': malformed extension record %u at byte "
			      "%" PRIu64,
			      d->name, rec.tag, rec.offset);
			return 1;
		}
	}
	dump_runs_flush(d->runs); /* what was read, before any fault */
	if (rc == -ENOMEM) {
		warnx("'%s': out of memory", d->name);
		return 1;
	}
	if (rc < 0) {
		warnx("'%s': %s", d->name, sp_spool_reader_errmsg(d->r));
		return 1;
	}
	/* Every record is sound, but the recording is not whole. */
	if (!sp_spool_reader_closed(d->r))
		warnx("'%s': the spool ends at byte %" PRIu64 " without "
		      "sp-record's closing stats record: the recording was "
		      "cut short (every record before is shown)",
		      d->name, sp_spool_reader_offset(d->r));
	return 0;
}

static int
dump_fd(int fd, const char *name, bool stacks, bool follow, bool runs)
{
	struct dump d = { .name = name, .stacks = stacks, .follow = follow };
	int status = 1;

	if (runs && !(d.runs = dump_runs_new(stdout))) {
		warnx("out of memory");
		return 1;
	}
	d.r = sp_spool_reader_new(fd);
	d.seen = dump_seen_new();
	if (!d.r || !d.seen)
		warnx("out of memory");
	else {
		sp_spool_reader_on_wait(d.r, flush_stdout, &d);
		sp_spool_reader_follow(d.r, d.follow);
		status = dump_records(&d);
	}
	sp_spool_reader_free(d.r);
	dump_seen_free(d.seen);
	dump_runs_free(d.runs);
	sp_buf_release(&d.tmp);
	sp_buf_release(&d.pairs);
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "runs", no_argument, NULL, 'r' },
		{ "stacks", no_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = "-", *output = NULL;
	bool follow = false, runs = false, stacks = false;
	int c, fd = 0, status, rc;

	/* Its tables and text buffers: a few MiB on a real spool. */
	sp_heap_tune(8 << 20);
	argv[0] = (char *)"sp-dump"; /* getopt's messages name the tool */
	while ((c = getopt_long(argc, argv, "fho:rs", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = true;
			break;
		case 'h':
			help();
			break;
		case 'o':
			output = optarg;
			break;
		case 'r':
			runs = true;
			break;
		case 's':
			stacks = true;
			break;
		case 'V':
			printf("sp-dump %s\n", sp_version());
			return 0;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 || (runs && stacks)) {
		warnx(runs && stacks ? "--runs and --stacks exclude each other"
				     : "one spool at a time");
		usage();
	}
	if (argc == 1 && strcmp(argv[0], "-")) {
		name = argv[0];
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			err(1, "'%s'", name);
	}
	/* Opened after the input, so a missing input leaves no empty file. */
	if (output && !freopen(output, "w", stdout))
		err(1, "'%s'", output);
	if (fd == 0 && isatty(0))
		errx(2, "refusing to read a spool from a terminal; "
			"give a FILE or a pipe");
	status = dump_fd(fd, fd == 0 ? "stdin" : name, stacks, follow, runs);
	rc = sp_cli_close_stdout();
	if (rc) {
		warnx("write error on standard output: %s", strerror(-rc));
		status = 1;
	}
	return status;
}
