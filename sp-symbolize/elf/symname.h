/*
 * symname.h: the name a frame shows for an ELF symbol, as perf shows
 * it: without the symbol version ("memcpy@@GLIBC_2.14" is "memcpy") and
 * with GCC's clone suffixes folded into the function (".isra.0",
 * ".constprop.1", ".part.0", ".lto_priv.0", ".cold", ".localalias" and
 * their combinations) and BOLT's split fragments (".cold", ".warm"),
 * then demangled (demangle.h).
 */
#ifndef SP_SYMBOLIZE_ELF_SYMNAME_H
#define SP_SYMBOLIZE_ELF_SYMNAME_H

#include <stdbool.h>
#include <stddef.h>

/* How names are shown. */
struct sym_nameopts {
	bool raw;      /* the symbol table's name, untouched */
	bool demangle; /* C++ and Rust names */
	bool params;   /* C++ parameter lists */
};

/*
 * The length of `name` without its version suffix ("@VER" or "@@VER");
 * a name that starts with '@', and a PLT stub's "NAME@plt", are kept
 * whole.
 */
size_t sym_name_unversioned(const char *name);
/* The length of name[0..len) without its trailing clone suffixes. */
size_t sym_name_unclone(const char *name, size_t len);
/*
 * Returns the malloc'ed name to show for the ELF symbol `name`, or NULL
 * on ENOMEM.  With o->raw it is a copy of `name`.
 */
char *sym_name_show(const char *name, const struct sym_nameopts *o);

#endif
