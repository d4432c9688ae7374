/*
 * sp-dump: prints a spool as the text record stream of sp-records(5), or
 * with --stacks one line per sample with its whole stack.  Records are
 * printed as they are read, so a live recorder can be watched.
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
#include "common/ext.h"
#include "common/htab.h"
#include "common/names.h"
#include "common/records.h"
#include "common/spool.h"
#include "common/banned.h"

struct dump {
	const char *name; /* input name for messages */
	struct sp_spool_reader *r;
	bool stacks;             /* --stacks: one line per sample */
	bool follow;             /* --follow: wait at end of input */
	struct sp_htab *seen;    /* (stack, pid) already handled */
	struct sp_htab *pframes; /* (frame, pid) pframe written */
	struct sp_buf text;      /* --stacks: rendered stacks, '\0'-separated */
	struct sp_buf tmp;
};

static void
usage(void)
{
	fprintf(stderr, "usage: sp-dump [-fs] [FILE]\n");
	exit(2);
}

static void
flush_stdout(void *ctx)
{
	(void)ctx;
	fflush(stdout);
}

static void
print_module(const struct sp_module *m)
{
	printf("module\t%u\t%d\t0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64
	       "\t%" PRIu64 "\t%s\t",
	       m->id, m->pid, m->start, m->end, m->file_offset, m->inode,
	       m->is_kernel ? "kernel" : "user");
	sp_escape_file(stdout, m->path, m->path_len);
	putchar('\n');
}

static void
print_frame(const struct sp_spool_reader *r, uint32_t id,
	    const struct sp_frame *f)
{
	uint64_t rel = 0;
	uint32_t mod = SP_NONE;

	printf("frame\t%u\t%s\t0x%" PRIx64, id, sp_frame_mode_name(f->mode),
	       f->abs_ip);
	if (!sp_spool_reader_frame_needs_pid(r, id))
		mod = sp_spool_reader_frame_context(r, id, 0, &rel);
	if (mod == SP_NONE)
		printf("\t-\t-\n");
	else
		printf("\t%u\t0x%" PRIx64 "\n", mod, rel);
}

static void
print_hex(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/*
 * Walks a host or stats payload, printing its KEY=VALUE fields when
 * `print` is set; returns 0, or -EBADMSG for a malformed payload.
 */
static int
walk_pairs(const uint8_t *p, size_t n, bool counters, bool print)
{
	struct sp_ext_iter it = { p, p + n };
	const char *k, *v;
	size_t kl, vl;
	uint64_t val;
	int rc;

	while ((rc = counters ? sp_ext_counter_next(&it, &k, &kl, &val)
			      : sp_ext_pair_next(&it, &k, &kl, &v, &vl)) > 0) {
		if (!print)
			continue;
		putchar('\t');
		sp_escape_file(stdout, k, kl);
		putchar('=');
		if (counters)
			printf("%" PRIu64, val);
		else
			sp_escape_file(stdout, v, vl);
	}
	return rc;
}

/* A malformed payload is reported before anything of it is printed. */
static int
print_pairs(const char *kind, const uint8_t *p, size_t n, bool counters)
{
	if (walk_pairs(p, n, counters, false))
		return -EBADMSG;
	fputs(kind, stdout);
	walk_pairs(p, n, counters, true);
	putchar('\n');
	return 0;
}

static int
print_ext(const struct sp_spool_record *rec)
{
	const uint8_t *p = rec->u.ext.data;
	size_t n = rec->u.ext.len;
	struct sp_ext_comm c;
	struct sp_ext_lost l;
	struct sp_ext_exit e;
	struct sp_ext_buildid b;

	switch (rec->tag) {
	case SP_EXT_HOST:
		return print_pairs("host", p, n, false);
	case SP_EXT_STATS:
		return print_pairs("stats", p, n, true);
	case SP_EXT_COMM:
		if (sp_ext_comm_decode(p, n, &c))
			return -EBADMSG;
		printf("comm\t%" PRIu64 "\t%d\t%" PRIu64 "\t%s\t",
		       c.timestamp_ns, c.pid, c.tid,
		       c.is_exec ? "exec" : "name");
		sp_escape_file(stdout, c.name, c.name_len);
		putchar('\n');
		return 0;
	case SP_EXT_LOST:
		if (sp_ext_lost_decode(p, n, &l))
			return -EBADMSG;
		printf("lost\t%" PRIu64 "\t%" PRIu64 "\n", l.timestamp_ns,
		       l.count);
		return 0;
	case SP_EXT_EXIT:
		if (sp_ext_exit_decode(p, n, &e))
			return -EBADMSG;
		printf("exit\t%" PRIu64 "\t%d\t%" PRIu64 "\n", e.timestamp_ns,
		       e.pid, e.tid);
		return 0;
	case SP_EXT_BUILDID:
		if (sp_ext_buildid_decode(p, n, &b))
			return -EBADMSG;
		printf("buildid\t%u\t", b.module_id);
		print_hex(b.id, b.id_len);
		putchar('\n');
		return 0;
	}
	printf("ext\t%u\t", rec->tag);
	print_hex(p, n);
	putchar('\n');
	return 0;
}

/* Writes a pframe for each module-less user frame of the stack, once
 * per (frame, pid). */
static int
emit_pframes(struct dump *d, uint32_t stack, int32_t pid)
{
	uint32_t prefix, frame, mod;
	uint64_t key[2], rel;

	while (stack != SP_NONE &&
	       sp_spool_reader_stack(d->r, stack, &prefix, &frame)) {
		stack = prefix;
		if (!sp_spool_reader_frame_needs_pid(d->r, frame))
			continue;
		key[0] = frame;
		key[1] = (uint64_t)(int64_t)pid;
		if (sp_htab_get(d->pframes, key, sizeof(key), NULL))
			continue;
		if (sp_htab_put(d->pframes, key, sizeof(key), 1))
			return -ENOMEM;
		mod = sp_spool_reader_frame_context(d->r, frame, pid, &rel);
		printf("pframe\t%u\t%d\t", frame, pid);
		if (mod == SP_NONE)
			printf("-\t-\n");
		else
			printf("%u\t0x%" PRIx64 "\n", mod, rel);
	}
	return 0;
}

/* Renders a stack leaf first as tab-separated fallback names. */
static int
render_stack(struct dump *d, uint32_t stack, int32_t pid)
{
	uint32_t prefix, frame, mod;
	const struct sp_module *m;
	uint64_t rel = 0;
	int rc = 0;

	while (!rc && stack != SP_NONE &&
	       sp_spool_reader_stack(d->r, stack, &prefix, &frame)) {
		const struct sp_frame *f = sp_spool_reader_frame(d->r, frame);

		mod = sp_spool_reader_frame_context(d->r, frame, pid, &rel);
		m = mod == SP_NONE ? NULL : sp_spool_reader_module(d->r, mod);
		sp_buf_reset(&d->tmp);
		rc = sp_fallback_name(&d->tmp, f->mode, m ? m->path : NULL, rel,
				      f->abs_ip);
		rc = rc ? rc : sp_buf_addc(&d->text, '\t');
		rc = rc ? rc
			: sp_escape(&d->text, (char *)d->tmp.data, d->tmp.len);
		stack = prefix;
	}
	return rc ? rc : sp_buf_addc(&d->text, 0);
}

static int
print_sample(struct dump *d, const struct sp_spool_record *rec)
{
	uint64_t key[2] = { rec->u.sample.stack_id,
			    (uint64_t)(int64_t)rec->u.sample.pid },
		 off;
	bool fresh = !sp_htab_get(d->seen, key, sizeof(key), &off);
	int rc = 0;

	if (fresh) {
		off = d->text.len;
		if (sp_htab_put(d->seen, key, sizeof(key), off))
			return -ENOMEM;
		rc = d->stacks ? render_stack(d, rec->u.sample.stack_id,
					      rec->u.sample.pid)
			       : emit_pframes(d, rec->u.sample.stack_id,
					      rec->u.sample.pid);
		if (rc)
			return rc;
	}
	printf("sample\t%" PRIu64 "\t%d\t%" PRIu64, rec->u.sample.timestamp_ns,
	       rec->u.sample.pid, rec->u.sample.tid);
	if (d->stacks)
		printf("%s\n", (char *)d->text.data + off);
	else
		printf("\t%u\n", rec->u.sample.stack_id);
	return 0;
}

static int
print_record(struct dump *d, const struct sp_spool_record *rec)
{
	if (rec->tag == SP_TAG_SAMPLE)
		return print_sample(d, rec);
	if (d->stacks)
		return 0;
	switch (rec->tag) {
	case SP_TAG_MODULE:
		print_module(&rec->u.module);
		return 0;
	case SP_TAG_FRAME:
		print_frame(d->r, rec->u.frame.id, &rec->u.frame.frame);
		return 0;
	case SP_TAG_STACK:
		printf("stack\t%u\t", rec->u.stack.id);
		if (rec->u.stack.prefix == SP_NONE)
			printf("-");
		else
			printf("%u", rec->u.stack.prefix);
		printf("\t%u\n", rec->u.stack.frame_id);
		return 0;
	case SP_TAG_THREAD:
		printf("thread\t%u\t%d\t%" PRIu64 "\n", rec->u.thread.id,
		       rec->u.thread.pid, rec->u.thread.tid);
		return 0;
	case SP_TAG_EXEC:
		printf("exec\t%" PRIu64 "\t%d\t%s\n", rec->u.exec.timestamp_ns,
		       rec->u.exec.pid,
		       rec->u.exec.is_python ? "python" : "native");
		return 0;
	case SP_TAG_DEACTIVATE:
		printf("deactivate\t%d\n", rec->u.deactivate.pid);
		return 0;
	}
	return print_ext(rec);
}

static int
dump_records(struct dump *d)
{
	struct sp_spool_record rec;
	uint64_t start_us, interval_us;
	int rc;

	rc = sp_spool_reader_header(d->r, &start_us, &interval_us);
	if (rc == 0 && !d->stacks)
		printf("spool\t%d\t%" PRIu64 "\t%" PRIu64 "\n",
		       SP_RECORDS_VERSION, start_us, interval_us);
	while (rc == 0 && (rc = sp_spool_reader_next(d->r, &rec)) > 0) {
		rc = print_record(d, &rec);
		if (rc == -EBADMSG) {
			warnx("'%s': malformed extension record %u at byte "
			      "%" PRIu64,
			      d->name, rec.tag, rec.offset);
			return 1;
		}
	}
	if (rc == -ENOMEM) {
		warnx("'%s': out of memory", d->name);
		return 1;
	}
	if (rc < 0) {
		warnx("'%s': %s", d->name, sp_spool_reader_errmsg(d->r));
		return 1;
	}
	return 0;
}

static int
dump_fd(int fd, const char *name, bool stacks, bool follow)
{
	struct dump d = { name, NULL, stacks,      follow,
			  NULL, NULL, SP_BUF_INIT, SP_BUF_INIT };
	int status = 1;

	d.r = sp_spool_reader_new(fd);
	d.seen = sp_htab_new();
	d.pframes = sp_htab_new();
	if (!d.r || !d.seen || !d.pframes)
		warnx("out of memory");
	else {
		sp_spool_reader_on_wait(d.r, flush_stdout, NULL);
		sp_spool_reader_follow(d.r, d.follow);
		status = dump_records(&d);
	}
	sp_spool_reader_free(d.r);
	sp_htab_free(d.seen);
	sp_htab_free(d.pframes);
	sp_buf_release(&d.text);
	sp_buf_release(&d.tmp);
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "stacks", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = "-";
	bool follow = false, stacks = false;
	int c, fd = 0, status;

	while ((c = getopt_long(argc, argv, "fhs", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = true;
			break;
		case 's':
			stacks = true;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage();
	if (argc == 1 && strcmp(argv[0], "-")) {
		name = argv[0];
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			err(1, "'%s'", name);
	}
	if (fd == 0 && isatty(0))
		errx(2, "refusing to read a spool from a terminal; "
			"give a FILE or a pipe");
	status = dump_fd(fd, fd == 0 ? "stdin" : name, stacks, follow);
	if (fclose(stdout) != 0 && errno != EPIPE) {
		warn("write error");
		status = 1;
	}
	return status;
}
