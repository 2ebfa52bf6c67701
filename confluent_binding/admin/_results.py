"""Turn the compiled core's plain result tuples into the admin model types and complete the
futures the caller holds (this runs on the AdminClient's result thread)."""

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
    return None if t is None else Node(*t)


def config_entry(t):
    name, value, source, read_only, default, sensitive, synonym, synonyms = t
    # the source stays librdkafka's number, as confluent-kafka hands it out
    entry = ConfigEntry(name, value, source=source, is_read_only=read_only,
                        is_default=default, is_sensitive=sensitive, is_synonym=synonym)
    entry.synonyms = {s[0]: config_entry(s) for s in synonyms}
    return entry


def config_results(with_configs):
    """(restype, name, error, entries) -> (ConfigResource, {name: ConfigEntry} or None)."""

    def pairs(results):
        for restype, name, error, entries in results:
            resource = ConfigResource(restype, name, error=error)
            if error is not None:
                yield resource, error
            elif with_configs:
                yield resource, {e[0]: config_entry(e) for e in entries}
            else:
                yield resource, None

    return pairs


def acl_binding(t):
    return AclBinding(*t)


def group_description(t):
    if isinstance(t, KafkaError):
        return t
    (group_id, simple, members, assignor, state, coordinator, operations, gtype) = t
    return ConsumerGroupDescription(
        group_id, simple,
        [MemberDescription(member_id, client_id, host, MemberAssignment(assigned),
                           group_instance_id,
                           None if target is None else MemberAssignment(target))
         for member_id, client_id, host, group_instance_id, assigned, target in members],
        assignor, state, node(coordinator), operations, gtype)


def group_listing_result(t):
    valid, errors = t
    return ListConsumerGroupsResult(
        valid=[ConsumerGroupListing(*v) for v in valid],
        errors=[KafkaException(e) for e in errors])


def group_offsets(t):
    if isinstance(t, KafkaError):
        return t
    return ConsumerGroupTopicPartitions(t[0], t[1])


def topic_description(t):
    if isinstance(t, KafkaError):
        return t
    name, (msb, lsb), internal, partitions, operations = t
    return TopicDescription(
        name, Uuid(msb, lsb), internal,
        [TopicPartitionInfo(pid, node(leader), [node(n) for n in replicas], [node(n) for n in isr])
         for pid, leader, replicas, isr in partitions],
        operations)


def cluster_description(t):
    cluster_id, controller, nodes, operations = t
    return DescribeClusterResult(node(controller), [node(n) for n in nodes], cluster_id, operations)


def scram_descriptions(results):
    for user, error, infos in results:
        if error is not None:
            yield user, error
        else:
            yield user, UserScramCredentialsDescription(
                user, [ScramCredentialInfo(ScramMechanism(m), it) for m, it in infos])


def keyed_by_user(results):
    for user, error in results:
        yield user, error


def listed_offsets(results):
    for topic, partition, error, offset, timestamp, leader_epoch in results:
        info = error if error is not None else ListOffsetsResultInfo(offset, timestamp,
                                                                     leader_epoch)
        yield TopicPartition(topic, partition), info


def deleted_records(results):
    for topic, partition, error, offset in results:
        yield (TopicPartition(topic, partition),
               error if error is not None else DeletedRecords(offset))


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
    for topic, partition, offset, code_error, error in results:
        tp = TopicPartition(topic, partition, offset)
        tp.error = code_error
        out[tp] = error
    return out
