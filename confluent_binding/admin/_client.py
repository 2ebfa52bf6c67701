"""AdminClient: confluent-kafka's admin API over the compiled core.

Every method checks its arguments here (confluent-kafka's exception types and messages), hands
plain request data and one request future to the compiled ``_AdminClientImpl``, and returns
futures keyed like confluent-kafka's. The request future is completed by the client's result
thread, which waits on librdkafka's admin result queue without the GIL; its done-callback
(``_results.distribute``) completes the per-key futures.
"""

import concurrent.futures
import threading
import warnings
import weakref
from concurrent.futures import Future
from typing import Any, Dict, List, Optional, Tuple, Union, overload

from .._core import (
    OFFSET_INVALID,
    ClusterMetadata,
    GroupMetadata,
    TopicPartition,
    _AdminClientImpl,
)
from ..error import KafkaException
from . import _results
from .acls import AclBinding, AclBindingFilter
from .cluster import DescribeClusterResult
from .configs import AlterConfigOpType, ConfigEntry, ConfigResource
from .groups import (
    ConsumerGroupDescription,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    ListConsumerGroupsResult,
)
from .offsets import DeletedRecords, ElectionType, IsolationLevel, ListOffsetsResultInfo, OffsetSpec
from .scram import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialsDescription,
    UserScramCredentialUpsertion,
)
from .topics import NewPartitions, NewTopic, TopicCollection, TopicDescription

# options each request accepts (confluent-kafka's keyword arguments)
_TIMEOUTS = ("request_timeout", "operation_timeout")


def _new_future():
    fut = concurrent.futures.Future()
    fut.set_running_or_notify_cancel()
    return fut


def _futures(keys, class_check=None, error=ValueError):
    futmap = {}
    for key in keys:
        if class_check is not None and not isinstance(key, class_check):
            raise error("Expected list of {}".format(repr(class_check)))
        futmap[key] = _new_future()
    return futmap


def _request(futmap, make_values):
    fut = _new_future()
    fut.add_done_callback(_results.distribute(futmap, make_values))
    return fut


def _number(value):
    """A float argument as Python's C API takes one (anything with __float__ or __index__)."""
    kind = type(value)
    if not (hasattr(kind, "__float__") or hasattr(kind, "__index__")) or isinstance(value, str):
        raise TypeError("must be real number, not %s" % kind.__name__)
    return float(value)


def _milliseconds(seconds):
    """Seconds -> librdkafka's int milliseconds; what no C int holds becomes INT_MIN, which
    librdkafka refuses with its range message (as a C cast leaves it)."""
    ms = _number(seconds) * 1000
    if not -2**31 <= ms < 2**31:   # also NaN
        return -2**31
    return int(ms)


def _options(kwargs, allowed):
    """confluent-kafka's admin keyword arguments, checked, as a dict for the compiled core
    (timeouts in ms; librdkafka checks their range)."""
    out = {}
    for key, value in kwargs.items():
        if key not in allowed:
            raise TypeError("'%s' is an invalid keyword argument for this function" % key)
        if key in _TIMEOUTS:
            out[key] = _milliseconds(value)
        elif key in ("validate_only", "include_authorized_operations", "require_stable"):
            if not isinstance(value, bool):
                raise TypeError("Expected %s to be bool type, not %s" % (key, type(value).__name__))
            out[key] = value
        elif key == "broker":
            if not isinstance(value, int):
                raise TypeError("an integer is required (got type %s)" % type(value).__name__)
            out[key] = value
        else:
            out[key] = value
    return out


def _replica_assignment(assignment, fewest, most, what):
    """A list of ``fewest``..``most`` non-empty lists of broker ids (ValueError otherwise)."""
    if not (isinstance(assignment, list) and fewest <= len(assignment) <= most
            and all(isinstance(r, list) and r and all(isinstance(b, int) for b in r)
                    for r in assignment)):
        raise ValueError("replica_assignment must be a list of int lists with an outer size of "
                         + what)
    return assignment


def _config_pairs(config):
    if not config:
        return []
    return [(str(k), str(v)) for k, v in config.items()]


def _check_topic_partitions(parts, what):
    for tp in parts:
        if tp is None:
            raise ValueError("Element of '%s' cannot be None" % what)
        if not isinstance(tp, TopicPartition):
            raise TypeError("Element of '%s' must be of type TopicPartition" % what)
        if tp.topic is None:
            raise TypeError("Element of '%s' must not have 'topic' attribute as None" % what)
        if not tp.topic:
            raise ValueError("Element of '%s' must not have 'topic' attribute as Empty" % what)


def _check_group_request(request, verb):
    if request is None:
        raise TypeError("request cannot be None")
    if not isinstance(request, list):
        raise TypeError("request must be a list")
    if len(request) != 1:
        raise ValueError("Currently we support %s offsets for a single consumer group only" % verb)
    for req in request:
        if not isinstance(req, ConsumerGroupTopicPartitions):
            raise TypeError("Expected list of 'ConsumerGroupTopicPartitions'")
        if req.group_id is None:
            raise TypeError("'group_id' cannot be None")
        if not isinstance(req.group_id, str):
            raise TypeError("'group_id' must be a string")
        if not req.group_id:
            raise ValueError("'group_id' cannot be empty")


def _parts(parts):
    return [(tp.topic, tp.partition, tp.offset) for tp in parts]


class AdminClient(_AdminClientImpl):
    """Admin operations on topics, configs, groups, offsets, ACLs and SCRAM credentials.

    ``AdminClient(conf)`` takes librdkafka's configuration dict (plus ``error_cb``, ``stats_cb``,
    ``logger``, served by :meth:`poll`, and ``oauth_cb``: with OAUTHBEARER it runs on
    librdkafka's background thread and construction waits for its first token, as
    confluent-kafka's). Requests return
    ``concurrent.futures.Future`` objects (most in a dict keyed by the requested entity); they
    complete on their own: a thread owned by the client waits for librdkafka's results without
    holding the GIL. ``close()`` (or leaving a ``with`` block) ends the thread and fails requests
    still in flight.
    """

    def __init__(self, conf: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        super().__init__(conf, **kwargs)
        self.__thread = threading.Thread(target=_serve_results, args=(weakref.ref(self),),
                                         name="AdminClient results", daemon=True)
        self.__thread.start()

    def close(self) -> None:
        """Stop the result thread, fail requests still in flight, free the client."""
        thread = self.__dict__.get("_AdminClient__thread")
        self._stop_results()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._close()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def set_sasl_credentials(self, username: str, password: str) -> None:
        """Set the SASL PLAIN/SCRAM username and password for the next authentication."""
        super().set_sasl_credentials(username, password)

    # -- topics --------------------------------------------------------------------------------

    def create_topics(self, new_topics: List[NewTopic], **kwargs: Any) -> Dict[str, Future[None]]:
        """Create topics: a dict {topic: Future} whose results are None.

        Options: ``operation_timeout``, ``request_timeout`` (seconds), ``validate_only``.
        """
        futmap = _futures([t.topic for t in new_topics])
        if not new_topics:
            raise ValueError("Expected non-empty list of NewTopic objects")
        specs = []
        for t in new_topics:
            if not isinstance(t, NewTopic):
                raise TypeError("Expected list of NewTopic objects")
            assignment = t.replica_assignment
            if assignment is not None:
                if t.replication_factor != -1:
                    raise ValueError(
                        "replication_factor and replica_assignment are mutually exclusive")
                count = t.num_partitions
                if count == -1 and isinstance(assignment, list):
                    count = len(assignment)   # librdkafka then refuses the default count
                _replica_assignment(assignment, count, count, "num_partitions")
            specs.append((t.topic, t.num_partitions, t.replication_factor, assignment,
                          _config_pairs(t.config)))
        opts = _options(kwargs, ("operation_timeout", "request_timeout", "validate_only"))
        self._create_topics(specs, _request(futmap, iter), opts)
        return futmap

    def delete_topics(self, topics: List[str], **kwargs: Any) -> Dict[str, Future[None]]:
        """Delete topics: a dict {topic: Future} whose results are None."""
        futmap = _futures(topics)
        if not isinstance(topics, list):
            raise TypeError("argument 1 must be list, not %s" % type(topics).__name__)
        if not topics:
            raise ValueError("Expected non-empty list of topic strings")
        opts = _options(kwargs, ("operation_timeout", "request_timeout"))
        # the core refuses None (only once it found the client open, as confluent-kafka)
        self._delete_topics([t if t is None else str(t) for t in topics],
                            _request(futmap, iter), opts)
        return futmap

    def create_partitions(self, new_partitions: List[NewPartitions],
                          **kwargs: Any) -> Dict[str, Future[None]]:
        """Raise partition counts: a dict {topic: Future} whose results are None."""
        futmap = _futures([p.topic for p in new_partitions])
        if not new_partitions:
            raise ValueError("Expected non-empty list of NewPartitions objects")
        specs = []
        for p in new_partitions:
            if not isinstance(p, NewPartitions):
                raise TypeError("Expected list of NewPartitions objects")
            if p.replica_assignment is not None:
                _replica_assignment(p.replica_assignment, 1, p.new_total_count,
                                    "new_total_count - existing partition count")
            specs.append((p.topic, p.new_total_count, p.replica_assignment))
        opts = _options(kwargs, ("operation_timeout", "request_timeout", "validate_only"))
        self._create_partitions(specs, _request(futmap, iter), opts)
        return futmap

    def describe_topics(self, topics: TopicCollection,
                        **kwargs: Any) -> Dict[str, Future[TopicDescription]]:
        """Describe topics: a dict {topic: Future} whose results are TopicDescription."""
        if not isinstance(topics, TopicCollection):
            raise TypeError("Expected input to be instance of TopicCollection")
        names = topics.topic_names
        if not isinstance(names, list):
            raise TypeError("Expected list of topic names to be described")
        for i, name in enumerate(names):
            if not isinstance(name, str):
                raise TypeError("Expected list of topics strings, not %s" % type(name).__name__)
            if not name:
                raise ValueError("Empty topic name at index %d isn't allowed" % i)
        futmap = _futures(names)
        opts = _options(kwargs, ("request_timeout", "include_authorized_operations"))
        self._describe_topics(list(names), _request(
            futmap, lambda rs: in_order_values(futmap, rs, _results.topic_description)), opts)
        return futmap

    def list_topics(self, topic: Optional[str] = None, timeout: float = -1) -> ClusterMetadata:
        """Cluster metadata (brokers, topics, partitions) as a ClusterMetadata."""
        return super().list_topics(topic, timeout)

    # -- cluster -------------------------------------------------------------------------------

    def describe_cluster(self, **kwargs: Any) -> Future[DescribeClusterResult]:
        """Describe the cluster: a Future whose result is a DescribeClusterResult."""
        opts = _options(kwargs, ("request_timeout", "include_authorized_operations"))
        fut = _new_future()
        inner = _new_future()
        inner.add_done_callback(_chain(fut, _results.cluster_description))
        self._describe_cluster(inner, opts)
        return fut

    # -- configs -------------------------------------------------------------------------------

    def describe_configs(self, resources: List[ConfigResource], **kwargs: Any
                         ) -> Dict[ConfigResource, Future[Dict[str, ConfigEntry]]]:
        """Describe configs: a dict {ConfigResource: Future} whose results are
        {name: ConfigEntry}."""
        futmap = _futures(resources, ConfigResource)
        if not resources:
            raise ValueError("Expected non-empty list of ConfigResource objects")
        opts = _options(kwargs, ("request_timeout",))
        self._describe_configs([(r.restype.value, r.name) for r in resources],
                               _request(futmap, _results.config_results(True)), opts)
        return futmap

    def alter_configs(self, resources: List[ConfigResource],
                      **kwargs: Any) -> Dict[ConfigResource, Future[None]]:
        """Replace configs (deprecated by the broker: prefer incremental_alter_configs()):
        a dict {ConfigResource: Future} whose results are None."""
        warnings.warn("alter_configs has been deprecated. Use incremental_alter_configs instead.",
                      category=DeprecationWarning, stacklevel=2)
        futmap = _futures(resources, ConfigResource)
        if not resources:
            raise ValueError("Expected non-empty list of ConfigResource objects")
        opts = _options(kwargs, ("request_timeout", "validate_only"))
        self._alter_configs([(r.restype.value, r.name, _config_pairs(r.set_config_dict))
                             for r in resources],
                            _request(futmap, _results.config_results(False)), opts)
        return futmap

    def incremental_alter_configs(self, resources: List[ConfigResource],
                                  **kwargs: Any) -> Dict[ConfigResource, Future[None]]:
        """SET/DELETE/APPEND/SUBTRACT config values: a dict {ConfigResource: Future} whose
        results are None."""
        futmap = _futures(resources, ConfigResource, TypeError)
        if not resources:
            raise ValueError("Expected non-empty list of ConfigResource objects")
        opts = _options(kwargs, ("request_timeout", "validate_only", "broker"))
        self._check_open()      # before the resources' entries are checked, as confluent-kafka
        requests = []
        for r in resources:
            if not r.incremental_configs:
                raise ValueError("expected non-empty list of ConfigEntry to alter incrementally "
                                 "in incremental_configs field")
            ops = []
            for i, entry in enumerate(r.incremental_configs):
                if not isinstance(entry, ConfigEntry):
                    raise TypeError("expected ConfigEntry type in incremental_configs field, "
                                    "index %d" % i)
                op = entry.incremental_operation
                if not isinstance(op, AlterConfigOpType):
                    raise TypeError("Required attribute .value missing" if op is None else
                                    "Expected .incremental_operation to be AlterConfigOpType")
                if not isinstance(entry.name, str):
                    raise TypeError("Expected .name to be str type, not %s"
                                    % type(entry.name).__name__)
                value = entry.value
                if op is not AlterConfigOpType.DELETE and not isinstance(value, str):
                    raise TypeError("Expected .value to be str type, not %s"
                                    % type(value).__name__)
                ops.append((entry.name, op.value, value if isinstance(value, str) else None))
            requests.append((r.restype.value, r.name, ops))
        self._incremental_alter_configs(requests, _request(futmap, _results.config_results(False)),
                                        opts)
        return futmap

    # -- ACLs ----------------------------------------------------------------------------------

    def create_acls(self, acls: List[AclBinding],
                    **kwargs: Any) -> Dict[AclBinding, Future[None]]:
        """Create ACL bindings: a dict {AclBinding: Future} whose results are None."""
        if len(set(acls)) != len(acls):
            raise ValueError("duplicate ACL bindings not allowed")
        futmap = _futures(acls, AclBinding)
        if not acls:
            raise ValueError("Expected non-empty list of AclBinding objects")
        opts = _options(kwargs, ("request_timeout",))
        self._create_acls([_acl_tuple(a) for a in acls],
                          _request(futmap, _results.in_order(futmap)), opts)
        return futmap

    def describe_acls(self, acl_binding_filter: AclBindingFilter,
                      **kwargs: Any) -> Future[List[AclBinding]]:
        """ACL bindings matching a filter: a Future whose result is a list of AclBinding."""
        opts = _options(kwargs, ("request_timeout",))
        self._check_open()      # before the filter is checked, as confluent-kafka
        if not isinstance(acl_binding_filter, AclBindingFilter):
            raise TypeError("Expected an AclBindingFilter object")
        fut = _new_future()
        inner = _new_future()
        inner.add_done_callback(_chain(fut, lambda rs: [_results.acl_binding(t) for t in rs]))
        self._describe_acls(_acl_tuple(acl_binding_filter), inner, opts)
        return fut

    def delete_acls(self, acl_binding_filters: List[AclBindingFilter], **kwargs: Any
                    ) -> Dict[AclBindingFilter, Future[List[AclBinding]]]:
        """Delete the ACL bindings matching each filter: a dict {AclBindingFilter: Future}
        whose results are the deleted AclBindings."""
        if len(set(acl_binding_filters)) != len(acl_binding_filters):
            raise ValueError("duplicate ACL binding filters not allowed")
        futmap = _futures(acl_binding_filters, AclBindingFilter)
        if not acl_binding_filters:
            raise ValueError("Expected non-empty list of AclBindingFilter objects")
        opts = _options(kwargs, ("request_timeout",))

        def values(results):
            return in_order_values(futmap, results, lambda r: r if not isinstance(r, list)
                                   else [_results.acl_binding(t) for t in r])

        self._delete_acls([_acl_tuple(f) for f in acl_binding_filters],
                          _request(futmap, values), opts)
        return futmap

    # -- consumer groups -----------------------------------------------------------------------

    def list_consumer_groups(self, **kwargs: Any) -> Future[ListConsumerGroupsResult]:
        """List groups: a Future whose result is a ListConsumerGroupsResult.

        Options: ``states`` (set of ConsumerGroupState), ``types`` (set of ConsumerGroupType),
        ``request_timeout``.
        """
        states = kwargs.pop("states", None)
        if states is not None:
            if not isinstance(states, set):
                raise TypeError("'states' must be a set")
            for s in states:
                if not isinstance(s, ConsumerGroupState):
                    raise TypeError("All elements of states must be of type ConsumerGroupState")
        types = kwargs.pop("types", None)
        if types is not None:
            if not isinstance(types, set):
                raise TypeError("'types' must be a set")
            for t in types:
                if not isinstance(t, ConsumerGroupType):
                    raise TypeError("All elements of types must be of type ConsumerGroupType")
        opts = _options(kwargs, ("request_timeout",))
        if states:
            opts["states"] = sorted(s.value for s in states)
        if types:
            opts["types"] = sorted(t.value for t in types)
        fut = _new_future()
        inner = _new_future()
        inner.add_done_callback(_chain(fut, _results.group_listing_result))
        self._list_consumer_groups(inner, opts)
        return fut

    def describe_consumer_groups(self, group_ids: List[str], **kwargs: Any
                                 ) -> Dict[str, Future[ConsumerGroupDescription]]:
        """Describe groups: a dict {group_id: Future} whose results are
        ConsumerGroupDescription."""
        if not isinstance(group_ids, list):
            raise TypeError("Expected input to be list of group ids to be described")
        if not group_ids:
            raise ValueError("Expected at least one group to be described")
        futmap = _futures(group_ids)
        opts = _options(kwargs, ("request_timeout", "include_authorized_operations"))
        if any(g is None for g in group_ids):
            raise ValueError("Expected list of group strings, not NoneType")
        self._describe_consumer_groups(
            [str(g) for g in group_ids],
            _request(futmap, lambda rs: in_order_values(futmap, rs, _results.group_description)),
            opts)
        return futmap

    def delete_consumer_groups(self, group_ids: List[str],
                               **kwargs: Any) -> Dict[str, Future[None]]:
        """Delete groups: a dict {group_id: Future} whose results are None."""
        if not isinstance(group_ids, list):
            raise TypeError("Expected input to be list of group ids to be deleted")
        if not group_ids:
            raise ValueError("Expected at least one group to be deleted")
        futmap = _futures(group_ids, str)
        opts = _options(kwargs, ("request_timeout",))
        self._delete_consumer_groups(list(group_ids), _request(futmap, _results.in_order(futmap)),
                                     opts)
        return futmap

    def list_consumer_group_offsets(
            self, list_consumer_group_offsets_request: List[ConsumerGroupTopicPartitions],
            **kwargs: Any) -> Dict[str, Future[ConsumerGroupTopicPartitions]]:
        """Committed offsets of one group: a dict {group_id: Future} whose results are
        ConsumerGroupTopicPartitions. Option: ``require_stable``, ``request_timeout``."""
        request = list_consumer_group_offsets_request
        _check_group_request(request, "listing")
        req = request[0]
        parts = req.topic_partitions
        if parts is not None:
            if not isinstance(parts, list):
                raise TypeError("'topic_partitions' must be a list or None")
            if not parts:
                raise ValueError("'topic_partitions' cannot be empty")
            _check_topic_partitions(parts, "topic_partitions")
            for tp in parts:
                if tp.partition < 0:
                    raise ValueError("Element of 'topic_partitions' must not have negative "
                                     "'partition' value")
                if tp.offset != OFFSET_INVALID:
                    raise ValueError("Element of 'topic_partitions' must not have 'offset' value")
        futmap = _futures([req.group_id], str)
        opts = _options(kwargs, ("request_timeout", "require_stable"))
        self._list_consumer_group_offsets(
            req.group_id, None if parts is None else _parts(parts),
            _request(futmap, lambda rs: in_order_values(futmap, rs, _results.group_offsets)), opts)
        return futmap

    def alter_consumer_group_offsets(
            self, alter_consumer_group_offsets_request: List[ConsumerGroupTopicPartitions],
            **kwargs: Any) -> Dict[str, Future[ConsumerGroupTopicPartitions]]:
        """Commit offsets for one group: a dict {group_id: Future} whose results are
        ConsumerGroupTopicPartitions."""
        request = alter_consumer_group_offsets_request
        _check_group_request(request, "altering")
        req = request[0]
        parts = req.topic_partitions
        if parts is None:
            raise ValueError("'topic_partitions' cannot be null")
        if not isinstance(parts, list):
            raise TypeError("'topic_partitions' must be a list")
        if not parts:
            raise ValueError("'topic_partitions' cannot be empty")
        _check_topic_partitions(parts, "topic_partitions")
        for tp in parts:
            if tp.partition < 0:
                raise ValueError("Element of 'topic_partitions' must not have negative value for "
                                 "'partition' field")
            if tp.offset < 0:
                raise ValueError("Element of 'topic_partitions' must not have negative value for "
                                 "'offset' field")
        futmap = _futures([req.group_id], str)
        opts = _options(kwargs, ("request_timeout",))
        self._alter_consumer_group_offsets(
            req.group_id, parts,
            _request(futmap, lambda rs: in_order_values(futmap, rs, _results.group_offsets)), opts)
        return futmap

    def list_groups(self, group: Optional[str] = None,
                    timeout: float = -1) -> List[GroupMetadata]:
        """Groups and their members as GroupMetadata (deprecated in confluent-kafka: prefer
        list_consumer_groups() and describe_consumer_groups())."""
        if group is not None and not isinstance(group, str):
            raise TypeError("argument 1 must be str or None, not %s" % type(group).__name__)
        return self._list_groups(group, timeout)

    def poll(self, timeout: Optional[float] = -1) -> int:
        """Serve error_cb, stats_cb and logger; wait up to ``timeout`` seconds for
        the first event. Returns how many events were served."""
        return super().poll(_number(timeout))

    # -- offsets and records -------------------------------------------------------------------

    def list_offsets(self, topic_partition_offsets: Dict[TopicPartition, OffsetSpec],
                     **kwargs: Any) -> Dict[TopicPartition, Future[ListOffsetsResultInfo]]:
        """Offsets by spec: a dict {TopicPartition: Future} whose results are
        ListOffsetsResultInfo. Options: ``isolation_level``, ``request_timeout``."""
        if not isinstance(topic_partition_offsets, dict):
            raise TypeError("Expected topic_partition_offsets to be dict of "
                            "[TopicPartitions,OffsetSpec] for list offsets request")
        for tp, spec in topic_partition_offsets.items():
            if tp is None:
                raise TypeError("partition cannot be None")
            if not isinstance(tp, TopicPartition):
                raise TypeError("partition must be a TopicPartition")
            if tp.topic is None:
                raise TypeError("partition topic name cannot be None")
            if not isinstance(tp.topic, str):
                raise TypeError("partition topic name must be string")
            if not tp.topic:
                raise ValueError("partition topic name cannot be empty")
            if tp.partition < 0:
                raise ValueError("partition index must be non-negative")
            if spec is None:
                raise TypeError("OffsetSpec cannot be None")
            if not isinstance(spec, OffsetSpec):
                raise TypeError("Value must be a OffsetSpec")
        isolation = kwargs.pop("isolation_level", None)
        if isolation is not None and not isinstance(isolation, IsolationLevel):
            raise TypeError("isolation_level argument should be an IsolationLevel")
        requests = [TopicPartition(tp.topic, int(tp.partition), int(spec._value))
                    for tp, spec in topic_partition_offsets.items()]
        futmap = _futures(requests, TopicPartition, TypeError)
        opts = _options(kwargs, ("request_timeout",))
        if isolation is not None:
            opts["isolation_level"] = isolation.value
        self._list_offsets(_parts(requests), _request(futmap, _results.listed_offsets), opts)
        return futmap

    def delete_records(self, topic_partition_offsets: List[TopicPartition],
                       **kwargs: Any) -> Dict[TopicPartition, Future[DeletedRecords]]:
        """Delete records before each partition's offset: a dict {TopicPartition: Future}
        whose results are DeletedRecords."""
        request = topic_partition_offsets
        if not isinstance(request, list):
            raise TypeError("Expected Request to be a list, got '%s' " % type(request).__name__)
        for tp in request:
            if not isinstance(tp, TopicPartition):
                raise TypeError("Element of the request list must be of type 'TopicPartition' "
                                "got '%s' " % type(tp).__name__)
            if tp.partition < 0:
                raise ValueError("'partition' cannot be negative")
        futmap = _futures(request, TopicPartition, TypeError)
        opts = _options(kwargs, ("request_timeout", "operation_timeout"))
        self._delete_records(_parts(request), _request(futmap, _results.deleted_records), opts)
        return futmap

    def elect_leaders(self, election_type: ElectionType,
                      partitions: Optional[List[TopicPartition]] = None, **kwargs: Any
                      ) -> Future[Dict[TopicPartition, Optional[KafkaException]]]:
        """Elect preferred or unclean leaders: a Future whose result is
        {TopicPartition: KafkaException or None}."""
        if not isinstance(election_type, ElectionType):
            raise TypeError("Expected 'election_type' to be of type 'ElectionType'")
        if partitions is not None:
            if not isinstance(partitions, list):
                raise TypeError("Expected 'partitions' to be a list, got '%s'"
                                % type(partitions).__name__)
            for tp in partitions:
                if not isinstance(tp, TopicPartition):
                    raise TypeError("Element of the 'partitions' list must be of type "
                                    "'TopicPartition' got '%s' " % type(tp).__name__)
                if tp.partition < 0:
                    raise ValueError("Elements of the 'partitions' list must not have negative "
                                     "value for 'partition' field")
        opts = _options(kwargs, ("request_timeout", "operation_timeout"))
        fut = _new_future()
        inner = _new_future()
        inner.add_done_callback(_chain(fut, _results.elected_leaders))
        self._elect_leaders(election_type.value, None if partitions is None else _parts(partitions),
                            inner, opts)
        return fut

    # -- SCRAM ---------------------------------------------------------------------------------

    @overload
    def describe_user_scram_credentials(
            self, users: None = None, **kwargs: Any
    ) -> Future[Dict[str, UserScramCredentialsDescription]]: ...

    @overload
    def describe_user_scram_credentials(
            self, users: List[str], **kwargs: Any
    ) -> Dict[str, Future[UserScramCredentialsDescription]]: ...

    def describe_user_scram_credentials(
            self, users: Optional[List[str]] = None, **kwargs: Any
    ) -> Union[Future[Dict[str, UserScramCredentialsDescription]],
               Dict[str, Future[UserScramCredentialsDescription]]]:
        """SCRAM credentials of ``users`` (all users when None): a dict {user: Future} of
        UserScramCredentialsDescription, or for None one Future of such a dict."""
        if users is not None:
            if not isinstance(users, list):
                raise TypeError("Expected input to be list of String")
            for user in users:
                if user is None:
                    raise TypeError("'user' cannot be None")
                if not isinstance(user, str):
                    raise TypeError("Each value should be a string")
                if not user:
                    raise ValueError("'user' cannot be empty")
        opts = _options(kwargs, ("request_timeout",))
        if users is None:
            fut = _new_future()
            inner = _new_future()
            inner.add_done_callback(_chain(fut, _results.all_scram_descriptions))
            self._describe_user_scram_credentials(None, inner, opts)
            return fut
        futmap = _futures(users)
        self._describe_user_scram_credentials(list(users),
                                              _request(futmap, _results.scram_descriptions), opts)
        return futmap

    def alter_user_scram_credentials(self, alterations: List[UserScramCredentialAlteration],
                                     **kwargs: Any) -> Dict[str, Future[None]]:
        """Upsert or delete SCRAM credentials: a dict {user: Future} whose results are None."""
        if not isinstance(alterations, list):
            raise TypeError("Expected input to be list")
        if not alterations:
            raise ValueError("Expected at least one alteration")
        requests: List[Tuple[Any, ...]] = []
        for alt in alterations:
            if not isinstance(alt, UserScramCredentialAlteration):
                raise TypeError("Expected each element of list to be subclass of "
                                "UserScramCredentialAlteration")
            if alt.user is None:
                raise TypeError("'user' cannot be None")
            if not isinstance(alt.user, str):
                raise TypeError("'user' must be a string")
            if not alt.user:
                raise ValueError("'user' cannot be empty")
            if isinstance(alt, UserScramCredentialUpsertion):
                if alt.password is None:
                    raise TypeError("'password' cannot be None")
                if not isinstance(alt.password, bytes):
                    raise TypeError("'password' must be bytes")
                if not alt.password:
                    raise ValueError("'password' cannot be empty")
                if alt.salt is not None and not alt.salt:
                    raise ValueError("'salt' can be None but cannot be empty")
                if alt.salt and not isinstance(alt.salt, bytes):
                    raise TypeError("'salt' must be bytes")
                info = alt.scram_credential_info
                if not isinstance(info, ScramCredentialInfo):
                    raise TypeError("Expected credential_info to be ScramCredentialInfo Type")
                if info.iterations < 1:
                    raise ValueError("Iterations should be positive")
                if not isinstance(info.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
                requests.append((alt.user, info.mechanism.value, info.iterations, alt.password,
                                 alt.salt))
            elif isinstance(alt, UserScramCredentialDeletion):
                if not isinstance(alt.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
                requests.append((alt.user, alt.mechanism.value, None, None, None))
            else:
                raise TypeError("Expected each element of list 'alterations' to be either a "
                                "UserScramCredentialUpsertion or a UserScramCredentialDeletion")
        futmap = _futures({a.user for a in alterations})
        opts = _options(kwargs, ("request_timeout",))
        self._alter_user_scram_credentials(requests, _request(futmap, _results.keyed_by_user),
                                           opts)
        return futmap


def in_order_values(futmap, results, convert):
    keys = list(futmap)
    if len(results) != len(keys):
        raise RuntimeError("Results length %d is different from future-map length %d"
                           % (len(results), len(keys)))
    return [(k, convert(r)) for k, r in zip(keys, results)]


def _chain(outer, convert):
    """A done-callback completing ``outer`` with ``convert(result)`` (or the exception)."""

    def done(inner):
        try:
            value = convert(inner.result())
        except BaseException as exc:
            outer.set_exception(exc)
        else:
            if isinstance(value, _results.KafkaError):
                outer.set_exception(_results.KafkaException(value))
            else:
                outer.set_result(value)

    return done


def _acl_tuple(a):
    return (a.restype.value, a.name, a.resource_pattern_type.value, a.principal, a.host,
            a.operation.value, a.permission_type.value)


def _serve_results(client_ref):
    """The result thread: completes request futures until the client is closed or collected.

    It holds the client only while requests are in flight, so an unused client can be
    garbage-collected; it then notices within one wait (200 ms) and ends.
    """
    while True:
        client = client_ref()
        if client is None or not client._serve_results(200):
            return
        while client._in_flight():
            if not client._serve_results(200):
                return
        del client
