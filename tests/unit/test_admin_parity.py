"""confluent_binding.admin against confluent-kafka 2.16 side by side, without a broker: the
model types (constructors, reprs, equality, hashing, ordering, enum values), the cimpl
constants, and the exceptions bad input raises at call time."""

import re
import warnings

import pytest

import confluent_binding
import confluent_binding.admin as ours_admin
import confluent_binding.cimpl as ours_cimpl

peer = pytest.importorskip("confluent_kafka")
import confluent_kafka.admin as peer_admin  # noqa: E402
import confluent_kafka.cimpl as peer_cimpl  # noqa: E402

DEAD = {"bootstrap.servers": "127.0.0.1:1", "socket.timeout.ms": 100,
        "log_level": 0}

ENUMS = ("AclOperation", "AclPermissionType", "AlterConfigOpType", "ConfigSource",
         "ResourcePatternType", "ResourceType", "ScramMechanism")
TOP_LEVEL_ENUMS = ("ConsumerGroupState", "ConsumerGroupType", "IsolationLevel", "ElectionType")


def _admin_names(mod):
    return {n for n in dir(mod) if not n.startswith("_") and (n[0].isupper())}


def test_admin_module_exports_every_public_name_of_confluent():
    peer_names = _admin_names(peer_admin) - {"Any", "Dict", "List", "Optional", "Set", "Tuple",
                                             "Union"}
    assert peer_names - _admin_names(ours_admin) == set()


def test_top_level_admin_names():
    for name in ("ConsumerGroupState", "ConsumerGroupTopicPartitions", "ConsumerGroupType",
                 "ElectionType", "IsolationLevel", "Node", "TopicCollection",
                 "TopicPartitionInfo", "Uuid"):
        assert hasattr(confluent_binding, name), name


def test_cimpl_constants_and_classes_match():
    peer_consts = {n: getattr(peer_cimpl, n) for n in dir(peer_cimpl)
                   if n.isupper() and not n.startswith("SHARE_")}
    ours_consts = {n: getattr(ours_cimpl, n) for n in peer_consts if hasattr(ours_cimpl, n)}
    assert ours_consts == peer_consts
    for name in ("NewTopic", "NewPartitions", "Uuid", "KafkaError", "KafkaException",
                 "TopicPartition", "Producer", "Consumer", "Message", "_AdminClientImpl",
                 "libversion", "version"):
        assert hasattr(ours_cimpl, name), name


@pytest.mark.parametrize("name", ENUMS)
def test_admin_enums_match(name):
    assert ({m.name: m.value for m in getattr(ours_admin, name)}
            == {m.name: m.value for m in getattr(peer_admin, name)})
    ours_members, peer_members = list(getattr(ours_admin, name)), list(getattr(peer_admin, name))
    if hasattr(peer_members[0], "__lt__") and name not in ("AlterConfigOpType", "ConfigSource"):
        assert ([m.name for m in sorted(ours_members, reverse=True)]
                == [m.name for m in sorted(peer_members, reverse=True)])


@pytest.mark.parametrize("name", TOP_LEVEL_ENUMS)
def test_top_level_enums_match(name):
    assert ({m.name: m.value for m in getattr(confluent_binding, name)}
            == {m.name: m.value for m in getattr(peer, name)})
    assert (getattr(confluent_binding, name).__members__.keys()
            == getattr(peer, name).__members__.keys())


def _normalise(text):
    return re.sub(r"confluent_kafka\.admin\._\w+|confluent_binding\.admin\.\w+", "M", text)


def _outcome(fn):
    try:
        value = fn()
    except Exception as exc:  # the exception type and message are what is compared
        return ("raises", type(exc).__name__, _normalise(str(exc)))
    return ("value", value)


def _both(expr, **names):
    """Evaluate ``expr`` with each side's names; return (ours, peer)."""
    out = []
    for side in (ours_admin, peer_admin):
        env = {n: getattr(side, n) for n in _admin_names(side)}
        top = confluent_binding if side is ours_admin else peer
        env.update({n: getattr(top, n) for n in ("TopicPartition", "TopicCollection",
                                                 "ConsumerGroupTopicPartitions",
                                                 "ConsumerGroupState", "ConsumerGroupType",
                                                 "IsolationLevel", "ElectionType", "Node", "Uuid")})
        env.update(names.get("ours" if side is ours_admin else "peer", {}))
        out.append(_outcome(lambda: eval(expr, env)))
    return out


MODEL_EXPRESSIONS = [
    # NewTopic / NewPartitions (compiled in confluent-kafka)
    "repr(NewTopic('t'))",
    "repr(NewTopic('t', 3))",
    "repr(NewTopic('t', 3, 2))",
    "str(NewTopic('t', 0))",
    "NewTopic('t', 3) == NewTopic('t', 3, 2)", "NewTopic('t', 3) == NewTopic('t', 4)",
    "NewTopic('t', 3) != NewTopic('t', 3)", "NewTopic('a', 9) < NewTopic('b', 1)",
    "NewTopic('a', 1) < NewTopic('a', 2)", "NewTopic('a', 1) >= NewTopic('a', 2)",
    "hash(NewTopic('t', 3)) == hash(NewTopic('t', 3, config={'a': 'b'}))",
    "[repr(t) for t in sorted([NewTopic('b'), NewTopic('a', 2), NewTopic('a', 1)])]",
    "NewTopic('t').num_partitions, NewTopic('t').replication_factor, NewTopic('t').config, "
        "NewTopic('t').replica_assignment",
    "NewTopic('t', config={'a': 'b'}).config", "NewTopic()", "NewTopic(None)", "NewTopic(1)",
    "NewTopic('t', 'x')",
    "NewTopic('t', 1, 'x')",
    "NewTopic('t', config=1)",
    "NewTopic('t', config=None)",
    "NewTopic('t', 2**40)",
    "NewTopic('t', 1.5)",
    "NewTopic('t', 1, 1, None, {}, 5)",
    "NewTopic('t', foo=1)",
    "NewTopic(topic='t', num_partitions=2).num_partitions",
    "repr(NewPartitions('t', 3))", "NewPartitions('t', 3) == NewPartitions('t', 3, [[1]])",
    "NewPartitions('t', 3) == NewPartitions('t', 4)",
    "NewPartitions('a', 3) < NewPartitions('a', 4)",
    "NewPartitions('t')", "NewPartitions('t', 'x')", "NewPartitions(1, 2)",
    "NewPartitions('t', 2, [[1, 2]]).replica_assignment",
    "str(Uuid(1, 2))",
    "repr(Uuid(0, 0))",
    "str(Uuid(-1, -1))",
    "Uuid(1, 2).get_most_significant_bits()",
    "Uuid(1, 2).get_least_significant_bits()",
    "hash(Uuid(1, 2))",
    "Uuid('a', 1)",
    "Uuid(1)",
    "Uuid(2**64, 1)",
    # configs
    "repr(ConfigResource('topic', 't'))", "repr(ConfigResource(ResourceType.BROKER, '1'))",
    "repr(ConfigResource(2, 't'))", "ConfigResource('nope', 't')", "ConfigResource('topic', None)",
    "ConfigResource('topic', 't') == ConfigResource(ResourceType.TOPIC, 't')",
    "ConfigResource('topic', 'a') < ConfigResource('topic', 'b')",
    "ConfigResource('topic', 'b') < ConfigResource('group', 'a')",
    "hash(ConfigResource('topic', 't')) == hash(ConfigResource(2, 't'))",
    "len(ConfigResource('topic', 't', set_config={'a': '1', 'b': '2'}))",
    "ConfigResource('topic', 't').restype_int",
    "repr(ConfigEntry('a', '1'))", "str(ConfigEntry('a', None))",
    "ConfigEntry('a', '1').source.name, ConfigEntry('a', '1').is_default, ConfigEntry('a', "
        "'1').incremental_operation",
    # ACLs
    "repr(AclBinding(ResourceType.TOPIC, 't', ResourcePatternType.LITERAL, 'User:a', '*', "
        "AclOperation.READ, AclPermissionType.ALLOW))",
    "repr(AclBinding('topic', 't', 'literal', 'User:a', '*', 'read', 'allow'))",
    "repr(AclBinding(2, 't', 3, 'User:a', '*', 3, 3))",
    "AclBinding(ResourceType.ANY, 't', ResourcePatternType.LITERAL, 'User:a', '*', "
        "AclOperation.READ, AclPermissionType.ALLOW)",
    "AclBinding(ResourceType.TOPIC, 't', ResourcePatternType.MATCH, 'User:a', '*', "
        "AclOperation.READ, AclPermissionType.ALLOW)",
    "AclBinding(ResourceType.TOPIC, None, ResourcePatternType.LITERAL, 'User:a', '*', "
        "AclOperation.READ, AclPermissionType.ALLOW)",
    "AclBinding(ResourceType.TOPIC, 1, ResourcePatternType.LITERAL, 'User:a', '*', "
        "AclOperation.READ, AclPermissionType.ALLOW)",
    "AclBinding('nope', 't', 'literal', 'User:a', '*', 'read', 'allow')",
    "AclBinding(1.5, 't', 'literal', 'User:a', '*', 'read', 'allow')",
    "repr(AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, "
        "AclOperation.ANY, AclPermissionType.ANY))",
    "AclBindingFilter(ResourceType.UNKNOWN, None, ResourcePatternType.ANY, None, None, "
        "AclOperation.ANY, AclPermissionType.ANY)",
    "AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', "
        "'allow') == AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow')",
    "AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow') < AclBinding('topic', "
        "'b', 'literal', 'User:a', '*', 'read', 'allow')",
    "len({AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow'), "
        "AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow')})",
    # offsets
    "OffsetSpec.latest()._value, OffsetSpec.earliest()._value, OffsetSpec.max_timestamp()._value",
    "OffsetSpec.for_timestamp(5)._value",
    "OffsetSpec(-1) is OffsetSpec.latest()",
    "OffsetSpec(7)._value",
    "type(OffsetSpec(-2)).__name__", "OffsetSpec.earliest() < OffsetSpec.latest()",
    "vars(ListOffsetsResultInfo(5, 100, -1))", "vars(ListOffsetsResultInfo(5, 100, 3))",
    "vars(DeletedRecords(7))",
    # groups
    "vars(ConsumerGroupListing('g', False, 'stable', 'classic'))",
    "vars(ConsumerGroupListing('g', True))",
    "ConsumerGroupListing('g', False, 'bogus')", "ConsumerGroupListing('g', False, 3.5)",
    "ConsumerGroupState.UNKOWN is ConsumerGroupState.UNKNOWN",
    "sorted(ConsumerGroupState)[-1].name",
    "vars(ListConsumerGroupsResult())", "vars(MemberAssignment(None))",
    "str(Node(1, 'h', 9092))", "str(Node(1, 'h', 9092, 'r1'))", "vars(Node(1, 'h', 9092))",
    "vars(TopicCollection(['a']))",
    # scram
    "vars(ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096))",
    "vars(UserScramCredentialUpsertion('u', None, b'p'))",
    "vars(UserScramCredentialDeletion('u', ScramMechanism.SCRAM_SHA_512))",
    # metadata
    "repr(ClusterMetadata())", "repr(GroupMetadata())", "vars(GroupMember())",
]


def _comparable(outcome):
    """Values that hold enum members or model objects compare by their repr with module
    names removed."""
    if outcome[0] == "raises":
        return outcome
    return ("value", _normalise(repr(outcome[1])).replace("confluent_kafka", "X")
            .replace("confluent_binding", "X"))


@pytest.mark.parametrize("expr", MODEL_EXPRESSIONS)
def test_model_types_like_confluent(expr):
    ours, theirs = _both(expr)
    assert _comparable(ours) == _comparable(theirs)


def test_uuid_equality_is_by_value():
    # confluent-kafka compares Uuids by identity; equal bits are equal here (and hash alike)
    assert ours_admin.Uuid(1, 2) == ours_admin.Uuid(1, 2)
    assert hash(ours_admin.Uuid(1, 2)) == hash(peer_cimpl.Uuid(1, 2))


def test_new_topic_against_other_types_is_not_an_error():
    # confluent-kafka raises NotImplementedError for NewTopic == 1; here it is simply unequal
    assert (ours_admin.NewTopic("t") == 1) is False
    with pytest.raises(TypeError):
        ours_admin.NewTopic("t") < 1


BAD_INPUT = [
    "a.create_topics([])", "a.create_topics([1])", "a.create_topics('x')",
    "a.create_topics([NewTopic('a', 1, 1)], request_timeout=-1)",
    "a.create_topics([NewTopic('a', 1, 1)], operation_timeout=-1)",
    "a.create_topics([NewTopic('a', 1, 1)], validate_only='x')",
    "a.create_topics([NewTopic('a', 1, 1)], foo=1)",
    "a.create_topics([NewTopic('a', 1, 1)], request_timeout='x')",
    "a.create_topics([NewTopic('a', replica_assignment=[[1]], replication_factor=1)])",
    "a.create_topics([NewTopic('a', replica_assignment='x')])",
    "a.create_topics([NewTopic('a', replica_assignment=[['x']])])",
    "a.delete_topics([])", "a.delete_topics('x')",
    "a.delete_topics(['a'], request_timeout=-1)",
    "a.create_partitions([])", "a.create_partitions([1])",
    "a.create_partitions([NewPartitions('a', 2, replica_assignment=[1])])",
    "a.describe_configs([])", "a.describe_configs('x')", "a.describe_configs([1])",
    "a.describe_configs([ConfigResource('topic', 'a')], request_timeout=-1)",
    "a.alter_configs([])",
    "a.incremental_alter_configs([])", "a.incremental_alter_configs([1])",
    "a.incremental_alter_configs([ConfigResource('topic', 'a')])",
    "a.incremental_alter_configs([ConfigResource('topic', 'a', incremental_configs=[1])])",
    "a.incremental_alter_configs([ConfigResource('topic', 'a', "
        "incremental_configs=[ConfigEntry('x', '1')])])",
    "a.incremental_alter_configs([ConfigResource('topic', 'a', "
        "incremental_configs=[ConfigEntry('x', None, "
        "incremental_operation=AlterConfigOpType.SET)])])",
    "a.create_acls([])", "a.create_acls('x')", "a.create_acls([1])", "a.create_acls([None])",
    "a.describe_acls(1)", "a.describe_acls(None)", "a.delete_acls([])", "a.delete_acls([1])",
    "a.list_consumer_groups(states='x')", "a.list_consumer_groups(states={1})",
    "a.list_consumer_groups(types={1})", "a.list_consumer_groups(request_timeout=-1)",
    "a.list_consumer_groups(foo=1)",
    "a.describe_consumer_groups([])", "a.describe_consumer_groups('g')",
    "a.describe_consumer_groups(['g'], include_authorized_operations='x')",
    "a.delete_consumer_groups([])", "a.delete_consumer_groups([1])",
    "a.list_consumer_group_offsets([])", "a.list_consumer_group_offsets(None)",
    "a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g')], require_stable='x')",
    "a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('')])",
    "a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', 0, "
        "5)])])",
    "a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [])])",
    "a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g')])",
    "a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', 0)])])",
    "a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', 0, "
        "5)])], request_timeout=-1)",
    "a.describe_topics(TopicCollection([1]))", "a.describe_topics(TopicCollection(['']))",
    "a.describe_topics(['a'])",
    "a.describe_cluster(request_timeout=-1)", "a.describe_cluster(include_authorized_operations=1)",
    "a.describe_user_scram_credentials('u')", "a.describe_user_scram_credentials([''])",
    "a.alter_user_scram_credentials([])", "a.alter_user_scram_credentials([1])",
    "a.alter_user_scram_credentials([UserScramCredentialUpsertion('u', "
        "ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 0), b'p')])",
    "a.alter_user_scram_credentials([UserScramCredentialUpsertion('u', "
        "ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 10), 'p')])",
    "a.alter_user_scram_credentials([UserScramCredentialDeletion('u', 1)])",
    "a.list_offsets([])", "a.list_offsets({TopicPartition('t', 0): 1})",
    "a.list_offsets({TopicPartition('t', -1): OffsetSpec.latest()})",
    "a.list_offsets({TopicPartition('t', 0): OffsetSpec.latest()}, isolation_level=1)",
    "a.delete_records('x')", "a.delete_records([1])", "a.delete_records([TopicPartition('t', -1)])",
    "a.elect_leaders(1)", "a.elect_leaders(ElectionType.PREFERRED, 'x')",
    "a.elect_leaders(ElectionType.PREFERRED, [TopicPartition('t', -1)])",
    "a.poll('x')", "a.list_topics(timeout='x')", "a.set_sasl_credentials(1, 'x')",
    # replica assignments librdkafka would take out of range (it asserts): checked first
    "a.create_topics([NewTopic('t', 1, replica_assignment=[[1], [2]])])",
    "a.create_topics([NewTopic('t', 2, replica_assignment=[[1]])])",
    "a.create_topics([NewTopic('t', 1, replica_assignment=[[]])])",
    "a.create_topics([NewTopic('t', 1, replica_assignment=[['1']])])",
    "a.create_topics([NewTopic('t', -1, replica_assignment=[[1]])])",
    "a.create_partitions([NewPartitions('t', 2, [[1], [2], [3]])])",
    "a.create_partitions([NewPartitions('t', 2, [])])",
    # what librdkafka's constructors refuse
    "a.create_topics([NewTopic('t', 2**20, 1)])", "a.create_partitions([NewPartitions('t', 0)])",
    "a.create_partitions([NewPartitions('t', -1)])",
    "a.describe_configs([ConfigResource('topic', '')])",
    "a.describe_configs([ConfigResource('broker', '')])",
    "a.alter_configs([ConfigResource('topic', '', set_config={'a': '1'})])",
    "a.incremental_alter_configs([ConfigResource('topic', '', incremental_configs=["
        "ConfigEntry('a', '1', incremental_operation=AlterConfigOpType.SET)])])",
    "a.list_consumer_groups(types={ConsumerGroupType.UNKNOWN})",
    # timeouts no C int holds
    "a.create_topics([NewTopic('t', 1, 1)], request_timeout=2**40)",
    "a.create_topics([NewTopic('t', 1, 1)], request_timeout=float('nan'))",
    "a.create_topics([NewTopic('t', 1, 1)], operation_timeout=float('-inf'))",
    # argument types
    "a.delete_topics(None)", "a.delete_topics(1)", "a.poll(None)", "a.list_topics(1)",
    "a.list_groups(1)", "a.set_sasl_credentials(None, None)", "a.set_sasl_credentials('u')",
]


@pytest.fixture(scope="module")
def clients():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ours_admin.AdminClient(dict(DEAD))
        theirs = peer_admin.AdminClient(dict(DEAD))
    yield ours, theirs
    ours.close()


@pytest.mark.parametrize("expr", BAD_INPUT)
def test_bad_input_raises_like_confluent(clients, expr):
    ours, theirs = _both(expr, ours={"a": clients[0]}, peer={"a": clients[1]})
    assert ours[0] == "raises", ours
    assert ours == theirs


@pytest.mark.parametrize("expr", [
    "a.create_topics([NewTopic('t', 1, 1)])", "a.delete_topics(['t'])",
    "a.describe_configs([ConfigResource('topic', 't')])",
    "a.describe_consumer_groups(['g'])", "a.describe_topics(TopicCollection(['t']))",
    "a.list_offsets({TopicPartition('t', 0): OffsetSpec.latest()})",
    "a.delete_records([TopicPartition('t', 0, 5)])",
    "a.describe_user_scram_credentials(['u'])",
])
def test_future_maps_are_keyed_like_confluent(clients, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _both(expr, ours={"a": clients[0]}, peer={"a": clients[1]})
    assert ours[0] == theirs[0] == "value"
    assert type(ours[1]) is type(theirs[1]) is dict
    assert sorted(map(repr, ours[1])) == sorted(map(repr, theirs[1]))
