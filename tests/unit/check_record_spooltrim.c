/*
 * check_record_spooltrim.c: a spool cut at every byte is trimmed by
 * sp-record/spooltrim.c to a size the reader takes to its end without a
 * fault, also when it was appended after other data, which stays; a
 * whole spool and a pipe are left alone.
 */
#include "tests/unit/ck.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/spool.h"
#include "sp-record/out/spooltrim.h"

/* Writes a small spool to `fd`: a module and 20 samples; its size. */
static off_t
write_spool(int fd)
{
	struct sp_spool_writer *w = sp_spool_writer_new(fd, 1000, 1001);
	struct sp_module m = {
		0, 42, 0x1000, 0x2000, 0, 7, false, "/bin/x", 6
	};
	struct sp_frame f[2];
	int i;

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(sp_spool_writer_module(w, &m), 0);
	memset(f, 0, sizeof(f));
	for (i = 0; i < 20; i++) {
		f[0].module_id = 0;
		f[0].abs_ip = 0x1100 + (uint64_t)i;
		f[0].rel_ip = f[0].abs_ip - m.start;
		f[1].module_id = SP_NONE;
		f[1].rel_ip = f[1].abs_ip = 0x5000;
		ck_assert_int_eq(sp_spool_writer_sample(w, 100 + (uint64_t)i,
							42, 42, f, 2, NULL),
				 0);
	}
	ck_assert_int_eq(sp_spool_writer_flush(w), 0);
	sp_spool_writer_free(w);
	return lseek(fd, 0, SEEK_CUR);
}

/*
 * Whether the spool in `fd` from byte `start` reads to a clean end; its
 * record count.
 */
static int
reads_cleanly_from(int fd, off_t start)
{
	struct sp_spool_reader *r;
	struct sp_spool_record rec;
	uint64_t a, b;
	int rc, n = 0;

	lseek(fd, start, SEEK_SET);
	r = sp_spool_reader_new(fd);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(sp_spool_reader_header(r, &a, &b), 0);
	while ((rc = sp_spool_reader_next(r, &rec)) == 1)
		n++;
	if (rc != 0)
		fprintf(stderr, "%s\n", sp_spool_reader_errmsg(r));
	sp_spool_reader_free(r);
	ck_assert_int_eq(rc, 0);
	return n;
}

static int
reads_cleanly(int fd)
{
	return reads_cleanly_from(fd, 0);
}

START_TEST(every_cut_is_trimmed_to_a_boundary)
{
	char path[] = "/tmp/sp-trim-XXXXXX";
	int fd = mkstemp(path), whole_records, n;
	off_t size = write_spool(fd), cut;
	uint64_t kept;
	struct stat st;

	whole_records = reads_cleanly(fd);
	ck_assert_int_ge(whole_records, 20);
	ck_assert_int_eq(rec_spooltrim(fd, 0, &kept), 1);
	ck_assert_uint_eq(kept, (uint64_t)size);
	for (cut = size - 1; cut >= 12; cut--) {
		ck_assert_int_eq(ftruncate(fd, cut), 0);
		ck_assert_int_eq(rec_spooltrim(fd, 0, &kept), 1);
		ck_assert_int_eq(fstat(fd, &st), 0);
		ck_assert_uint_eq(kept, (uint64_t)st.st_size);
		ck_assert_int_le(st.st_size, cut);
		n = reads_cleanly(fd);
		ck_assert_int_lt(n, whole_records);
		/* Back to the whole spool for the next cut. */
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		lseek(fd, 0, SEEK_SET);
		write_spool(fd);
	}
	close(fd);
	unlink(path);
}
END_TEST

/* Bytes 0..n-1 of what came before the spool: not a spool themselves. */
static void
write_prior(int fd, size_t n)
{
	unsigned char b[1000];
	size_t i;

	ck_assert_uint_le(n, sizeof(b));
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(0x80 | (i * 7));
	ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
}

/* The prior bytes are still there, unchanged. */
static void
assert_prior(int fd, size_t n)
{
	unsigned char b[1000];
	size_t i;

	ck_assert_int_eq(pread(fd, b, n, 0), (ssize_t)n);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(b[i], (unsigned char)(0x80 | (i * 7)));
}

/*
 * `sp-record >> file` (issue 24 item 2): the spool starts after what the
 * file held, and a cut is trimmed from there, not from byte 0; the bytes
 * before it stay.
 */
START_TEST(appended_cut_is_trimmed_from_its_start)
{
	char path[] = "/tmp/sp-trim-XXXXXX";
	int tmp = mkstemp(path), fd, whole_records, n;
	const size_t prior = 777;
	off_t size, cut;
	uint64_t start, kept;
	struct stat st;

	close(tmp);
	fd = open(path, O_RDWR | O_APPEND);
	ck_assert_int_ge(fd, 0);
	write_prior(fd, prior);
	/* Like the shell's `>>`: a fresh descriptor, its offset still 0. */
	close(fd);
	fd = open(path, O_RDWR | O_APPEND);
	start = rec_spooltrim_start(fd);
	ck_assert_uint_eq(start, prior);
	size = write_spool(fd);
	whole_records = reads_cleanly_from(fd, (off_t)prior);
	ck_assert_int_eq(rec_spooltrim(fd, start, &kept), 1);
	ck_assert_uint_eq(kept, (uint64_t)size - prior);
	for (cut = size - 1; cut >= (off_t)prior + 12; cut--) {
		ck_assert_int_eq(ftruncate(fd, cut), 0);
		ck_assert_int_eq(rec_spooltrim(fd, start, &kept), 1);
		ck_assert_int_eq(fstat(fd, &st), 0);
		ck_assert_uint_eq(kept, (uint64_t)st.st_size - prior);
		ck_assert_int_le(st.st_size, cut);
		ck_assert_int_gt(st.st_size, (off_t)prior);
		n = reads_cleanly_from(fd, (off_t)prior);
		ck_assert_int_lt(n, whole_records);
		assert_prior(fd, prior);
		ck_assert_int_eq(ftruncate(fd, (off_t)prior), 0);
		write_spool(fd);
	}
	close(fd);
	unlink(path);
}
END_TEST

/* A descriptor that does not append starts the spool at its offset. */
START_TEST(start_is_the_offset_without_append)
{
	char path[] = "/tmp/sp-trim-XXXXXX";
	int fd = mkstemp(path);

	write_prior(fd, 100);
	ck_assert_uint_eq(rec_spooltrim_start(fd), 100);
	lseek(fd, 40, SEEK_SET);
	ck_assert_uint_eq(rec_spooltrim_start(fd), 40);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(pipe_is_left_alone)
{
	uint64_t kept = 99;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(rec_spooltrim_start(p[1]), 0);
	ck_assert_int_eq(rec_spooltrim(p[1], 0, &kept), 0);
	ck_assert_uint_eq(kept, 99);
	close(p[0]);
	close(p[1]);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_spooltrim");
	TCase *tc = tcase_create("trim");

	tcase_add_test(tc, every_cut_is_trimmed_to_a_boundary);
	tcase_add_test(tc, appended_cut_is_trimmed_from_its_start);
	tcase_add_test(tc, start_is_the_offset_without_append);
	tcase_add_test(tc, pipe_is_left_alone);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
