/*
 * sym_reseal.c: what another user could do to a symbol cache file
 * (issue 24 item 8): replace every OLD in it by NEW (same length) and
 * seal it again, the trailer being plain XXH3 of the bytes before it.
 * Usage: sym_reseal FILE OLD NEW.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

int
main(int argc, char *argv[])
{
	static unsigned char buf[1 << 20];
	size_t n, len, i, k;
	XXH64_hash_t h;
	FILE *f;

	if (argc != 4 || strlen(argv[2]) != strlen(argv[3]))
		return 2;
	len = strlen(argv[2]);
	f = fopen(argv[1], "r+b");
	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf), f);
	if (n < 8 + len)
		return 1;
	for (i = 0; i + len <= n - 8; i++)
		if (memcmp(buf + i, argv[2], len) == 0)
			memcpy(buf + i, argv[3], len);
	h = XXH3_64bits(buf, n - 8);
	for (k = 0; k < 8; k++)
		buf[n - 8 + k] = (unsigned char)(h >> (8 * k));
	rewind(f);
	if (fwrite(buf, 1, n, f) != n || fclose(f))
		return 1;
	return 0;
}
