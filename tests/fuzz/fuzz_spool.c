/*
 * fuzz_spool.c: libFuzzer harness for the streaming spool reader.  Feeds
 * the input through a pipe-like memfd and walks every record, resolving
 * frame contexts and stacks as sp-dump does, and reading every byte of
 * each module path by its length, as sp-dump prints it.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/ext.h"
#include "common/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The xor of n bytes: reads each, so ASan sees a read past the end. */
static uint8_t
touch(const char *p, size_t n)
{
	uint8_t x = 0;

	while (n--)
		x ^= (uint8_t)p[n];
	return x;
}

static void
walk(struct sp_spool_reader *r, const struct sp_spool_record *rec,
     volatile uint8_t *sink)
{
	uint32_t prefix, frame, stack;
	uint64_t rel;
	struct sp_ext_comm c;

	if (rec->tag == SP_TAG_SAMPLE) {
		stack = rec->u.sample.stack_id;
		while (stack != SP_NONE &&
		       sp_spool_reader_stack(r, stack, &prefix, &frame)) {
			sp_spool_reader_frame_context(r, frame,
						      rec->u.sample.pid, &rel);
			stack = prefix;
		}
	} else if (rec->tag == SP_TAG_MODULE) {
		*sink ^= touch(rec->u.module.path, rec->u.module.path_len);
	} else if (rec->tag == SP_EXT_COMM &&
		   !sp_ext_comm_decode(rec->u.ext.data, rec->u.ext.len, &c)) {
		*sink ^= touch(c.name, c.name_len);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_spool_reader *r;
	struct sp_spool_record rec;
	volatile uint8_t sink = 0;
	uint64_t s, i;
	int fd = memfd_create("fuzz", 0), rc;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size &&
	    lseek(fd, 0, SEEK_SET) == 0) {
		r = sp_spool_reader_new(fd);
		rc = sp_spool_reader_header(r, &s, &i);
		while (rc == 0 && sp_spool_reader_next(r, &rec) > 0)
			walk(r, &rec, &sink);
		sp_spool_reader_free(r);
	}
	close(fd);
	return 0;
}
