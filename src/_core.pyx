# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature.format=clinic
"""The compiled core of confluent_binding: the librdkafka handles and the hot paths.

Everything here is re-exported by the pure-Python package ``confluent_binding``. The classes'
C-level shape is declared in _core.pxd; each concept's implementation is one included file.
"""

cimport cython

# The C library names the included files use, cimported once for the one module they make up
# (each file cimports the librdkafka API it uses).
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer  # no-cython-lint
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact  # no-cython-lint
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_GET_SIZE  # no-cython-lint
from cpython.exc cimport PyErr_CheckSignals  # no-cython-lint
from cpython.mem cimport PyMem_Free, PyMem_Malloc  # no-cython-lint
from cpython.number cimport PyNumber_Index  # no-cython-lint
from cpython.pycapsule cimport PyCapsule_Destructor, PyCapsule_GetPointer  # no-cython-lint
from cpython.pycapsule cimport PyCapsule_New  # no-cython-lint
from cpython.pythread cimport PyThread_acquire_lock, PyThread_allocate_lock  # no-cython-lint
from cpython.pythread cimport PyThread_get_thread_ident, PyThread_release_lock  # no-cython-lint
from cpython.pythread cimport PyThread_type_lock, WAIT_LOCK  # no-cython-lint
from cpython.ref cimport Py_DECREF, Py_INCREF, Py_REFCNT  # no-cython-lint
from libc.stdint cimport int16_t, int32_t, int64_t, intptr_t, uint8_t  # no-cython-lint
from libc.stdint cimport uint32_t, uint64_t  # no-cython-lint
from libc.stdlib cimport calloc, free, malloc, realloc  # no-cython-lint
from libc.string cimport memcmp, memcpy, memmove, memset, strcmp, strlen  # no-cython-lint
from posix.time cimport clock_gettime, CLOCK_MONOTONIC, timespec  # no-cython-lint
from posix.unistd cimport getpid, usleep  # no-cython-lint

from includes.python cimport cb_section, cb_section_begin, cb_section_end  # no-cython-lint
from includes.rdkafka cimport RD_KAFKA_VERSION, rd_kafka_version, rd_kafka_version_str
from includes.rdkafka cimport CB_READ_AHEAD, rd_kafka_conf_get  # no-cython-lint

include "errors.pyx"      # KafkaError and the helpers that raise librdkafka's errors
include "conf.pyx"        # configuration: Python dict -> rd_kafka_conf_t
include "types.pyx"       # value types and every C <-> Python conversion
include "handle.pyx"      # _Handle (one rd_kafka_t), the GIL-free call bracket, trampolines
include "custody.pyx"     # _Custody: the messages a Consumer took and has not handed out yet
include "producer.pyx"
include "aio_future.pyx"    # the asyncio producer's DeliveryFuture and its compiled produce()
include "consumer.pyx"
include "aio_records.pyx"   # aiokafka's ConsumerRecords made from consumed Messages
include "arrow_buffers.pyx"  # the memory of Arrow batches: buffers, their export, a pool
include "arrow.pyx"         # columnar consume: messages into Arrow batches, their schema
include "arrow_sink.pyx"    # the Arrow sink: rows of Arrow arrays produced in one C loop
include "avro_encode.pyx"   # Avro binary encoding of one record (the Avro serializer)
include "avro_decode.pyx"   # framed Avro records into Arrow columns (the Spark source)
include "share_consumer.pyx"  # ShareConsumer (one rd_kafka_share_t), KIP-932 share groups
include "admin_types.pyx"  # admin result events -> plain Python data
include "admin.pyx"        # _AdminClientImpl: admin requests, the result queue


def libversion():
    """(version string, version int) of the librdkafka this module runs with."""
    return (_cstr(rd_kafka_version_str()), rd_kafka_version())


cdef extern from *:
    """
    #ifdef Py_GIL_DISABLED
    #define CB_FREE_THREADED 1
    #else
    #define CB_FREE_THREADED 0
    #endif
    """
    enum: CB_FREE_THREADED


def build_info():
    """How this build of the package was made, as a dict (an extension: confluent-kafka has no
    such call):

    - ``librdkafka``: the version it runs with, as :func:`libversion` gives it;
    - ``librdkafka_api``: ``"internal"`` when it is linked to the pinned static librdkafka whose
      private structures its fast paths read, ``"public"`` when built against another
      librdkafka (a system one, or ``CB_PUBLIC_API_ONLY=1``) through its public API alone;
    - ``read_ahead``: whether ``Consumer.poll()`` takes messages ahead in batches (internal API
      only; see the performance guide);
    - ``free_threaded``: built for a free-threaded CPython (3.13t and later);
    - ``features``: librdkafka's ``builtin.features``, what it was built with (compression
      codecs, ``ssl``, the SASL mechanisms, ...)."""
    cdef rd_kafka_conf_t *conf = rd_kafka_conf_new()
    cdef char buf[1024]
    cdef size_t size = sizeof(buf)
    try:
        if rd_kafka_conf_get(conf, b"builtin.features", buf, &size) != RD_KAFKA_CONF_OK:
            size = 1
            buf[0] = 0
    finally:
        rd_kafka_conf_destroy(conf)
    return {"librdkafka": _cstr(rd_kafka_version_str()),
            "librdkafka_api": "internal" if CB_READ_AHEAD else "public",
            "read_ahead": bool(CB_READ_AHEAD),
            "free_threaded": bool(CB_FREE_THREADED),
            "features": [f for f in buf.decode().split(",") if f]}


def _built_with():
    """The RD_KAFKA_VERSION this module was compiled against."""
    return RD_KAFKA_VERSION
