"""Topic helpers over the binding's own AdminClient, shared by every kind of cluster the harness
offers, and :class:`ExternalKafkaCluster` (a cluster someone else runs)."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, Dict, Mapping, Optional, Sequence

from .._keywords import properties

__all__ = ["ExternalKafkaCluster", "KafkaClusterError"]


class KafkaClusterError(RuntimeError):
    """The broker could not be formatted, started or reached."""


def wait_for(deadline: float, what: str, condition: Callable[[], Any]) -> None:
    """Poll ``condition`` until true; :class:`KafkaClusterError` at ``deadline``."""
    while not condition():
        if time.monotonic() >= deadline:
            raise KafkaClusterError("timed out waiting for " + what)
        time.sleep(0.05)


def _leaders_ready(admin: Any, name: str, partitions: Optional[int]) -> bool:
    md = admin.list_topics(name, timeout=10).topics.get(name)
    return (md is not None and md.error is None and len(md.partitions) > 0
            and (partitions is None or len(md.partitions) == partitions)
            and all(p.leader >= 0 and p.error is None for p in md.partitions.values()))


class TopicAdmin:
    """Topic helpers over :meth:`client_config`'s listener."""

    def client_config(self, _config: Optional[Mapping[str, Any]] = None, /,
                      **extra: Any) -> Dict[str, Any]:
        raise NotImplementedError

    def admin_client(self, **extra: Any) -> Any:
        """An :class:`~confluent_binding.admin.AdminClient` for :meth:`client_config`'s
        listener (close it, or use it in a ``with`` block)."""
        from ..admin import AdminClient

        return AdminClient(self.client_config(**extra))

    def _metadata_views(self) -> Sequence["TopicAdmin"]:
        """Whose metadata must show a topic before :meth:`create_topic` returns (and no longer
        show it before :meth:`delete_topic` returns): in a cluster every broker learns of topics
        from the controller in its own time, and a client may ask any of them."""
        return (self,)

    @contextlib.contextmanager
    def _view_admins(self, first: Any) -> Any:
        with contextlib.ExitStack() as stack:
            yield [first] + [stack.enter_context(v.admin_client())
                             for v in self._metadata_views() if v is not self]

    def metadata(self, topics: Optional[Sequence[str]] = None, timeout: float = 10) -> Any:
        """:class:`~confluent_binding.admin.ClusterMetadata` of the whole cluster, or of the one
        topic in ``topics``."""
        if topics is not None and len(topics) > 1:
            raise ValueError("metadata() takes at most one topic")
        with self.admin_client() as a:
            return a.list_topics(topics[0] if topics else None, timeout=timeout)

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        config: Optional[Mapping[str, str]] = None,
        timeout: float = 30,
        replication_factor: int = -1,
        exist_ok: bool = False,
    ) -> str:
        """Create ``name`` and wait until metadata shows every partition with a
        leader.  Returns ``name``."""
        from ..admin import KafkaError, KafkaException, NewTopic

        deadline = time.monotonic() + timeout
        with self.admin_client() as a, self._view_admins(a) as views:
            fut = a.create_topics(
                [NewTopic(name, partitions, replication_factor, config=dict(config or {}))],
                request_timeout=timeout, operation_timeout=timeout)[name]
            expected: Optional[int] = partitions
            try:
                fut.result(timeout)
            except KafkaException as e:
                if not (exist_ok and e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS):
                    raise
                expected = None  # it was there before: however many partitions it has
            wait_for(deadline, "topic %r to have its partitions' leaders" % name,
                     lambda: all(_leaders_ready(v, name, expected) for v in views))
        return name

    def delete_topic(self, name: str, timeout: float = 30, missing_ok: bool = True) -> None:
        """Delete ``name`` and wait until metadata no longer lists it."""
        from ..admin import KafkaError, KafkaException

        deadline = time.monotonic() + timeout
        with self.admin_client() as a, self._view_admins(a) as views:
            try:
                a.delete_topics([name], request_timeout=timeout,
                                operation_timeout=timeout)[name].result(timeout)
            except KafkaException as e:
                if not (missing_ok and e.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
                    raise

            def gone() -> bool:
                return all(name not in v.list_topics(
                    timeout=max(deadline - time.monotonic(), 1)).topics for v in views)
            wait_for(deadline, "topic %r to disappear" % name, gone)

    def topic_partitions(self, name: str) -> Optional[int]:
        """Partition count of ``name``, or ``None`` if the topic does not exist."""
        with self.admin_client() as a:
            md = a.list_topics(timeout=10).topics.get(name)
        return None if md is None or md.error is not None else len(md.partitions)


class ExternalKafkaCluster(TopicAdmin):
    """An already running cluster (e.g. ``KAFKA_BOOTSTRAP_SERVERS``), same API
    as :class:`~confluent_binding.testing.KafkaCluster` for what tests need."""

    def __init__(self, bootstrap_servers: str, config: Optional[Mapping[str, Any]] = None):
        self.bootstrap_servers = bootstrap_servers
        self._config = dict(config or {})

    def client_config(self, _config: Optional[Mapping[str, Any]] = None, /,
                      **extra: Any) -> Dict[str, Any]:
        """A client configuration for the cluster: ``bootstrap.servers``, the cluster's own
        configuration (security settings given at construction), then ``_config`` and ``extra``
        (keyword names with ``_`` for ``.``: ``group_id="g"``), later ones winning.
        """
        conf: Dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        conf.update(self._config)
        conf.update(_config or {})
        conf.update(properties(extra))
        return conf

    def wait_ready(self, timeout: float = 30) -> None:
        """Wait until the cluster answers a metadata request with at least one broker.

        Raises:
            KafkaClusterError: not reachable within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.metadata(timeout=5).brokers:
                    return
                last = "no brokers in the metadata"
            except Exception as e:
                last = str(e)
            if time.monotonic() >= deadline:
                raise KafkaClusterError(
                    "Kafka at %s not reachable: %s" % (self.bootstrap_servers, last))
            time.sleep(0.2)

    def __repr__(self) -> str:
        return "ExternalKafkaCluster(%r)" % self.bootstrap_servers
