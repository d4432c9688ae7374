/*
 * check_symbolize_cache.c: the symbol cache: the cache file codec
 * (round trip, every truncation and every flipped byte refused, sound
 * checksums over malformed bodies refused, another context refused,
 * the origin kept) and the store (save and load, corrupt files rebuilt
 * with one warning, merging with another run's save, least recently
 * used eviction, a set serving only the file it was made from or its
 * copies, one warning when another file claims the build id) and
 * what it refuses (a linked, shared or another user's directory, files
 * not named as its own, entries others could have planted).
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/htab.h"
#include "common/records.h"
#include "sp-symbolize/cache/cachefile.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/cache/symcache.h"

#define CTX 0x1122334455667788ull
#define ID_A "0123456789abcdef0123"
#define ID_B "fedcba9876543210fedc"

/* A set of three results: inlined frames, no source, nothing found. */
static struct sym_cset *
sample_set(void)
{
	struct sym_cset *s = sym_cset_new();
	struct sym_res r = SYM_RES_INIT;
	struct sym_entry *e;

	ck_assert_ptr_nonnull(s);
	e = sym_res_add(&r, "outer(int)");
	e->offset = 0x1c;
	e->has_offset = true;
	ck_assert_int_eq(sym_sym_set_file(e, "/src/a.c", 32), 0);
	e->start_line = 30;
	e = sym_res_add(&r, "inl");
	e->flags = SP_SYM_INLINED;
	ck_assert_int_eq(sym_sym_set_file(e, "/src/a b\t.c", 7), 0);
	ck_assert_int_eq(sym_cset_add(s, 0x1234, &r, 0), 0);
	/* Only the frames from `from` on are stored. */
	ck_assert_int_eq(sym_cset_add(s, 0x99, &r, 1), 0);
	sym_res_release(&r);
	ck_assert_int_eq(sym_cset_add(s, 1ull << 63, &r, 0), 0);
	return s;
}

static void
assert_sample(const struct sym_cset *s)
{
	const struct sym_res *r;

	ck_assert_uint_eq(sym_cset_count(s), 3);
	r = sym_cset_find(s, 0x1234);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n, 2);
	ck_assert_str_eq(r->v[0].name, "outer(int)");
	ck_assert_str_eq(r->v[0].file, "/src/a.c");
	ck_assert_uint_eq(r->v[0].line, 32);
	ck_assert_uint_eq(r->v[0].start_line, 30);
	ck_assert(r->v[0].has_offset);
	ck_assert_uint_eq(r->v[0].offset, 0x1c);
	ck_assert_uint_eq(r->v[0].flags, 0);
	ck_assert_str_eq(r->v[1].name, "inl");
	ck_assert_str_eq(r->v[1].file, "/src/a b\t.c");
	ck_assert(!r->v[1].has_offset);
	ck_assert_uint_eq(r->v[1].flags, SP_SYM_INLINED);
	r = sym_cset_find(s, 0x99);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_str_eq(r->v[0].name, "inl");
	r = sym_cset_find(s, 1ull << 63);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n, 0);
	ck_assert_ptr_null(sym_cset_find(s, 0x1235));
}

START_TEST(round_trip)
{
	struct sym_cset *s = sample_set(), *d = sym_cset_new();
	struct sp_buf b = SP_BUF_INIT;

	assert_sample(s);
	ck_assert_int_eq(sym_cset_encode(s, CTX, NULL, &b), 0);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), 0);
	assert_sample(d);
	/* Decoding again adds nothing: every key is present. */
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), 0);
	assert_sample(d);
	sp_buf_release(&b);
	sym_cset_free(s);
	sym_cset_free(d);
}
END_TEST

START_TEST(present_keys_keep_their_result)
{
	struct sym_cset *s = sample_set();
	struct sym_res r = SYM_RES_INIT;

	ck_assert_ptr_nonnull(sym_res_add(&r, "other"));
	ck_assert_int_eq(sym_cset_add(s, 0x1234, &r, 0), 0);
	assert_sample(s);
	sym_res_release(&r);
	sym_cset_free(s);
}
END_TEST

START_TEST(every_cut_and_flip_is_refused)
{
	struct sym_cset *s = sample_set(), *d = sym_cset_new();
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	ck_assert_int_eq(sym_cset_encode(s, CTX, NULL, &b), 0);
	for (i = 0; i < b.len; i++) {
		ck_assert_int_eq(sym_cset_decode(d, b.data, i, CTX), -EBADMSG);
		b.data[i] ^= 0x20;
		ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX),
				 -EBADMSG);
		b.data[i] ^= 0x20;
	}
	ck_assert_uint_eq(sym_cset_count(d), 0);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX + 1), -ESTALE);
	ck_assert_uint_eq(sym_cset_count(d), 0);
	sp_buf_release(&b);
	sym_cset_free(s);
	sym_cset_free(d);
}
END_TEST

/* Replaces the checksum of b, so that only the structure is judged. */
static void
reseal(struct sp_buf *b)
{
	uint64_t h = sp_hash(b->data, b->len - 8);
	int i;

	for (i = 0; i < 8; i++)
		b->data[b->len - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* An encoded set of one result: one frame named "ab", no file. */
static void
one_frame(struct sp_buf *b)
{
	struct sym_cset *s = sym_cset_new();
	struct sym_res r = SYM_RES_INIT;

	ck_assert_ptr_nonnull(sym_res_add(&r, "ab"));
	ck_assert_int_eq(sym_cset_add(s, 5, &r, 0), 0);
	ck_assert_int_eq(sym_cset_encode(s, CTX, NULL, b), 0);
	sym_res_release(&r);
	sym_cset_free(s);
}

START_TEST(unknown_flags_are_refused)
{
	struct sym_cset *s = sym_cset_new(), *d = sym_cset_new();
	struct sym_res r = SYM_RES_INIT;
	struct sp_buf b = SP_BUF_INIT;

	sym_res_add(&r, "f")->flags = 1u << 7; /* past "kjiphtu" */
	ck_assert_int_eq(sym_cset_add(s, 1, &r, 0), 0);
	ck_assert_int_eq(sym_cset_encode(s, CTX, NULL, &b), 0);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	ck_assert_uint_eq(sym_cset_count(d), 0);
	sp_buf_release(&b);
	sym_res_release(&r);
	sym_cset_free(s);
	sym_cset_free(d);
}
END_TEST

START_TEST(sealed_garbage_is_refused)
{
	/* Body: count 1, key 5, 1 frame: flags 0, no offset, line 0,
	 * start line 0, name "ab" (len 2), no file (0).  Header 24 bytes,
	 * then no origin: no path (0), no identities (0). */
	static const uint8_t body[] = { 1, 5, 1, 0, 0, 0, 0, 2, 'a', 'b', 0 };
	struct sym_cset *d = sym_cset_new();
	struct sp_buf b = SP_BUF_INIT;
	size_t at = 26;

	one_frame(&b);
	ck_assert_uint_eq(b.len, at + sizeof(body) + 8);
	ck_assert_uint_eq(b.data[24], 0);
	ck_assert_uint_eq(b.data[25], 0);
	ck_assert_mem_eq(b.data + at, body, sizeof(body));
	b.data[at + 8] = '\0'; /* a NUL in the name */
	reseal(&b);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	b.data[at + 8] = 'a';
	b.data[at + 7] = 3; /* a name longer than the file */
	reseal(&b);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	b.data[at + 7] = 2;
	b.data[at] = 2; /* two results, one there */
	reseal(&b);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	b.data[at] = 0; /* none, and bytes left over */
	reseal(&b);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	b.data[at] = 1;
	b.data[7] = SYM_CACHEFILE_VERSION + 1; /* another version */
	reseal(&b);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), -EBADMSG);
	b.data[7] = SYM_CACHEFILE_VERSION;
	reseal(&b);
	ck_assert_uint_eq(sym_cset_count(d), 0);
	ck_assert_int_eq(sym_cset_decode(d, b.data, b.len, CTX), 0);
	ck_assert_str_eq(sym_cset_find(d, 5)->v[0].name, "ab");
	sp_buf_release(&b);
	sym_cset_free(d);
}
END_TEST

/* ---------------------------------------------------------------- store */

static char dir[] = "/tmp/sp-symcache.XXXXXX";
static int nwarnings;

static void
count_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	nwarnings++;
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nwarnings = 0;
}

static void
teardown(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* The cache directory under the test's directory (not yet made). */
static const char *
cdir(void)
{
	static char p[sizeof(dir) + 32];

	snprintf(p, sizeof(p), "%s/c/stackpulse", dir);
	return p;
}

static const char *
cfile(const char *id)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s-%016llx", cdir(), id,
		 (unsigned long long)CTX);
	return p;
}

/* Saves the sample set under `id` in a cache bounded by `max`. */
static void
save_sample(const char *id, uint64_t max)
{
	struct sym_cache *c = sym_cache_new(cdir(), max, count_warning, NULL);
	struct sym_cset *s = sym_cache_set(c, id, CTX, NULL), *x = sample_set();
	uint64_t keys[] = { 0x1234, 0x99, 1ull << 63 };
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(
		    sym_cset_add(s, keys[i], sym_cset_find(x, keys[i]), 0), 0);
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cset_free(x);
	sym_cache_free(c);
}

START_TEST(saved_sets_load_again)
{
	struct sym_cache *c;

	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	ck_assert_int_eq(access(cfile(ID_A), R_OK), 0);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	assert_sample(sym_cache_set(c, ID_A, CTX, NULL));
	/* Nothing new: nothing written. */
	ck_assert_int_eq(sym_cache_save(c), 0);
	/* Another context, another build id, a bad build id: nothing. */
	ck_assert_uint_eq(sym_cset_count(sym_cache_set(c, ID_A, CTX + 1, NULL)),
			  0);
	ck_assert_uint_eq(sym_cset_count(sym_cache_set(c, ID_B, CTX, NULL)), 0);
	ck_assert_ptr_null(sym_cache_set(c, "../x", CTX, NULL));
	ck_assert_ptr_null(sym_cache_set(c, "0123ABCD", CTX, NULL));
	sym_cache_free(c);
	ck_assert_int_eq(nwarnings, 0);
}
END_TEST

START_TEST(corrupt_file_is_rebuilt)
{
	struct sym_cache *c;
	struct sym_cset *s;
	struct sym_res r = SYM_RES_INIT;
	int fd;

	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	ck_assert_int_eq(truncate(cfile(ID_A), 20), 0);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	s = sym_cache_set(c, ID_A, CTX, NULL);
	ck_assert_uint_eq(sym_cset_count(s), 0);
	ck_assert_int_eq(nwarnings, 1);
	/* Asked again in the same run: no second warning. */
	ck_assert_ptr_eq(sym_cache_set(c, ID_A, CTX, NULL), s);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_nonnull(sym_res_add(&r, "fresh"));
	ck_assert_int_eq(sym_cset_add(s, 7, &r, 0), 0);
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cache_free(c);
	sym_res_release(&r);

	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	s = sym_cache_set(c, ID_A, CTX, NULL);
	ck_assert_uint_eq(sym_cset_count(s), 1);
	ck_assert_str_eq(sym_cset_find(s, 7)->v[0].name, "fresh");
	ck_assert_int_eq(nwarnings, 1);
	sym_cache_free(c);

	/* Garbage of the right length is no better. */
	fd = open(cfile(ID_A), O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "SPSYMC\0\1garbage garbage garbage", 31),
			 31);
	close(fd);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	ck_assert_uint_eq(sym_cset_count(sym_cache_set(c, ID_A, CTX, NULL)), 0);
	ck_assert_int_eq(nwarnings, 2);
	sym_cache_free(c);
}
END_TEST

START_TEST(saves_merge_with_another_runs)
{
	struct sym_cache *c =
	    sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	struct sym_cset *s = sym_cache_set(c, ID_A, CTX, NULL);
	struct sym_res r = SYM_RES_INIT;

	/* This run started before the other one saved. */
	ck_assert_ptr_nonnull(sym_res_add(&r, "mine"));
	ck_assert_int_eq(sym_cset_add(s, 7, &r, 0), 0);
	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cache_free(c);
	sym_res_release(&r);

	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	s = sym_cache_set(c, ID_A, CTX, NULL);
	ck_assert_uint_eq(sym_cset_count(s), 4);
	ck_assert_str_eq(sym_cset_find(s, 7)->v[0].name, "mine");
	ck_assert_str_eq(sym_cset_find(s, 0x1234)->v[0].name, "outer(int)");
	sym_cache_free(c);
	ck_assert_int_eq(nwarnings, 0);
}
END_TEST

static off_t
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

START_TEST(least_recently_used_files_go)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	struct sym_cache *c;
	off_t one;

	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	snprintf(a, sizeof(a), "%s", cfile(ID_A));
	one = size_of(a);
	ck_assert_int_gt(one, 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, a, old, 0), 0);
	/* Room for one file: the older one goes. */
	save_sample(ID_B, (uint64_t)one + 10);
	snprintf(b, sizeof(b), "%s", cfile(ID_B));
	ck_assert_int_eq(size_of(b), one);
	ck_assert_int_eq(size_of(a), -1);

	/* Using a file makes it the most recent: the other one goes. */
	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	ck_assert_int_eq(utimensat(AT_FDCWD, a, old, 0), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, b, old, 0), 0);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	assert_sample(sym_cache_set(c, ID_A, CTX, NULL));
	sym_cache_free(c);
	save_sample("aaaa", (uint64_t)2 * one + 10);
	ck_assert_int_eq(size_of(a), one);
	ck_assert_int_eq(size_of(b), -1);
	ck_assert_int_eq(nwarnings, 0);
}
END_TEST

START_TEST(no_directory_means_no_cache)
{
	char file[PATH_MAX], sub[PATH_MAX + 32];
	struct sym_cache *c;
	struct sym_res r = SYM_RES_INIT;
	int fd;

	/* A file where a parent directory should be: no cache, no word. */
	snprintf(file, sizeof(file), "%s/home", dir);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/.cache/stackpulse", file);
	c = sym_cache_new(sub, SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	ck_assert_ptr_nonnull(sym_res_add(&r, "f"));
	ck_assert_int_eq(
	    sym_cset_add(sym_cache_set(c, ID_A, CTX, NULL), 1, &r, 0), 0);
	ck_assert_int_eq(sym_cache_save(c), 0);
	ck_assert_int_eq(sym_cache_save(c), 0);
	ck_assert_int_eq(nwarnings, 0);
	sym_cache_free(c);
	sym_res_release(&r);
}
END_TEST

/* -------------------------------------------------------------- hostile */

/* Writes `len` bytes to `path`, dated a year 2001 day. */
static void
old_file(const char *path, size_t len)
{
	static const struct timespec when[2] = { { 978307200, 0 },
						 { 978307200, 0 } };
	char *zeros = calloc(1, len ? len : 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_ptr_nonnull(zeros);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, zeros, len), (ssize_t)len);
	close(fd);
	free(zeros);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, when, 0), 0);
}

/* A path under the test's directory. */
static const char *
in_dir(const char *name)
{
	static char p[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Adds one result to the set of `id` and saves; returns what save did. */
static int
save_one(struct sym_cache *c, const char *id)
{
	struct sym_res r = SYM_RES_INIT;
	struct sym_cset *s = sym_cache_set(c, id, CTX, NULL);
	int rc;

	if (!s)
		return -1000;
	ck_assert_ptr_nonnull(sym_res_add(&r, "f"));
	ck_assert_int_eq(sym_cset_add(s, 7, &r, 0), 0);
	sym_res_release(&r);
	rc = sym_cache_save(c);
	return rc;
}

START_TEST(linked_directory_is_refused)
{
	const char *names[] = { "photo.jpg", "notes", ID_A "-1122334455667788",
				"0123.kallsyms1" };
	struct sym_cache *c;
	char other[PATH_MAX];
	size_t i;

	/* Another directory's files, the cache directory a link to it. */
	ck_assert_int_eq(mkdir(in_dir("c"), 0700), 0);
	ck_assert_int_eq(mkdir(in_dir("other"), 0700), 0);
	for (i = 0; i < 4; i++) {
		snprintf(other, sizeof(other), "%s/%s", in_dir("other"),
			 names[i]);
		old_file(other, 4096);
	}
	ck_assert_int_eq(symlink(in_dir("other"), cdir()), 0);
	c = sym_cache_new(cdir(), 100, count_warning, NULL);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_null(sym_cache_set(c, ID_B, CTX, NULL));
	ck_assert_int_eq(sym_cache_save(c), 0);
	sym_cache_free(c);
	/* Every file is still there, and no new one. */
	for (i = 0; i < 4; i++) {
		snprintf(other, sizeof(other), "%s/%s", in_dir("other"),
			 names[i]);
		ck_assert_int_eq(size_of(other), 4096);
	}
	snprintf(other, sizeof(other), "ls %s | wc -l | grep -qx 4",
		 in_dir("other"));
	ck_assert_int_eq(system(other), 0);
	ck_assert_int_eq(nwarnings, 1);
}
END_TEST

START_TEST(only_cache_files_are_evicted)
{
	const char *foreign[] = { "notes.txt",
				  ID_A,
				  ID_A "-11",
				  ID_A ".tmp.abcdef",
				  ID_A "-1122334455667788x",
				  "0123.KALLSYMS" };
	struct sym_cache *c;
	char path[PATH_MAX];
	off_t one;
	size_t i;

	save_sample(ID_B, SYM_CACHE_DEFAULT_MAX);
	one = size_of(cfile(ID_B));
	/* Old, large files whose names are not the cache's own. */
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", cdir(), foreign[i]);
		old_file(path, 100000);
	}
	snprintf(path, sizeof(path), "%s/0123.kallsyms1", cdir());
	old_file(path, 100000);
	/* Room for one cache file: the old one of ours goes, not theirs. */
	c = sym_cache_new(cdir(), (uint64_t)one + 10, count_warning, NULL);
	ck_assert_int_eq(save_one(c, ID_A), 1);
	sym_cache_free(c);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", cdir(), foreign[i]);
		ck_assert_int_eq(size_of(path), 100000);
	}
	snprintf(path, sizeof(path), "%s/0123.kallsyms1", cdir());
	ck_assert_int_eq(size_of(path), -1);
	ck_assert_int_eq(size_of(cfile(ID_B)), -1);
	ck_assert_int_gt(size_of(cfile(ID_A)), 0);
	ck_assert_int_eq(nwarnings, 0);
	/* A caller's file must have a name of the cache's own. */
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	{
		struct sp_buf b = SP_BUF_INIT;

		ck_assert_int_eq(sp_buf_adds(&b, "x"), 0);
		ck_assert_int_eq(sym_cache_put_file(c, "../x.kallsyms1", &b),
				 -EINVAL);
		ck_assert_int_eq(sym_cache_put_file(c, "0123.tmp", &b),
				 -EINVAL);
		ck_assert_int_eq(sym_cache_get_file(c, "notes.txt", &b),
				 -EINVAL);
		sp_buf_release(&b);
	}
	sym_cache_free(c);
}
END_TEST

/* A cache file for ID_A whose one result names `name`, sealed. */
static void
plant(const char *name, uid_t uid, mode_t mode)
{
	struct sym_cset *s = sym_cset_new();
	struct sym_res r = SYM_RES_INIT;
	struct sp_buf b = SP_BUF_INIT;
	int fd;

	ck_assert_ptr_nonnull(sym_res_add(&r, name));
	ck_assert_int_eq(sym_cset_add(s, 0x1234, &r, 0), 0);
	ck_assert_int_eq(sym_cset_encode(s, CTX, NULL, &b), 0);
	unlink(cfile(ID_A));
	fd = open(cfile(ID_A), O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b.data, b.len), (ssize_t)b.len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	if (uid != geteuid())
		ck_assert_int_eq(fchown(fd, uid, (gid_t)-1), 0);
	close(fd);
	sp_buf_release(&b);
	sym_res_release(&r);
	sym_cset_free(s);
}

/* The name the cache gives for 0x1234 of ID_A, or "" (static). */
static const char *
cached_name(void)
{
	static char name[64];
	struct sym_cache *c;
	const struct sym_res *r;

	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	r = sym_cache_set(c, ID_A, CTX, NULL)
		? sym_cset_find(sym_cache_set(c, ID_A, CTX, NULL), 0x1234)
		: NULL;
	snprintf(name, sizeof(name), "%s", r && r->n ? r->v[0].name : "");
	sym_cache_free(c);
	return name;
}

START_TEST(planted_files_are_not_trusted)
{
	save_sample(ID_B, SYM_CACHE_DEFAULT_MAX);
	/* This user's own sealed file is believed... */
	plant("mine", geteuid(), 0600);
	ck_assert_str_eq(cached_name(), "mine");
	ck_assert_int_eq(nwarnings, 0);
	/* ...one others may write is not, */
	plant("planted", geteuid(), 0620);
	ck_assert_str_eq(cached_name(), "");
	ck_assert_int_eq(nwarnings, 1);
	plant("planted", geteuid(), 0602);
	ck_assert_str_eq(cached_name(), "");
	ck_assert_int_eq(nwarnings, 2);
	/* nor a link to a file that would be. */
	plant("mine", geteuid(), 0600);
	ck_assert_int_eq(rename(cfile(ID_A), in_dir("elsewhere")), 0);
	ck_assert_int_eq(symlink(in_dir("elsewhere"), cfile(ID_A)), 0);
	ck_assert_str_eq(cached_name(), "");
	ck_assert_int_eq(nwarnings, 3);
	if (geteuid() != 0)
		return; /* the rest needs chown */
	/* Another user's file in this user's directory. */
	plant("planted", 65534, 0600);
	ck_assert_str_eq(cached_name(), "");
	ck_assert_int_eq(nwarnings, 4);
	/* Another user's directory: refused whole, the file not read. */
	plant("planted", 65534, 0600);
	ck_assert_int_eq(chown(cdir(), 65534, (gid_t)-1), 0);
	ck_assert_str_eq(cached_name(), "");
	ck_assert_int_eq(nwarnings, 5);
}
END_TEST

START_TEST(shared_directory_is_refused)
{
	struct sym_cache *c;

	save_sample(ID_A, SYM_CACHE_DEFAULT_MAX);
	ck_assert_int_eq(chmod(cdir(), 0770), 0);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_null(sym_cache_set(c, ID_A, CTX, NULL));
	ck_assert_int_eq(save_one(c, ID_B), -1000);
	ck_assert_int_eq(sym_cache_save(c), 0);
	sym_cache_free(c);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_int_eq(size_of(cfile(ID_B)), -1);
}
END_TEST

/* A module file `name` in the test's directory holding `bytes`. */
static struct sym_csource
module_file(const char *name, const char *bytes)
{
	static char paths[4][PATH_MAX];
	static int k;
	struct sym_csource src;
	struct stat st;
	int fd;

	k = (k + 1) % 4;
	snprintf(paths[k], sizeof(paths[k]), "%s/%s", dir, name);
	fd = open(paths[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, strlen(bytes)),
			 (ssize_t)strlen(bytes));
	close(fd);
	ck_assert_int_eq(stat(paths[k], &st), 0);
	src.path = paths[k];
	sym_fileid_stat(&st, &src.st);
	return src;
}

/* Opens the set of `id`, `ctx` for `src` and adds a result "f" at 7. */
static struct sym_cset *
add_for(struct sym_cache *c, const char *id, uint64_t ctx,
	const struct sym_csource *src)
{
	struct sym_cset *s = sym_cache_set(c, id, ctx, src);
	struct sym_res r = SYM_RES_INIT;

	if (s) {
		ck_assert_ptr_nonnull(sym_res_add(&r, "f"));
		ck_assert_int_eq(sym_cset_add(s, 7, &r, 0), 0);
		sym_res_release(&r);
	}
	return s;
}

START_TEST(sets_serve_their_own_file)
{
	struct sym_csource one = module_file("one", "genuine bytes");
	struct sym_csource copy = module_file("copy", "genuine bytes");
	struct sym_csource other = module_file("other", "another bytes");
	struct sym_cache *c =
	    sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	struct sym_cset *s;

	ck_assert_ptr_nonnull(add_for(c, ID_A, CTX, &one));
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cache_free(c);
	/* A copy: the same bytes serve, its identity is recorded once. */
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	s = sym_cache_set(c, ID_A, CTX, &copy);
	ck_assert_uint_eq(sym_cset_count(s), 1);
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cache_free(c);
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	ck_assert_uint_eq(sym_cset_count(sym_cache_set(c, ID_A, CTX, &copy)),
			  1);
	ck_assert_ptr_eq(sym_cache_set(c, ID_A, CTX, &one),
			 sym_cache_set(c, ID_A, CTX, &copy));
	ck_assert_int_eq(sym_cache_save(c), 0);
	sym_cache_free(c);
	ck_assert_int_eq(nwarnings, 0);
	/* Other bytes under the build id: not used, one warning, replaced. */
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	s = sym_cache_set(c, ID_A, CTX, &other);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(sym_cset_count(s), 0);
	ck_assert_int_eq(nwarnings, 1);
	/* The first file again in this run: not this set's, said once. */
	ck_assert_ptr_null(sym_cache_set(c, ID_A, CTX, &one));
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_int_eq(sym_cache_save(c), 1);
	sym_cache_free(c);
	/* Under another context (another owner), the conflict is said too. */
	c = sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);
	ck_assert_uint_eq(sym_cset_count(add_for(c, ID_A, CTX + 1, &one)), 1);
	ck_assert_int_eq(nwarnings, 2);
	sym_cache_free(c);
}
END_TEST

START_TEST(changed_file_is_not_cached)
{
	struct sym_csource one = module_file("one", "genuine bytes");
	struct sym_cache *c =
	    sym_cache_new(cdir(), SYM_CACHE_DEFAULT_MAX, count_warning, NULL);

	/*
	 * Rewritten after its identity was read: no hash, no cache.  (Its
	 * size changes: timestamps may not move within a clock tick.)
	 */
	module_file("one", "changed bytes!");
	ck_assert_ptr_null(sym_cache_set(c, ID_A, CTX, &one));
	ck_assert_int_eq(sym_cache_save(c), 0);
	sym_cache_free(c);
	ck_assert_int_eq(nwarnings, 0);
}
END_TEST

START_TEST(origin_round_trip)
{
	struct sym_cset *s = sample_set();
	struct sym_corigin o = SYM_CORIGIN_INIT, d = SYM_CORIGIN_INIT;
	struct sym_filestat st = { 1, 2, 3, -4, 5, 6 };
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	o.hash = 0x1234567890abcdefull;
	ck_assert_int_eq(sym_corigin_set_path(&o, "/lib/x.so"), 0);
	/* More identities than kept: the newest stay, newest first. */
	for (i = 0; i < SYM_CACHEFILE_MAX_IDS + 2; i++) {
		st.ino = 100 + i;
		ck_assert(sym_corigin_note(&o, &st));
	}
	ck_assert(!sym_corigin_note(&o, &st));
	ck_assert_uint_eq(o.nids, SYM_CACHEFILE_MAX_IDS);
	ck_assert_int_eq(sym_cset_encode(s, CTX, &o, &b), 0);
	ck_assert_int_eq(sym_cset_origin(b.data, b.len, CTX, &d), 0);
	ck_assert_uint_eq(d.hash, o.hash);
	ck_assert_str_eq(d.path, "/lib/x.so");
	ck_assert_uint_eq(d.nids, SYM_CACHEFILE_MAX_IDS);
	ck_assert_uint_eq(d.ids[0].ino, 100 + SYM_CACHEFILE_MAX_IDS + 1);
	ck_assert_int_eq(d.ids[0].mtime_ns, -4);
	ck_assert(sym_corigin_knows(&d, &st));
	st.ino = 100;
	ck_assert(!sym_corigin_knows(&d, &st));
	ck_assert_int_eq(sym_cset_origin(b.data, b.len, CTX + 1, &d), -ESTALE);
	ck_assert_ptr_null(d.path);
	sp_buf_release(&b);
	sym_corigin_release(&o);
	sym_corigin_release(&d);
	sym_cset_free(s);
}
END_TEST

static Suite *
cache_suite(void)
{
	Suite *s = suite_create("symbolize_cache");
	TCase *t = tcase_create("codec");

	tcase_add_test(t, round_trip);
	tcase_add_test(t, present_keys_keep_their_result);
	tcase_add_test(t, every_cut_and_flip_is_refused);
	tcase_add_test(t, unknown_flags_are_refused);
	tcase_add_test(t, sealed_garbage_is_refused);
	tcase_add_test(t, origin_round_trip);
	suite_add_tcase(s, t);
	t = tcase_create("store");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, saved_sets_load_again);
	tcase_add_test(t, corrupt_file_is_rebuilt);
	tcase_add_test(t, saves_merge_with_another_runs);
	tcase_add_test(t, least_recently_used_files_go);
	tcase_add_test(t, no_directory_means_no_cache);
	tcase_add_test(t, sets_serve_their_own_file);
	tcase_add_test(t, changed_file_is_not_cached);
	suite_add_tcase(s, t);
	t = tcase_create("hostile");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, linked_directory_is_refused);
	tcase_add_test(t, only_cache_files_are_evicted);
	tcase_add_test(t, planted_files_are_not_trusted);
	tcase_add_test(t, shared_directory_is_refused);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return ck_run(cache_suite());
}
