/*
 * pyfind.h: whether a process runs CPython, which version, and where its
 * runtime state lies.
 *
 * The interpreter is a mapped libpython3.X.so or, when none is mapped,
 * the executable itself (a static build such as Debian's python3).  The
 * module's ELF symbols (.dynsym, then .symtab) give _PyRuntime,
 * PyCode_Type, PyFrame_Type and the evaluator's code, moved by the
 * module's load bias; the
 * version is the Py_Version constant (3.11+) read from the file, else the
 * module's name (libpython3.9.so, python3.10).
 */
#ifndef SP_RECORD_PYFIND_H
#define SP_RECORD_PYFIND_H

#include <stdint.h>

#include "common/buf.h"

struct rec_pytarget {
	unsigned minor;      /* CPython 3.minor, 8..13 */
	uint64_t runtime;    /* &_PyRuntime in the target */
	uint64_t code_type;  /* &PyCode_Type */
	uint64_t frame_type; /* &PyFrame_Type, 0 if absent */
	/*
	 * _PyEval_EvalFrameDefault's code, [eval_start, eval_end): the
	 * native frames Python frames belong to; 0, 0 if not found.  A
	 * compiler's split-off ".cold" part is not included.
	 */
	uint64_t eval_start, eval_end;
};

/*
 * Finds the CPython runtime of process `pid`.  Returns 0 with *t set, or
 * a negative errno with the reason in `why` (appended): -ENOENT when the
 * process is not CPython, -ENOTSUP for a version outside 3.8-3.13
 * ("python3.7: not supported", "python3.14: layout unknown") or one that
 * cannot be told, -ESRCH when the process is gone, -EACCES, -EBADMSG for
 * a module that is not a readable ELF file.
 */
int rec_pyfind(int32_t pid, struct rec_pytarget *t, struct sp_buf *why);

/*
 * How many module files rec_pyfind has read so far: a file is read once
 * while its identity (device, inode, size, modification time) stays in
 * the recorder's memo of the last 64, whichever process maps it.
 */
uint64_t rec_pyfind_scans(void);

/*
 * The CPython version a module's file name says: 3.minor for names that
 * start with "python3.N" or "libpython3.N" (N digits) after the last
 * slash.  Returns the minor, or -1.
 */
int rec_pyfind_name_minor(const char *path, size_t len);

#endif
