/*
 * py_cext.c: a CPython extension module, spinext, whose one function
 * burns CPU in native code: t1067 builds it against each interpreter's
 * headers and checks that its frame sits above the Python function that
 * called it, never above another.
 *   cc -shared -fPIC -I$(python -c ...include...) -o spinext.so py_cext.c
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* burn(n): n rounds of arithmetic the compiler cannot drop. */
static PyObject *
spinext_burn(PyObject *self, PyObject *arg)
{
	volatile unsigned long x = 0;
	long i, n = PyLong_AsLong(arg);

	(void)self;
	if (n < 0 && PyErr_Occurred())
		return NULL;
	for (i = 0; i < n; i++)
		x = x * 31 + (unsigned long)i;
	return PyLong_FromUnsignedLong(x);
}

static PyMethodDef methods[] = {
	{ "burn", spinext_burn, METH_O, "burn CPU in native code" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	"spinext",
	NULL,
	-1,
	methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC
PyInit_spinext(void)
{
	return PyModule_Create(&module);
}
