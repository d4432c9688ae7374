/*
 * check_record_ring.c: the perf ring reader on crafted buffers: records in
 * order, records that wrap around the end of the data area, a long run of
 * passes against a simulated producer, and malformed headers.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/perf/ring.h"

#define SIZE 64

static struct perf_event_mmap_page *meta;
static uint8_t *data;
static struct rec_ring ring;

static void
setup(void)
{
	meta = calloc(1, sizeof(*meta));
	data = calloc(1, SIZE);
	ck_assert_ptr_nonnull(meta);
	ck_assert_ptr_nonnull(data);
	ck_assert_int_eq(rec_ring_init_mem(&ring, meta, data, SIZE), 0);
}

static void
teardown(void)
{
	rec_ring_release(&ring);
	free(meta);
	free(data);
}

/* The producer: writes a record of `size` bytes whose payload bytes are
 * `fill`, wrapping at the end of the data area, and publishes it. */
static void
produce(uint32_t type, uint16_t size, uint8_t fill)
{
	uint8_t rec[256];
	struct perf_event_header h = { type, 0, size };
	uint64_t head = meta->data_head, i;

	ck_assert_uint_le(size, sizeof(rec));
	memset(rec, fill, size);
	memcpy(rec, &h, sizeof(h));
	for (i = 0; i < size; i++)
		data[(head + i) % SIZE] = rec[i];
	meta->data_head = head + size;
}

static void
check_record(const struct perf_event_header *h, uint32_t type, uint16_t size,
	     uint8_t fill)
{
	const uint8_t *p = (const uint8_t *)h;
	uint16_t i;

	ck_assert_uint_eq(h->type, type);
	ck_assert_uint_eq(h->size, size);
	for (i = sizeof(*h); i < size; i++)
		ck_assert_uint_eq(p[i], fill);
}

START_TEST(empty_ring_has_no_records)
{
	const struct perf_event_header *h;

	ck_assert_uint_eq(rec_ring_begin(&ring), 0);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 0);
	rec_ring_end(&ring);
	ck_assert_uint_eq(meta->data_tail, 0);
}
END_TEST

START_TEST(records_come_in_order_and_tail_follows)
{
	const struct perf_event_header *h;

	produce(PERF_RECORD_SAMPLE, 16, 0xa1);
	produce(PERF_RECORD_MMAP2, 24, 0xb2);
	produce(PERF_RECORD_COMM, 8, 0);
	ck_assert_uint_eq(rec_ring_begin(&ring), 48);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_SAMPLE, 16, 0xa1);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_MMAP2, 24, 0xb2);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_COMM, 8, 0);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 0);
	/* Nothing is given back before the pass ends. */
	ck_assert_uint_eq(meta->data_tail, 0);
	rec_ring_end(&ring);
	ck_assert_uint_eq(meta->data_tail, 48);
	ck_assert_uint_eq(ring.wrapped, 0);
}
END_TEST

START_TEST(wrapped_record_is_copied_out_whole)
{
	const struct perf_event_header *h;

	/* Start near the end of the area, as after a long recording. */
	meta->data_head = meta->data_tail = 3 * SIZE + 48;
	ring.tail = meta->data_tail;
	produce(PERF_RECORD_SAMPLE, 32, 0x5c); /* 16 bytes, then 16 */
	produce(PERF_RECORD_LOST, 24, 0x11);
	ck_assert_uint_eq(rec_ring_begin(&ring), 56);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_SAMPLE, 32, 0x5c);
	ck_assert_ptr_eq(h, (const void *)ring.scratch);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_LOST, 24, 0x11);
	ck_assert_ptr_eq(h, (const void *)(data + 16));
	rec_ring_end(&ring);
	ck_assert_uint_eq(ring.wrapped, 1);
	ck_assert_uint_eq(meta->data_tail, 3 * SIZE + 48 + 56);
}
END_TEST

START_TEST(header_at_the_last_word_wraps_its_body)
{
	const struct perf_event_header *h;

	meta->data_head = meta->data_tail = SIZE - 8;
	ring.tail = meta->data_tail;
	produce(PERF_RECORD_EXIT, 40, 0x77);
	rec_ring_begin(&ring);
	ck_assert_int_eq(rec_ring_next(&ring, &h), 1);
	check_record(h, PERF_RECORD_EXIT, 40, 0x77);
	rec_ring_end(&ring);
}
END_TEST

START_TEST(long_run_against_a_producer)
{
	const struct perf_event_header *h;
	uint64_t made = 0, seen = 0;
	uint16_t size;
	int round, k;

	/* Sizes 8..56 in turn; the producer never overwrites unread data. */
	for (round = 0; round < 2000; round++) {
		for (k = 0; k < 3; k++) {
			size = (uint16_t)(8 + 8 * (made % 7));
			if (meta->data_head + size - meta->data_tail > SIZE)
				break;
			produce(PERF_RECORD_SAMPLE, size, (uint8_t)made);
			made++;
		}
		rec_ring_begin(&ring);
		while (rec_ring_next(&ring, &h) == 1) {
			size = (uint16_t)(8 + 8 * (seen % 7));
			check_record(h, PERF_RECORD_SAMPLE, size,
				     (uint8_t)seen);
			seen++;
		}
		rec_ring_end(&ring);
	}
	ck_assert_uint_eq(seen, made);
	ck_assert_uint_gt(made, 2000);
	ck_assert_uint_gt(ring.wrapped, 0);
	ck_assert_uint_eq(meta->data_tail, meta->data_head);
}
END_TEST

START_TEST(malformed_headers_skip_the_pass)
{
	const struct perf_event_header *h;
	struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 0 };
	uint16_t sizes[] = { 0, 4, 12, 200 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		bad.size = sizes[i];
		memcpy(data + (meta->data_head % SIZE), &bad, sizeof(bad));
		meta->data_head += 16;
		rec_ring_begin(&ring);
		ck_assert_int_eq(rec_ring_next(&ring, &h), -EBADMSG);
		ck_assert_int_eq(rec_ring_next(&ring, &h), 0);
		rec_ring_end(&ring);
		ck_assert_uint_eq(meta->data_tail, meta->data_head);
	}
	ck_assert_uint_eq(ring.corrupt, 4);
}
END_TEST

START_TEST(head_behind_tail_resynchronizes)
{
	meta->data_head = 8;
	ring.tail = 64;
	ck_assert_uint_eq(rec_ring_begin(&ring), 0);
	ck_assert_uint_eq(ring.corrupt, 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_ring");
	TCase *tc = tcase_create("ring");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, empty_ring_has_no_records);
	tcase_add_test(tc, records_come_in_order_and_tail_follows);
	tcase_add_test(tc, wrapped_record_is_copied_out_whole);
	tcase_add_test(tc, header_at_the_last_word_wraps_its_body);
	tcase_add_test(tc, long_run_against_a_producer);
	tcase_add_test(tc, malformed_headers_skip_the_pass);
	tcase_add_test(tc, head_behind_tail_resynchronizes);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
