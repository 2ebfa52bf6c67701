"""confluent_binding.admin against confluent-kafka 2.16 side by side, without a broker: the
model types (constructors, reprs, equality, hashing, ordering, enum values), the cimpl
constants, and the exceptions bad input raises at call time. Each expression states what it
gives on both sides, besides the two being alike."""

import concurrent.futures
import re
import warnings

import pytest

import confluent_binding
import confluent_binding.admin as ours_admin
import confluent_binding.cimpl as ours_cimpl
from confluent_binding import ConsumerGroupState, ConsumerGroupType
from confluent_binding.admin import ScramMechanism

from tests.support.parity import Raises, normalize

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
    return re.sub(r"confluent_kafka\.admin\._\w+|confluent_binding\.admin\.\w+", "M",
                  normalize(text))


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


def type_error(text):
    return Raises(TypeError, text)


def value_error(text):
    return Raises(ValueError, text)


def _assert_expected(outcome, expect):
    """Our outcome (the peer's is compared with it separately) is the one the test states."""
    if isinstance(expect, Raises):
        raised = ("raised",) + outcome[1:] if outcome[0] == "raises" else outcome
        assert expect.matches(raised), "expected %r, both gave %r" % (expect, outcome)
    else:
        assert outcome == ("value", expect), "expected %r, both gave %r" % (expect, outcome)


READ_ACL = ("AclBinding(ResourceType.TOPIC,t,ResourcePatternType.LITERAL,User:a,*,"
            "AclOperation.READ,AclPermissionType.ALLOW)")

# (expression, what it gives on both sides: its value, or the exception it raises)
MODEL_EXPRESSIONS = [
    ("repr(NewTopic('t'))", "NewTopic(topic=t)"),
    ("repr(NewTopic('t', 3))", "NewTopic(topic=t,num_partitions=3)"),
    ("repr(NewTopic('t', 3, 2))", "NewTopic(topic=t,num_partitions=3)"),
    ("str(NewTopic('t', 0))", "NewTopic(topic=t,num_partitions=0)"),
    ("NewTopic('t', 3) == NewTopic('t', 3, 2)", True),
    ("NewTopic('t', 3) == NewTopic('t', 4)", False),
    ("NewTopic('t', 3) != NewTopic('t', 3)", False),
    ("NewTopic('a', 9) < NewTopic('b', 1)", True),
    ("NewTopic('a', 1) < NewTopic('a', 2)", True),
    ("NewTopic('a', 1) >= NewTopic('a', 2)", False),
    ("hash(NewTopic('t', 3)) == hash(NewTopic('t', 3, config={'a': 'b'}))", True),
    ("[repr(t) for t in sorted([NewTopic('b'), NewTopic('a', 2), NewTopic('a', 1)])]",
     ["NewTopic(topic=a,num_partitions=1)", "NewTopic(topic=a,num_partitions=2)",
      "NewTopic(topic=b)"]),
    ("NewTopic('t').num_partitions, NewTopic('t').replication_factor, NewTopic('t').config, "
     "NewTopic('t').replica_assignment",
     (-1, -1, None, None)),
    ("NewTopic('t', config={'a': 'b'}).config", {"a": "b"}),
    ("NewTopic()", type_error("function missing required argument 'topic' (pos 1)")),
    ("NewTopic(None)", type_error("argument 1 must be str, not None")),
    ("NewTopic(1)", type_error("argument 1 must be str, not int")),
    ("NewTopic('t', 'x')", type_error("'str' object cannot be interpreted as an integer")),
    ("NewTopic('t', 1, 'x')", type_error("'str' object cannot be interpreted as an integer")),
    ("NewTopic('t', config=1)", type_error("config must be a dict of strings")),
    ("NewTopic('t', config=None)", type_error("config must be a dict of strings")),
    ("NewTopic('t', 2**40)", Raises(OverflowError, "signed integer is greater than maximum")),
    ("NewTopic('t', 1.5)", type_error("'float' object cannot be interpreted as an integer")),
    ("NewTopic('t', 1, 1, None, {}, 5)",
     type_error("function takes at most 5 arguments (6 given)")),
    ("NewTopic('t', foo=1)", type_error("'foo' is an invalid keyword argument for this function")),
    ("NewTopic(topic='t', num_partitions=2).num_partitions", 2),
    ("repr(NewPartitions('t', 3))", "NewPartitions(topic=t,new_total_count=3)"),
    ("NewPartitions('t', 3) == NewPartitions('t', 3, [[1]])", True),
    ("NewPartitions('t', 3) == NewPartitions('t', 4)", False),
    ("NewPartitions('a', 3) < NewPartitions('a', 4)", True),
    ("NewPartitions('t')",
     type_error("function missing required argument 'new_total_count' (pos 2)")),
    ("NewPartitions('t', 'x')", type_error("'str' object cannot be interpreted as an integer")),
    ("NewPartitions(1, 2)", type_error("argument 1 must be str, not int")),
    ("NewPartitions('t', 2, [[1, 2]]).replica_assignment", [[1, 2]]),
    ("str(Uuid(1, 2))", "AAAAAAAAAAEAAAAAAAAAAg"),
    ("repr(Uuid(0, 0))", "AAAAAAAAAAAAAAAAAAAAAA"),
    ("str(Uuid(-1, -1))", "/////////////////////w"),
    ("Uuid(1, 2).get_most_significant_bits()", 1),
    ("Uuid(1, 2).get_least_significant_bits()", 2),
    ("hash(Uuid(1, 2))", 3),
    ("Uuid('a', 1)", type_error("'str' object cannot be interpreted as an integer")),
    ("Uuid(1)", type_error("function missing required argument 'least_significant_bits' (pos 2)")),
    ("Uuid(2**64, 1)", Raises(OverflowError, "int too big to convert")),
    ("repr(ConfigResource('topic', 't'))", "ConfigResource(ResourceType.TOPIC,t)"),
    ("repr(ConfigResource(ResourceType.BROKER, '1'))", "ConfigResource(ResourceType.BROKER,1)"),
    ("repr(ConfigResource(2, 't'))", "ConfigResource(ResourceType.TOPIC,t)"),
    ("ConfigResource('nope', 't')",
     value_error('Unknown resource type "nope": should be a ConfigResource.Type')),
    ("ConfigResource('topic', None)", value_error("Expected resource name to be a string")),
    ("ConfigResource('topic', 't') == ConfigResource(ResourceType.TOPIC, 't')", True),
    ("ConfigResource('topic', 'a') < ConfigResource('topic', 'b')", True),
    ("ConfigResource('topic', 'b') < ConfigResource('group', 'a')", True),
    ("hash(ConfigResource('topic', 't')) == hash(ConfigResource(2, 't'))", True),
    ("len(ConfigResource('topic', 't', set_config={'a': '1', 'b': '2'}))", 2),
    ("ConfigResource('topic', 't').restype_int", 2),
    ("repr(ConfigEntry('a', '1'))", 'ConfigEntry(a="1")'),
    ("str(ConfigEntry('a', None))", 'a="None"'),
    ("ConfigEntry('a', '1').source.name, ConfigEntry('a', '1').is_default, ConfigEntry('a', "
     "'1').incremental_operation",
     ("UNKNOWN_CONFIG", False, None)),
    ("repr(AclBinding(ResourceType.TOPIC, 't', ResourcePatternType.LITERAL, 'User:a', '*', "
     "AclOperation.READ, AclPermissionType.ALLOW))",
     READ_ACL),
    ("repr(AclBinding('topic', 't', 'literal', 'User:a', '*', 'read', 'allow'))",
     READ_ACL),
    ("repr(AclBinding(2, 't', 3, 'User:a', '*', 3, 3))",
     READ_ACL),
    ("AclBinding(ResourceType.ANY, 't', ResourcePatternType.LITERAL, 'User:a', '*', "
     "AclOperation.READ, AclPermissionType.ALLOW)",
     value_error("Cannot use enum restype, value ANY in this class")),
    ("AclBinding(ResourceType.TOPIC, 't', ResourcePatternType.MATCH, 'User:a', '*', "
     "AclOperation.READ, AclPermissionType.ALLOW)",
     value_error("Cannot use enum resource_pattern_type, value MATCH in this class")),
    ("AclBinding(ResourceType.TOPIC, None, ResourcePatternType.LITERAL, 'User:a', '*', "
     "AclOperation.READ, AclPermissionType.ALLOW)",
     value_error("Expected name to be not None")),
    ("AclBinding(ResourceType.TOPIC, 1, ResourcePatternType.LITERAL, 'User:a', '*', "
     "AclOperation.READ, AclPermissionType.ALLOW)",
     type_error("Expected name to be a string")),
    ("AclBinding('nope', 't', 'literal', 'User:a', '*', 'read', 'allow')",
     value_error('Unknown value "nope": should be a ResourceType')),
    ("AclBinding(1.5, 't', 'literal', 'User:a', '*', 'read', 'allow')",
     type_error('Unknown value "1.5": should be a ResourceType')),
    ("repr(AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, "
     "AclOperation.ANY, AclPermissionType.ANY))",
     "AclBindingFilter(ResourceType.ANY,None,ResourcePatternType.ANY,None,None,AclOperation.ANY,"
     "AclPermissionType.ANY)"),
    ("AclBindingFilter(ResourceType.UNKNOWN, None, ResourcePatternType.ANY, None, None, "
     "AclOperation.ANY, AclPermissionType.ANY)",
     value_error("Cannot use enum restype, value UNKNOWN in this class")),
    ("AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow') == AclBinding('topic', "
     "'a', 'literal', 'User:a', '*', 'read', 'allow')",
     True),
    ("AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow') < AclBinding('topic', "
     "'b', 'literal', 'User:a', '*', 'read', 'allow')",
     True),
    ("len({AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow'), "
     "AclBinding('topic', 'a', 'literal', 'User:a', '*', 'read', 'allow')})",
     1),
    ("OffsetSpec.latest()._value, OffsetSpec.earliest()._value, OffsetSpec.max_timestamp()._value",
     (-1, -2, -3)),
    ("OffsetSpec.for_timestamp(5)._value", 5),
    ("OffsetSpec(-1) is OffsetSpec.latest()", True),
    ("OffsetSpec(7)._value", 7),
    ("type(OffsetSpec(-2)).__name__", "EarliestSpec"),
    ("OffsetSpec.earliest() < OffsetSpec.latest()", True),
    ("vars(ListOffsetsResultInfo(5, 100, -1))",
     {"offset": 5, "timestamp": 100, "leader_epoch": None}),
    ("vars(ListOffsetsResultInfo(5, 100, 3))", {"offset": 5, "timestamp": 100, "leader_epoch": 3}),
    ("vars(DeletedRecords(7))", {"low_watermark": 7}),
    ("vars(ConsumerGroupListing('g', False, 'stable', 'classic'))",
     {"group_id": "g", "is_simple_consumer_group": False,
      "state": ConsumerGroupState.STABLE, "type": ConsumerGroupType.CLASSIC}),
    ("vars(ConsumerGroupListing('g', True))", {"group_id": "g", "is_simple_consumer_group": True}),
    ("ConsumerGroupListing('g', False, 'bogus')",
     value_error('Unknown value "bogus": should be a ConsumerGroupState')),
    ("ConsumerGroupListing('g', False, 3.5)",
     type_error('Unknown value "3.5": should be a ConsumerGroupState')),
    ("ConsumerGroupState.UNKOWN is ConsumerGroupState.UNKNOWN", True),
    ("sorted(ConsumerGroupState)[-1].name", "EMPTY"),
    ("vars(ListConsumerGroupsResult())", {"valid": None, "errors": None}),
    ("vars(MemberAssignment(None))", {"topic_partitions": []}),
    ("str(Node(1, 'h', 9092))", "(1) h:9092 "),
    ("str(Node(1, 'h', 9092, 'r1'))", "(1) h:9092 (Rack - r1)"),
    ("vars(Node(1, 'h', 9092))",
     {"id": 1, "id_string": "1", "host": "h", "port": 9092, "rack": None}),
    ("vars(TopicCollection(['a']))", {"topic_names": ["a"]}),
    ("vars(ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096))",
     {"mechanism": ScramMechanism.SCRAM_SHA_256, "iterations": 4096}),
    ("vars(UserScramCredentialUpsertion('u', None, b'p'))",
     {"user": "u", "scram_credential_info": None, "password": b"p", "salt": None}),
    ("vars(UserScramCredentialDeletion('u', ScramMechanism.SCRAM_SHA_512))",
     {"user": "u", "mechanism": ScramMechanism.SCRAM_SHA_512}),
    ("repr(ClusterMetadata())", "ClusterMetadata(None)"),
    ("repr(GroupMetadata())", "GroupMetadata(None)"),
    ("vars(GroupMember())",
     {"id": None, "client_id": None, "client_host": None, "metadata": None, "assignment": None}),
]


def _comparable(outcome):
    """Values that hold enum members or model objects compare by their repr with module
    names removed."""
    if outcome[0] == "raises":
        return outcome
    return ("value", _normalise(repr(outcome[1])).replace("confluent_kafka", "X")
            .replace("confluent_binding", "X"))


@pytest.mark.parametrize("expr,expect", MODEL_EXPRESSIONS, ids=[e for e, _ in MODEL_EXPRESSIONS])
def test_model_types_like_confluent(expr, expect):
    ours, theirs = _both(expr)
    assert _comparable(ours) == _comparable(theirs)
    _assert_expected(ours, expect)


def test_uuid_equality_is_by_value():
    # confluent-kafka compares Uuids by identity; equal bits are equal here (and hash alike)
    assert ours_admin.Uuid(1, 2) == ours_admin.Uuid(1, 2)
    assert hash(ours_admin.Uuid(1, 2)) == hash(peer_cimpl.Uuid(1, 2))


def test_new_topic_against_other_types_is_not_an_error():
    # confluent-kafka raises NotImplementedError for NewTopic == 1; here it is simply unequal
    assert (ours_admin.NewTopic("t") == 1) is False
    with pytest.raises(TypeError):
        ours_admin.NewTopic("t") < 1


# (call, the exception both sides raise)
BAD_INPUT = [
    ("a.create_topics([])", value_error("Expected non-empty list of NewTopic objects")),
    ("a.create_topics([1])", Raises(AttributeError, "'int' object has no attribute 'topic'")),
    ("a.create_topics('x')", Raises(AttributeError, "'str' object has no attribute 'topic'")),
    ("a.create_topics([NewTopic('a', 1, 1)], request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.create_topics([NewTopic('a', 1, 1)], operation_timeout=-1)",
     value_error('Invalid value type for "operation_timeout": expecting integer in range '
                 "-1..3600000")),
    ("a.create_topics([NewTopic('a', 1, 1)], validate_only='x')",
     type_error("Expected validate_only to be bool type, not str")),
    ("a.create_topics([NewTopic('a', 1, 1)], foo=1)",
     type_error("'foo' is an invalid keyword argument for this function")),
    ("a.create_topics([NewTopic('a', 1, 1)], request_timeout='x')",
     type_error("must be real number, not str")),
    ("a.create_topics([NewTopic('a', replica_assignment=[[1]], replication_factor=1)])",
     value_error("replication_factor and replica_assignment are mutually exclusive")),
    ("a.create_topics([NewTopic('a', replica_assignment='x')])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.create_topics([NewTopic('a', replica_assignment=[['x']])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.delete_topics([])", value_error("Expected non-empty list of topic strings")),
    ("a.delete_topics('x')", type_error("argument 1 must be list, not str")),
    ("a.delete_topics(['a'], request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.create_partitions([])", value_error("Expected non-empty list of NewPartitions objects")),
    ("a.create_partitions([1])", Raises(AttributeError, "'int' object has no attribute 'topic'")),
    ("a.create_partitions([NewPartitions('a', 2, replica_assignment=[1])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "new_total_count - existing partition count")),
    ("a.describe_configs([])", value_error("Expected non-empty list of ConfigResource objects")),
    ("a.describe_configs('x')", value_error("Expected list of <class 'M.ConfigResource'>")),
    ("a.describe_configs([1])", value_error("Expected list of <class 'M.ConfigResource'>")),
    ("a.describe_configs([ConfigResource('topic', 'a')], request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.alter_configs([])", value_error("Expected non-empty list of ConfigResource objects")),
    ("a.incremental_alter_configs([])",
     value_error("Expected non-empty list of ConfigResource objects")),
    ("a.incremental_alter_configs([1])", type_error("Expected list of <class 'M.ConfigResource'>")),
    ("a.incremental_alter_configs([ConfigResource('topic', 'a')])",
     value_error("expected non-empty list of ConfigEntry to alter incrementally in "
                 "incremental_configs field")),
    ("a.incremental_alter_configs([ConfigResource('topic', 'a', incremental_configs=[1])])",
     type_error("expected ConfigEntry type in incremental_configs field, index 0")),
    ("a.incremental_alter_configs([ConfigResource('topic', 'a', "
     "incremental_configs=[ConfigEntry('x', '1')])])",
     type_error("Required attribute .value missing")),
    ("a.incremental_alter_configs([ConfigResource('topic', 'a', "
     "incremental_configs=[ConfigEntry('x', None, "
     "incremental_operation=AlterConfigOpType.SET)])])",
     type_error("Expected .value to be str type, not NoneType")),
    ("a.create_acls([])", value_error("Expected non-empty list of AclBinding objects")),
    ("a.create_acls('x')", value_error("Expected list of <class 'M.AclBinding'>")),
    ("a.create_acls([1])", value_error("Expected list of <class 'M.AclBinding'>")),
    ("a.create_acls([None])", value_error("Expected list of <class 'M.AclBinding'>")),
    ("a.describe_acls(1)", type_error("Expected an AclBindingFilter object")),
    ("a.describe_acls(None)", type_error("Expected an AclBindingFilter object")),
    ("a.delete_acls([])", value_error("Expected non-empty list of AclBindingFilter objects")),
    ("a.delete_acls([1])", value_error("Expected list of <class 'M.AclBindingFilter'>")),
    ("a.list_consumer_groups(states='x')", type_error("'states' must be a set")),
    ("a.list_consumer_groups(states={1})",
     type_error("All elements of states must be of type ConsumerGroupState")),
    ("a.list_consumer_groups(types={1})",
     type_error("All elements of types must be of type ConsumerGroupType")),
    ("a.list_consumer_groups(request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.list_consumer_groups(foo=1)",
     type_error("'foo' is an invalid keyword argument for this function")),
    ("a.describe_consumer_groups([])", value_error("Expected at least one group to be described")),
    ("a.describe_consumer_groups('g')",
     type_error("Expected input to be list of group ids to be described")),
    ("a.describe_consumer_groups(['g'], include_authorized_operations='x')",
     type_error("Expected include_authorized_operations to be bool type, not str")),
    ("a.delete_consumer_groups([])", value_error("Expected at least one group to be deleted")),
    ("a.delete_consumer_groups([1])", value_error("Expected list of <class 'str'>")),
    ("a.list_consumer_group_offsets([])",
     value_error("Currently we support listing offsets for a single consumer group only")),
    ("a.list_consumer_group_offsets(None)", type_error("request cannot be None")),
    ("a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g')], require_stable='x')",
     type_error("Expected require_stable to be bool type, not str")),
    ("a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('')])",
     value_error("'group_id' cannot be empty")),
    ("a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', 0, "
     "5)])])",
     value_error("Element of 'topic_partitions' must not have 'offset' value")),
    ("a.list_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [])])",
     value_error("'topic_partitions' cannot be empty")),
    ("a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g')])",
     value_error("'topic_partitions' cannot be null")),
    ("a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', "
     "0)])])",
     value_error("Element of 'topic_partitions' must not have negative value for 'offset' field")),
    ("a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions('g', [TopicPartition('t', 0, "
     "5)])], request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.describe_topics(TopicCollection([1]))",
     type_error("Expected list of topics strings, not int")),
    ("a.describe_topics(TopicCollection(['']))",
     value_error("Empty topic name at index 0 isn't allowed")),
    ("a.describe_topics(['a'])", type_error("Expected input to be instance of TopicCollection")),
    ("a.describe_cluster(request_timeout=-1)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.describe_cluster(include_authorized_operations=1)",
     type_error("Expected include_authorized_operations to be bool type, not int")),
    ("a.describe_user_scram_credentials('u')", type_error("Expected input to be list of String")),
    ("a.describe_user_scram_credentials([''])", value_error("'user' cannot be empty")),
    ("a.alter_user_scram_credentials([])", value_error("Expected at least one alteration")),
    ("a.alter_user_scram_credentials([1])",
     type_error("Expected each element of list to be subclass of UserScramCredentialAlteration")),
    ("a.alter_user_scram_credentials([UserScramCredentialUpsertion('u', "
     "ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 0), b'p')])",
     value_error("Iterations should be positive")),
    ("a.alter_user_scram_credentials([UserScramCredentialUpsertion('u', "
     "ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 10), 'p')])",
     type_error("'password' must be bytes")),
    ("a.alter_user_scram_credentials([UserScramCredentialDeletion('u', 1)])",
     type_error("Expected the mechanism to be ScramMechanism Type")),
    ("a.list_offsets([])",
     type_error("Expected topic_partition_offsets to be dict of [TopicPartitions,OffsetSpec] "
                "for list offsets request")),
    ("a.list_offsets({TopicPartition('t', 0): 1})", type_error("Value must be a OffsetSpec")),
    ("a.list_offsets({TopicPartition('t', -1): OffsetSpec.latest()})",
     value_error("partition index must be non-negative")),
    ("a.list_offsets({TopicPartition('t', 0): OffsetSpec.latest()}, isolation_level=1)",
     type_error("isolation_level argument should be an IsolationLevel")),
    ("a.delete_records('x')", type_error("Expected Request to be a list, got 'str' ")),
    ("a.delete_records([1])",
     type_error("Element of the request list must be of type 'TopicPartition' got 'int' ")),
    ("a.delete_records([TopicPartition('t', -1)])", value_error("'partition' cannot be negative")),
    ("a.elect_leaders(1)", type_error("Expected 'election_type' to be of type 'ElectionType'")),
    ("a.elect_leaders(ElectionType.PREFERRED, 'x')",
     type_error("Expected 'partitions' to be a list, got 'str'")),
    ("a.elect_leaders(ElectionType.PREFERRED, [TopicPartition('t', -1)])",
     value_error("Elements of the 'partitions' list must not have negative value for "
                 "'partition' field")),
    ("a.poll('x')", type_error("must be real number, not str")),
    ("a.list_topics(timeout='x')", type_error("must be real number, not str")),
    ("a.set_sasl_credentials(1, 'x')", type_error("argument 1 must be str, not int")),
    ("a.create_topics([NewTopic('t', 1, replica_assignment=[[1], [2]])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.create_topics([NewTopic('t', 2, replica_assignment=[[1]])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.create_topics([NewTopic('t', 1, replica_assignment=[[]])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.create_topics([NewTopic('t', 1, replica_assignment=[['1']])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "num_partitions")),
    ("a.create_topics([NewTopic('t', -1, replica_assignment=[[1]])])",
     value_error("Specifying a default partition count and a replica assignment are mutually "
                 "exclusive")),
    ("a.create_partitions([NewPartitions('t', 2, [[1], [2], [3]])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "new_total_count - existing partition count")),
    ("a.create_partitions([NewPartitions('t', 2, [])])",
     value_error("replica_assignment must be a list of int lists with an outer size of "
                 "new_total_count - existing partition count")),
    ("a.create_topics([NewTopic('t', 2**20, 1)])",
     value_error("Invalid NewTopic(t): num_partitions out of expected range 1..100000 or -1 "
                 "for broker default")),
    ("a.create_partitions([NewPartitions('t', 0)])",
     value_error("Invalid NewPartitions(t): new_total_cnt out of expected range 1..100000")),
    ("a.create_partitions([NewPartitions('t', -1)])",
     value_error("Invalid NewPartitions(t): new_total_cnt out of expected range 1..100000")),
    ("a.describe_configs([ConfigResource('topic', '')])",
     value_error("Invalid ConfigResource(2,)")),
    ("a.describe_configs([ConfigResource('broker', '')])",
     value_error("Invalid ConfigResource(4,)")),
    ("a.alter_configs([ConfigResource('topic', '', set_config={'a': '1'})])",
     value_error("Invalid ConfigResource(2,)")),
    ("a.incremental_alter_configs([ConfigResource('topic', '', "
     "incremental_configs=[ConfigEntry('a', '1', incremental_operation=AlterConfigOpType.SET)])])",
     value_error("Invalid ConfigResource(2,)")),
    ("a.list_consumer_groups(types={ConsumerGroupType.UNKNOWN})",
     value_error("UNKNOWN type is not allowed")),
    ("a.create_topics([NewTopic('t', 1, 1)], request_timeout=2**40)",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.create_topics([NewTopic('t', 1, 1)], request_timeout=float('nan'))",
     value_error('Invalid value type for "request_timeout": expecting integer in range '
                 "0..3600000")),
    ("a.create_topics([NewTopic('t', 1, 1)], operation_timeout=float('-inf'))",
     value_error('Invalid value type for "operation_timeout": expecting integer in range '
                 "-1..3600000")),
    ("a.delete_topics(None)", type_error("'NoneType' object is not iterable")),
    ("a.delete_topics(1)", type_error("'int' object is not iterable")),
    # a None topic or group is refused (any other object is named by its str())
    ("a.delete_topics([None])", value_error("Expected list of topic strings, not NoneType")),
    ("a.delete_topics(['t', None])", value_error("Expected list of topic strings, not NoneType")),
    ("a.delete_topics(('t',))", type_error("argument 1 must be list, not tuple")),
    ("a.describe_consumer_groups([None])",
     value_error("Expected list of group strings, not NoneType")),
    ("a.describe_consumer_groups(['g', None])",
     value_error("Expected list of group strings, not NoneType")),
    # elect_leaders checks the election type first, then the partitions
    ("a.elect_leaders(None, 'x')", type_error("Expected 'election_type' to be of type "
                                              "'ElectionType'")),
    ("a.elect_leaders('PREFERRED', [None])", type_error("Expected 'election_type' to be of "
                                                        "type 'ElectionType'")),
    ("a.elect_leaders(ElectionType.PREFERRED, [None])",
     type_error("Element of the 'partitions' list must be of type 'TopicPartition' got "
                "'NoneType'")),
    ("a.elect_leaders(ElectionType.UNCLEAN, {TopicPartition('t', 0)})",
     type_error("Expected 'partitions' to be a list, got 'set'")),
    ("a.poll(None)", type_error("must be real number, not NoneType")),
    ("a.list_topics(1)", type_error("argument 1 must be str or None, not int")),
    ("a.list_groups(1)", type_error("argument 1 must be str or None, not int")),
    ("a.set_sasl_credentials(None, None)", type_error("argument 1 must be str, not None")),
    ("a.set_sasl_credentials('u')",
     # (CPython 3.9's message names the method without its class)
     type_error("set_sasl_credentials() missing 1 required positional argument: 'password'")),
]


@pytest.fixture(scope="module")
def clients():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ours_admin.AdminClient(dict(DEAD))
        theirs = peer_admin.AdminClient(dict(DEAD))
    yield ours, theirs
    ours.close()


@pytest.mark.parametrize("expr,expect", BAD_INPUT, ids=[e for e, _ in BAD_INPUT])
def test_bad_input_raises_like_confluent(clients, expr, expect):
    assert isinstance(expect, Raises)
    ours, theirs = _both(expr, ours={"a": clients[0]}, peer={"a": clients[1]})
    assert ours == theirs
    _assert_expected(ours, expect)


# (call on a client that is closed, what both sides do): the requests say "AdminClient has been
# closed", the methods every client type has "Handle has been closed"; the check comes before
# or after the arguments' as confluent-kafka's
CLOSED_ADMIN = "AdminClient has been closed"
CLOSED_CALLS = [
    ("a.poll(0.001)", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.create_topics([NewTopic('t', 1, 1)])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.delete_topics(['t'])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.delete_topics(['t', None])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.delete_topics([])", value_error("Expected non-empty list of topic strings")),
    ("a.create_partitions([NewPartitions('t', 2)])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_configs([ConfigResource('topic', 't')])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.incremental_alter_configs([ConfigResource('topic', 't')])",
     Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.incremental_alter_configs([])",
     value_error("Expected non-empty list of ConfigResource objects")),
    ("a.create_acls([AclBinding(ResourceType.TOPIC, 't', ResourcePatternType.LITERAL, "
     "'User:u', '*', AclOperation.WRITE, AclPermissionType.ALLOW)])",
     Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_acls(None)", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_consumer_groups(['g'])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_consumer_groups([None])",
     value_error("Expected list of group strings, not NoneType")),
    ("a.list_consumer_groups()", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_cluster()", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.describe_topics(TopicCollection(['t']))", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.elect_leaders(ElectionType.PREFERRED, None)", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.elect_leaders(None, None)",
     type_error("Expected 'election_type' to be of type 'ElectionType'")),
    ("a.delete_records([TopicPartition('t', 0, 1)])", Raises(RuntimeError, CLOSED_ADMIN)),
    ("a.list_topics()", Raises(RuntimeError, "Handle has been closed")),
    ("a.list_groups()", Raises(RuntimeError, "Handle has been closed")),
    ("a.set_sasl_credentials('u', 'p')", Raises(RuntimeError, "Handle has been closed")),
    ("len(a)", 0),
    ("bool(a)", False),
    ("a.__enter__() is a", True),
    ("a.__exit__(None, None, None)", None),
]


def _closed_admins(how):
    """A closed AdminClient of each side: left by its ``with`` block, or of a subclass whose
    __init__ never made the client."""
    out = []
    for side in (ours_admin, peer_admin):
        if how == "exited":
            with side.AdminClient(dict(DEAD)) as a:
                a.poll(0.001)
        else:
            class UninitializedAdmin(side.AdminClient):
                def __init__(self, config):
                    pass

            a = UninitializedAdmin({})
        out.append(a)
    return out


@pytest.mark.parametrize("how", ["exited", "uninitialized"])
@pytest.mark.parametrize("expr,expect", CLOSED_CALLS, ids=[e[:50] for e, _ in CLOSED_CALLS])
def test_closed_admin_client_like_confluent(how, expr, expect):
    a_ours, a_peer = _closed_admins(how)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _both(expr, ours={"a": a_ours}, peer={"a": a_peer})
    assert ours == theirs
    _assert_expected(ours, expect)


# (call, the reprs of the keys of the dict of futures it returns on both sides)
FUTURE_MAPS = [
    ("a.create_topics([NewTopic('t', 1, 1)])", ["'t'"]),
    ("a.delete_topics(['t'])", ["'t'"]),
    ("a.describe_configs([ConfigResource('topic', 't')])",
     ["ConfigResource(ResourceType.TOPIC,t)"]),
    ("a.describe_consumer_groups(['g'])", ["'g'"]),
    ("a.describe_topics(TopicCollection(['t']))", ["'t'"]),
    ("a.list_offsets({TopicPartition('t', 0): OffsetSpec.latest()})",
     ["TopicPartition{topic=t,partition=0,offset=-1,leader_epoch=None,error=None}"]),
    ("a.delete_records([TopicPartition('t', 0, 5)])",
     ["TopicPartition{topic=t,partition=0,offset=5,leader_epoch=None,error=None}"]),
    ("a.describe_user_scram_credentials(['u'])", ["'u'"]),
]


@pytest.mark.parametrize("expr,keys", FUTURE_MAPS, ids=[e for e, _ in FUTURE_MAPS])
def test_future_maps_are_keyed_like_confluent(clients, expr, keys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _both(expr, ours={"a": clients[0]}, peer={"a": clients[1]})
    assert ours[0] == theirs[0] == "value"
    assert type(ours[1]) is type(theirs[1]) is dict
    assert sorted(map(repr, ours[1])) == sorted(map(repr, theirs[1])) == keys
    assert all(isinstance(f, concurrent.futures.Future) for f in ours[1].values())
