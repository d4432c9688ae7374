/*
 * check_spool.c: the spool writer and streaming reader, with the
 * reference's scenarios: interning, marker identity, module contexts
 * (future, deactivated, re-interned), validation errors and truncation.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/ext.h"
#include "common/ids.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "common/varint.h"

static int fd;
static struct sp_spool_writer *w;
static struct sp_spool_reader *r;

static void
setup(void)
{
	fd = memfd_create("spool", 0);
	ck_assert_int_ge(fd, 0);
	w = sp_spool_writer_new(fd, 123, 10);
	ck_assert_ptr_nonnull(w);
	r = NULL;
}

static void
teardown(void)
{
	sp_spool_writer_free(w);
	sp_spool_reader_free(r);
	close(fd);
}

static struct sp_frame
ufr(uint64_t ip)
{
	struct sp_frame f = { SP_NONE, ip, ip, SP_FRAME_USER };

	return f;
}

static struct sp_module
mod(int32_t pid, uint64_t start, uint64_t end, const char *path, bool k)
{
	struct sp_module m = {
		0, pid, start, end, 0, 0, k, path, strlen(path)
	};

	return m;
}

/* Flushes the writer and reads every record; returns the final rc. */
static int
read_all(void)
{
	struct sp_spool_record rec;
	uint64_t s, i;
	int rc;

	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	rc = sp_spool_reader_header(r, &s, &i);
	if (rc)
		return rc;
	ck_assert_uint_eq(s, 123);
	ck_assert_uint_eq(i, 10);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0)
		;
	return rc;
}

/* Frame ids of a stack, leaf first, into out[]; returns the depth. */
static size_t
stack_frames(uint32_t stack, uint32_t *out)
{
	uint32_t prefix, frame;
	size_t n = 0;

	while (stack != SP_NONE &&
	       sp_spool_reader_stack(r, stack, &prefix, &frame)) {
		out[n++] = frame;
		stack = prefix;
	}
	return n;
}

START_TEST(marker_round_trips)
{
	struct sp_frame f[2] = { ufr(0x1000), sp_frame_truncated_marker() };
	uint32_t sid, ids[4];

	ck_assert_int_eq(sp_spool_writer_sample(w, 1000, 7, 11, f, 2, &sid), 0);
	ck_assert_int_eq(read_all(), 0);
	ck_assert_uint_eq(stack_frames(sid, ids), 2);
	ck_assert_uint_eq(sp_spool_reader_frame(r, ids[0])->abs_ip, 0x1000);
	ck_assert_int_eq(sp_spool_reader_frame(r, ids[1])->mode,
			 SP_FRAME_TRUNCATED);
}
END_TEST

START_TEST(marker_only_stack_round_trips)
{
	struct sp_frame f = sp_frame_truncated_marker();
	uint32_t sid, ids[2];

	ck_assert_int_eq(sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &sid),
			 0);
	ck_assert_int_eq(read_all(), 0);
	ck_assert_uint_eq(stack_frames(sid, ids), 1);
	ck_assert_int_eq(sp_spool_reader_frame(r, ids[0])->mode,
			 SP_FRAME_TRUNCATED);
}
END_TEST

START_TEST(marker_is_part_of_stack_identity)
{
	struct sp_frame f[2] = { ufr(0x1000), sp_frame_truncated_marker() };
	uint32_t plain, marked, again;

	sp_spool_writer_sample(w, 0, 7, 11, f, 1, &plain);
	sp_spool_writer_sample(w, 1, 7, 11, f, 2, &marked);
	sp_spool_writer_sample(w, 2, 7, 11, f, 1, &again);
	ck_assert_uint_ne(plain, marked);
	ck_assert_uint_eq(plain, again);
}
END_TEST

START_TEST(empty_stack_is_not_written)
{
	uint32_t sid = 0;
	uint64_t before = sp_spool_writer_bytes(w);

	ck_assert_int_eq(sp_spool_writer_sample(w, 5, 7, 11, NULL, 0, &sid), 0);
	ck_assert_uint_eq(sid, SP_NONE);
	ck_assert_uint_eq(sp_spool_writer_bytes(w), before);
}
END_TEST

START_TEST(reader_resolves_module_contexts)
{
	struct sp_module m0 = mod(7, 0x1000, 0x2000, "/first", false);
	struct sp_module m1 = mod(7, 0x3000, 0x4000, "/second", false);
	struct sp_module m2 = mod(-1, 0xffffffff81000000ull,
				  0xffffffff81010000ull, "[kernel]", true);
	struct sp_frame f[3] = {
		{ 0, 0x110, 0x1010, SP_FRAME_USER },
		ufr(0x3010),
		{ SP_NONE, 0xffffffff81000010ull, 0xffffffff81000010ull,
		  SP_FRAME_KERNEL },
	};
	uint32_t sid, ids[3];
	uint64_t rel;

	m0.file_offset = 0x100;
	m0.inode = 1;
	m1.id = 1;
	m1.file_offset = 0x200;
	m1.inode = 2;
	m2.id = 2;
	sp_spool_writer_module(w, &m0);
	sp_spool_writer_module(w, &m1);
	sp_spool_writer_module(w, &m2);
	sp_spool_writer_sample(w, 1000, 7, 11, f, 3, &sid);
	ck_assert_int_eq(read_all(), 0);
	ck_assert_uint_eq(stack_frames(sid, ids), 3);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, ids[0], 7, &rel), 0);
	ck_assert_uint_eq(rel, 0x110);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, ids[1], 7, &rel), 1);
	ck_assert_uint_eq(rel, 0x210);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, ids[2], 7, &rel), 2);
	ck_assert_uint_eq(rel, 0x10);
	/* Another process does not see process 7's modules. */
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, ids[1], 8, &rel),
			  SP_NONE);
	ck_assert_str_eq(sp_spool_reader_module(r, 1)->path, "/second");
}
END_TEST

START_TEST(future_modules_do_not_resolve_earlier_frames)
{
	struct sp_frame f = ufr(0x1500);
	struct sp_module m = mod(7, 0x1000, 0x2000, "/future", false);
	uint32_t sid, id;
	uint64_t rel;

	sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &sid);
	sp_spool_writer_module(w, &m);
	ck_assert_int_eq(read_all(), 0);
	stack_frames(sid, &id);
	ck_assert_uint_eq(sp_spool_reader_frame(r, id)->module_id, SP_NONE);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, id, 7, &rel),
			  SP_NONE);
}
END_TEST

START_TEST(deactivated_modules_do_not_resolve)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/old", false);
	struct sp_modtab *t = sp_modtab_new();
	struct sp_frame f = ufr(0x1500);
	uint32_t sid, id, mid;
	uint64_t rel;

	ck_assert_int_eq(sp_modtab_intern(t, &m, w, &mid), 0);
	ck_assert_int_eq(sp_modtab_deactivate(t, 7, w), 0);
	sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &sid);
	ck_assert_int_eq(read_all(), 0);
	stack_frames(sid, &id);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, id, 7, &rel),
			  SP_NONE);
	sp_modtab_free(t);
}
END_TEST

/* A forgotten thread that samples again gets a new thread record. */
START_TEST(forgotten_threads_are_written_again)
{
	struct sp_frame f = ufr(0x1500);
	struct sp_spool_record rec;
	uint64_t s, i, tids[4];
	uint32_t sid, ids[4];
	size_t n = 0;
	int rc;

	sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &sid);
	sp_spool_writer_sample(w, 1001, 7, 12, &f, 1, &sid);
	sp_spool_writer_forget_thread(w, 7, 11);
	sp_spool_writer_forget_thread(w, 7, 99); /* unknown: no effect */
	sp_spool_writer_sample(w, 1002, 7, 12, &f, 1, &sid);
	sp_spool_writer_sample(w, 1003, 7, 11, &f, 1, &sid);
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &s, &i), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0)
		if (rec.tag == SP_TAG_THREAD && n < 4) {
			ids[n] = rec.u.thread.id;
			tids[n++] = rec.u.thread.tid;
		}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(ids[2], 2);
	ck_assert_uint_eq(tids[0], 11);
	ck_assert_uint_eq(tids[1], 12);
	ck_assert_uint_eq(tids[2], 11);
}
END_TEST

START_TEST(frames_resolve_before_later_deactivation)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/old", false);
	struct sp_frame f = ufr(0x1500);
	uint32_t sid, id;
	uint64_t rel;

	sp_spool_writer_module(w, &m);
	sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &sid);
	sp_spool_writer_deactivate(w, 7);
	ck_assert_int_eq(read_all(), 0);
	stack_frames(sid, &id);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, id, 7, &rel), 0);
	ck_assert_str_eq(sp_spool_reader_module(r, 0)->path, "/old");
}
END_TEST

START_TEST(frames_reintern_when_module_context_changes)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/new", false);
	struct sp_frame f = ufr(0x1500);
	uint32_t s1, s2, id1, id2;
	uint64_t rel;

	sp_spool_writer_sample(w, 1000, 7, 11, &f, 1, &s1);
	sp_spool_writer_module(w, &m);
	sp_spool_writer_sample(w, 2000, 7, 11, &f, 1, &s2);
	ck_assert_int_eq(read_all(), 0);
	stack_frames(s1, &id1);
	stack_frames(s2, &id2);
	ck_assert_uint_ne(id1, id2);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, id1, 7, &rel),
			  SP_NONE);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, id2, 7, &rel), 0);
}
END_TEST

START_TEST(reader_rejects_non_sequential_module_ids)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/bad", false);

	m.id = 7;
	sp_spool_writer_module(w, &m);
	ck_assert_int_lt(read_all(), 0);
	ck_assert_str_eq(sp_spool_reader_errmsg(r),
			 "module id 7 did not match expected 0 at byte 10");
}
END_TEST

/* Issue 11: the path was cut at the NUL but printed with its length. */
START_TEST(reader_rejects_module_path_with_nul)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/a", false);

	m.path = "/a\0b";
	m.path_len = 4;
	sp_spool_writer_module(w, &m);
	ck_assert_int_lt(read_all(), 0);
	ck_assert_str_eq(sp_spool_reader_errmsg(r),
			 "module path holds a NUL byte at byte 10");
}
END_TEST

START_TEST(writer_rejects_out_of_range_deltas)
{
	struct sp_frame f = ufr(1);

	ck_assert_int_lt(sp_spool_writer_sample(w, (uint64_t)INT64_MAX + 1, 7,
						11, &f, 1, NULL),
			 0);
	ck_assert_str_eq(sp_spool_writer_errmsg(w),
			 "sample timestamp delta "
			 "9223372036854775808 out of range");
	ck_assert_int_eq(
	    sp_spool_writer_sample(w, INT64_MAX, 7, 11, &f, 1, NULL), 0);
	ck_assert_int_eq(sp_spool_writer_sample(w, (uint64_t)INT64_MAX * 2, 7,
						11, &f, 1, NULL),
			 0);
	ck_assert_int_eq(
	    sp_spool_writer_sample(w, UINT64_MAX, 7, 11, &f, 1, NULL), 0);
	ck_assert_int_lt(sp_spool_writer_sample(w, 0, 7, 11, &f, 1, NULL), 0);
	ck_assert_str_eq(sp_spool_writer_errmsg(w),
			 "sample timestamp delta "
			 "-18446744073709551615 out of range");
}
END_TEST

/* Raw-byte scenarios: a header followed by hand-encoded records. */
static struct sp_buf raw;

static void
raw_begin(void)
{
	sp_buf_reset(&raw);
	sp_buf_add(&raw, "SPULSE1", 8);
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_u64(&raw, 0);
}

static const char *
raw_error(void)
{
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, raw.data, raw.len, 0), (ssize_t)raw.len);
	sp_spool_reader_free(r);
	sp_spool_writer_free(w);
	w = sp_spool_writer_new(-1, 123, 10); /* unused: flush is empty */
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	{
		struct sp_spool_record rec;
		uint64_t s, i;
		int rc = sp_spool_reader_header(r, &s, &i);

		while (rc == 0 && sp_spool_reader_next(r, &rec) > 0)
			;
		if (rc == 0)
			rc = sp_spool_reader_next(r, &rec);
		ck_assert_int_lt(rc, 0);
	}
	return sp_spool_reader_errmsg(r);
}

static void
raw_module(int64_t pid, uint64_t start, uint64_t end, uint64_t off)
{
	sp_buf_addc(&raw, 1);
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_i64(&raw, pid);
	sp_varint_put_u64(&raw, start);
	sp_varint_put_u64(&raw, end);
	sp_varint_put_u64(&raw, off);
	sp_varint_put_u64(&raw, 0);
	sp_buf_addc(&raw, 0);
	sp_varint_put_u64(&raw, 4);
	sp_buf_add(&raw, "/bad", 4);
}

static void
raw_frame(uint64_t tag, uint64_t addr)
{
	sp_buf_addc(&raw, 2);
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_u64(&raw, tag);
	sp_varint_put_u64(&raw, addr);
}

START_TEST(rejects_marker_with_payload)
{
	raw_begin();
	raw_frame(5, 1);
	ck_assert_str_eq(raw_error(), "truncated stack marker has nonzero "
				      "payload at byte 10");
}
END_TEST

START_TEST(rejects_frame_before_file_offset)
{
	raw_begin();
	raw_module(7, 0x1000, 0x2000, 0x100);
	raw_frame(0, 0x80);
	ck_assert_ptr_nonnull(strstr(raw_error(), "frame address precedes "
						  "module 0 file offset"));
}
END_TEST

START_TEST(rejects_frame_outside_module)
{
	raw_begin();
	raw_module(7, 0x1000, 0x2000, 0x100);
	raw_frame(0, 0x1100);
	ck_assert_ptr_nonnull(strstr(raw_error(), "frame address outside "
						  "referenced module 0"));
}
END_TEST

START_TEST(rejects_out_of_range_process_ids)
{
	raw_begin();
	raw_module((int64_t)INT32_MAX + 1, 0x1000, 0x2000, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "process id 2147483648 "
						  "out of range"));
	raw_begin();
	sp_buf_addc(&raw, 6);
	sp_varint_put_u64(&raw, 1);
	sp_varint_put_i64(&raw, (int64_t)INT32_MIN - 1);
	sp_buf_addc(&raw, 1);
	ck_assert_ptr_nonnull(strstr(raw_error(), "process id"));
	raw_begin();
	sp_buf_addc(&raw, 4);
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_i64(&raw, (int64_t)INT32_MAX + 1);
	sp_varint_put_u64(&raw, 99);
	ck_assert_ptr_nonnull(strstr(raw_error(), "process id"));
	/* Issue 24: the pframes of a negative pid are refused as text. */
	raw_begin();
	sp_buf_addc(&raw, 4);
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_i64(&raw, -5);
	sp_varint_put_u64(&raw, 5);
	ck_assert_str_eq(raw_error(),
			 "thread process id -5 is negative at byte 10");
}
END_TEST

static void
raw_sample_setup(void)
{
	raw_begin();
	raw_frame(1, 0x10);
	sp_buf_addc(&raw, 3); /* stack 0 = root, frame 0 */
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_u64(&raw, SP_NONE);
	sp_varint_put_u64(&raw, 0);
	sp_buf_addc(&raw, 4); /* thread 0 = 7/11 */
	sp_varint_put_u64(&raw, 0);
	sp_varint_put_i64(&raw, 7);
	sp_varint_put_u64(&raw, 11);
}

static void
raw_sample(int64_t delta, uint64_t thread, uint64_t stack)
{
	sp_buf_addc(&raw, 5);
	sp_varint_put_i64(&raw, delta);
	sp_varint_put_u64(&raw, thread);
	sp_varint_put_u64(&raw, stack);
}

START_TEST(rejects_timestamp_underflow_and_overflow)
{
	raw_sample_setup();
	raw_sample(-1, 0, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "sample timestamp delta -1 "
						  "out of range"));
	raw_sample_setup();
	raw_sample(INT64_MAX, 0, 0);
	raw_sample(INT64_MAX, 0, 0);
	raw_sample(2, 0, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "sample timestamp delta 2 "
						  "out of range"));
}
END_TEST

START_TEST(rejects_missing_references)
{
	raw_sample_setup();
	raw_sample(1, 1, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "sample thread references "
						  "missing id 1"));
	raw_sample_setup();
	raw_sample(1, 0, 3);
	ck_assert_ptr_nonnull(strstr(raw_error(), "sample stack references "
						  "missing id 3"));
	raw_begin();
	raw_frame(4, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "frame module references "
						  "missing id 2"));
	raw_sample_setup();
	sp_buf_addc(&raw, 3);
	sp_varint_put_u64(&raw, 1);
	sp_varint_put_u64(&raw, 1);
	sp_varint_put_u64(&raw, 0);
	ck_assert_ptr_nonnull(strstr(raw_error(), "stack prefix references "
						  "missing id 1"));
}
END_TEST

START_TEST(rejects_unknown_tags_and_skips_extensions)
{
	struct sp_spool_record rec;
	uint64_t s, i;

	raw_begin();
	sp_buf_addc(&raw, 9);
	ck_assert_str_eq(raw_error(), "unknown spool record tag 9 at byte 10");
	raw_begin();
	sp_buf_addc(&raw, 200);
	sp_varint_put_u64(&raw, 3);
	sp_buf_add(&raw, "abc", 3);
	raw_frame(1, 0x10);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, raw.data, raw.len, 0), (ssize_t)raw.len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	sp_spool_reader_free(r);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &s, &i), 0);
	ck_assert_int_eq(sp_spool_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.tag, 200);
	ck_assert_uint_eq(rec.u.ext.len, 3);
	ck_assert_int_eq(sp_spool_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.tag, SP_TAG_FRAME);
	ck_assert_int_eq(sp_spool_reader_next(r, &rec), 0);
}
END_TEST

/* Appends extension `tag` with the payload `p` (n bytes) to `raw`. */
static void
raw_ext(uint8_t tag, const void *p, size_t n)
{
	sp_buf_addc(&raw, tag);
	sp_varint_put_u64(&raw, n);
	sp_buf_add(&raw, p, n);
}

/* Issue 24: what recdec.c refuses in text, the spool reader refuses. */
START_TEST(rejects_extensions_the_text_readers_refuse)
{
	static const struct {
		uint8_t tag;
		const char *payload;
		size_t n;
		const char *error;
	} cases[] = {
		{ 21, "\x00\x02\xab\xcd", 4, "21: undefined module" },
		{ 17,
		  "\x01\x04\x02\x00\x03"
		  "a\x00b",
		  8, "17: name holds a NUL byte" },
		{ 16, "\x02k=\x01v", 5, "16: a key holds a NUL byte or '='" },
		{ 16, "\x01k\x02\x00v", 5, "16: a value holds a NUL byte" },
		{ 19, "\x02k\x00\x01", 4, "19: a key holds a NUL byte or '='" },
		{ 22,
		  "\x01\x01"
		  "c\x01\x00",
		  5, "22: event index out of order" },
		{ 22,
		  "\x00\x01"
		  "c\x00\x00",
		  5, "22: event with neither period nor frequency" },
		{ 23, "\x00\x05", 2, "23: undefined event" },
		{ 17, "\x01\x04", 2, "malformed extension record 17" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[96];

		raw_begin();
		raw_frame(1, 0x10);
		raw_ext(cases[i].tag, cases[i].payload, cases[i].n);
		snprintf(buf, sizeof(buf), "%s at byte 14", cases[i].error);
		ck_assert_msg(strstr(raw_error(), buf), "case %zu: %s", i,
			      sp_spool_reader_errmsg(r));
	}
	/* The good forms pass: event 0, then its weight. */
	raw_begin();
	raw_ext(22,
		"\x00\x01"
		"c\x00\x63",
		5);
	raw_ext(23, "\x00\x05", 2);
	raw_ext(21, "\x00\x01\xab", 3);
	ck_assert_str_eq(raw_error(), "extension record 21: undefined module "
				      "at byte 21");
}
END_TEST

/*
 * Every cut of a valid spool yields its complete records, then an error;
 * a cut between records is a shorter spool the reader says was not
 * closed (no stats record last), at the byte where it ends.
 */
START_TEST(every_truncation_is_a_clean_error)
{
	struct sp_module m = mod(7, 0x1000, 0x2000, "/lib/x.so", false);
	struct sp_frame f[3] = { { 0, 0x10, 0x1010, SP_FRAME_USER },
				 ufr(0x9999),
				 sp_frame_truncated_marker() };
	struct sp_spool_record rec;
	struct sp_buf all = SP_BUF_INIT, stats = SP_BUF_INIT;
	uint64_t start, interval;
	size_t cut;
	int boundaries = 0;

	sp_spool_writer_module(w, &m);
	sp_spool_writer_sample(w, 10, 7, 11, f, 3, NULL);
	sp_spool_writer_exec(w, 11, 7, true);
	sp_spool_writer_ext(w, 200, "xyz", 3);
	sp_spool_writer_deactivate(w, 7);
	ck_assert_int_eq(sp_ext_counter_encode(&stats, "samples", 1), 0);
	sp_spool_writer_ext(w, SP_EXT_STATS, stats.data, stats.len);
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	all.len = 0;
	sp_buf_grow(&all, 4096);
	all.len = (size_t)pread(fd, all.data, 4096, 0);
	for (cut = 0; cut < all.len; cut++) {
		uint64_t s, i;
		int rc, n = 0;

		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, all.data, cut, 0), (ssize_t)cut);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
		sp_spool_reader_free(r);
		r = sp_spool_reader_new(fd);
		rc = sp_spool_reader_header(r, &s, &i);
		while (rc == 0 && (rc = sp_spool_reader_next(r, &rec)) > 0) {
			rc = 0;
			n++;
		}
		ck_assert_int_le(rc, 0);
		/* A cut between records leaves a shorter valid spool. */
		if (rc == 0) {
			ck_assert_int_eq(n, boundaries++);
			ck_assert(!sp_spool_reader_closed(r));
			ck_assert_uint_eq(sp_spool_reader_offset(r), cut);
			continue;
		}
		ck_assert_ptr_nonnull(
		    strstr(sp_spool_reader_errmsg(r), "truncated")
			?: strstr(sp_spool_reader_errmsg(r), "empty"));
	}
	/* module, 3 frames, 3 stacks, thread, sample, exec, ext, deact,
	 * stats */
	ck_assert_int_eq(boundaries, 13);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(pwrite(fd, all.data, all.len, 0), (ssize_t)all.len);
	sp_spool_reader_free(r);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &start, &interval), 0);
	for (cut = 0; sp_spool_reader_next(r, &rec) > 0; cut++)
		;
	ck_assert_uint_eq(cut, 13);
	ck_assert(sp_spool_reader_closed(r));
	sp_buf_release(&all);
	sp_buf_release(&stats);
}
END_TEST

/* A frame of module `id` mapped at `start`, `off` bytes in. */
static struct sp_frame
mfr(uint32_t id, uint64_t start, uint64_t off)
{
	struct sp_frame f = { id, off, start + off, SP_FRAME_USER };

	return f;
}

/*
 * 100k processes come and go, each with its module, frames, stacks, a
 * thread and a sample, then a forget: what the reader keeps stays what
 * one process needs, and ids keep counting.
 */
START_TEST(churn_keeps_the_reader_bounded)
{
	enum { N = 100000 };
	struct sp_spool_record rec;
	size_t live, most = 0;
	uint64_t s, t;
	uint32_t i, sid;
	int rc;

	for (i = 0; i < N; i++) {
		int32_t pid = 1000 + (int32_t)(i % 30000); /* pids come back */
		struct sp_module m = mod(pid, 0x400000, 0x401000, "/p", 0);
		struct sp_frame f[2] = { mfr(i, 0x400000, 0x10),
					 mfr(i, 0x400000, 0x20) };

		m.id = i;
		ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
		ck_assert_int_eq(sp_spool_writer_sample(
				     w, i, pid, (uint64_t)pid, f, 2, &sid),
				 0);
		ck_assert_int_eq(sp_spool_writer_forget(w, pid), 0);
	}
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &s, &t), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0) {
		live = sp_spool_reader_live(r);
		most = live > most ? live : most;
	}
	ck_assert_int_eq(rc, 0);
	/* A module, 2 frames, 2 stacks, a thread and the module list. */
	ck_assert_uint_le(most, 7);
	ck_assert_uint_eq(sp_spool_reader_live(r), 0);
	ck_assert_uint_eq(sp_spool_reader_nmodules(r), N);
	ck_assert_ptr_null(sp_spool_reader_module(r, N - 1));
}
END_TEST

/* Most stacks are short; one in 16 is deeper than the writer's path. */
enum { NS = 6000, DEPTH = 40, DEEP = 1400 };

struct want {
	uint32_t n;
	struct sp_frame *f;
};

/* A random stack of `pid`'s module `m` and the kernel's (module 0). */
static void
random_stack(struct want *x, uint32_t m, uint64_t base)
{
	uint32_t i;

	x->n = 1 + (uint32_t)random() % (random() % 16 ? DEPTH : DEEP);
	x->f = malloc(x->n * sizeof(*x->f));
	ck_assert_ptr_nonnull(x->f);
	for (i = 0; i < x->n; i++) {
		/* Root side fixed, leaf side random: prefixes are shared. */
		uint32_t from_root = x->n - 1 - i;
		uint64_t off = from_root < x->n / 2
				   ? 16 * (uint64_t)(from_root % 250 + 1)
				   : 16 * (uint64_t)(random() % 64);

		if (i == 0 && random() % 8 == 0)
			x->f[i] = (struct sp_frame){ 0, off, 0xff000 + off,
						     SP_FRAME_KERNEL };
		else if (random() % 16 == 0)
			x->f[i] = ufr(0x900000 + off); /* no module */
		else
			x->f[i] = mfr(m, base, off);
	}
}

/* Whether stack `id` as read holds the frames of `x`, leaf first. */
static bool
stack_is(uint32_t id, const struct want *x)
{
	const struct sp_frame *f;
	uint32_t i, prefix, frame;

	for (i = 0; i < x->n; i++) {
		if (!sp_spool_reader_stack(r, id, &prefix, &frame) ||
		    !(f = sp_spool_reader_frame(r, frame)) ||
		    f->module_id != x->f[i].module_id)
			return false;
		if (f->module_id == SP_NONE ? f->abs_ip != x->f[i].abs_ip
					    : f->rel_ip != x->f[i].rel_ip)
			return false;
		id = prefix;
	}
	return id == SP_NONE;
}

/*
 * Threads of three processes (thread ids that share the writer's path
 * slots among them) sample stacks that share their root side, while
 * modules come (new epochs for frames without one), processes are
 * forgotten and the tables pruned: every sample read back holds the
 * frames it was written with.
 */
START_TEST(interned_stacks_read_back_as_written)
{
	static struct want x[NS];
	uint32_t mods[3], next_mod = 1, i, k = 0;
	uint64_t tids[4] = { 1, 33, 65, 2 };
	struct sp_module km = mod(-1, 0xff000, 0xff400, "[kernel]", 1);
	struct sp_spool_record rec;
	int rc;

	srandom(7);
	km.id = 0;
	ck_assert_int_eq(sp_spool_writer_module(w, &km), 0);
	for (i = 0; i < 3; i++) {
		struct sp_module m =
		    mod(100 + (int32_t)i, 0x400000, 0x401000, "/p", 0);

		m.id = mods[i] = next_mod++;
		ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
	}
	for (i = 0; i < NS; i++) {
		uint32_t p = (uint32_t)random() % 3;
		int32_t pid = 100 + (int32_t)p;

		if (random() % 500 == 0) { /* the process is replaced */
			struct sp_module m =
			    mod(pid, 0x400000, 0x401000, "/q", 0);

			ck_assert_int_eq(sp_spool_writer_forget(w, pid), 0);
			m.id = mods[p] = next_mod++;
			ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
		} else if (random() % 100 == 0) { /* a new epoch */
			struct sp_module m =
			    mod(pid, 0x800000, 0x801000, "/lib", 0);

			m.id = next_mod++;
			ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
		}
		random_stack(&x[i], mods[p], 0x400000);
		ck_assert_int_eq(sp_spool_writer_sample(w, i, pid,
							tids[random() % 4],
							x[i].f, x[i].n, NULL),
				 0);
	}
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(
	    sp_spool_reader_header(r, &(uint64_t){ 0 }, &(uint64_t){ 0 }), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0) {
		if (rec.tag != SP_TAG_SAMPLE)
			continue;
		ck_assert_msg(stack_is(rec.u.sample.stack_id, &x[k]),
			      "sample %u", k);
		k++;
	}
	ck_assert_msg(rc == 0, "%s", sp_spool_reader_errmsg(r));
	ck_assert_uint_eq(k, NS);
	for (i = 0; i < NS; i++)
		free(x[i].f);
}
END_TEST

/*
 * Process 7 runs /a and is forgotten; a new process 7 runs /b.  The new
 * one gets new ids, its module-less frames resolve against /b only, and
 * the kernel frame and its one-frame stack stay, in the writer too: the
 * new stack is written on the old root node (0), not on a copy of it.
 */
START_TEST(a_new_process_with_the_pid_gets_new_ids)
{
	struct sp_module a = mod(7, 0x1000, 0x2000, "/a", 0);
	struct sp_module k = mod(-1, 0xff000, 0xff100, "[kernel]", 1);
	struct sp_module b = mod(7, 0x1000, 0x2000, "/b", 0);
	struct sp_frame fa[2] = { mfr(0, 0x1000, 0x10), mfr(1, 0xff000, 4) };
	struct sp_frame fb[2] = { ufr(0x1010), mfr(1, 0xff000, 4) };
	struct sp_spool_record rec;
	uint32_t sa, sb, frames[4], prefix, frame;
	uint64_t rel = 0, s, t;
	int threads = 0, rc;

	k.id = 1;
	b.id = 2;
	ck_assert_int_eq(sp_spool_writer_module(w, &a), 0);
	ck_assert_int_eq(sp_spool_writer_module(w, &k), 0);
	ck_assert_int_eq(sp_spool_writer_sample(w, 1, 7, 7, fa, 2, &sa), 0);
	ck_assert_int_eq(sp_spool_writer_forget(w, 7), 0);
	ck_assert_int_eq(sp_spool_writer_forget(w, -1), -EINVAL);
	ck_assert_int_eq(sp_spool_writer_module(w, &b), 0);
	ck_assert_int_eq(sp_spool_writer_sample(w, 2, 7, 7, fb, 2, &sb), 0);
	ck_assert_uint_eq(sa, 1);
	ck_assert_uint_eq(sb, 2);
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &s, &t), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0)
		if (rec.tag == SP_TAG_THREAD)
			ck_assert_uint_eq(rec.u.thread.id, threads++);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(threads, 2);
	ck_assert_ptr_null(sp_spool_reader_module(r, 0));
	ck_assert_ptr_nonnull(sp_spool_reader_module(r, 1));
	/* /a's frame and the node holding it are gone; the kernel's stay. */
	ck_assert_ptr_null(sp_spool_reader_frame(r, 1));
	ck_assert(!sp_spool_reader_stack(r, 1, &prefix, &frame));
	ck_assert_ptr_nonnull(sp_spool_reader_frame(r, 0));
	ck_assert(sp_spool_reader_stack(r, 0, &prefix, &frame));
	ck_assert_uint_eq(stack_frames(sb, frames), 2);
	ck_assert_uint_eq(sp_spool_reader_frame_context(r, frames[0], 7, &rel),
			  2);
	ck_assert_uint_eq(rel, 0x10);
}
END_TEST

/*
 * Another process's module record does not make the writer write a live
 * process's stacks again: frames of a module are the module's for good
 * (under -a, where modules come every few milliseconds, every stack of
 * every live process was written again under new ids).
 */
START_TEST(stacks_outlive_other_modules)
{
	struct sp_module a = mod(7, 0x1000, 0x2000, "/a", 0);
	struct sp_module b = mod(8, 0x1000, 0x2000, "/b", 0);
	struct sp_frame f[2] = { mfr(0, 0x1000, 0x10), mfr(0, 0x1000, 0x20) };
	uint32_t s1, s2;
	uint64_t before;

	b.id = 1;
	ck_assert_int_eq(sp_spool_writer_module(w, &a), 0);
	ck_assert_int_eq(sp_spool_writer_sample(w, 1, 7, 7, f, 2, &s1), 0);
	ck_assert_int_eq(sp_spool_writer_module(w, &b), 0);
	ck_assert_int_eq(sp_spool_writer_forget(w, 9), 0);
	before = sp_spool_writer_bytes(w);
	ck_assert_int_eq(sp_spool_writer_sample(w, 2, 7, 7, f, 2, &s2), 0);
	ck_assert_uint_eq(s1, s2);
	/* a sample record only: tag, time delta, thread, stack */
	ck_assert_uint_le(sp_spool_writer_bytes(w) - before, 8);
}
END_TEST

/*
 * The reader's error for `tail` appended after process 5 (module 0,
 * frames 0-1, stacks 0-1, thread 0) was forgotten; *at is where the
 * tail starts.
 */
static const char *
after_forget(const void *tail, size_t n, uint64_t *at)
{
	struct sp_module m = mod(5, 0x1000, 0x2000, "/a", 0);
	struct sp_frame f[2] = { mfr(0, 0x1000, 0x10), mfr(0, 0x1000, 0x20) };
	struct sp_spool_record rec;
	uint64_t s, t;
	int rc;

	ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
	ck_assert_int_eq(sp_spool_writer_sample(w, 1, 5, 5, f, 2, NULL), 0);
	ck_assert_int_eq(sp_spool_writer_forget(w, 5), 0);
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	*at = sp_spool_writer_bytes(w);
	ck_assert_int_eq(write(fd, tail, n), (ssize_t)n);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = sp_spool_reader_new(fd);
	ck_assert_int_eq(sp_spool_reader_header(r, &s, &t), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) > 0)
		;
	ck_assert_int_eq(rc, -EBADMSG);
	return sp_spool_reader_errmsg(r);
}

START_TEST(references_to_forgotten_ids_are_refused)
{
	static const struct {
		const char *tail; /* hex bytes */
		unsigned skip;    /* bytes before the refused record */
		const char *msg;
	} cases[] = {
		{ "05000000", 0, "sample thread references forgotten id 0" },
		{ "0401060605000101", 4,
		  "sample stack references forgotten id 1" },
		{ "03020100", 0, "stack prefix references forgotten id 1" },
		{ "0302ffffffff0f01", 0,
		  "stack frame references forgotten id 1" },
		{ "02020010", 0, "frame module references forgotten id 0" },
		{ "15020000", 0,
		  "extension record 21: module of a forgotten process" },
	};
	char want[160];
	const char *got;
	uint8_t bytes[32];
	uint64_t at;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (j = 0; cases[i].tail[2 * j]; j++)
			sscanf(cases[i].tail + 2 * j, "%2hhx", &bytes[j]);
		got = after_forget(bytes, j, &at);
		snprintf(want, sizeof(want), "%s at byte %" PRIu64,
			 cases[i].msg, at + cases[i].skip);
		ck_assert_str_eq(got, want);
		teardown();
		setup();
	}
}
END_TEST

/* Owners: a node of two processes goes with either; shared ones stay. */
START_TEST(forgetting_retires_what_the_process_owned)
{
	static const size_t none[SP_ID_NKINDS];
	struct sp_ids *ids = sp_ids_new(none, NULL, NULL);

	ck_assert_ptr_nonnull(sp_ids_module(ids, 1, false));  /* m0 */
	ck_assert_ptr_nonnull(sp_ids_module(ids, 2, false));  /* m1 */
	ck_assert_ptr_nonnull(sp_ids_module(ids, 2, true));   /* m2 kernel */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, 0));          /* f0: 1 */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, 1));          /* f1: 2 */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, 2));          /* f2: kernel */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, SP_NONE));    /* f3 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, SP_NONE, 2)); /* s0 shared */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, 0, 3));       /* s1 shared */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, 1, 0));       /* s2: 1 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, 2, 1));       /* s3: 1, 2 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, 3, 3));       /* s4: 1, 2 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, 1, 1));       /* s5: 2 */
	ck_assert_ptr_nonnull(sp_ids_thread(ids, 2));
	sp_ids_forget(ids, 2);
	sp_ids_forget(ids, 99); /* owns nothing */
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_MODULE, 1));
	ck_assert_ptr_nonnull(sp_ids_get(ids, SP_ID_MODULE, 2));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_FRAME, 1));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_THREAD, 0));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_STACK, 3));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_STACK, 4));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_STACK, 5));
	ck_assert_ptr_nonnull(sp_ids_get(ids, SP_ID_STACK, 2));
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_STACK), 3);
	sp_ids_forget(ids, 1);
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_STACK), 2);
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_FRAME), 2);
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_MODULE), 1);
	ck_assert_uint_eq(sp_ids_count(ids, SP_ID_STACK), 6);
	sp_ids_free(ids);
}
END_TEST

/*
 * A deferred forget keeps the process's ids live until it is carried
 * out, and then spares what a new process of the same pid defined.
 */
START_TEST(deferred_forget_spares_the_next_process_of_the_pid)
{
	static const size_t none[SP_ID_NKINDS];
	struct sp_ids *ids = sp_ids_new(none, NULL, NULL);

	ck_assert_ptr_nonnull(sp_ids_module(ids, 7, false));  /* m0: old 7 */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, 0));          /* f0 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, SP_NONE, 0)); /* s0 */
	ck_assert_int_eq(sp_ids_defer(ids, 7), 0);
	ck_assert_int_eq(sp_ids_defer(ids, 8), 0); /* owns nothing */
	ck_assert_ptr_nonnull(sp_ids_get(ids, SP_ID_STACK, 0));
	ck_assert_ptr_nonnull(sp_ids_module(ids, 7, false));  /* m1: new 7 */
	ck_assert_ptr_nonnull(sp_ids_frame(ids, 1));          /* f1 */
	ck_assert_ptr_nonnull(sp_ids_stack(ids, SP_NONE, 1)); /* s1 */
	sp_ids_forget_deferred(ids);
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_MODULE, 0));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_FRAME, 0));
	ck_assert_ptr_null(sp_ids_get(ids, SP_ID_STACK, 0));
	ck_assert_ptr_nonnull(sp_ids_get(ids, SP_ID_STACK, 1));
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_MODULE), 1);
	sp_ids_forget_deferred(ids); /* nothing left apart */
	ck_assert_uint_eq(sp_ids_live(ids, SP_ID_FRAME), 1);
	ck_assert_int_eq(sp_ids_defer(ids, 7), 0);
	sp_ids_free(ids); /* with ids still apart: freed too */
}
END_TEST

static Suite *
spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *wr = tcase_create("writer");
	TCase *ctx = tcase_create("module context");
	TCase *val = tcase_create("validation");
	TCase *fg = tcase_create("forget");

	tcase_add_checked_fixture(wr, setup, teardown);
	tcase_add_test(wr, marker_round_trips);
	tcase_add_test(wr, marker_only_stack_round_trips);
	tcase_add_test(wr, marker_is_part_of_stack_identity);
	tcase_add_test(wr, empty_stack_is_not_written);
	tcase_add_test(wr, writer_rejects_out_of_range_deltas);
	suite_add_tcase(s, wr);
	tcase_add_checked_fixture(ctx, setup, teardown);
	tcase_add_test(ctx, reader_resolves_module_contexts);
	tcase_add_test(ctx, future_modules_do_not_resolve_earlier_frames);
	tcase_add_test(ctx, deactivated_modules_do_not_resolve);
	tcase_add_test(ctx, forgotten_threads_are_written_again);
	tcase_add_test(ctx, frames_resolve_before_later_deactivation);
	tcase_add_test(ctx, frames_reintern_when_module_context_changes);
	suite_add_tcase(s, ctx);
	tcase_add_checked_fixture(val, setup, teardown);
	tcase_add_test(val, reader_rejects_non_sequential_module_ids);
	tcase_add_test(val, reader_rejects_module_path_with_nul);
	tcase_add_test(val, rejects_marker_with_payload);
	tcase_add_test(val, rejects_frame_before_file_offset);
	tcase_add_test(val, rejects_frame_outside_module);
	tcase_add_test(val, rejects_out_of_range_process_ids);
	tcase_add_test(val, rejects_timestamp_underflow_and_overflow);
	tcase_add_test(val, rejects_missing_references);
	tcase_add_test(val, rejects_unknown_tags_and_skips_extensions);
	tcase_add_test(val, rejects_extensions_the_text_readers_refuse);
	tcase_add_test(val, every_truncation_is_a_clean_error);
	suite_add_tcase(s, val);
	tcase_add_checked_fixture(fg, setup, teardown);
	tcase_set_timeout(fg, 60);
	tcase_add_test(fg, churn_keeps_the_reader_bounded);
	tcase_add_test(fg, interned_stacks_read_back_as_written);
	tcase_add_test(fg, a_new_process_with_the_pid_gets_new_ids);
	tcase_add_test(fg, stacks_outlive_other_modules);
	tcase_add_test(fg, references_to_forgotten_ids_are_refused);
	tcase_add_test(fg, forgetting_retires_what_the_process_owned);
	tcase_add_test(fg, deferred_forget_spares_the_next_process_of_the_pid);
	suite_add_tcase(s, fg);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(spool_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sp_buf_release(&raw);
	return failed ? 1 : 0;
}
