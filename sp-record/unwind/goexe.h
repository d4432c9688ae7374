/*
 * goexe.h: whether an executable is a Go program, before it runs (issue
 * 28).
 *
 * A Go program switches its threads between stacks (gofuncs.h) that the
 * sample's stack copy cannot hold both of; the kernel's frame-pointer
 * walk of the user stack, taken at the sample, follows Go's frame
 * records across the switch.  sp-record asks for that walk wherever a
 * Go program may run: a launched command (which may exec one), -a, -f,
 * and a process attached to that this module finds is one.  Elsewhere it
 * would cost bytes for nothing; on a 40-file C build under -f it cost no
 * measurable CPU (recorder 48.4 against 49.3 us a sample, the build's
 * total the same within 1%).
 */
#ifndef SP_RECORD_UNWIND_GOEXE_H
#define SP_RECORD_UNWIND_GOEXE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether the ELF file at `path` is a Go program: it has a .gopclntab,
 * .go.buildinfo or .note.go.buildid section.  False when it cannot be
 * read or is no ELF64 file.
 */
bool rec_goexe_is_go(const char *path);

/* rec_goexe_is_go() of process `pid`'s executable (/proc/PID/exe). */
bool rec_goexe_pid_is_go(int32_t pid);

#endif
