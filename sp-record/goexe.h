/*
 * goexe.h: whether an executable is a Go program, before it runs (issue
 * 28).
 *
 * A Go program switches its threads between stacks (gofuncs.h) that the
 * sample's stack copy cannot hold both of; the kernel's frame-pointer
 * walk of the user stack, taken at the sample, follows Go's frame
 * records across the switch.  sp-record asks for that walk only for Go
 * programs (it costs every other program bytes and kernel time for
 * nothing): for the command it launches and the processes it attaches
 * to, as this module tells.
 */
#ifndef SP_RECORD_GOEXE_H
#define SP_RECORD_GOEXE_H

#include <stdbool.h>

/*
 * Whether the ELF file at `path` is a Go program: it has a .gopclntab,
 * .go.buildinfo or .note.go.buildid section.  False when it cannot be
 * read or is no ELF64 file.
 */
bool rec_goexe_is_go(const char *path);

/*
 * rec_goexe_is_go() of command `cmd` as execvp() finds it: the path when
 * it holds a slash, else the first executable regular file of that name
 * in $PATH (or /usr/local/bin:/usr/bin:/bin without PATH).
 */
bool rec_goexe_command_is_go(const char *cmd);

#endif
