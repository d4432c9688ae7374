/*
 * check_basics.c: the small building blocks of common/: varints, hex, the hash
 * table, escaping and field parsing, extension payloads, fallback names,
 * the heap tuning.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/ext.h"
#include "common/heap.h"
#include "common/hex.h"
#include "common/htab.h"
#include "common/names.h"
#include "common/records.h"
#include "common/varint.h"

START_TEST(varints_round_trip)
{
	static const int64_t vals[] = { 0,  1,   -1,        63,       -64,
					64, 300, INT64_MAX, INT64_MIN };
	struct sp_buf b = SP_BUF_INIT;
	const uint8_t *p, *end;
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		sp_varint_put_i64(&b, vals[i]);
		sp_varint_put_u64(&b, (uint64_t)vals[i]);
	}
	p = b.data;
	end = b.data + b.len;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		int64_t s;
		uint64_t u;

		ck_assert_int_eq(sp_varint_get_i64(&p, end, &s), 0);
		ck_assert_int_eq(s, vals[i]);
		ck_assert_int_eq(sp_varint_get_u64(&p, end, &u), 0);
		ck_assert_uint_eq(u, (uint64_t)vals[i]);
	}
	ck_assert_ptr_eq(p, end);
	sp_buf_release(&b);
}
END_TEST

START_TEST(varint_encoding_matches_leb128)
{
	struct sp_buf b = SP_BUF_INIT;

	sp_varint_put_u64(&b, 300);
	sp_varint_put_i64(&b, -1); /* zigzag: 1 */
	sp_varint_put_i64(&b, 1);  /* zigzag: 2 */
	ck_assert_uint_eq(b.len, 4);
	ck_assert_mem_eq(b.data, "\xac\x02\x01\x02", 4);
	sp_buf_release(&b);
}
END_TEST

START_TEST(varints_reject_overlong_and_cut_input)
{
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x01 };
	static const uint8_t big[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x02 };
	const uint8_t *p = eleven;
	uint64_t v;

	ck_assert_int_eq(sp_varint_get_u64(&p, eleven + 11, &v), -EBADMSG);
	p = big;
	ck_assert_int_eq(sp_varint_get_u64(&p, big + 10, &v), -EBADMSG);
	p = eleven;
	ck_assert_int_eq(sp_varint_get_u64(&p, eleven + 3, &v), -EAGAIN);
	ck_assert_ptr_eq(p, eleven);
}
END_TEST

/* One LEB128 case: bytes (a hex string), how many, the expected answer. */
struct leb_case {
	const char *hex;
	int rc;
	uint64_t v;
};

/* Decodes a hex string such as "ff 7f" into b; its length. */
static size_t
unhex(const char *hex, uint8_t *b)
{
	size_t n = 0;
	unsigned x;
	int used;

	while (sscanf(hex, " %2x%n", &x, &used) == 1) {
		b[n++] = (uint8_t)x;
		hex += used;
	}
	return n;
}

/*
 * Checks a reader on each case: the answer, the value, and that the
 * cursor moved over the whole number on success and not at all on error.
 */
static void
check_leb(const struct leb_case *cases, size_t ncases, int is_signed)
{
	const uint8_t *p;
	uint8_t b[32];
	uint64_t u;
	int64_t s;
	size_t i, n;
	int rc;

	for (i = 0; i < ncases; i++) {
		n = unhex(cases[i].hex, b);
		p = b;
		u = 12345;
		s = 12345;
		rc = is_signed ? sp_leb_get_s64(&p, b + n, &s)
			       : sp_leb_get_u64(&p, b + n, &u);
		ck_assert_msg(rc == cases[i].rc, "%s: rc %d, want %d",
			      cases[i].hex, rc, cases[i].rc);
		if (rc == 0) {
			ck_assert_msg(
			    (is_signed ? (uint64_t)s : u) == cases[i].v,
			    "%s: 0x%llx", cases[i].hex,
			    (unsigned long long)(is_signed ? (uint64_t)s : u));
			ck_assert_ptr_eq(p, b + n);
		} else {
			ck_assert_ptr_eq(p, b);
			ck_assert(is_signed ? s == 12345 : u == 12345);
		}
	}
}

/*
 * Issue 25: ff ff ff ff ff ff ff ff ff 7f got three answers (ehframe.c
 * all ones, dwline_impl.h's signed reader all ones, the spool an error).
 * Unsigned it is 2^70 - 1: refused.  A value that fits is accepted however
 * long its padding.
 */
START_TEST(uleb_one_answer)
{
	static const struct leb_case cases[] = {
		{ "ff ff ff ff ff ff ff ff ff 7f", -EOVERFLOW, 0 },
		{ "00", 0, 0 },
		{ "7f", 0, 127 },
		{ "80 01", 0, 128 },
		{ "e5 8e 26", 0, 624485 },
		{ "ff ff ff ff ff ff ff ff ff 01", 0, UINT64_MAX },
		{ "80 80 80 80 80 80 80 80 80 01", 0, 1ULL << 63 },
		{ "ff ff ff ff ff ff ff ff 7f", 0, INT64_MAX },
		{ "ff ff ff ff ff ff ff ff ff 02", -EOVERFLOW, 0 },
		{ "80 80 80 80 80 80 80 80 80 40", -EOVERFLOW, 0 },
		{ "80 80 80 80 80 80 80 80 80 80 01", -EOVERFLOW, 0 },
		{ "ff ff ff ff ff ff ff ff ff 81 01", -EOVERFLOW, 0 },
		/* Padding: a value that fits, in more bytes than it needs. */
		{ "80 00", 0, 0 },
		{ "85 80 80 80 00", 0, 5 },
		{ "ff ff ff ff ff ff ff ff ff 81 80 80 00", 0, UINT64_MAX },
		{ "80 80 80 80 80 80 80 80 80 80 80 80 80 80 80 00", 0, 0 },
		/* Cut inside the number. */
		{ "", -EAGAIN, 0 },
		{ "80", -EAGAIN, 0 },
		{ "ff ff ff ff ff ff ff ff ff 81", -EAGAIN, 0 },
	};

	check_leb(cases, sizeof(cases) / sizeof(cases[0]), 0);
}
END_TEST

START_TEST(sleb_one_answer)
{
	static const struct leb_case cases[] = {
		/* The same ten bytes, signed: an over-long -1, which fits. */
		{ "ff ff ff ff ff ff ff ff ff 7f", 0, UINT64_MAX },
		{ "00", 0, 0 },
		{ "3f", 0, 63 },
		{ "40", 0, (uint64_t)-64 },
		{ "7f", 0, (uint64_t)-1 },
		{ "c0 00", 0, 64 },
		{ "bf 7f", 0, (uint64_t)-65 },
		{ "80 80 80 80 80 80 80 80 80 7f", 0, (uint64_t)INT64_MIN },
		{ "ff ff ff ff ff ff ff ff ff 00", 0, (uint64_t)INT64_MAX },
		{ "ff ff ff ff ff ff ff ff 3f", 0, (uint64_t)INT64_MAX >> 1 },
		{ "80 80 80 80 80 80 80 80 40", 0,
		  (uint64_t)INT64_MIN >> 1 | 1ULL << 63 },
		/* Bits beyond 64 that are not bit 63's copies. */
		{ "80 80 80 80 80 80 80 80 80 01", -EOVERFLOW, 0 },
		{ "ff ff ff ff ff ff ff ff ff 7e", -EOVERFLOW, 0 },
		{ "ff ff ff ff ff ff ff ff ff 40", -EOVERFLOW, 0 },
		{ "ff ff ff ff ff ff ff ff ff ff 00", -EOVERFLOW, 0 },
		{ "80 80 80 80 80 80 80 80 80 80 7f", -EOVERFLOW, 0 },
		/* Padding. */
		{ "80 80 00", 0, 0 },
		{ "85 80 80 00", 0, 5 },
		{ "ff ff 7f", 0, (uint64_t)-1 },
		{ "ff ff ff ff ff ff ff ff ff ff ff 7f", 0, (uint64_t)-1 },
		{ "80 80 80 80 80 80 80 80 80 80 80 00", 0, 0 },
		{ "80 80 80 80 80 80 80 80 80 ff 7f", 0, (uint64_t)INT64_MIN },
		{ "", -EAGAIN, 0 },
		{ "ff ff", -EAGAIN, 0 },
	};

	check_leb(cases, sizeof(cases) / sizeof(cases[0]), 1);
}
END_TEST

/* Every value round-trips, as the writer spells it and padded to 10. */
START_TEST(leb_round_trips)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, u, v;
	const uint8_t *p;
	uint8_t b[16];
	size_t n, i;
	int64_t s;
	int k;

	for (k = 0; k < 20000; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = x >> (k % 64);
		for (n = 0, u = v; n == 0 || u; n++, u >>= 7)
			b[n] = (uint8_t)(u & 0x7f) | (u >> 7 ? 0x80 : 0);
		for (i = n; i < 10; i++) { /* pad: 0x80 ... 0x00 */
			b[i - 1] |= 0x80;
			b[i] = 0;
		}
		p = b;
		ck_assert_int_eq(sp_leb_get_u64(&p, b + 10, &u), 0);
		ck_assert_uint_eq(u, v);
		ck_assert_ptr_eq(p, b + 10);
		/* The same value as SLEB128, 7 bits at a time. */
		s = (int64_t)v;
		for (n = 0;; n++) {
			b[n] = (uint8_t)(s & 0x7f);
			s >>= 7; /* arithmetic on every compiler we use */
			if ((s == 0 && !(b[n] & 0x40)) ||
			    (s == -1 && (b[n] & 0x40)))
				break;
			b[n] |= 0x80;
		}
		p = b;
		ck_assert_int_eq(sp_leb_get_s64(&p, b + n + 1, &s), 0);
		ck_assert_uint_eq((uint64_t)s, v);
		ck_assert_ptr_eq(p, b + n + 1);
	}
}
END_TEST

/*
 * The spool's varints give the same answer, and refuse more than 10
 * bytes, as the format's writer never writes them.
 */
START_TEST(spool_varints_agree)
{
	static const uint8_t ten[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x7f };
	static const uint8_t padded[] = { 0x85, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x00 };
	const uint8_t *p = ten;
	uint64_t v;

	ck_assert_int_eq(sp_varint_get_u64(&p, ten + 10, &v), -EBADMSG);
	ck_assert_ptr_eq(p, ten);
	p = padded + 1;
	ck_assert_int_eq(sp_varint_get_u64(&p, padded + 11, &v), 0);
	ck_assert_uint_eq(v, 0);
	p = padded;
	ck_assert_int_eq(sp_leb_get_u64(&p, padded + 11, &v), 0);
	ck_assert_uint_eq(v, 5);
	p = padded;
	ck_assert_int_eq(sp_varint_get_u64(&p, padded + 11, &v), -EBADMSG);
	p = padded;
	ck_assert_int_eq(sp_varint_get_u64(&p, padded + 10, &v), -EAGAIN);
}
END_TEST

/*
 * Random inserts and deletes of variable-length keys against a plain
 * array model: every key's presence and value must agree after each step,
 * in small tables (probe runs wrap around) and large ones.
 */
static void
churn(unsigned nkeys, unsigned steps, unsigned seed)
{
	struct sp_htab *h = sp_htab_new();
	uint64_t *model = calloc(nkeys, sizeof(*model)), v;
	char key[64];
	unsigned i, k, present = 0;
	size_t kl;

	srandom(seed);
	for (i = 0; i < steps; i++) {
		k = (unsigned)random() % nkeys;
		kl = (size_t)snprintf(
		    key, sizeof(key), "%u%.*s", k, (int)(k % 40),
		    "........................................");
		if (model[k] && random() % 2) {
			ck_assert(sp_htab_del(h, key, kl));
			ck_assert(!sp_htab_del(h, key, kl));
			model[k] = 0;
			present--;
		} else {
			present += !model[k];
			model[k] = i + 1;
			ck_assert_int_eq(sp_htab_put(h, key, kl, i + 1), 0);
		}
		ck_assert_uint_eq(sp_htab_count(h), present);
		k = (unsigned)random() % nkeys;
		kl = (size_t)snprintf(
		    key, sizeof(key), "%u%.*s", k, (int)(k % 40),
		    "........................................");
		ck_assert_int_eq(sp_htab_get(h, key, kl, &v), model[k] != 0);
		if (model[k])
			ck_assert_uint_eq(v, model[k]);
	}
	for (k = 0; k < nkeys; k++) {
		kl = (size_t)snprintf(
		    key, sizeof(key), "%u%.*s", k, (int)(k % 40),
		    "........................................");
		ck_assert_int_eq(sp_htab_get(h, key, kl, &v), model[k] != 0);
		if (model[k])
			ck_assert_uint_eq(v, model[k]);
	}
	free(model);
	sp_htab_free(h);
}

START_TEST(htab_deletes_under_churn)
{
	churn(7, 20000, 1);
	churn(50, 50000, 2);
	churn(2000, 40000, 3);
}
END_TEST

static bool
del_odd(const void *key, size_t len, uint64_t val, void *ctx)
{
	(void)key;
	(void)len;
	(*(unsigned *)ctx)++;
	return val % 2;
}

/*
 * sp_htab_del_if against sp_htab_del of the same keys one by one, in
 * tables whose probe runs wrap around the end, with keys kept in their
 * slot and in the arena: the same entries in the same iteration order,
 * each key shown to the callback once, and the table usable afterwards.
 */
START_TEST(htab_del_if_matches_one_by_one)
{
	unsigned n, i, seen;
	uint64_t va, vb;
	size_t pa, pb, la, lb;
	const void *ka, *kb;
	char key[64];

	for (n = 1; n < 700; n += 37) {
		struct sp_htab *a = sp_htab_new(), *b = sp_htab_new();

		for (i = 0; i < n; i++) {
			size_t kl = (size_t)snprintf(
			    key, sizeof(key), "k%u%.*s", i, (int)(i % 30),
			    "..............................");

			ck_assert_int_eq(sp_htab_put(a, key, kl, i), 0);
			ck_assert_int_eq(sp_htab_put(b, key, kl, i), 0);
		}
		seen = 0;
		ck_assert_int_eq(sp_htab_del_if(a, del_odd, &seen), 0);
		ck_assert_uint_eq(seen, n);
		for (i = 1; i < n; i += 2) {
			size_t kl = (size_t)snprintf(
			    key, sizeof(key), "k%u%.*s", i, (int)(i % 30),
			    "..............................");

			ck_assert(sp_htab_del(b, key, kl));
		}
		ck_assert_uint_eq(sp_htab_count(a), sp_htab_count(b));
		pa = pb = 0;
		while (sp_htab_next(a, &pa, &ka, &la, &va)) {
			ck_assert(sp_htab_next(b, &pb, &kb, &lb, &vb));
			ck_assert_uint_eq(va, vb);
			ck_assert_uint_eq(la, lb);
			ck_assert_mem_eq(ka, kb, la);
		}
		ck_assert(!sp_htab_next(b, &pb, &kb, &lb, &vb));
		for (i = 0; i < n; i++) {
			size_t kl = (size_t)snprintf(
			    key, sizeof(key), "k%u%.*s", i, (int)(i % 30),
			    "..............................");

			ck_assert_int_eq(sp_htab_get(a, key, kl, &va),
					 i % 2 == 0);
			ck_assert_int_eq(sp_htab_put(a, key, kl, i), 0);
		}
		ck_assert_uint_eq(sp_htab_count(a), n);
		sp_htab_free(a);
		sp_htab_free(b);
	}
}
END_TEST

START_TEST(htab_grows_and_keeps_everything)
{
	struct sp_htab *h = sp_htab_new();
	uint64_t i, v, sum = 0;
	size_t pos = 0;
	const void *k;
	size_t kl;

	for (i = 0; i < 100000; i++)
		ck_assert_int_eq(sp_htab_put(h, &i, sizeof(i), i * 3), 0);
	ck_assert_uint_eq(sp_htab_count(h), 100000);
	for (i = 0; i < 100000; i += 7) {
		ck_assert(sp_htab_get(h, &i, sizeof(i), &v));
		ck_assert_uint_eq(v, i * 3);
	}
	i = 100001;
	ck_assert(!sp_htab_get(h, &i, sizeof(i), NULL));
	ck_assert(!sp_htab_get(h, "", 0, NULL));
	ck_assert_int_eq(sp_htab_put(h, "", 0, 5), 0);
	ck_assert(sp_htab_get(h, "", 0, &v));
	ck_assert_uint_eq(v, 5);
	while (sp_htab_next(h, &pos, &k, &kl, &v))
		sum += v;
	ck_assert_uint_eq(sum, 3ull * 99999 * 100000 / 2 + 5);
	sp_htab_free(h);
}
END_TEST

START_TEST(escape_round_trips_every_byte)
{
	struct sp_buf b = SP_BUF_INIT;
	char all[255];
	int i;

	for (i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	ck_assert_int_eq(sp_escape(&b, all, sizeof(all)), 0);
	ck_assert_ptr_null(memchr(b.data, '\t', b.len));
	ck_assert_ptr_null(memchr(b.data, '\n', b.len));
	ck_assert_int_eq(sp_unescape((char *)b.data), 255);
	ck_assert_mem_eq(b.data, all, 255);
	sp_buf_reset(&b);
	sp_escape(&b, "a\tb\\c", 5);
	ck_assert_str_eq((char *)b.data, "a\\tb\\\\c");
	/* C1 controls in UTF-8 are escaped whole, other letters kept. */
	sp_buf_reset(&b);
	sp_escape(&b,
		  "\xc2\x9b"
		  "2J \xc2\xa9 \xc3\xa9\xc2",
		  11);
	ck_assert_str_eq((char *)b.data, "\\xc2\\x9b2J \xc2\xa9 \xc3\xa9\xc2");
	ck_assert_int_eq(sp_unescape((char *)b.data), 11);
	ck_assert_mem_eq(b.data,
			 "\xc2\x9b"
			 "2J \xc2\xa9 \xc3\xa9\xc2",
			 11);
	ck_assert_int_eq(sp_unescape((char[]){ "bad\\q" }), -EBADMSG);
	ck_assert_int_eq(sp_unescape((char[]){ "bad\\x4" }), -EBADMSG);
	sp_buf_release(&b);
}
END_TEST

START_TEST(field_parsers_are_strict)
{
	uint64_t v;
	uint32_t id;
	int32_t pid;

	ck_assert_int_eq(sp_parse_hex("0x7f00", &v), 0);
	ck_assert_uint_eq(v, 0x7f00);
	ck_assert_int_eq(sp_parse_hex("7f00", &v), -EBADMSG);
	ck_assert_int_eq(sp_parse_hex("0x", &v), -EBADMSG);
	ck_assert_int_eq(sp_parse_u64("12a", &v), -EBADMSG);
	ck_assert_int_eq(sp_parse_u64("-1", &v), -EBADMSG);
	ck_assert_int_eq(sp_parse_u64("18446744073709551616", &v), -EBADMSG);
	ck_assert_int_eq(sp_parse_id("-", &id), 0);
	ck_assert_uint_eq(id, SP_NONE);
	ck_assert_int_eq(sp_parse_i32("-1", &pid), 0);
	ck_assert_int_eq(pid, -1);
	ck_assert_int_eq(sp_parse_i32("2147483648", &pid), -EBADMSG);
}
END_TEST

START_TEST(extension_payloads_round_trip)
{
	struct sp_buf b = SP_BUF_INIT;
	struct sp_ext_comm c = { 5, 7, 8, true, "worker", 6 }, c2;
	struct sp_ext_iter it;
	const char *k, *val;
	size_t kl, vl;
	uint64_t n;

	sp_ext_comm_encode(&b, &c);
	ck_assert_int_eq(sp_ext_comm_decode(b.data, b.len, &c2), 0);
	ck_assert_int_eq(c2.pid, 7);
	ck_assert(c2.is_exec);
	ck_assert_mem_eq(c2.name, "worker", 6);
	ck_assert_int_eq(sp_ext_comm_decode(b.data, b.len - 1, &c2), -EBADMSG);
	sp_buf_reset(&b);
	sp_ext_pair_encode(&b, "release", "6.1.0");
	sp_ext_pair_encode(&b, "arch", "x86_64");
	it.p = b.data;
	it.end = b.data + b.len;
	ck_assert_int_eq(sp_ext_pair_next(&it, &k, &kl, &val, &vl), 1);
	ck_assert_mem_eq(val, "6.1.0", vl);
	ck_assert_int_eq(sp_ext_pair_next(&it, &k, &kl, &val, &vl), 1);
	ck_assert_int_eq(sp_ext_pair_next(&it, &k, &kl, &val, &vl), 0);
	sp_buf_reset(&b);
	sp_ext_counter_encode(&b, "lost", 42);
	it.p = b.data;
	it.end = b.data + b.len;
	ck_assert_int_eq(sp_ext_counter_next(&it, &k, &kl, &n), 1);
	ck_assert_uint_eq(n, 42);
	sp_buf_release(&b);
}
END_TEST

START_TEST(wait_states_round_trip)
{
	struct sp_buf b = SP_BUF_INIT;
	enum sp_wait_state st = SP_WAIT_NONE;
	static const uint8_t zero[] = { 0 }, nine[] = { 9 };
	int i;

	for (i = SP_WAIT_NONE + 1; i < SP_WAIT_NSTATES; i++) {
		sp_buf_reset(&b);
		sp_ext_wait_encode(&b, (enum sp_wait_state)i);
		ck_assert_int_eq(sp_ext_wait_decode(b.data, b.len, &st), 0);
		ck_assert_int_eq(st, i);
		ck_assert_int_eq(sp_wait_state_parse(sp_wait_state_name(st)),
				 i);
	}
	ck_assert_int_eq(sp_ext_wait_decode(zero, 1, &st), -EBADMSG);
	ck_assert_int_eq(sp_ext_wait_decode(nine, 1, &st), -EBADMSG);
	ck_assert_int_eq(sp_ext_wait_decode(zero, 0, &st), -EBADMSG);
	ck_assert_str_eq(sp_wait_state_name(SP_WAIT_IO), "io");
	ck_assert_ptr_null(sp_wait_state_name(SP_WAIT_NONE));
	ck_assert_int_eq(sp_wait_state_parse("running"), SP_WAIT_NONE);
	sp_buf_release(&b);
}
END_TEST

START_TEST(fallback_names_match_the_reference)
{
	struct sp_buf b = SP_BUF_INIT;

	sp_fallback_name(&b, SP_FRAME_USER, "/usr/lib/libfoo.so", 0x1a2b, 9);
	ck_assert_str_eq((char *)b.data, "libfoo.so+0x1a2b");
	sp_buf_reset(&b);
	sp_fallback_name(&b, SP_FRAME_KERNEL, NULL, 0, 0xffffffff81001234ull);
	ck_assert_str_eq((char *)b.data, "[kernel]+0xffffffff81001234");
	sp_buf_reset(&b);
	sp_fallback_name(&b, SP_FRAME_USER, NULL, 0, 0);
	ck_assert_str_eq((char *)b.data, "<0x0>");
	sp_buf_reset(&b);
	sp_fallback_name(&b, SP_FRAME_TRUNCATED, NULL, 0, 0);
	ck_assert_str_eq((char *)b.data, "<stack truncated>");
	sp_buf_reset(&b);
	sp_fallback_name(&b, SP_FRAME_USER, "[anon:sparse/seven]", 8, 0);
	ck_assert_str_eq((char *)b.data, "[anon:sparse/seven]+0x8");
	sp_buf_reset(&b);
	sp_fallback_name(&b, SP_FRAME_USER, "/tmp/a.out (deleted)", 0x10, 0);
	ck_assert_str_eq((char *)b.data, "a.out+0x10");
	sp_buf_release(&b);
	/* The suffix alone, or in the middle, is not a deleted file's. */
	ck_assert_uint_eq(sp_module_path_undeleted("/a (deleted)", 12), 2);
	ck_assert_uint_eq(sp_module_path_undeleted("/a (deleted)x", 13), 13);
	ck_assert_uint_eq(sp_module_path_undeleted(" (deleted)", 10), 10);
	ck_assert_uint_eq(sp_module_path_undeleted("/a", 2), 2);
}
END_TEST

#define ANON(p) sp_module_path_anonymous(p, strlen(p))

/* Memory that is no file, as both sp-record and sp-symbolize see it. */
START_TEST(anonymous_module_paths)
{
	ck_assert(ANON(""));
	ck_assert(ANON("[anon:v8]"));
	ck_assert(ANON("//anon"));
	ck_assert(ANON("[stack:42]"));
	ck_assert(ANON("[heap]"));
	ck_assert(ANON("/dev/zero (deleted)"));
	ck_assert(ANON("/anon_hugepage (deleted)"));
	ck_assert(ANON("/SYSV00000000 (deleted)"));
	ck_assert(!ANON("[heap]x"));
	ck_assert(!ANON("[vdso]"));
	ck_assert(!ANON("/dev/zero2"));
	ck_assert(!ANON("/usr/lib/libc.so.6"));
	ck_assert(!ANON("/tmp/perf-1.map"));
	ck_assert(!ANON(" (deleted)x"));
}
END_TEST

/* The [heap] mappings' VmFlags (joined) and AnonHugePages in KiB. */
static long
heap_mappings(char *flags, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool heap = false;
	long huge = 0, kb;

	ck_assert_ptr_nonnull(f);
	flags[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[heap]"))
			heap = true;
		else if (heap && sscanf(line, "AnonHugePages: %ld", &kb) == 1)
			huge += kb;
		else if (heap && strncmp(line, "VmFlags:", 8) == 0) {
			strncat(flags, line, size - strlen(flags) - 1);
			heap = false;
		}
	}
	fclose(f);
	return huge;
}

/*
 * The tuned heap starts on a 2 MiB boundary with huge pages asked for,
 * and (where the system grants them) its first blocks lie in one.
 * Under ASan the allocator is ASan's: the call must only be harmless.
 */
START_TEST(heap_starts_on_huge_pages)
{
	char flags[4096], mode[128] = "";
	FILE *f;
	char *p;
	long huge;

	sp_heap_tune(8 << 20);
	p = malloc(3 << 20);
	ck_assert_ptr_nonnull(p);
	memset(p, 1, 3 << 20);
	huge = heap_mappings(flags, sizeof(flags));
#ifndef __SANITIZE_ADDRESS__
	ck_assert_msg(strstr(flags, " hg"), "no huge page advice: %s", flags);
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f && fgets(mode, sizeof(mode), f) && !strstr(mode, "[never]"))
		ck_assert_int_ge(huge, 2048);
	if (f)
		fclose(f);
#else
	(void)huge;
	(void)f;
	(void)mode;
#endif
	free(p);
}
END_TEST

START_TEST(hex_encodes_every_byte)
{
	uint8_t raw[256];
	char out[2 * 256 + 1], want[3];
	size_t i;

	for (i = 0; i < 256; i++)
		raw[i] = (uint8_t)i;
	sp_hex_encode(raw, 256, out);
	ck_assert_uint_eq(strlen(out), 512);
	for (i = 0; i < 256; i++) {
		snprintf(want, sizeof(want), "%02x", (unsigned)i);
		ck_assert_int_eq(memcmp(out + 2 * i, want, 2), 0);
	}
	sp_hex_encode(raw, 0, out);
	ck_assert_str_eq(out, "");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("basics");
	TCase *enc = tcase_create("encoding");
	TCase *tab = tcase_create("hash table");
	TCase *txt = tcase_create("text records");
	TCase *heap = tcase_create("heap");

	tcase_add_test(enc, varints_round_trip);
	tcase_add_test(enc, hex_encodes_every_byte);
	tcase_add_test(enc, varint_encoding_matches_leb128);
	tcase_add_test(enc, varints_reject_overlong_and_cut_input);
	tcase_add_test(enc, uleb_one_answer);
	tcase_add_test(enc, sleb_one_answer);
	tcase_add_test(enc, leb_round_trips);
	tcase_add_test(enc, spool_varints_agree);
	tcase_add_test(enc, extension_payloads_round_trip);
	tcase_add_test(enc, wait_states_round_trip);
	suite_add_tcase(s, enc);
	tcase_add_test(tab, htab_grows_and_keeps_everything);
	tcase_add_test(tab, htab_deletes_under_churn);
	tcase_add_test(tab, htab_del_if_matches_one_by_one);
	suite_add_tcase(s, tab);
	tcase_add_test(txt, escape_round_trips_every_byte);
	tcase_add_test(txt, field_parsers_are_strict);
	tcase_add_test(txt, fallback_names_match_the_reference);
	tcase_add_test(txt, anonymous_module_paths);
	suite_add_tcase(s, txt);
	tcase_add_test(heap, heap_starts_on_huge_pages);
	suite_add_tcase(s, heap);
	return ck_run(s);
}
