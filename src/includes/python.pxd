# CPython C-API functions Cython's own cpython/*.pxd do not declare.

cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL
