/*
 * maps.c: the /proc/PID/maps parser (see maps.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sp-record/sys/maps.h"
#include "common/banned.h"

/* Reads a hexadecimal number from [*p, end); returns 0 or -EBADMSG. */
static int
get_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d, n = 0;

	for (; s < end; s++, n++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (n >= 16)
			return -EBADMSG;
		x = x << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -EBADMSG;
	*p = s;
	*v = x;
	return 0;
}

static int
get_dec(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d;

	if (s >= end || *s < '0' || *s > '9')
		return -EBADMSG;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		d = *s - '0';
		if (x > (UINT64_MAX - (uint64_t)d) / 10)
			return -EBADMSG;
		x = x * 10 + (uint64_t)d;
	}
	*p = s;
	*v = x;
	return 0;
}

static int
expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -EBADMSG;
	(*p)++;
	return 0;
}

int
rec_maps_parse_line(const char *line, size_t len, struct rec_maps_entry *m)
{
	const char *p = line, *end = line + len;
	uint64_t major, minor;
	int i;

	memset(m, 0, sizeof(*m));
	if (len > 0 && end[-1] == '\n')
		end--;
	if (get_hex(&p, end, &m->start) || expect(&p, end, '-') ||
	    get_hex(&p, end, &m->end) || expect(&p, end, ' '))
		return -EBADMSG;
	if (m->end < m->start || end - p < 5)
		return -EBADMSG;
	for (i = 0; i < 4; i++)
		m->perms[i] = p[i];
	m->perms[4] = '\0';
	p += 4;
	if (expect(&p, end, ' ') || get_hex(&p, end, &m->offset) ||
	    expect(&p, end, ' ') || get_hex(&p, end, &major) ||
	    expect(&p, end, ':') || get_hex(&p, end, &minor) ||
	    expect(&p, end, ' ') || get_dec(&p, end, &m->inode))
		return -EBADMSG;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -EBADMSG;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	if (p < end && *p != ' ')
		return -EBADMSG;
	while (p < end && *p == ' ')
		p++;
	m->path = p;
	m->path_len = (size_t)(end - p);
	return 0;
}

bool
rec_maps_is_module(const struct rec_maps_entry *m)
{
	if (m->perms[2] != 'x' || m->end <= m->start)
		return false;
	if (m->path_len > 0 && m->path[0] == '/')
		return true;
	return m->path_len == 6 && memcmp(m->path, "[vdso]", 6) == 0;
}

int
rec_maps_read(int32_t pid, struct sp_buf *out)
{
	char path[64];
	ssize_t n;
	int fd, err;

	sp_buf_reset(out);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (sp_buf_grow(out, 65536) < 0) {
			close(fd);
			return -ENOMEM;
		}
		n = read(fd, out->data + out->len, out->alloc - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out->len += (size_t)n;
	}
	err = n < 0 ? -errno : 0;
	close(fd);
	if (out->data)
		out->data[out->len] = '\0';
	return err;
}

int
rec_maps_next(const char *text, size_t len, size_t *pos,
	      struct rec_maps_entry *m, uint64_t *bad)
{
	const char *line, *nl;
	size_t n;

	while (*pos < len) {
		line = text + *pos;
		nl = memchr(line, '\n', len - *pos);
		n = nl ? (size_t)(nl - line) + 1 : len - *pos;
		*pos += n;
		if (rec_maps_parse_line(line, n, m) == 0)
			return 1;
		if (bad && !(n == 1 && *line == '\n'))
			(*bad)++;
	}
	return 0;
}
