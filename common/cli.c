/*
 * cli.c: option values every tool parses the same way (cli.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/banned.h"

int
sp_cli_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would take blanks, a sign, and "-1" as ULLONG_MAX. */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int
sp_cli_real(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	/* Digits or a point first: no blanks, signs, "inf" or "nan". */
	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int
sp_cli_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMG";
	size_t n = strspn(s, "0123456789");
	const char *u = NULL;
	char digits[32];
	uint64_t v;
	int shift = 0, rc;

	if (s[n] && (s[n + 1] || !(u = strchr(units, s[n]))))
		return -EINVAL;
	if (n == 0 || n >= sizeof(digits))
		return n ? -ERANGE : -EINVAL;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (u)
		shift = 10 * (int)(u - units + 1);
	rc = sp_cli_uint(digits, 0, UINT64_MAX >> shift, &v);
	if (rc)
		return rc;
	*out = v << shift;
	return 0;
}

int
sp_cli_each(const char *s, const char *seps,
	    int (*each)(const char *tok, void *ctx), void *ctx)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int rc = -ENODATA;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, seps, &save); tok;
	     tok = strtok_r(NULL, seps, &save)) {
		rc = each(tok, ctx);
		if (rc)
			break;
	}
	free(copy);
	return rc;
}

int
sp_cli_close_stdout(void)
{
	int rc = 0;

	/* An earlier failed write leaves only ferror() behind: -EIO. */
	errno = 0;
	if (fflush(stdout))
		rc = errno ? -errno : -EIO;
	else if (ferror(stdout))
		rc = -EIO;
	errno = 0;
	if (fclose(stdout) && !rc)
		rc = errno ? -errno : -EIO;
	return rc;
}
