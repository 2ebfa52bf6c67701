# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature.format=clinic
"""The compiled core of confluent_binding: the librdkafka handles and the hot paths.

Everything here is re-exported by the pure-Python package ``confluent_binding``. The classes'
C-level shape is declared in _core.pxd; each concept's implementation is one included file.
"""

cimport cython

from includes.rdkafka cimport RD_KAFKA_VERSION, rd_kafka_version, rd_kafka_version_str

include "errors.pyx"      # KafkaError and the helpers that raise librdkafka's errors
include "conf.pyx"        # configuration: Python dict -> rd_kafka_conf_t
include "types.pyx"       # value types and every C <-> Python conversion
include "handle.pyx"      # _Handle (one rd_kafka_t), the GIL-free call bracket, trampolines
include "producer.pyx"
include "aio_future.pyx"    # the asyncio producer's DeliveryFuture and its compiled produce()
include "consumer.pyx"
include "arrow.pyx"         # columnar consume: messages into Arrow buffers
include "share_consumer.pyx"  # ShareConsumer (one rd_kafka_share_t), KIP-932 share groups
include "admin_types.pyx"  # admin result events -> plain Python data
include "admin.pyx"        # _AdminClientImpl: admin requests, the result queue


def libversion():
    """(version string, version int) of the librdkafka this module runs with."""
    return (_cstr(rd_kafka_version_str()), rd_kafka_version())


def _built_with():
    """The RD_KAFKA_VERSION this module was compiled against."""
    return RD_KAFKA_VERSION
