"""Offset planning on the driver: partitions, watermarks, timestamps -> offset ranges."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .. import Consumer, KafkaException, TopicPartition
from ._options import EARLIEST, LATEST, OffsetSpec, SourceOptions

TP = Tuple[str, int]

# How long one metadata/offset request may take before planning fails.
_REQUEST_TIMEOUT = 30.0


@dataclass(frozen=True)
class OffsetRange:
    """Records ``[start, end)`` of one Kafka partition: what one Spark task reads."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


# Defaults of the source's consumers that a kafka.* option overrides. librdkafka's
# fetch.queue.backoff.ms (1000) pauses fetching for a second whenever the local queue is full;
# a task's consumer is drained more slowly than it fetches (Spark takes the rows), so it
# would sit idle once per queue-full: with 10 ms, a consumer that spends 30 ms per 10,000-row
# batch read 1.6x the rows per second.
# isolation.level: Spark's connector reads with the Java client's default, read_uncommitted
# (librdkafka's default is read_committed); kafka.isolation.level=read_committed changes it.
CONSUMER_DEFAULTS: Dict[str, object] = {
    "fetch.queue.backoff.ms": 10,
    "isolation.level": "read_uncommitted",
}


def consumer_config(opts: SourceOptions) -> Dict[str, object]:
    """The configuration of every consumer the source makes: assign only, no commits."""
    conf: Dict[str, object] = dict(CONSUMER_DEFAULTS)
    conf.update(opts.kafka)
    conf.update(
        {
            "group.id": opts.group_id,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
            # An offset out of range is data loss: the reader decides, never a silent reset.
            "auto.offset.reset": "error",
        }
    )
    return conf


class OffsetPlanner:
    """A short-lived consumer on the driver that answers metadata and offset questions."""

    def __init__(self, opts: SourceOptions):
        self.opts = opts
        self._consumer = Consumer(consumer_config(opts))

    def close(self) -> None:
        self._consumer.close()

    def __enter__(self) -> "OffsetPlanner":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _retrying(self, call: Any) -> Any:
        """``call()``, tried again fetchOffset.numRetries times after a Kafka error, waiting
        fetchOffset.retryIntervalMs between tries (as Spark's connector fetches offsets)."""
        tries = self.opts.fetch_retries
        while True:
            try:
                return call()
            except KafkaException:
                if tries <= 0:
                    raise
                tries -= 1
                time.sleep(self.opts.fetch_retry_interval_ms / 1000.0)
                # A new client starts from fresh metadata: after a broker failed, this one may
                # still send a partition's requests to the leader that is gone.
                self._consumer.close()
                self._consumer = Consumer(consumer_config(self.opts))

    def partitions(self) -> List[TP]:
        return self._retrying(self._partitions)

    def _partitions(self) -> List[TP]:
        md = self._consumer.list_topics(timeout=_REQUEST_TIMEOUT)
        counts = {name: len(t.partitions) for name, t in md.topics.items() if t.error is None}
        return self.opts.subscription.partitions(counts)

    def watermarks(self, tps: Iterable[TP]) -> Dict[TP, Tuple[int, int]]:
        tps = list(tps)
        return self._retrying(lambda: self._watermarks(tps))

    def _watermarks(self, tps: Iterable[TP]) -> Dict[TP, Tuple[int, int]]:
        out: Dict[TP, Tuple[int, int]] = {}
        for topic, partition in tps:
            low, high = self._consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=_REQUEST_TIMEOUT, cached=False
            )
            out[(topic, partition)] = (low, high)
        return out

    def offsets_for_times(self, wanted: Mapping[TP, int]) -> Dict[TP, int]:
        """First offset with a timestamp >= the given one, or -1 when there is none."""
        return self._retrying(lambda: self._offsets_for_times(wanted))

    def _offsets_for_times(self, wanted: Mapping[TP, int]) -> Dict[TP, int]:
        if not wanted:
            return {}
        found = self._consumer.offsets_for_times(
            [TopicPartition(t, p, ts) for (t, p), ts in wanted.items()], timeout=_REQUEST_TIMEOUT
        )
        out = {}
        for tp in found:
            if tp.error is not None:
                raise KafkaException(tp.error)
            out[(tp.topic, tp.partition)] = tp.offset
        return out

    def resolve(
        self, spec: OffsetSpec, tps: List[TP], marks: Mapping[TP, Tuple[int, int]], is_start: bool
    ) -> Dict[TP, int]:
        """Concrete offsets for ``spec`` on ``tps`` (every partition must be named by
        per-partition forms, and no others, as Spark's connector requires)."""
        if spec.kind == "earliest":
            return {tp: marks[tp][0] for tp in tps}
        if spec.kind == "latest":
            return {tp: marks[tp][1] for tp in tps}
        if spec.kind in ("offsets", "timestamps"):
            named, have = set(spec.per_partition), set(tps)
            if named != have:
                unknown = sorted(named - have)
                missing = sorted(have - named)
                parts = []
                if unknown:
                    parts.append(
                        "names partitions that are not in the subscription: %s"
                        % ", ".join("%s-%d" % tp for tp in unknown)
                    )
                if missing:
                    parts.append(
                        "does not name partitions of the subscription: %s"
                        % ", ".join("%s-%d" % tp for tp in missing)
                    )
                raise ValueError(
                    "Option '%s' %s (it must name exactly the subscribed partitions)"
                    % (spec.option, "; ".join(parts))
                )
        if spec.kind == "offsets":
            out = {}
            for tp, value in spec.per_partition.items():
                out[tp] = (
                    marks[tp][0]
                    if value == EARLIEST
                    else marks[tp][1]
                    if value == LATEST
                    else value
                )
            return out
        wanted: Dict[TP, int]
        if spec.kind == "timestamp":
            assert spec.timestamp is not None
            wanted = {tp: spec.timestamp for tp in tps}
        else:
            wanted = dict(spec.per_partition)
        found = self.offsets_for_times(wanted)
        out = {}
        for tp in tps:
            offset = found.get(tp, -1)
            if offset < 0:
                if is_start and self.opts.by_timestamp_strategy == "error":
                    raise ValueError(
                        "Option '%s': no record of %s-%d has a timestamp at or after %d (set "
                        "startingOffsetsByTimestampStrategy=latest to start at the end instead)"
                        % (spec.option, tp[0], tp[1], wanted[tp])
                    )
                offset = marks[tp][1]
            out[tp] = offset
        return out


def check_range(rng: OffsetRange, low: int, high: int, fail_on_data_loss: bool) -> OffsetRange:
    """A range clipped to what the partition holds; raises (failOnDataLoss) when records of the
    range are gone, or the range asks for records that do not exist yet."""
    start, end = rng.start, rng.end
    if start < low:
        if fail_on_data_loss:
            raise ValueError(
                "Records of %s-%d from offset %d are gone (the partition now starts at %d): data "
                "was lost, e.g. deleted by retention. Set failOnDataLoss=false to skip them."
                % (rng.topic, rng.partition, start, low)
            )
        start = low
    if end > high:
        if fail_on_data_loss:
            raise ValueError(
                "Offsets of %s-%d up to %d were asked for but the partition ends at %d"
                % (rng.topic, rng.partition, end, high)
            )
        end = high
    if end < start:
        end = start
    return OffsetRange(rng.topic, rng.partition, start, end)


def apportion(weights: Mapping[Any, int], n: int) -> Dict[Any, int]:
    """Shares ``n`` among the keys of ``weights`` in proportion to them, exactly (the largest
    remainders get the leftovers; ties go to the smaller key)."""
    total = sum(weights.values())
    if total <= 0:
        return {k: 0 for k in weights}
    shares = {k: w * n // total for k, w in weights.items()}
    left = n - sum(shares.values())
    for k in sorted(weights, key=lambda k: (-(weights[k] * n % total), k))[:left]:
        shares[k] += 1
    return shares


def _cut(r: OffsetRange, parts: int) -> List[OffsetRange]:
    """``r`` in ``parts`` contiguous pieces whose sizes differ by at most one."""
    step, extra = divmod(r.size, parts)
    out, start = [], r.start
    for j in range(parts):
        end = start + step + (1 if j < extra else 0)
        out.append(OffsetRange(r.topic, r.partition, start, end))
        start = end
    return out


def split(
    ranges: List[OffsetRange],
    min_partitions: Optional[int],
    max_records: Optional[int] = None,
) -> List[OffsetRange]:
    """Splits ranges as Spark's connector does: first every range larger than ``max_records``
    (maxRecordsPerPartition) into pieces of at most that many records, then, while there are
    fewer than ``min_partitions`` (minPartitions), further in proportion to their sizes (at
    least one task each); without overlap or gap."""
    ranges = [r for r in ranges if r.size > 0]
    if max_records:
        ranges = [p for r in ranges for p in _cut(r, -(-r.size // max_records))]
    if not min_partitions or min_partitions <= len(ranges):
        return ranges
    shares = apportion({i: r.size for i, r in enumerate(ranges)}, min_partitions)
    out = []
    for i, r in enumerate(ranges):
        out.extend(_cut(r, max(1, min(r.size, shares[i]))))
    return out


def plan_batch(opts: SourceOptions) -> List[OffsetRange]:
    """The offset ranges of a batch query."""
    assert opts.ending is not None
    with OffsetPlanner(opts) as planner:
        tps = planner.partitions()
        if not tps:
            raise ValueError(
                "The subscription (option '%s') matches no partition of the cluster"
                % opts.subscription.kind
            )
        marks = planner.watermarks(tps)
        starts = planner.resolve(opts.starting, tps, marks, is_start=True)
        ends = planner.resolve(opts.ending, tps, marks, is_start=False)
    ranges = []
    for tp in tps:
        rng = OffsetRange(tp[0], tp[1], starts[tp], ends[tp])
        if rng.start > rng.end:
            raise ValueError(
                "The starting offset (%d) of %s-%d is after its ending offset (%d): "
                "check options '%s' and '%s'"
                % (rng.start, tp[0], tp[1], rng.end, opts.starting.option, opts.ending.option)
            )
        ranges.append(check_range(rng, *marks[tp], opts.fail_on_data_loss))
    return split(ranges, opts.min_partitions, opts.max_records_per_partition)
