"""``aiokafka.client``: the connection-level client aiokafka's producer, consumer and admin
client are built on. Here librdkafka owns the connections, so :class:`AIOKafkaClient` is the
view of them that third-party code reads (``producer.client``, ``consumer._client``): the
bootstrap servers, the client id, and the partitions of a topic."""

import asyncio
import time
from enum import IntEnum
from typing import Any, Dict

from .errors import KafkaTimeoutError, UnknownTopicOrPartitionError

__all__ = ["AIOKafkaClient"]


class ConnectionGroup(IntEnum):
    """aiokafka's connection kinds (librdkafka keeps its own)."""
    DEFAULT = 0
    COORDINATION = 1


class CoordinationType(IntEnum):
    """The coordinator kinds: a consumer group's, a transactional id's."""
    GROUP = 0
    TRANSACTION = 1


class AIOKafkaClient:
    """The client of one producer, consumer or admin client. ``_bootstrap_servers`` and
    ``_client_id`` are as given to it; ``hosts`` the (host, port, family) pairs of the
    bootstrap list; ``cluster`` is not offered (librdkafka keeps the metadata)."""

    def __init__(self, *, bootstrap_servers: Any = "localhost", client_id: Any = "aiokafka",
                 metadata_max_age_ms: Any = 300000, request_timeout_ms: Any = 40000,
                 retry_backoff_ms: Any = 100, handle: Any = None, **_ignored: Any) -> None:
        self._bootstrap_servers = bootstrap_servers
        self._client_id = client_id
        self._metadata_max_age_ms = metadata_max_age_ms
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._handle = handle          # () -> the started librdkafka client, or None
        self._partitions: Dict[str, Any] = {}          # topic -> (when, all sorted, available)

    @property
    def hosts(self) -> Any:
        """The bootstrap servers as (host, port, socket family) tuples."""
        servers = self._bootstrap_servers
        if isinstance(servers, str):
            servers = servers.split(",")
        out = []
        for server in servers:
            host, _, port = server.strip().rpartition(":")
            if not host:
                host, port = port, "9092"
            out.append((host.strip("[]"), int(port), 0))
        return out

    async def _wait_on_metadata(self, topic: Any) -> Any:
        """Fetch ``topic``'s partitions (cached for ``metadata_max_age_ms``); returns their ids.
        A topic the broker does not have yet (or is still creating: the metadata request
        creates it where the broker allows it) is asked for again every ``retry_backoff_ms``;
        UnknownTopicOrPartitionError when it still has no partitions after
        ``request_timeout_ms``."""
        deadline = time.monotonic() + self._request_timeout_ms / 1e3
        while True:
            try:
                return set(self._topic_partitions(topic, await self._metadata(topic))[0])
            except UnknownTopicOrPartitionError:
                if time.monotonic() + self._retry_backoff_ms / 1e3 > deadline:
                    raise
            # the broker has no notification of a topic's creation: ask again
            await asyncio.sleep(self._retry_backoff_ms / 1e3)

    async def _metadata(self, topic: Any) -> Any:
        cached = self._partitions.get(topic)
        if cached is not None and time.monotonic() - cached[0] < self._metadata_max_age_ms / 1e3:
            return None
        handle = self._handle() if self._handle is not None else None
        if handle is None:
            raise KafkaTimeoutError("the client is not started")
        return await handle.list_topics(topic, 10)

    def _topic_partitions(self, topic: Any, metadata: Any) -> Any:
        """(all partition ids sorted, the ones with a leader) of ``topic``, from ``metadata``
        (None: the cache)."""
        if metadata is not None:
            t = metadata.topics.get(topic)
            if t is None or t.error is not None:
                self._partitions.pop(topic, None)
                raise UnknownTopicOrPartitionError(topic)
            parts = sorted(t.partitions)
            self._partitions[topic] = (time.monotonic(), parts,
                                       [p for p in parts if t.partitions[p].leader >= 0])
        _, parts, available = self._partitions[topic]
        return parts, available

    async def bootstrap(self) -> Any:
        """Nothing to do: librdkafka connects on its own when the client starts."""

    async def close(self) -> Any:
        """Nothing to do: the producer, consumer or admin client closes its connections."""
