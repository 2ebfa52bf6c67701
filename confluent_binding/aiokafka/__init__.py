"""aiokafka 0.14's API on the binding's asyncio engine: code written for aiokafka runs on
librdkafka with only its import changed (``from confluent_binding.aiokafka import ...``, or
unchanged through ``confluent_binding.install_as_aiokafka()``).

The modules mirror aiokafka's: :mod:`.producer`, :mod:`.consumer`, :mod:`.admin`,
:mod:`.errors` (aiokafka's exceptions; every error of these clients is one of them),
:mod:`.structs`, :mod:`.abc`, :mod:`.partitioner`, :mod:`.helpers`, :mod:`.client`,
:mod:`.util`. The clients take aiokafka's keyword arguments, with aiokafka's defaults, and map
them onto librdkafka properties (``PRODUCER_KEYWORDS``/``CONSUMER_KEYWORDS``); librdkafka
properties without an aiokafka keyword are given as ``extra={...}``. What cannot exist on
librdkafka is listed in the README's "aiokafka API" section.
"""

from ._config import API_VERSION as __version__
from ._config import CONSUMER_KEYWORDS, PRODUCER_KEYWORDS
from .abc import ConsumerRebalanceListener
from .client import AIOKafkaClient
from .consumer import AIOKafkaConsumer
from .errors import ConsumerStoppedError, IllegalOperation
from .producer import AIOKafkaProducer
from .structs import (
    ConsumerRecord,
    OffsetAndMetadata,
    OffsetAndTimestamp,
    RecordMetadata,
    TopicPartition,
)

__all__ = ["AIOKafkaClient", "AIOKafkaConsumer", "AIOKafkaProducer",
           "ConsumerRebalanceListener", "ConsumerRecord", "ConsumerStoppedError",
           "IllegalOperation", "OffsetAndMetadata", "OffsetAndTimestamp", "TopicPartition",
           "RecordMetadata", "CONSUMER_KEYWORDS", "PRODUCER_KEYWORDS", "__version__"]
