"""``aiokafka.admin.client``: :class:`AIOKafkaAdminClient` over this library's AdminClient.

aiokafka's admin calls return the Kafka protocol's response objects; librdkafka does not
expose those, so the calls that return a response here return a :class:`Response` with the
same field names (``topic_errors``, ``topic_error_codes``, ``resources``, ``groups``) holding
the same tuples; the calls aiokafka documents with plain results (lists, dicts) return those.
"""

import asyncio
import types
import warnings
from typing import Any, Dict, List

from ... import TopicPartition as _TP
from ...admin import AdminClient, ConsumerGroupTopicPartitions
from ...admin import ConfigResource as _ConfigResource
from ...admin import NewPartitions as _NewPartitions
from ...admin import NewTopic as _NewTopic
from ...error import KafkaException
from .. import _config
from .._common import translated
from ..client import AIOKafkaClient
from ..errors import IllegalStateError, for_code, from_kafka_error
from ..structs import OffsetAndMetadata, TopicPartition
from .config_resource import ConfigResourceType

__all__ = ["AIOKafkaAdminClient"]


# the names of the tuples' fields, for Response.to_object()
_FIELDS = {
    "topic_errors": ("topic", "error_code", "error_message"),
    "topic_error_codes": ("topic", "error_code"),
    "resources": ("error_code", "error_message", "resource_type", "resource_name",
                  "config_entries"),
    "groups": ("error_code", "group", "state", "protocol_type", "protocol", "members"),
}


class Response(types.SimpleNamespace):
    """A Kafka response's fields, as attributes (lists of tuples, as aiokafka's responses
    hold them); ``to_object()`` gives them as dicts keyed by the protocol's field names."""

    def to_object(self) -> Dict[str, Any]:
        """{field: [dict per tuple]}."""
        return {name: [dict(zip(_FIELDS[name], row)) for row in rows] if name in _FIELDS
                else rows for name, rows in vars(self).items()}


def _code(exc: Any) -> Any:
    if exc is None:
        return 0, None
    if isinstance(exc, KafkaException):
        err = exc.args[0]
        return err.code(), err.str()
    return -1, str(exc)


async def _settled(futmap: Any) -> Any:
    """{key: (result or None, exception or None)} once every future of ``futmap`` is done."""
    keys = list(futmap)
    done = await asyncio.gather(*(asyncio.wrap_future(futmap[k]) for k in keys),
                                return_exceptions=True)
    return {k: (None, r) if isinstance(r, BaseException) else (r, None)
            for k, r in zip(keys, done)}


def _raise_first(settled: Any) -> Any:
    for _, exc in settled.values():
        if isinstance(exc, KafkaException):
            raise from_kafka_error(exc) from exc
        if exc is not None:
            raise exc


class AIOKafkaAdminClient:
    """aiokafka's admin client: topics, partitions, configs, consumer groups and their
    offsets, record deletion, cluster metadata. Keywords as aiokafka's (mapped to librdkafka
    properties; ``extra={...}`` for others). The calls run on librdkafka's admin API; the
    loop is not blocked (results are awaited as futures)."""

    def __init__(self, *, bootstrap_servers: Any = "localhost", extra: Any = None,
                 **kwargs: Any) -> None:
        self._conf = _config.build(_config.ADMIN_KEYWORDS, _config.ADMIN_DEFAULTS,
                                   bootstrap_servers, kwargs, extra)
        self._request_timeout_ms = int(kwargs.get("request_timeout_ms") or 40000)
        self._admin: Any = None
        self._client = AIOKafkaClient(bootstrap_servers=bootstrap_servers,
                                      client_id=self._conf["client.id"])

    async def start(self) -> Any:
        """Create the librdkafka admin client."""
        if self._admin is None:
            with translated():
                self._admin = AdminClient(self._conf)

    async def close(self) -> Any:
        """Close the admin client."""
        if self._admin is not None:
            admin, self._admin = self._admin, None
            await asyncio.get_running_loop().run_in_executor(None, admin.close)

    def _a(self) -> Any:
        if self._admin is None:
            raise IllegalStateError("The admin client is not started: await start() first")
        # librdkafka's log lines wait on the client's main queue: logged at each call
        self._admin.poll(0)
        return self._admin

    def _timeout(self, timeout_ms: Any) -> Any:
        return (timeout_ms or self._request_timeout_ms) / 1000.0

    async def _metadata(self, topic: Any = None) -> Any:
        admin = self._a()
        with translated():
            return await asyncio.get_running_loop().run_in_executor(
                None, admin.list_topics, topic, self._request_timeout_ms / 1000.0)

    async def _until_metadata_shows(self, counts: Any, timeout_ms: Any) -> Any:
        """Wait (up to the request timeout) until the cluster's metadata shows each topic of
        ``counts`` ({topic: partition count}): a broker learns of a created topic or partition
        a moment after the controller made it, and aiokafka's callers read it at once."""
        deadline = asyncio.get_running_loop().time() + self._timeout(timeout_ms)
        pause = 0.02
        while counts:
            md = await self._metadata()
            counts = {t: n for t, n in counts.items()
                      if t not in md.topics or md.topics[t].error is not None
                      or len(md.topics[t].partitions) < n}
            if not counts or asyncio.get_running_loop().time() > deadline:
                return
            await asyncio.sleep(pause)     # the metadata has no change notification to await
            pause = min(pause * 2, 0.5)

    # -- topics --

    async def create_topics(self, new_topics: Any, timeout_ms: Any = None,
                            validate_only: Any = False) -> Any:
        """Create ``new_topics`` (:class:`NewTopic`); a Response whose ``topic_errors`` are
        (topic, error code, message) tuples, as aiokafka's (errors are reported, not
        raised)."""
        specs = []
        for t in new_topics:
            kw: Dict[str, Any] = {"config": {k: str(v) for k, v in t.topic_configs.items()}}
            if t.replica_assignments:
                kw["replica_assignment"] = [t.replica_assignments[p]
                                            for p in sorted(t.replica_assignments)]
                specs.append(_NewTopic(t.name, **kw))
            else:
                specs.append(_NewTopic(t.name, t.num_partitions, t.replication_factor, **kw))
        with translated():
            futmap = self._a().create_topics(specs, operation_timeout=self._timeout(timeout_ms),
                                             validate_only=validate_only)
        settled = await _settled(futmap)
        if not validate_only:
            await self._until_metadata_shows(
                {t.name: max(t.num_partitions, len(t.replica_assignments))
                 for t in new_topics if settled[t.name][1] is None}, timeout_ms)
        return Response(topic_errors=[(t,) + _code(exc) for t, (_, exc) in settled.items()])

    async def delete_topics(self, topics: Any, timeout_ms: Any = None) -> Any:
        """Delete ``topics``; a Response whose ``topic_error_codes`` are (topic, error code)
        tuples."""
        with translated():
            futmap = self._a().delete_topics(list(topics),
                                             operation_timeout=self._timeout(timeout_ms))
        settled = await _settled(futmap)
        return Response(topic_error_codes=[(t, _code(exc)[0])
                                           for t, (_, exc) in settled.items()])

    async def create_partitions(self, topic_partitions: Any, timeout_ms: Any = None,
                                validate_only: Any = False) -> Any:
        """Raise partition counts ({topic: :class:`NewPartitions`}); raises the error class of
        the first topic that failed, else returns a Response with ``topic_errors``."""
        specs = [_NewPartitions(topic, p.total_count, replica_assignment=p.new_assignments)
                 for topic, p in topic_partitions.items()]
        with translated():
            futmap = self._a().create_partitions(
                specs, operation_timeout=self._timeout(timeout_ms), validate_only=validate_only)
        settled = await _settled(futmap)
        for topic, (_, exc) in settled.items():
            code, message = _code(exc)
            if code:
                raise for_code(code)("Could not create partitions for %s: %s"
                                     % (topic, message))
        if not validate_only:
            await self._until_metadata_shows(
                {t: p.total_count for t, p in topic_partitions.items()}, timeout_ms)
        return Response(topic_errors=[(t, 0, None) for t in settled])

    async def list_topics(self) -> Any:
        """The cluster's topic names (a list)."""
        return list((await self._metadata()).topics)

    async def describe_topics(self, topics: Any = None) -> Any:
        """The metadata of ``topics`` (all when None): a list of dicts with ``error_code``,
        ``topic``, ``is_internal`` and ``partitions`` (dicts with ``error_code``,
        ``partition``, ``leader``, ``replicas``, ``isr``)."""
        md = await self._metadata()
        out = []
        for name in (topics if topics is not None else list(md.topics)):
            t = md.topics.get(name)
            if t is None:
                out.append({"error_code": 3, "topic": name, "is_internal": False,
                            "partitions": []})
                continue
            out.append({
                "error_code": t.error.code() if t.error is not None else 0,
                "topic": name, "is_internal": name.startswith("__"),
                "partitions": [
                    {"error_code": p.error.code() if p.error is not None else 0,
                     "partition": p.id, "leader": p.leader, "replicas": list(p.replicas),
                     "isr": list(p.isrs)}
                    for _, p in sorted(t.partitions.items())]})
        return out

    async def describe_cluster(self) -> Any:
        """A dict: ``cluster_id``, ``controller_id``, ``brokers`` (dicts with ``node_id``,
        ``host``, ``port``, ``rack``)."""
        with translated():
            result = await asyncio.wrap_future(self._a().describe_cluster())
        return {"cluster_id": result.cluster_id,
                "controller_id": result.controller.id if result.controller else -1,
                "brokers": [{"node_id": n.id, "host": n.host, "port": n.port, "rack": n.rack}
                            for n in result.nodes]}

    # -- configs --

    @staticmethod
    def _resource(res: Any) -> Any:
        kind = "broker" if res.resource_type == ConfigResourceType.BROKER else "topic"
        return _ConfigResource(kind, str(res.name))

    async def describe_configs(self, config_resources: Any, include_synonyms: Any = False) -> Any:
        """The configs of ``config_resources``: a list of one Response whose ``resources``
        are (error code, message, resource type, name, [(name, value, read_only, source,
        is_sensitive, synonyms)]) tuples; a resource's ``configs`` names filter the entries."""
        resources = [self._resource(r) for r in config_resources]
        with translated():
            futmap = self._a().describe_configs(resources)
        settled = await _settled(futmap)
        out = []
        for asked, res in zip(config_resources, resources):
            entries, exc = settled[res]
            code, message = _code(exc)
            wanted = asked.configs
            rows = [(e.name, e.value, e.is_read_only, int(e.source), e.is_sensitive,
                     [(s.name, s.value, int(s.source)) for s in (e.synonyms or {}).values()]
                     if include_synonyms else [])
                    for e in (entries or {}).values()
                    if wanted is None or e.name in wanted]
            out.append((code, message, int(asked.resource_type), asked.name, rows))
        return [Response(resources=out)]

    async def alter_configs(self, config_resources: Any) -> Any:
        """Set the ``configs`` of ``config_resources`` (entries not given return to their
        defaults, as Kafka's AlterConfigs does): a list of one Response whose ``resources`` are
        (error code, message, resource type, name) tuples."""
        resources = []
        for r in config_resources:
            res = self._resource(r)
            for name, value in (r.configs or {}).items():
                res.set_config(name, str(value))
            resources.append(res)
        # confluent-kafka deprecates its alter_configs (for incremental_alter_configs), with
        # a DeprecationWarning; aiokafka's alter_configs is not deprecated
        with translated(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            futmap = self._a().alter_configs(resources)
        settled = await _settled(futmap)
        return [Response(resources=[
            (*_code(settled[res][1]), int(asked.resource_type), asked.name)
            for asked, res in zip(config_resources, resources)])]

    # -- consumer groups --

    async def list_consumer_groups(self, broker_ids: Any = None) -> Any:
        """The consumer groups: a list of (group id, protocol type) tuples."""
        with translated():
            result = await asyncio.wrap_future(self._a().list_consumer_groups())
        return [(g.group_id, "" if g.is_simple_consumer_group else "consumer")
                for g in result.valid]

    async def describe_consumer_groups(self, group_ids: Any, group_coordinator_id: Any = None,
                                       include_authorized_operations: Any = False) -> Any:
        """Describe ``group_ids``: a list of one Response whose ``groups`` are (error code,
        group id, state, protocol type, protocol, members) tuples; members are (member id,
        client id, client host, assignment as [(topic, [partitions])]) tuples. Errors are
        raised."""
        with translated():
            futmap = self._a().describe_consumer_groups(list(group_ids))
        settled = await _settled(futmap)
        _raise_first(settled)
        groups = []
        for gid, (d, _) in settled.items():
            members = []
            for m in d.members:
                by_topic: Dict[str, List[int]] = {}
                for tp in (m.assignment.topic_partitions if m.assignment else []):
                    by_topic.setdefault(tp.topic, []).append(tp.partition)
                members.append((m.member_id, m.client_id, m.host, sorted(by_topic.items())))
            state = getattr(d.state, "name", str(d.state))
            groups.append((0, gid, state.title().replace("_", ""), "consumer",
                           d.partition_assignor, members))
        return [Response(groups=groups)]

    async def find_coordinator(self, group_id: Any, coordinator_type: Any = 0) -> Any:
        """The broker id of ``group_id``'s coordinator."""
        with translated():
            futmap = self._a().describe_consumer_groups([group_id])
            d = await asyncio.wrap_future(futmap[group_id])
        return d.coordinator.id

    async def list_consumer_group_offsets(self, group_id: Any, group_coordinator_id: Any = None,
                                          partitions: Any = None) -> Any:
        """The committed offsets of ``group_id`` (of ``partitions`` when given):
        {TopicPartition: OffsetAndMetadata}."""
        parts = None if not partitions else [_TP(tp.topic, tp.partition) for tp in partitions]
        with translated():
            futmap = self._a().list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group_id, parts)])
            result = await asyncio.wrap_future(futmap[group_id])
        out = {}
        for tp in result.topic_partitions:
            if tp.error is not None:
                raise for_code(tp.error.code())(
                    "Unable to get offset info for %s and %s" % (tp.topic, tp.partition))
            out[TopicPartition(tp.topic, tp.partition)] = OffsetAndMetadata(
                tp.offset, tp.metadata or "")
        return out

    async def delete_records(self, records_to_delete: Any, timeout_ms: Any = None) -> Any:
        """Delete records before the given offsets ({TopicPartition: RecordsToDelete});
        returns {TopicPartition: the partition's new low watermark}."""
        parts = [_TP(tp.topic, tp.partition, r.before_offset)
                 for tp, r in records_to_delete.items()]
        with translated():
            futmap = self._a().delete_records(parts,
                                              operation_timeout=self._timeout(timeout_ms))
        settled = await _settled(futmap)
        _raise_first(settled)
        return {TopicPartition(tp.topic, tp.partition): res.low_watermark
                for tp, (res, _) in settled.items()}

    async def __aenter__(self) -> Any:
        await self.start()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> Any:
        await self.close()
