"""librdkafka's statistics (the JSON a client emits every ``statistics.interval.ms``) as typed
objects: the figures operators watch, each named as librdkafka names it (its STATISTICS.md
describes every one). A sample is parsed once per interval, inside the ``poll()`` (``flush()``,
``consume()``) call that serves it; nothing here runs per message.

Units are librdkafka's: times in microseconds unless a name says otherwise, sizes in bytes,
counters cumulative since the client was created. An offset or lag librdkafka does not know is
``-1001`` (``OFFSET_INVALID``) or ``-1``, as in the JSON.
"""
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, Mapping, Optional

__all__ = ["Window", "BrokerStatistics", "PartitionStatistics", "TopicStatistics",
           "GroupStatistics", "Statistics", "parse_statistics", "parsed_stats_cb"]

# the partition librdkafka keeps for messages not yet assigned to a partition
UNASSIGNED_PARTITION = -1


@dataclass
class Window:
    """Rolling-window figures of one latency (or size) measure over the last statistics
    interval: microseconds for the latencies (``rtt``, ``int_latency``, ``outbuf_latency``),
    milliseconds for ``throttle``, messages or bytes for a topic's batch figures. ``cnt`` is how
    many values the window saw; with none, every figure is 0."""

    min: int = 0
    max: int = 0
    avg: int = 0
    sum: int = 0
    cnt: int = 0
    stddev: int = 0
    p50: int = 0
    p75: int = 0
    p90: int = 0
    p95: int = 0
    p99: int = 0
    p99_99: int = 0

    @classmethod
    def from_dict(cls, d: Optional[Mapping[str, Any]]) -> "Window":
        """Build from the matching object of librdkafka's statistics JSON."""
        if not d:
            return cls()
        g = d.get
        return cls(g("min", 0), g("max", 0), g("avg", 0), g("sum", 0), g("cnt", 0),
                   g("stddev", 0), g("p50", 0), g("p75", 0), g("p90", 0), g("p95", 0),
                   g("p99", 0), g("p99_99", 0))


@dataclass
class BrokerStatistics:
    """One broker connection: ``name`` is ``host:port/nodeid`` (``/bootstrap`` before the
    client learned the node id), ``source`` is ``learned``, ``configured``, ``logical`` or
    ``internal``."""

    name: str
    nodeid: int
    nodename: str
    source: str
    state: str
    #: requests waiting to be sent, and the messages in them
    outbuf_cnt: int = 0
    outbuf_msg_cnt: int = 0
    #: requests sent and waiting for their response (in flight), and the messages in them
    waitresp_cnt: int = 0
    waitresp_msg_cnt: int = 0
    #: requests sent, bytes sent, send errors, requests sent again, requests timed out
    tx: int = 0
    txbytes: int = 0
    txerrs: int = 0
    txretries: int = 0
    req_timeouts: int = 0
    #: responses received, bytes received, receive errors, correlation-id mismatches
    rx: int = 0
    rxbytes: int = 0
    rxerrs: int = 0
    rxcorriderrs: int = 0
    connects: int = 0
    disconnects: int = 0
    #: round-trip time of requests (µs)
    rtt: Window = field(default_factory=Window)
    #: producer: time a message waited in the client's queues before being sent (µs)
    int_latency: Window = field(default_factory=Window)
    #: time a request waited to be sent (µs)
    outbuf_latency: Window = field(default_factory=Window)
    #: broker throttling time (ms)
    throttle: Window = field(default_factory=Window)
    #: requests sent by type (``Produce``, ``Fetch``, ...)
    req: Dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "BrokerStatistics":
        """Build from the matching object of librdkafka's statistics JSON."""
        g = d.get
        return cls(g("name", ""), g("nodeid", -1), g("nodename", ""), g("source", ""),
                   g("state", ""), g("outbuf_cnt", 0), g("outbuf_msg_cnt", 0),
                   g("waitresp_cnt", 0), g("waitresp_msg_cnt", 0), g("tx", 0), g("txbytes", 0),
                   g("txerrs", 0), g("txretries", 0), g("req_timeouts", 0), g("rx", 0),
                   g("rxbytes", 0), g("rxerrs", 0), g("rxcorriderrs", 0), g("connects", 0),
                   g("disconnects", 0), Window.from_dict(g("rtt")),
                   Window.from_dict(g("int_latency")), Window.from_dict(g("outbuf_latency")),
                   Window.from_dict(g("throttle")), dict(g("req") or {}))


@dataclass
class PartitionStatistics:
    """One partition of a topic as this client sees it."""

    topic: str
    partition: int
    #: node id of the current leader broker (-1: unknown)
    leader: int = -1
    #: producer: messages (and bytes) waiting in the partition's queues, and those ready to send
    msgq_cnt: int = 0
    msgq_bytes: int = 0
    xmit_msgq_cnt: int = 0
    #: consumer: messages (and bytes) fetched and waiting for the application
    fetchq_cnt: int = 0
    fetchq_size: int = 0
    fetch_state: str = ""
    #: consumer: offset of the next message the application gets, last stored and committed
    #: offsets (``-1001``: none)
    app_offset: int = -1001
    stored_offset: int = -1001
    committed_offset: int = -1001
    #: partition's low and high watermarks and last stable offset, as last fetched
    lo_offset: int = -1001
    hi_offset: int = -1001
    ls_offset: int = -1001
    #: consumer: high watermark (last stable offset under read_committed) minus the committed
    #: offset; ``consumer_lag_stored``: minus the stored offset (-1: not known)
    consumer_lag: int = -1
    consumer_lag_stored: int = -1
    #: producer: messages and bytes transmitted (a message sent again is counted again)
    txmsgs: int = 0
    txbytes: int = 0
    #: consumer: messages and bytes received (not counting ones skipped by offset)
    rxmsgs: int = 0
    rxbytes: int = 0
    #: producer: messages in flight to the broker
    msgs_inflight: int = 0
    leader_epoch: int = -1
    #: producer: messages produced to the partition (each once, sent or not yet);
    #: consumer: the same as ``rxmsgs``
    msgs: int = 0

    @property
    def sent(self) -> int:
        """Producer: messages handed to the broker at least once (produced, no longer waiting
        in the client's queues), each counted once however often it was sent again."""
        return max(self.msgs - self.msgq_cnt - self.xmit_msgq_cnt, 0)

    @classmethod
    def from_dict(cls, topic: str, d: Mapping[str, Any]) -> "PartitionStatistics":
        """Build from the matching object of librdkafka's statistics JSON."""
        g = d.get
        return cls(topic, g("partition", UNASSIGNED_PARTITION), g("leader", -1),
                   g("msgq_cnt", 0), g("msgq_bytes", 0), g("xmit_msgq_cnt", 0),
                   g("fetchq_cnt", 0), g("fetchq_size", 0), g("fetch_state", ""),
                   g("app_offset", -1001), g("stored_offset", -1001),
                   g("committed_offset", -1001), g("lo_offset", -1001), g("hi_offset", -1001),
                   g("ls_offset", -1001), g("consumer_lag", -1), g("consumer_lag_stored", -1),
                   g("txmsgs", 0), g("txbytes", 0), g("rxmsgs", 0), g("rxbytes", 0),
                   g("msgs_inflight", 0), g("leader_epoch", -1), g("msgs", 0))


@dataclass
class TopicStatistics:
    """One topic: its partitions by number (librdkafka's internal unassigned partition,
    ``-1``, is left out) and its producer batch figures."""

    topic: str
    #: age of the client's metadata for the topic (ms)
    metadata_age: int = 0
    #: producer: batch sizes (bytes) and batch message counts
    batchsize: Window = field(default_factory=Window)
    batchcnt: Window = field(default_factory=Window)
    partitions: Dict[int, PartitionStatistics] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TopicStatistics":
        """Build from the matching object of librdkafka's statistics JSON."""
        name = d.get("topic", "")
        parts = {}
        for p in (d.get("partitions") or {}).values():
            ps = PartitionStatistics.from_dict(name, p)
            if ps.partition != UNASSIGNED_PARTITION:
                parts[ps.partition] = ps
        return cls(name, d.get("metadata_age", 0), Window.from_dict(d.get("batchsize")),
                   Window.from_dict(d.get("batchcnt")), parts)


@dataclass
class GroupStatistics:
    """A consumer's group membership (``cgrp``)."""

    state: str = ""
    join_state: str = ""
    #: rebalances since the client was created, and partitions assigned now
    rebalance_cnt: int = 0
    assignment_size: int = 0

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GroupStatistics":
        """Build from the matching object of librdkafka's statistics JSON."""
        g = d.get
        return cls(g("state", ""), g("join_state", ""), g("rebalance_cnt", 0),
                   g("assignment_size", 0))


@dataclass
class Statistics:
    """One statistics sample of one client. ``raw`` is the whole parsed JSON, for the figures
    not given a field here."""

    #: the client instance's name (``<client.id>#<type>-<n>``), its ``client.id`` and type
    #: (``producer`` or ``consumer``)
    name: str
    client_id: str
    type: str
    #: wall-clock time of the sample (seconds since the epoch)
    time: int
    #: operations (callbacks, delivery reports, events) waiting for the application's poll
    replyq: int = 0
    #: producer: messages (and their bytes) in the producer's queues
    msg_cnt: int = 0
    msg_size: int = 0
    #: requests sent and bytes sent to the brokers; responses and bytes received
    tx: int = 0
    tx_bytes: int = 0
    rx: int = 0
    rx_bytes: int = 0
    #: messages sent to (a message sent again counted again) and received from the brokers
    txmsgs: int = 0
    txmsg_bytes: int = 0
    rxmsgs: int = 0
    rxmsg_bytes: int = 0
    brokers: Dict[str, BrokerStatistics] = field(default_factory=dict)
    topics: Dict[str, TopicStatistics] = field(default_factory=dict)
    #: a consumer in a group: its membership; otherwise None
    cgrp: Optional[GroupStatistics] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str) -> "Statistics":
        """Parse one sample (``str`` or ``bytes`` holding librdkafka's JSON); ValueError if it
        is not a JSON object."""
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError("librdkafka statistics must be a JSON object, not %s"
                             % type(d).__name__)
        return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Statistics":
        """Build from the matching object of librdkafka's statistics JSON."""
        g = d.get
        cgrp = g("cgrp")
        return cls(g("name", ""), g("client_id", ""), g("type", ""), g("time", 0),
                   g("replyq", 0), g("msg_cnt", 0), g("msg_size", 0), g("tx", 0),
                   g("tx_bytes", 0), g("rx", 0), g("rx_bytes", 0), g("txmsgs", 0),
                   g("txmsg_bytes", 0), g("rxmsgs", 0), g("rxmsg_bytes", 0),
                   {k: BrokerStatistics.from_dict(b) for k, b in (g("brokers") or {}).items()},
                   {k: TopicStatistics.from_dict(t) for k, t in (g("topics") or {}).items()},
                   GroupStatistics.from_dict(cgrp) if cgrp else None, d)

    def partitions(self) -> Iterator[PartitionStatistics]:
        """Every partition of every topic, in topic then partition order."""
        for topic in sorted(self.topics):
            t = self.topics[topic]
            for p in sorted(t.partitions):
                yield t.partitions[p]


def parse_statistics(text: str) -> Statistics:
    """:class:`Statistics` from the JSON string a ``stats_cb`` receives."""
    return Statistics.from_json(text)


def parsed_stats_cb(callback: Callable[[Statistics], Any]) -> Callable[[str], Any]:
    """A ``stats_cb`` that parses each sample and calls ``callback`` with the
    :class:`Statistics` (returning what it returns, so a coroutine function works on the asyncio
    clients too)::

        Producer({"bootstrap.servers": ..., "statistics.interval.ms": 5000,
                  "stats_cb": parsed_stats_cb(lambda s: print(s.msg_cnt))})

    The configuration key ``stats_cb`` itself keeps confluent-kafka's meaning: the raw JSON."""
    if not callable(callback):
        raise TypeError("parsed_stats_cb() needs a callable, not %s" % type(callback).__name__)

    def stats_cb(text: str) -> Any:
        return callback(Statistics.from_json(text))
    stats_cb.__wrapped__ = callback  # type: ignore[attr-defined]
    return stats_cb
