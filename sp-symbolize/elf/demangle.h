/*
 * demangle.h: C++ and Rust symbol demangling through libiberty.
 */
#ifndef SP_SYMBOLIZE_ELF_DEMANGLE_H
#define SP_SYMBOLIZE_ELF_DEMANGLE_H

#include <stdbool.h>

/*
 * Returns a malloc'ed demangled form of `name` (C++ without return type,
 * with its parameter list when `params` and libiberty can print it; Rust
 * legacy and v0; a "@plt" suffix is kept), or NULL when `name` is not
 * mangled or demangling failed.  The caller frees the result.
 */
char *sym_demangle(const char *name, bool params);

#endif
