/* write_svg_color.c: flame graph colors (write_svg_color.h). */
#include <string.h>

#include "common/htab.h"
#include "sp-fold/write/write_svg_color.h"
#include "common/banned.h"

struct palette {
	const char *name;
	int base[3], span[3];
};

/* A base color and how far each component may move with the name. */
static const struct palette palettes[] = {
	{ "hot", { 205, 0, 0 }, { 50, 230, 55 } },
	{ "mem", { 0, 190, 0 }, { 0, 50, 210 } },
	{ "io", { 80, 80, 190 }, { 60, 60, 55 } },
	{ "red", { 200, 50, 50 }, { 55, 80, 80 } },
	{ "green", { 50, 200, 50 }, { 60, 55, 60 } },
	{ "blue", { 80, 80, 205 }, { 60, 60, 50 } },
	{ "aqua", { 50, 165, 165 }, { 60, 55, 55 } },
	{ "yellow", { 175, 175, 50 }, { 55, 55, 20 } },
	{ "purple", { 190, 80, 190 }, { 65, 60, 65 } },
	{ "orange", { 190, 90, 0 }, { 65, 65, 0 } },
};

/* Palettes that pick one of the above by what the name looks like. */
static const char *const by_kind[] = { "java", "js", "perl", "wakeup",
				       "chain" };

static const struct palette *
find_palette(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(palettes) / sizeof(palettes[0]); i++)
		if (!strcmp(palettes[i].name, name))
			return &palettes[i];
	return NULL;
}

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool
has(const char *s, size_t n, const char *what)
{
	return memmem(s, n, what, strlen(what)) != NULL;
}

static bool
java_package(const char *s, size_t n)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/",
					    "org/",  "com/",   "io/",  "sun/" };
	size_t i;

	if (n && s[0] == 'L')
		s++, n--;
	for (i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
		if (n >= strlen(pkgs[i]) &&
		    !memcmp(s, pkgs[i], strlen(pkgs[i])))
			return true;
	return false;
}

/* The plain palette a language palette gives this name, as flamegraph.pl
 * decides it: annotations, package paths and separators. */
static const char *
kind_of(const char *pal, const char *s, size_t n)
{
	if (!strcmp(pal, "wakeup"))
		return "aqua";
	if (!strcmp(pal, "chain"))
		return has(s, n, "_[w]") ? "aqua" : "blue";
	if (!strcmp(pal, "java")) {
		if (ends_with(s, n, "_[j]") || java_package(s, n) ||
		    has(s, n, ":::"))
			return "green";
		if (ends_with(s, n, "_[i]"))
			return "aqua";
		if (has(s, n, "::"))
			return "yellow";
		return ends_with(s, n, "_[k]") ? "orange" : "red";
	}
	if (!strcmp(pal, "perl")) {
		if (has(s, n, "::"))
			return "yellow";
		if (has(s, n, "Perl") || has(s, n, ".pl"))
			return "green";
		return ends_with(s, n, "_[k]") ? "orange" : "red";
	}
	/* js */
	if (ends_with(s, n, "_[j]"))
		return memchr(s, '/', n) ? "green" : "aqua";
	if (has(s, n, "::"))
		return "yellow";
	if (memchr(s, '/', n) && has(s, n, ".js"))
		return "green";
	if (memchr(s, ':', n))
		return "aqua";
	if (n == 1 && s[0] == ' ')
		return "green";
	return has(s, n, "_[k]") ? "orange" : "red";
}

void
fold_svg_color(const char *palette, const char *name, size_t len, int rgb[3])
{
	const char *pal = palette ? palette : "hot";
	const struct palette *p = find_palette(pal);
	uint64_t h = sp_hash(name, len);
	int i;

	if (!p)
		p = find_palette(kind_of(pal, name, len));
	/* The default also tells annotated kernel, JIT and inlined frames. */
	if (!strcmp(pal, "hot")) {
		if (ends_with(name, len, "_[k]"))
			p = find_palette("orange");
		else if (ends_with(name, len, "_[j]"))
			p = find_palette("green");
		else if (ends_with(name, len, "_[i]"))
			p = find_palette("aqua");
	}
	if (!p)
		p = &palettes[0];
	for (i = 0; i < 3; i++)
		rgb[i] =
		    p->base[i] +
		    (int)(p->span[i] * (double)(h >> (8 * i) & 0xff) / 255);
}

void
fold_svg_color_delta(bool negate, int64_t delta, uint64_t max, int rgb[3])
{
	double v = (double)(negate ? -delta : delta), m = (double)max;

	rgb[0] = rgb[1] = rgb[2] = 255;
	if (v > 0)
		rgb[1] = rgb[2] = (int)(210 * (m - v) / m);
	else if (v < 0)
		rgb[0] = rgb[1] = (int)(210 * (m + v) / m);
}

bool
fold_svg_palette_ok(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(by_kind) / sizeof(by_kind[0]); i++)
		if (!strcmp(by_kind[i], name))
			return true;
	return find_palette(name) != NULL;
}
