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
#ifndef SP_RECORD_PYTHON_PYFIND_H
#define SP_RECORD_PYTHON_PYFIND_H

#include <stdint.h>

#include "common/buf.h"

/*
 * What the module files rec_pyfind read said, kept by file identity
 * (device, inode, size, modification time), the last 64 of them: every
 * process of a build runs the same few executables, each scanned for
 * Python's symbols at its first sample and after a new mapping, and
 * cc1's 29,000 dynamic symbols read once a process were a third of the
 * recorder's time.  Owned by whoever finds runtimes (the Python
 * annotator); single-threaded.
 */
struct rec_pyfind_files;

struct rec_pyfind_files *rec_pyfind_files_new(void);
void rec_pyfind_files_free(struct rec_pyfind_files *f);

/* How many module files were read so far (not answered from `f`). */
uint64_t rec_pyfind_files_scans(const struct rec_pyfind_files *f);

struct rec_pyfind_target {
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
 * Finds the CPython runtime of process `pid`, reading module files
 * through `files` (NULL: every time).  Returns 0 with *t set, or
 * a negative errno with the reason in `why` (appended): -ENOENT when the
 * process is not CPython, -ENOTSUP for a version outside 3.8-3.13
 * ("python3.7: not supported", "python3.14: layout unknown") or one that
 * cannot be told, -ESRCH when the process is gone, -EACCES, -EBADMSG for
 * a module that is not a readable ELF file.
 */
int rec_pyfind(struct rec_pyfind_files *files, int32_t pid,
	       struct rec_pyfind_target *t, struct sp_buf *why);

/*
 * The CPython version a module's file name says: 3.minor for names that
 * start with "python3.N" or "libpython3.N" (N digits) after the last
 * slash.  Returns the minor, or -1.
 */
int rec_pyfind_name_minor(const char *path, size_t len);

#endif
