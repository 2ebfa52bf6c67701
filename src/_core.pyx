# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of confluent_binding: the librdkafka handles and the hot paths.

Everything here is re-exported by the pure-Python package ``confluent_binding``.
"""

cimport cython
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.exc cimport PyErr_CheckSignals
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc
from libc.string cimport memcpy, strcmp
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec
from cpython.pythread cimport PyThread_get_thread_ident
from posix.unistd cimport getpid, usleep

from librdkafka cimport *

from collections import deque

from confluent_binding.error import KafkaException

cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL


include "errors.pxi"
include "types.pxi"
include "conf.pxi"
include "handle.pxi"
include "producer.pxi"
include "consumer.pxi"


def libversion():
    """(version string, version int) of the librdkafka this module runs with."""
    return (_cstr(rd_kafka_version_str()), rd_kafka_version())


def _built_with():
    """The RD_KAFKA_VERSION this module was compiled against."""
    return RD_KAFKA_VERSION
