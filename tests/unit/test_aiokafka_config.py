"""confluent_binding.aiokafka without a broker: aiokafka's keywords and defaults as librdkafka
properties, the keywords refused (naming the property to use), the SSL context, the murmur2
placement against aiokafka's own, and the mapping of librdkafka's errors onto aiokafka's
classes."""
import os
import ssl

import pytest

from confluent_binding import KafkaError, KafkaException
from confluent_binding.aiokafka import AIOKafkaConsumer, AIOKafkaProducer, errors
from confluent_binding.aiokafka.admin import AIOKafkaAdminClient
from confluent_binding.aiokafka.coordinator.assignors.range import RangePartitionAssignor
from confluent_binding.aiokafka.helpers import create_ssl_context
from confluent_binding.aiokafka.partitioner import DefaultPartitioner, murmur2

from tests.support.aiokafka_peer import real_aiokafka


def test_producer_starts_from_aiokafkas_defaults():
    conf = AIOKafkaProducer(bootstrap_servers=["a:1", "b:2"])._conf
    assert conf["bootstrap.servers"] == "a:1,b:2"
    assert (conf["acks"], conf["linger.ms"], conf["batch.size"], conf["message.max.bytes"],
            conf["request.timeout.ms"], conf["partitioner"]) == (
        "1", "0", "16384", "1048576", "40000", "murmur2_random")
    assert conf["client.id"].startswith("aiokafka-")
    assert "sasl.mechanism" not in conf       # only with a SASL security protocol


def test_producer_acks_follow_idempotence_and_transactions():
    assert AIOKafkaProducer(enable_idempotence=True)._conf["acks"] == "all"
    conf = AIOKafkaProducer(transactional_id="t")._conf
    assert (conf["acks"], conf["enable.idempotence"], conf["transactional.id"]) == (
        "all", "true", "t")
    assert AIOKafkaProducer(acks=-1)._conf["acks"] == "all"
    assert AIOKafkaProducer(acks=0)._conf["acks"] == "0"
    with pytest.raises(ValueError):
        AIOKafkaProducer(enable_idempotence=True, acks=1)


def test_consumer_starts_from_aiokafkas_defaults():
    conf = AIOKafkaConsumer("t", group_id="g")._conf
    assert (conf["group.id"], conf["auto.offset.reset"], conf["enable.auto.commit"],
            conf["isolation.level"], conf["session.timeout.ms"], conf["check.crcs"],
            conf["partition.assignment.strategy"]) == (
        "g", "latest", "true", "read_uncommitted", "10000", "true", "roundrobin")


def test_consumer_keywords_become_properties():
    c = AIOKafkaConsumer(group_id="g", auto_offset_reset="none", enable_auto_commit=False,
                         isolation_level="read_committed", client_rack="r1",
                         partition_assignment_strategy=(RangePartitionAssignor,),
                         security_protocol="SASL_SSL", sasl_plain_username="u",
                         sasl_plain_password="p", request_timeout_ms=5000,
                         extra={"fetch.queue.backoff.ms": "5",
                                "ssl.ca.location": "ca.pem"})
    conf = c._conf
    assert (conf["auto.offset.reset"], conf["enable.auto.commit"], conf["isolation.level"],
            conf["client.rack"], conf["partition.assignment.strategy"],
            conf["security.protocol"], conf["sasl.mechanism"], conf["sasl.username"],
            conf["socket.timeout.ms"], conf["fetch.queue.backoff.ms"]) == (
        "error", "false", "read_committed", "r1", "range", "sasl_ssl", "PLAIN", "u", "5000",
        "5")


def test_consumer_without_group_uses_a_private_group_without_commits():
    conf = AIOKafkaConsumer()._conf
    assert conf["group.id"].startswith("no-group-") and conf["enable.auto.commit"] == "false"


@pytest.mark.parametrize("kwargs, names", [
    ({"sasl_oauth_token_provider": object()}, "sasl.oauthbearer.method"),
    ({"sasl_kerberos_domain_name": "example"}, "sasl.kerberos.principal"),
    ({"partition_assignment_strategy": ("sticky",)}, "partition.assignment.strategy"),
    ({"ssl_context": ssl.create_default_context()}, "ssl.ca.location"),
])
def test_keywords_without_a_librdkafka_counterpart_are_refused_naming_the_property(kwargs,
                                                                                    names):
    with pytest.raises(ValueError, match=names.replace(".", r"\.")):
        AIOKafkaConsumer(**kwargs)


def test_unknown_keywords_are_type_errors_and_python_side_ones_accepted():
    with pytest.raises(TypeError, match="no_such"):
        AIOKafkaProducer(no_such=1)
    with pytest.raises(TypeError, match="no_such"):
        AIOKafkaAdminClient(no_such=1)
    AIOKafkaConsumer(api_version="auto", consumer_timeout_ms=100, rebalance_timeout_ms=1000,
                     exclude_internal_topics=False, loop=None)
    with pytest.raises(ValueError):
        AIOKafkaConsumer(max_poll_records=0)


def test_ssl_context_from_create_ssl_context_becomes_librdkafka_files(tmp_path):
    ca = ssl.get_default_verify_paths().cafile
    if ca is None or not os.path.exists(ca):
        pytest.skip("no CA bundle on this system")
    context = create_ssl_context(cafile=ca)
    assert isinstance(context, ssl.SSLContext)
    conf = AIOKafkaProducer(security_protocol="SSL", ssl_context=context)._conf
    assert (conf["security.protocol"], conf["ssl.ca.location"],
            conf["ssl.endpoint.identification.algorithm"]) == ("ssl", ca, "https")
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    conf = AIOKafkaProducer(security_protocol="SSL", ssl_context=context)._conf
    assert (conf["enable.ssl.certificate.verification"],
            conf["ssl.endpoint.identification.algorithm"]) == ("false", "none")


def test_murmur2_and_placement_match_aiokafkas():
    theirs = pytest.importorskip("aiokafka.partitioner")
    parts = list(range(7))
    for n in range(64):
        data = os.urandom(n)
        assert murmur2(data) == theirs.murmur2(data)
        assert DefaultPartitioner()(data, parts, parts) == theirs.DefaultPartitioner()(
            data, parts, parts)
    assert DefaultPartitioner()(None, parts, [3]) == 3


@pytest.mark.parametrize("code, cls", [
    (KafkaError._TIMED_OUT, errors.KafkaTimeoutError),
    (KafkaError._MSG_TIMED_OUT, errors.KafkaTimeoutError),
    (KafkaError._TRANSPORT, errors.KafkaConnectionError),
    (KafkaError._ALL_BROKERS_DOWN, errors.KafkaConnectionError),
    (KafkaError._STATE, errors.IllegalStateError),
    (KafkaError._UNKNOWN_TOPIC, errors.UnknownTopicOrPartitionError),
    (KafkaError._FENCED, errors.ProducerFenced),
    (KafkaError._PURGE_QUEUE, errors.ProducerClosed),
    (KafkaError._NO_OFFSET, errors.NoOffsetForPartitionError),
    (KafkaError._AUTO_OFFSET_RESET, errors.OffsetOutOfRangeError),
    (KafkaError._AUTHENTICATION, errors.AuthenticationFailedError),
    (KafkaError.MSG_SIZE_TOO_LARGE, errors.MessageSizeTooLargeError),
    (KafkaError.TOPIC_ALREADY_EXISTS, errors.TopicAlreadyExistsError),
    (KafkaError.NOT_COORDINATOR, errors.NotCoordinatorForGroupError),
    (KafkaError.INVALID_PRODUCER_EPOCH, errors.InvalidProducerEpoch),
    (KafkaError.UNKNOWN_MEMBER_ID, errors.UnknownMemberIdError),
    (KafkaError._FAIL, errors.KafkaError),
])
def test_librdkafka_errors_map_to_aiokafkas_classes(code, cls):
    exc = errors.from_kafka_error(KafkaException(KafkaError(code, "reason")))
    assert type(exc) is cls
    assert exc.kafka_error.code() == code


def test_a_commit_failing_because_the_group_moved_on_is_commit_failed():
    for code in (KafkaError.REBALANCE_IN_PROGRESS, KafkaError.ILLEGAL_GENERATION,
                 KafkaError.UNKNOWN_MEMBER_ID):
        exc = errors.from_kafka_error(KafkaError(code), committing=True)
        assert type(exc) is errors.CommitFailedError


def test_broker_error_classes_by_code_match_aiokafkas():
    real_aiokafka()
    import aiokafka.errors as theirs
    assert {c: cls.__name__ for c, cls in errors.kafka_errors.items()} == {
        c: cls.__name__ for c, cls in theirs.kafka_errors.items()}
    for code, cls in theirs.kafka_errors.items():
        ours = errors.kafka_errors[code]
        assert (ours.message, ours.retriable, ours.invalid_metadata) == (
            cls.message, cls.retriable, cls.invalid_metadata)
        assert str(ours("x")) == str(cls("x"))
    for name in theirs.__all__ + ["IllegalOperation", "ProducerFenced"]:
        assert [c.__name__ for c in getattr(errors, name).__mro__] == [
            c.__name__ for c in getattr(theirs, name).__mro__], name


def test_the_attributes_third_party_code_reads():
    from confluent_binding.aiokafka.admin.client import Response
    from confluent_binding.aiokafka.producer.producer import _missing

    p = AIOKafkaProducer(bootstrap_servers="h1:9092,h2:9093", client_id="me", acks=_missing)
    assert (p.client._bootstrap_servers, p.client._client_id) == ("h1:9092,h2:9093", "me")
    assert [h[:2] for h in p.client.hosts] == [("h1", 9092), ("h2", 9093)]
    assert p._conf["acks"] == "1"       # aiokafka's "not given" marker: the default
    assert p._key_serializer is None and p._value_serializer is None
    c = AIOKafkaConsumer("t1", "t2", group_id="g", bootstrap_servers=["h:1"])
    assert (c._client._bootstrap_servers, c._client._client_id, c._group_id) == (
        ["h:1"], c._conf["client.id"], "g")
    assert c._subscription.topics == frozenset({"t1", "t2"})
    assert c._coordinator.member_id is None
    assert Response(topic_errors=[("t", 36, "exists")]).to_object() == {
        "topic_errors": [{"topic": "t", "error_code": 36, "error_message": "exists"}]}


@pytest.mark.parametrize("name", ["AIOKafkaProducer", "AIOKafkaConsumer", "AIOKafkaAdminClient"])
def test_every_aiokafka_keyword_with_aiokafkas_default_is_accepted_and_changes_nothing(name):
    import inspect

    real = real_aiokafka()
    import aiokafka.admin

    from confluent_binding.aiokafka.producer.producer import _missing

    theirs = getattr(aiokafka.admin if name.endswith("Client") else real, name)
    ours = {"AIOKafkaProducer": AIOKafkaProducer, "AIOKafkaConsumer": AIOKafkaConsumer,
            "AIOKafkaAdminClient": AIOKafkaAdminClient}[name]
    defaults = {}
    for param in list(inspect.signature(theirs.__init__).parameters.values())[1:]:
        if param.kind is param.VAR_POSITIONAL:
            continue
        value = param.default
        if param.name == "acks":
            value = _missing            # aiokafka's own marker, from our module
        defaults[param.name] = value
    given = ours(**defaults)._conf
    plain = ours()._conf
    if "group.id" in plain:             # a private group id per consumer without group_id
        given.pop("group.id"), plain.pop("group.id")
    # given explicitly, these are librdkafka's defaults too
    same_as_librdkafka = {"security.protocol": "plaintext", "enable.idempotence": "false",
                          "transaction.timeout.ms": "60000",
                          "sasl.kerberos.service.name": "kafka", "fetch.wait.max.ms": "500",
                          "fetch.min.bytes": "1", "fetch.max.bytes": "52428800",
                          "max.partition.fetch.bytes": "1048576",
                          "auto.commit.interval.ms": "5000", "max.poll.interval.ms": "300000"}
    assert {k: v for k, v in given.items() if k not in plain} == {
        k: v for k, v in same_as_librdkafka.items() if k in given}
    assert {k: given[k] for k in plain} == plain


def test_group_only_metadata_is_what_librdkafka_writes_for_a_group():
    from confluent_binding import Consumer
    from confluent_binding.aiokafka.producer.producer import _group_only_metadata

    consumer = Consumer({"group.id": "some-group-1"})     # never started: generation -1
    try:
        assert _group_only_metadata("some-group-1").__reduce__() == \
            consumer.consumer_group_metadata().__reduce__()
    finally:
        consumer.close()
