"""The one table of what confluent_binding does differently from confluent-kafka on purpose.

Each row names the API, says what differs and why, and proves it: either a ``scenario`` that
tests/unit/test_differences.py runs on both libraries (``ours`` and ``theirs``: the value each
returns, or the exception each raises, as ``tests.support.parity.Raises``), or, where the
difference needs a broker, a registry or threads, the side-by-side test that shows it
(``proof``: a test's node id). The migration guide's "Differences from confluent-kafka" section
is generated from this table (docs/generated.py); nothing else lists the differences.

A new intended difference is a new row here: its text reaches the guide, its scenario or test
keeps it true.
"""

import importlib
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tests.support.parity import Raises

_UNSET = object()


@dataclass(frozen=True)
class Difference:
    api: str                        # the name users look up
    text: str                       # what differs (Markdown, one paragraph)
    reason: str                     # why it differs on purpose
    scenario: Optional[Callable[[Any], Any]] = None     # run with m = each library's module
    ours: Any = _UNSET
    theirs: Any = _UNSET
    proof: Optional[str] = None     # a side-by-side test's node id, where no scenario can show it


def _admin(m):
    return importlib.import_module(m.__name__ + ".admin")


def _store_subclass(m):
    class Partition(m.TopicPartition):
        pass
    consumer = m.Consumer({"group.id": "g"})
    try:
        return consumer.store_offsets(offsets=[Partition("t", 0, 1)])
    finally:
        consumer.close()


def _metadata_none(m):
    return m.TopicPartition("t", 0, 1, metadata=None).metadata


def _metadata_assigned(m):
    tp = m.TopicPartition("t", 0, 1)
    tp.metadata = "app-state"
    return tp.metadata


def _produce_batch(message):
    def scenario(m):
        producer = m.Producer({"bootstrap.servers": "127.0.0.1:1"})
        try:
            return producer.produce_batch("t", [dict(message, value=b"v")])
        finally:
            producer.purge()
            producer.flush(1)
    return scenario


def _callback_key(key, client="Producer"):
    def scenario(m):
        conf = {key: 1}
        if client == "Consumer":
            conf["group.id"] = "g"
        return getattr(m, client)(conf)
    return scenario


def _unknown_property(m):
    return m.Producer({"bootstrap.server": "127.0.0.1:1"})


def _aws_iam_without_boto3(m):
    """A client configured for AWS IAM tokens where boto3 cannot be imported (the modules that
    imported it are set aside meanwhile, each client's and boto3's own)."""
    aside = {name: mod for name, mod in sys.modules.items()
             if name.split(".")[0] in ("boto3", "botocore")
             or name.startswith(("confluent_kafka._oauthbearer", "confluent_binding._aws_iam"))}
    for name in aside:
        del sys.modules[name]
    sys.modules["boto3"] = None  # type: ignore[assignment]
    try:
        return m.Producer({"bootstrap.servers": "127.0.0.1:1",
                           "sasl.oauthbearer.method": "oidc",
                           "sasl.oauthbearer.metadata.authentication.type": "aws_iam",
                           "sasl.oauthbearer.config": "region=eu-west-1,audience=a"})
    finally:
        del sys.modules["boto3"]
        sys.modules.update(aside)


DIFFERENCES = [
    Difference(
        api="KafkaError",
        text="`KafkaError` derives from `Exception`; `raise KafkaError(code)` surfaces as a "
             "`KafkaException` whose `args[0]` is the error. confluent-kafka's is flagged as "
             "an exception type without deriving from one: only `except KafkaError` catches it.",
        reason="confluent-kafka's own tests expect `KafkaException`; an exception that "
               "`except Exception` cannot catch escapes every generic handler.",
        scenario=lambda m: issubclass(m.KafkaError, Exception), ours=True, theirs=False),
    Difference(
        api="AdminClient.close()",
        text="`AdminClient` has `close()`; confluent-kafka's is closed only by its context "
             "manager or by garbage collection.",
        reason="a client that owns a thread and connections should be closable on purpose.",
        scenario=lambda m: hasattr(_admin(m).AdminClient, "close"), ours=True, theirs=False),
    Difference(
        api="Consumer.store_offsets(), commit(), ...",
        text="take instances of subclasses of `TopicPartition` and `Message`; confluent-kafka "
             "raises `TypeError` for them.",
        reason="frameworks subclass these types (FastStream's test broker subclasses "
               "`Message`).",
        scenario=_store_subclass,
        ours=Raises("KafkaException", "StoreOffsets failed"),     # no assignment: librdkafka
        theirs=Raises(TypeError, "expected TopicPartition")),
    Difference(
        api="TopicPartition.metadata",
        text="may be assigned, and `TopicPartition(..., metadata=None)` is accepted; "
             "confluent-kafka's is read-only and takes only a `str`.",
        reason="`None` is the attribute's own value when no metadata is set.",
        scenario=_metadata_none, ours=None,
        theirs=Raises(TypeError, "argument 4 must be str, not None")),
    Difference(
        api="TopicPartition.metadata (assignment)",
        text="is writable, as the other attributes of `TopicPartition` are.",
        reason="code that fills in commit metadata on offsets it got back should not need to "
               "rebuild them.",
        scenario=_metadata_assigned, ours="app-state",
        theirs=Raises(AttributeError, "readonly attribute")),
    Difference(
        api="commit metadata",
        text="is written as confluent-kafka writes it (UTF-8 and a NUL) and read up to its first "
             "NUL, so a group committed to by either client reads the same in both. Metadata "
             "another client (Java's) committed without a NUL is read whole; confluent-kafka "
             "reads past its end (stray bytes, or `UnicodeDecodeError` when `metadata` is read).",
        reason="reading past the end of a buffer is a bug, not a behaviour to keep.",
        proof="tests/integration/test_consumer.py::test_commit_metadata_reads_the_same_in_both_clients"),
    Difference(
        api="Producer.produce_batch() partition",
        text="a message's `partition` outside int32 raises `OverflowError`; confluent-kafka "
             "wraps it around to another partition.",
        reason="a wrapped-around partition silently writes to the wrong partition.",
        scenario=_produce_batch({"partition": 2 ** 32 + 1}),
        ours=Raises(OverflowError, "greater than maximum"), theirs=1),
    Difference(
        api="Producer.produce_batch() callback",
        text="a per-message `callback` that is not callable raises `TypeError` at once; "
             "confluent-kafka fails only when that message's delivery report is served (out "
             "of `flush()`: a `SystemError`, from Python 3.12 a `TypeError`).",
        reason="the mistake is reported where it is made, before anything is queued.",
        scenario=_produce_batch({"callback": 5}),
        ours=Raises(TypeError, "Message callback at index 0 must be callable"),
        theirs=(Raises(SystemError, "is not a BaseException subclass")
                if sys.version_info < (3, 12)
                else Raises(TypeError, "'int' object is not callable"))),
    Difference(
        api="Producer.produce_batch() timestamp and headers",
        text="a message's `timestamp` and `headers` are produced; confluent-kafka raises "
             "`NotImplementedError` for the first and drops the second.",
        reason="each message is produced with librdkafka's `producev`, which takes both.",
        proof="tests/unit/test_parity.py::test_produce_batch_takes_timestamps_where_confluent_refuses_them"),
    Difference(
        api="non-callable callback keys",
        text="`error_cb`, `stats_cb`, `throttle_cb`, `oauth_cb`, `on_delivery`, `on_commit` "
             "given something not callable raise `TypeError` (\"configuration property 'X' must "
             "be callable, not int\"); confluent-kafka raises `TypeError`, `ValueError` or "
             "`KafkaException` depending on the key.",
        reason="one mistake, one exception type.",
        scenario=_callback_key("throttle_cb"),
        ours=Raises(TypeError, "configuration property 'throttle_cb' must be callable, not int"),
        theirs=Raises(ValueError, "expected throttle_cb property as a callable function")),
    Difference(
        api="non-callable on_commit",
        text="(the same rule, for a consumer's `on_commit`)",
        reason="one mistake, one exception type.",
        scenario=_callback_key("on_commit", "Consumer"),
        ours=Raises(TypeError, "configuration property 'on_commit' must be callable, not int"),
        theirs=Raises("KafkaException", "on_commit requires a callable object")),
    Difference(
        api="unknown configuration properties",
        text="are refused with the same `KafkaException` (`_INVALID_ARG`, \"No such "
             "configuration property\") followed by what was probably meant: the closest known "
             "names (\"did you mean ...?\"), the librdkafka property for a Java client "
             "property, or that a callback key belongs to another client.",
        reason="the most common first-hour mistake should say how to fix it.",
        scenario=_unknown_property,
        ours=Raises("KafkaException",
                    'No such configuration property: "bootstrap.server" '
                    '(did you mean "bootstrap.servers"?)'),
        theirs=Raises("KafkaException", 'No such configuration property: "bootstrap.server"')),
    Difference(
        api="Consumer.poll() read-ahead",
        text="`poll()` takes up to 64 messages per librdkafka call and hands them out one per "
             "call; positions, stored and committed offsets, seeks, pauses and rebalances "
             "behave as with one message per call. A `poll()` called *from a callback* that "
             "such a read-ahead serves gets the messages already read ahead, then `None`; a "
             "`consume()` called there gets `[]` at once (`consume_arrow()` an empty batch); "
             "either, called in another thread, waits (up to its timeout) until that callback "
             "returns. confluent-kafka's would take the next message.",
        reason="speed ({doc}`performance`); messages the read-ahead is taking must not be "
               "overtaken. The consumer's custody: {doc}`../architecture`.",
        proof="tests/unit/test_poll_read_ahead_unit.py::test_no_call_overtakes_a_read_ahead_whose_callback_runs"),
    Difference(
        api="Consumer.poll() Message reuse",
        text="`poll()` keeps a reference to the last two `Message`s it returned and refills the "
             "older one, when nothing else refers to it, for the next message. A `Message` your "
             "code holds is never changed; one it let go lives until two `poll()` calls later "
             "(or `close()`) instead of being freed at once.",
        reason="speed: no deallocation and allocation per message.",
        proof="tests/unit/test_poll_message_reuse.py::test_messages_the_application_holds_are_never_refilled"),
    Difference(
        api="Schema Registry OAuth",
        text="OAuth token requests use the client's configured CA, client certificate and "
             "proxy (confluent-kafka's use the defaults); a `Retry-After` header sets the wait "
             "between retries.",
        reason="a registry behind a private CA or a proxy needs its token endpoint reached the "
               "same way.",
        proof="tests/integration/test_schema_registry_transport.py::test_oauth_token_is_fetched_with_the_configured_ca_and_client_certificate"),
    Difference(
        api="abort_transaction",
        text="aborting a transaction begun right after a commit succeeds; confluent-kafka's "
             "fails with the fatal `INVALID_TXN_STATE` (\"Failed to end transaction\") when "
             "the coordinator refused the transaction's partitions while the commit's markers "
             "were being written, which a few milliseconds between produce and abort make "
             "likely.",
        reason="librdkafka sends EndTxn for a transaction the coordinator never began "
               "(librdkafka issue #4849); the pinned build is patched.",
        proof="tests/integration/test_producer.py::test_abort_right_after_a_commit_is_not_fatal"),
    Difference(
        api="commit after unsubscribe()",
        text="a consumer that left its group (`unsubscribe()`) and assigned partitions by hand "
             "commits their offsets, as a consumer that never joined does; confluent-kafka's "
             "commit is refused by the broker with `UNKNOWN_MEMBER_ID` (\"Commit failed: "
             "Broker: Unknown member\").",
        reason="librdkafka resets the member id when it leaves the group but keeps the "
               "generation, and sends the commit with both; the pinned build resets the "
               "generation too (librdkafka-build/patches/0007).",
        proof="tests/integration/test_consumer.py::test_commit_after_unsubscribe_then_assign"),
    Difference(
        api="error_cb (producer, missing topic)",
        text="a producer told by the cluster that a topic does not exist names it: an error "
             "event (`UNKNOWN_TOPIC_OR_PART`, not fatal, \"Topic T not found in the cluster: "
             "messages produced to it wait up to 30000ms ...\") to `error_cb`, or librdkafka's "
             "log without one; at once with `allow.auto.create.topics=false`, else once the "
             "topic is still missing 5 s after the first produce (a broker that creates topics "
             "answers \"unknown\" while it does). confluent-kafka says nothing until the "
             "messages fail after `topic.metadata.propagation.max.ms`. The messages wait and "
             "fail (or are delivered) the same way on both.",
        reason="a misspelt topic, or a cluster without auto-creation, otherwise shows up as a "
               "30 s silence; a consumer is told of a missing subscribed topic at once already. "
               "The pinned build is patched (librdkafka-build/patches/0006).",
        proof="tests/integration/test_producer_missing_topic.py::test_a_missing_topic_is_named_and_fails_as_confluent_kafka"),
    Difference(
        api="AWS IAM OAUTHBEARER without boto3",
        text="the ImportError names this package's extra (`pip install "
             "'confluent_binding[oauthbearer-aws]'`) where confluent-kafka's names its own.",
        reason="installing confluent-kafka's extra would bring boto3 and a second client.",
        scenario=_aws_iam_without_boto3,
        ours=Raises(ImportError, "pip install 'confluent_binding[oauthbearer-aws]'"),
        theirs=Raises(ImportError, "pip install 'confluent-kafka[oauthbearer-aws]'")),
    Difference(
        api="exception texts naming a class",
        text="give the class's public module here (`Expected list of <class "
             "'confluent_binding.admin.configs.ConfigResource'>` for confluent-kafka's "
             "`confluent_kafka.admin._config.ConfigResource`).",
        reason="the model classes live in public modules here.",
        proof="tests/unit/test_admin_parity.py::test_bad_input_raises_like_confluent"),
    Difference(
        api="oauth_cb",
        text="with a SASL mechanism other than OAUTHBEARER (where librdkafka never asks for a "
             "token), construction returns at once (confluent-kafka waits 10 seconds for the "
             "first token and raises). With OAUTHBEARER both return once `oauth_cb` has set "
             "the first token. Ours calls `oauth_cb` on the constructing thread, then refreshes "
             "the token inside `poll()`, `flush()`, `consume()` and `close()` on the calling "
             "thread, like every other callback; confluent-kafka calls it on librdkafka's "
             "background thread, polled or not.",
        reason="callbacks run only inside the application's own calls, on its thread.",
        proof="tests/unit/test_parity_oauth.py::test_without_oauthbearer_construction_does_not_wait"),
]


def render():
    """The migration guide's list of differences, in Markdown."""
    lines = []
    for d in DIFFERENCES:
        check = ("`%s`" % d.proof) if d.proof else "`tests/unit/test_differences.py`"
        lines.append("- **%s**: %s *Why:* %s (checked by %s)" % (d.api, d.text, d.reason, check))
    return "\n".join(lines) + "\n"
