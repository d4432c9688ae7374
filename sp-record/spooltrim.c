/*
 * spooltrim.c: a spool cut back to a record boundary (spooltrim.h).  The
 * file is read back through /proc/self/fd with the ordinary reader, which
 * returns every whole record before a fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/spool.h"
#include "common/varint.h"
#include "sp-record/spooltrim.h"
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

int
rec_spool_trim(int fd, uint64_t *kept)
{
	char path[64];
	struct stat st;
	int64_t end;
	int rfd;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((rfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	end = boundary(rfd);
	close(rfd);
	if (end < 0 || end >= (int64_t)st.st_size)
		end = (int64_t)st.st_size;
	else if (ftruncate(fd, (off_t)end) < 0)
		return -errno;
	*kept = (uint64_t)end;
	return 1;
}
