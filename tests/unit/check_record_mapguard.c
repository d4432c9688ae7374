/*
 * check_record_mapguard.c: a file cut under the recorder's mapping
 * (sp-record/mapguard.c) reads as zeros instead of raising SIGBUS, and
 * the CFI cache (sp-record/unwind/mapped.c) then drops that file and counts it.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/spool.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/files/mapguard.h"

/* A temporary file holding `len` bytes of `byte`; its path in `path`. */
static void
make_file(char *path, size_t len, int byte)
{
	char *buf = malloc(len);
	int fd = mkstemp(path);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(fd, 0);
	memset(buf, byte, len);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

START_TEST(cut_page_reads_as_zeros)
{
	char path[] = "/tmp/sp-guard-XXXXXX";
	long page = sysconf(_SC_PAGESIZE);
	volatile sig_atomic_t flag = 0;
	uint64_t before = rec_mapguard_faults();
	const volatile uint8_t *p;
	int fd;

	make_file(path, 3 * (size_t)page, 0x5a);
	fd = open(path, O_RDONLY);
	p = mmap(NULL, 3 * (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ck_assert_ptr_ne((void *)p, MAP_FAILED);
	ck_assert_int_eq(
	    rec_mapguard_add((const void *)p, 3 * (size_t)page, &flag), 0);
	ck_assert_int_eq(p[page], 0x5a);
	ck_assert_int_eq(truncate(path, page), 0);
	ck_assert_int_eq(p[0], 0x5a);
	ck_assert_int_eq(p[page + 8], 0);
	ck_assert_int_eq(p[2 * page], 0);
	ck_assert_int_eq(flag, 1);
	ck_assert_uint_eq(rec_mapguard_faults(), before + 2);
	rec_mapguard_remove((const void *)p);
	munmap((void *)p, 3 * (size_t)page);
	unlink(path);
}
END_TEST

/* Copies this test's own executable, an ELF file with CFI, to `path`. */
static off_t
copy_self(char *path)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out = mkstemp(path);
	ssize_t n;
	off_t size = 0;

	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
		size += n;
	}
	close(in);
	close(out);
	return size;
}

START_TEST(cut_file_is_dropped_and_counted)
{
	struct rec_mapped_cache *c = rec_mapped_cache_new(NULL);
	char path[] = "/tmp/sp-guard-XXXXXX";
	const struct rec_mapped *f;
	struct sp_module m;
	struct stat st;
	uint8_t b[8];
	size_t i;

	copy_self(path);
	ck_assert_int_eq(stat(path, &st), 0);
	memset(&m, 0, sizeof(m));
	m.start = 0x400000;
	m.end = 0x500000;
	m.inode = st.st_ino;
	m.path = path;
	m.path_len = strlen(path);
	f = rec_mapped_get(c, &m, 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(f->table);
	ck_assert_uint_eq(rec_mapped_changed(c), 0);
	ck_assert_int_eq(truncate(path, 4096), 0);
	/* What the unwinder does: the search table, then the file's bytes. */
	for (i = 0; i < f->fde_count; i++)
		memcpy(b, f->table + i * 8, sizeof(b));
	ck_assert_uint_eq(rec_mapped_changed(c), 1);
	ck_assert_ptr_null(f->table);
	ck_assert_int_eq(rec_mapped_read(f, f->min_vaddr, b, 1), -EFAULT);
	ck_assert_ptr_null(rec_mapped_get(c, &m, 0));
	ck_assert_uint_eq(rec_mapped_changed(c), 1);
	rec_mapped_cache_free(c);
	unlink(path);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_mapguard");
	TCase *tc = tcase_create("cut files");

	tcase_add_test(tc, cut_page_reads_as_zeros);
	tcase_add_test(tc, cut_file_is_dropped_and_counted);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
