/* names.c: fallback frame names (names.h). */
#include <inttypes.h>
#include <string.h>

#include "common/names.h"
#include "common/banned.h"

size_t
sp_module_path_undeleted(const char *path, size_t len)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;

	if (len > dl && !memcmp(path + len - dl, deleted, dl))
		return len - dl;
	return len;
}

static bool
starts(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(s, prefix, pl) == 0;
}

static bool
equals(const char *s, size_t n, const char *what)
{
	return n == strlen(what) && memcmp(s, what, n) == 0;
}

bool
sp_module_path_anonymous(const char *path, size_t len)
{
	size_t n = sp_module_path_undeleted(path, len);

	return n == 0 || starts(path, n, "[anon") ||
	       starts(path, n, "//anon") || starts(path, n, "[stack") ||
	       starts(path, n, "/SYSV") || equals(path, n, "[heap]") ||
	       equals(path, n, "/dev/zero") ||
	       equals(path, n, "/anon_hugepage");
}

const char *
sp_module_basename(const char *path, size_t *len)
{
	size_t n = sp_module_path_undeleted(path, strlen(path));
	const char *base = path, *slash;

	if (n && path[0] != '[') {
		slash = memrchr(path, '/', n);
		if (slash)
			base = slash + 1;
	}
	*len = n - (size_t)(base - path);
	return base;
}

int
sp_fallback_name(struct sp_buf *out, enum sp_frame_mode mode,
		 const char *module_path, uint64_t rel_ip, uint64_t abs_ip)
{
	const char *base;
	size_t len;
	int rc;

	if (mode == SP_FRAME_TRUNCATED)
		return sp_buf_adds(out, SP_TRUNCATED_NAME);
	if (mode == SP_FRAME_KERNEL)
		return sp_buf_addf(out, "[kernel]+0x%" PRIx64, abs_ip);
	if (!module_path)
		return sp_buf_addf(out, "<0x%" PRIx64 ">", abs_ip);
	base = sp_module_basename(module_path, &len);
	rc = sp_buf_add(out, base, len);
	if (rc)
		return rc;
	return sp_buf_addf(out, "+0x%" PRIx64, rel_ip);
}
