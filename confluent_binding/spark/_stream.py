"""Streaming offsets: Spark's connector's JSON form ``{"topic": {"0": 42}}``, the next offset to
read per partition. Spark checkpoints each micro-batch's end; a restarted query continues there."""

from __future__ import annotations

import time
from typing import Dict, List, Mapping, Optional

from ._options import SourceOptions
from ._plan import TP, OffsetPlanner, OffsetRange, apportion, check_range, split


def to_json(offsets: Mapping[TP, int]) -> Dict[str, Dict[str, int]]:
    out: Dict[str, Dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = int(offset)
    return out


def from_json(offsets: Mapping[str, Mapping[str, int]]) -> Dict[TP, int]:
    return {(topic, int(p)): int(o) for topic, parts in offsets.items() for p, o in parts.items()}


def prorate(start: Mapping[TP, int], latest: Mapping[TP, int], max_records: int) -> Dict[TP, int]:
    """Ends that read at most ``max_records`` in total, shared in proportion to each partition's
    backlog."""
    lag = {tp: max(0, latest[tp] - start.get(tp, latest[tp])) for tp in latest}
    if sum(lag.values()) <= max_records:
        return dict(latest)
    shares = apportion(lag, max_records)
    return {tp: start.get(tp, latest[tp]) + shares[tp] for tp in latest}


class StreamPlanner:
    """Driver-side offset logic of the stream reader. Spark keeps one instance per query run
    (in its streaming source worker), so it may remember the last trigger and the
    Trigger.AvailableNow target."""

    def __init__(self, opts: SourceOptions):
        self.opts = opts
        # When the last micro-batch was let through (ms since the epoch; 0: never, so the
        # first trigger runs at once, as in Spark's connector).
        self.last_trigger_ms = 0.0
        # Trigger.AvailableNow: the end offsets when the query started; never read past them.
        self.target: Optional[Dict[TP, int]] = None
        # The end offsets found by the last latestOffset(): the query progress's latestOffset.
        self.seen: Optional[Dict[TP, int]] = None

    def prepare_available_now(self) -> None:
        with OffsetPlanner(self.opts) as planner:
            tps = planner.partitions()
            marks = planner.watermarks(tps)
        self.target = {tp: marks[tp][1] for tp in tps}

    def delay(self, start: Mapping[TP, int], latest: Mapping[TP, int], min_records: int) -> bool:
        """minOffsetsPerTrigger / maxTriggerDelay: True when the batch should wait (fewer new
        records than ``min_records`` and the last batch less than maxTriggerDelay ago)."""
        now = time.time() * 1000.0
        if now - self.last_trigger_ms >= self.opts.max_trigger_delay_ms:
            self.last_trigger_ms = now
            return False
        new = sum(max(0, latest[tp] - start.get(tp, latest[tp])) for tp in latest)
        if new < min_records:
            return True
        self.last_trigger_ms = now
        return False

    def initial(self) -> Dict[TP, int]:
        with OffsetPlanner(self.opts) as planner:
            tps = planner.partitions()
            marks = planner.watermarks(tps)
            return planner.resolve(self.opts.starting, tps, marks, is_start=True)

    def latest(
        self,
        start: Mapping[TP, int],
        max_records: Optional[int],
        min_records: Optional[int] = None,
    ) -> Dict[TP, int]:
        """The end of the next micro-batch: everything there is (capped at the AvailableNow
        target), at most ``max_records`` in total (maxOffsetsPerTrigger), or ``start`` itself
        while fewer than ``min_records`` are new (minOffsetsPerTrigger, until maxTriggerDelay)."""
        if self.target is not None:
            tps = sorted(self.target)
            marks = {tp: (0, self.target[tp]) for tp in tps}
            with OffsetPlanner(self.opts) as planner:
                lows = planner.watermarks([tp for tp in tps if tp not in start])
            for tp, (low, _) in lows.items():
                marks[tp] = (low, self.target[tp])
            min_records = None  # waiting for more would wait for records the query must not read
        else:
            with OffsetPlanner(self.opts) as planner:
                tps = planner.partitions()
                marks = planner.watermarks(tps)
            self.seen = {tp: marks[tp][1] for tp in tps}
        # Partitions that appeared since the start are read from their beginning.
        begin = dict(start)
        for tp in tps:
            begin.setdefault(tp, marks[tp][0])
        latest = {tp: max(marks[tp][1], begin[tp]) for tp in tps}
        for tp, offset in start.items():
            latest.setdefault(tp, offset)  # a partition that vanished keeps its position
        if min_records is not None and self.delay(begin, latest, min_records):
            return dict(start)
        if max_records is not None:
            latest = prorate(begin, latest, max_records)
        return latest

    def ranges(self, start: Mapping[TP, int], end: Mapping[TP, int]) -> List[OffsetRange]:
        new = [tp for tp in end if tp not in start]
        marks = {}
        with OffsetPlanner(self.opts) as planner:
            marks = planner.watermarks(sorted(end))
        ranges = []
        for tp in sorted(end):
            begin = start[tp] if tp not in new else marks[tp][0]
            rng = OffsetRange(tp[0], tp[1], begin, end[tp])
            if rng.size <= 0:
                continue
            low, high = marks[tp]
            ranges.append(check_range(rng, low, max(high, rng.end), self.opts.fail_on_data_loss))
        return split(ranges, self.opts.min_partitions, self.opts.max_records_per_partition)
