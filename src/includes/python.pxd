# CPython C-API functions Cython's own cpython/*.pxd do not declare.

from cpython.object cimport PyObject

cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL

    ctypedef struct PyCodeObject:
        int co_flags
    enum: CO_COROUTINE


# am_send (Python 3.10+): an awaitable's iterator that answers ``await`` in C, without raising
# StopIteration or allocating a generator (asyncio's own future iterator does the same). The
# function returns 0 (return *presult), 1 (yield *presult) or -1 (error set). Before 3.10 the
# slot does not exist and the type's __next__ serves instead.
cdef extern from *:
    """
    #if PY_VERSION_HEX >= 0x030A0000
    typedef PySendResult cb_send_result;
    #else
    typedef int cb_send_result;
    #endif
    static int cb_set_am_send(PyObject *type,
                              cb_send_result (*fn)(PyObject *, PyObject *, PyObject **)) {
    #if PY_VERSION_HEX >= 0x030A0000
        PyTypeObject *t = (PyTypeObject *)type;
        if (t->tp_as_async == NULL || t->tp_as_async->am_await == NULL) {
            PyErr_Format(PyExc_SystemError, "%s has no __await__", t->tp_name);
            return -1;
        }
        t->tp_as_async->am_send = fn;
    #else
        (void)type; (void)fn;
    #endif
        return 0;
    }
    """
    ctypedef int cb_send_result
    ctypedef cb_send_result (*cb_sendfunc)(PyObject *, PyObject *, PyObject **) except -1
    int cb_set_am_send(object type, cb_sendfunc fn) except -1


# A critical section on one client object, for free-threaded CPython (3.13t, Py_GIL_DISABLED):
# what the GIL serialised, a client's calls, the object's own lock serialises there. Like the GIL
# it is let go while the thread waits without an attached thread state (`with nogil:`, a blocked
# lock) and taken back after, so a call re-checks its client's state after every GIL-free wait,
# with or without the GIL. With the GIL it is nothing at all: no lock, no reference taken
# (Cython's own `with cython.critical_section(o)` takes a reference on o even there).
cdef extern from *:
    """
    #ifdef Py_GIL_DISABLED
    typedef PyCriticalSection cb_section;
    #define cb_section_begin(cs, o) PyCriticalSection_Begin((cs), (PyObject *)(o))
    #define cb_section_end(cs) PyCriticalSection_End(cs)
    #else
    typedef char cb_section;
    #define cb_section_begin(cs, o) ((void)(cs), (void)(o))
    #define cb_section_end(cs) ((void)(cs))
    #endif
    """
    ctypedef struct cb_section:
        pass
    void cb_section_begin(cb_section *cs, object o)
    void cb_section_end(cb_section *cs)
