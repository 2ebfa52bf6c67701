"""Turn the compiled core's results (named tuples, ``src/admin_types.pyx``) into the admin model
types and complete the futures the caller holds (this runs on the AdminClient's result thread)."""

from .._core import KafkaError, TopicPartition
from ..error import KafkaException
from .acls import AclBinding
from .cluster import DescribeClusterResult, Node
from .configs import ConfigEntry, ConfigResource
from .groups import (
    ConsumerGroupDescription,
    ConsumerGroupListing,
    ConsumerGroupTopicPartitions,
    ListConsumerGroupsResult,
    MemberAssignment,
    MemberDescription,
)
from .offsets import DeletedRecords, ListOffsetsResultInfo
from .scram import ScramCredentialInfo, ScramMechanism, UserScramCredentialsDescription
from .topics import TopicDescription, TopicPartitionInfo, Uuid


def fail_all(futmap, exc):
    for fut in futmap.values():
        if not fut.done():
            fut.set_exception(exc)


def distribute(futmap, make_values):
    """A done-callback for a request future: ``make_values(result)`` yields (key, value)
    pairs; a KafkaError value fails that key's future, anything else is its result."""

    def done(request):
        try:
            for key, value in make_values(request.result()):
                fut = futmap.get(key)
                if fut is None:
                    raise RuntimeError("%r not found in future-map: %r" % (key, futmap))
                if isinstance(value, KafkaError):
                    fut.set_exception(KafkaException(value))
                else:
                    fut.set_result(value)
            # keys the broker did not answer for (should not happen) must not hang
            fail_all(futmap, KafkaException(KafkaError(KafkaError._FAIL, "no result for this key")))
        except BaseException as exc:
            fail_all(futmap, exc)

    return done


def in_order(futmap):
    """Pair results given in request order with the futmap's keys."""
    keys = list(futmap)

    def pairs(results):
        if len(results) != len(keys):
            raise RuntimeError("Results length %d is different from future-map length %d"
                               % (len(results), len(keys)))
        return zip(keys, results)

    return pairs


def node(t):
    return None if t is None else Node(t.id, t.host, t.port, t.rack)


def config_entry(t):
    # the source stays librdkafka's number, as confluent-kafka hands it out
    entry = ConfigEntry(t.name, t.value, source=t.source, is_read_only=t.is_read_only,
                        is_default=t.is_default, is_sensitive=t.is_sensitive,
                        is_synonym=t.is_synonym)
    entry.synonyms = {s.name: config_entry(s) for s in t.synonyms}
    return entry


def config_results(with_configs):
    """Per resource: (ConfigResource, {name: ConfigEntry} or None, or its error)."""

    def pairs(results):
        for r in results:
            resource = ConfigResource(r.restype, r.name, error=r.error)
            if r.error is not None:
                yield resource, r.error
            elif with_configs:
                yield resource, {e.name: config_entry(e) for e in r.entries}
            else:
                yield resource, None

    return pairs


def acl_binding(t):
    return AclBinding(t.restype, t.name, t.resource_pattern_type, t.principal, t.host,
                      t.operation, t.permission_type)


def group_description(t):
    if isinstance(t, KafkaError):
        return t
    return ConsumerGroupDescription(
        t.group_id, t.is_simple_consumer_group,
        [MemberDescription(m.member_id, m.client_id, m.host, MemberAssignment(m.assignment),
                           m.group_instance_id,
                           None if m.target_assignment is None
                           else MemberAssignment(m.target_assignment))
         for m in t.members],
        t.partition_assignor, t.state, node(t.coordinator), t.authorized_operations, t.type)


def group_listing_result(t):
    return ListConsumerGroupsResult(
        valid=[ConsumerGroupListing(v.group_id, v.is_simple_consumer_group, v.state, v.type)
               for v in t.valid],
        errors=[KafkaException(e) for e in t.errors])


def group_offsets(t):
    if isinstance(t, KafkaError):
        return t
    return ConsumerGroupTopicPartitions(t.group_id, t.partitions)


def topic_description(t):
    if isinstance(t, KafkaError):
        return t
    return TopicDescription(
        t.name, Uuid(t.topic_id.most_significant_bits, t.topic_id.least_significant_bits),
        t.is_internal,
        [TopicPartitionInfo(p.partition, node(p.leader), [node(n) for n in p.replicas],
                            [node(n) for n in p.isr])
         for p in t.partitions],
        t.authorized_operations)


def cluster_description(t):
    return DescribeClusterResult(node(t.controller), [node(n) for n in t.nodes], t.cluster_id,
                                 t.authorized_operations)


def scram_descriptions(results):
    for r in results:
        if r.error is not None:
            yield r.user, r.error
        else:
            yield r.user, UserScramCredentialsDescription(
                r.user, [ScramCredentialInfo(ScramMechanism(i.mechanism), i.iterations)
                         for i in r.credential_infos])


def keyed_by_user(results):
    for r in results:
        yield r.user, r.error


def listed_offsets(results):
    for r in results:
        info = r.error if r.error is not None else ListOffsetsResultInfo(r.offset, r.timestamp,
                                                                         r.leader_epoch)
        yield TopicPartition(r.topic, r.partition), info


def deleted_records(results):
    for r in results:
        yield (TopicPartition(r.topic, r.partition),
               r.error if r.error is not None else DeletedRecords(r.offset))


def all_scram_descriptions(results):
    """describe_user_scram_credentials(None): {user: description}, or the first error."""
    out = {}
    for user, value in scram_descriptions(results):
        if isinstance(value, KafkaError):
            return value
        out[user] = value
    return out


def elected_leaders(results):
    """{TopicPartition (carrying the error too): KafkaError or None}, as confluent-kafka."""
    out = {}
    for r in results:
        tp = TopicPartition(r.topic, r.partition, r.offset)
        tp.error = r.partition_error
        out[tp] = r.error
    return out
