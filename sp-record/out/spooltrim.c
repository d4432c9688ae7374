/*
 * spooltrim.c: a spool cut back to a record boundary (spooltrim.h).  The
 * file is read back through /proc/self/fd, from where this spool started,
 * with the ordinary reader, which returns every whole record before a
 * fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/spool.h"
#include "common/varint.h"
#include "sp-record/out/spooltrim.h"
#include "common/banned.h"

/* The length of the header holding these two values. */
static int64_t
header_len(uint64_t start_us, uint64_t interval_us)
{
	struct sp_buf b = SP_BUF_INIT;
	int64_t n = -1;

	if (sp_varint_put_u64(&b, start_us) == 0 &&
	    sp_varint_put_u64(&b, interval_us) == 0)
		n = 8 + (int64_t)b.len;
	sp_buf_release(&b);
	return n;
}

/*
 * Where the spool read from `fd` should end: at the start of its last
 * whole record (where that record ends is not told, so it goes too), or
 * after the header when no record is whole; -1 when it ends cleanly.
 */
static int64_t
boundary(int fd)
{
	struct sp_spool_reader *rd = sp_spool_reader_new(fd);
	struct sp_spool_record rec;
	uint64_t start_us, interval_us;
	int64_t last = -1;
	int rc;

	if (!rd)
		return -1;
	if (sp_spool_reader_header(rd, &start_us, &interval_us) < 0) {
		sp_spool_reader_free(rd);
		return -1;
	}
	while ((rc = sp_spool_reader_next(rd, &rec)) == 1)
		last = (int64_t)rec.offset;
	sp_spool_reader_free(rd);
	if (rc != -EBADMSG)
		return -1;
	return last >= 0 ? last : header_len(start_us, interval_us);
}

uint64_t
rec_spooltrim_start(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	off_t off;

	if (fl >= 0 && (fl & O_APPEND))
		return fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
			   ? (uint64_t)st.st_size
			   : 0;
	off = lseek(fd, 0, SEEK_CUR);
	return off > 0 ? (uint64_t)off : 0;
}

int
rec_spooltrim(int fd, uint64_t start, uint64_t *kept)
{
	char path[64];
	struct stat st;
	int64_t end, size;
	int rfd;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if ((uint64_t)st.st_size <= start) {
		*kept = 0;
		return 1;
	}
	size = (int64_t)((uint64_t)st.st_size - start);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((rfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	end = lseek(rfd, (off_t)start, SEEK_SET) < 0 ? -1 : boundary(rfd);
	close(rfd);
	if (end < 0 || end >= size)
		end = size;
	else if (ftruncate(fd, (off_t)(start + (uint64_t)end)) < 0)
		return -errno;
	*kept = (uint64_t)end;
	return 1;
}
