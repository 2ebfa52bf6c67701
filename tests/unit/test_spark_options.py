"""The Spark source's option parsing and range arithmetic (no Spark, no broker)."""

import pytest

pytest.importorskip("pyspark")

from confluent_binding.spark._options import source_options  # noqa: E402
from confluent_binding.spark._plan import (  # noqa: E402
    OffsetRange,
    apportion,
    consumer_config,
    split,
)
from confluent_binding.spark._stream import from_json, prorate, to_json  # noqa: E402

BS = {"kafka.bootstrap.servers": "127.0.0.1:9"}


def test_auto_registration_module_names_the_source():
    import pyspark_cbkafka

    assert pyspark_cbkafka.DefaultSource.name() == "cbkafka"


def test_options_are_case_insensitive_and_kafka_options_lose_their_prefix():
    o = source_options(
        dict(BS, SUBSCRIBE="a, b", **{"kafka.fetch.min.bytes": "7"}, includeheaders="TRUE"),
        streaming=False,
    )
    assert o.subscription.topics == ("a", "b")
    assert o.kafka == {"bootstrap.servers": "127.0.0.1:9", "fetch.min.bytes": "7"}
    assert o.include_headers and o.fail_on_data_loss
    assert o.starting.kind == "earliest" and o.ending.kind == "latest"
    assert o.group_id.startswith("spark-kafka-source-")


def test_task_consumers_fetch_again_after_10_ms_unless_a_kafka_option_says_otherwise():
    conf = consumer_config(source_options(dict(BS, subscribe="a"), streaming=False))
    assert conf["fetch.queue.backoff.ms"] == 10
    assert conf["enable.auto.commit"] is False and conf["auto.offset.reset"] == "error"
    given = dict(BS, subscribe="a", **{"kafka.fetch.queue.backoff.ms": "500"})
    conf = consumer_config(source_options(given, streaming=False))
    assert conf["fetch.queue.backoff.ms"] == "500"


def test_streaming_defaults_to_latest_and_takes_max_offsets_per_trigger():
    o = source_options(dict(BS, subscribe="a", maxOffsetsPerTrigger="5"), streaming=True)
    assert o.starting.kind == "latest" and o.ending is None and o.max_offsets_per_trigger == 5


def test_timestamp_options_take_precedence_like_spark():
    o = source_options(
        dict(
            BS,
            subscribe="a",
            startingOffsets="earliest",
            startingTimestamp="5",
            startingOffsetsByTimestamp='{"a":{"0":1}}',
        ),
        streaming=False,
    )
    assert (o.starting.kind, o.starting.timestamp) == ("timestamp", 5)
    o = source_options(
        dict(BS, subscribe="a", endingOffsetsByTimestamp='{"a":{"0":9}}'), streaming=False
    )
    assert o.ending.kind == "timestamps" and o.ending.per_partition == {("a", 0): 9}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"subscribe": "a"}, "'kafka.bootstrap.servers' must be specified"),
        (dict(BS), "One of the following options must be specified"),
        (dict(BS, subscribe="a", subscribePattern="b"), "Only one of the following options"),
        (dict(BS, subscribe=" , "), "No topics to subscribe to"),
        (dict(BS, subscribePattern="("), "'subscribePattern' is not a valid pattern"),
        (dict(BS, assign='{"a":"0"}'), "Option 'assign': partitions of topic 'a'"),
        (dict(BS, assign="[1]"), "Option 'assign' must be a JSON object"),
        (dict(BS, subscribe="a", startingOffsets="latest"), "'startingOffsets' can't be 'latest'"),
        (
            dict(BS, subscribe="a", endingOffsets='{"a":{"0":-2}}'),
            "'endingOffsets' can't be earliest (-2)",
        ),
        (
            dict(BS, subscribe="a", startingOffsets='{"a":{"0":-3}}'),
            "Option 'startingOffsets': offsets must be",
        ),
        (dict(BS, subscribe="a", startingOffsets='{"a":{"x":1}}'), "'x' is not a partition number"),
        (
            dict(BS, subscribe="a", startingTimestamp="soon"),
            "'startingTimestamp' must be a timestamp",
        ),
        (
            dict(BS, subscribe="a", failOnDataLoss="maybe"),
            "'failOnDataLoss' must be 'true' or 'false'",
        ),
        (
            dict(BS, subscribe="a", **{"kafka.enable.auto.commit": "true"}),
            "'enable.auto.commit' is not supported",
        ),
        (
            dict(BS, subscribe="a", startingOffsetsByTimestampStrategy="closest"),
            "'startingOffsetsByTimestampStrategy' must be 'error' or 'latest'",
        ),
    ],
)
def test_bad_options_name_the_option(options, message):
    with pytest.raises(ValueError) as info:
        source_options(options, streaming=False)
    assert message in str(info.value)


def test_streaming_refuses_ending_options():
    with pytest.raises(ValueError, match="'endingTimestamp' is not valid in streaming queries"):
        source_options(dict(BS, subscribe="a", endingTimestamp="1"), streaming=True)


def test_apportion_is_exact_and_proportional():
    assert apportion({"a": 1, "b": 1, "c": 1}, 10) == {"a": 4, "b": 3, "c": 3}
    assert apportion({"a": 90, "b": 10}, 7) == {"a": 6, "b": 1}
    assert apportion({"a": 0}, 3) == {"a": 0}


def test_split_covers_each_range_without_overlap_or_gap():
    ranges = [OffsetRange("t", 0, 100, 200), OffsetRange("t", 1, 0, 3), OffsetRange("t", 2, 5, 5)]
    out = split(ranges, 10)
    assert len(out) >= 10
    for p, lo, hi in ((0, 100, 200), (1, 0, 3)):
        mine = sorted((r.start, r.end) for r in out if r.partition == p)
        assert mine[0][0] == lo and mine[-1][1] == hi
        assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))
        assert all(s < e for s, e in mine)
    assert not [r for r in out if r.partition == 2]  # empty ranges make no task
    assert split(ranges, None) == ranges[:2]


def test_prorate_caps_the_total_in_proportion_to_backlog():
    start = {("t", 0): 10, ("t", 1): 0}
    latest = {("t", 0): 40, ("t", 1): 10, ("t", 2): 0}
    assert prorate(start, latest, 100) == latest
    end = prorate(start, latest, 8)
    assert end == {("t", 0): 16, ("t", 1): 2, ("t", 2): 0}


def test_offsets_json_round_trip():
    offsets = {("a", 0): 5, ("a", 10): 7, ("b", 1): 0}
    assert to_json(offsets) == {"a": {"0": 5, "10": 7}, "b": {"1": 0}}
    assert from_json(to_json(offsets)) == offsets
