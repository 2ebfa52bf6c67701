"""The client settings held equal across every client (performance notes §6.3): the one source.

``PRODUCER`` and ``CONSUMER`` say what is held equal, in neutral words; the functions below spell
it for each client family (librdkafka properties, kafka-python and aiokafka keywords, the C tool's
flags). A runner takes its configuration from here and adds only what identifies the run
(bootstrap servers, group id). The report's "Settings" section is written from the same values.
"""

from __future__ import annotations

PRODUCER = {
    "acks": "all",
    "linger_ms": 5,
    "batch_bytes": 1_048_576,
    "max_in_flight": 5,
    "idempotence": False,
    "compression": None,
    # librdkafka's local queue: room for 1M messages; on BufferError poll(0.01) and retry
    "librdkafka_queue_messages": 1_000_000,
}

CONSUMER = {
    "auto_offset_reset": "earliest",
    "isolation": "read_uncommitted",
    "auto_commit": True,
    "auto_commit_interval_ms": 5000,
    "check_crcs": False,  # librdkafka's default; the pure-Python peers default to on
    # librdkafka stops fetching for fetch.queue.backoff.ms (default 1000) whenever its queue holds
    # >= queued.min.messages; a consumer slower than the broker then idles for most of each
    # second. Held equal (and low) for every librdkafka client, the C tool included.
    "fetch_queue_backoff_ms": 10,
    "queued_min_messages": 100_000,  # librdkafka's default; the C tool's own default is 1M
}

CHUNK = 1000  # produces between poll(0) calls; consumer checkpoint interval
BATCH = 1000  # batch size of the batch consume workloads
# The asyncio produce workloads: batches of CHUNK in flight at once, for every client alike. A
# window must hold well more than one linger (5 ms) plus a round trip at the client's rate, or the
# run measures that wait rather than the client. AP2: 100 batches, 100,000 messages (a tenth of
# the local queue the synchronous P2 may fill); at 1M msgs/s 10 batches were 10 ms, and the
# fastest client idled a quarter of the run waiting for its oldest batch. AT2: 10 batches; a task
# per message runs below 0.2M msgs/s, where 10 batches are more than 50 ms of work.
AP2_WINDOW = 100
AT2_WINDOW = 10
ARROW_BATCH = 10000  # rows per Consumer.consume_arrow() call (C3; the C tool's -B in its C3 run)

# The environment variable through which the orchestrator passes --fetch-queue-backoff-ms.
FETCH_BACKOFF_ENV = "BENCH_FETCH_QUEUE_BACKOFF_MS"


def fetch_queue_backoff_ms(environ=None) -> int:
    import os

    env = os.environ if environ is None else environ
    return int(env.get(FETCH_BACKOFF_ENV) or CONSUMER["fetch_queue_backoff_ms"])


def _acks_number() -> int:
    return {"all": -1, "leader": 1, "none": 0}[PRODUCER["acks"]]


# -- librdkafka clients (ours, confluent-kafka) -------------------------------------------------


def librdkafka_producer() -> dict:
    p = PRODUCER
    return {
        "acks": str(_acks_number()),
        "linger.ms": str(p["linger_ms"]),
        "batch.size": str(p["batch_bytes"]),
        "max.in.flight.requests.per.connection": str(p["max_in_flight"]),
        "enable.idempotence": str(p["idempotence"]).lower(),
        "compression.type": p["compression"] or "none",
        "queue.buffering.max.messages": str(p["librdkafka_queue_messages"]),
    }


def librdkafka_consumer() -> dict:
    c = CONSUMER
    return {
        "auto.offset.reset": c["auto_offset_reset"],
        "isolation.level": c["isolation"],
        "enable.auto.commit": str(c["auto_commit"]).lower(),
        "auto.commit.interval.ms": str(c["auto_commit_interval_ms"]),
        "fetch.queue.backoff.ms": str(fetch_queue_backoff_ms()),
    }


# -- the C tool (rdkafka_performance) -----------------------------------------------------------


def c_tool_producer_flags() -> list:
    """The producer settings as rdkafka_performance flags; its own defaults (linger.ms=1000,
    3 retries, 500 ms backoff) are put back to librdkafka's."""
    flags = ["-a", str(_acks_number())]
    for k, v in librdkafka_producer().items():
        if k != "acks":
            flags += ["-X", "%s=%s" % (k, v)]
    return flags + ["-X", "message.send.max.retries=2147483647", "-X", "retry.backoff.ms=100"]


def c_tool_consumer_flags(fetch_backoff_ms: int) -> list:
    c = CONSUMER
    return [
        "-X",
        "queued.min.messages=%d" % c["queued_min_messages"],
        "-X",
        "isolation.level=%s" % c["isolation"],
        "-X",
        "fetch.queue.backoff.ms=%d" % fetch_backoff_ms,
        "-X",
        "session.timeout.ms=45000",
    ]


# -- pure-Python peers --------------------------------------------------------------------------


def kafka_python_producer() -> dict:
    p = PRODUCER
    return {
        "acks": _acks_number(),
        "enable_idempotence": p["idempotence"],
        "linger_ms": p["linger_ms"],
        "batch_size": p["batch_bytes"],
        "max_in_flight_requests_per_connection": p["max_in_flight"],
        "compression_type": p["compression"],
    }


def aiokafka_producer() -> dict:
    p = PRODUCER  # aiokafka has no in-flight limit setting
    return {
        "acks": p["acks"],
        "enable_idempotence": p["idempotence"],
        "linger_ms": p["linger_ms"],
        "max_batch_size": p["batch_bytes"],
        "compression_type": p["compression"],
    }


def python_peer_consumer() -> dict:
    """kafka-python's and aiokafka's consumer keywords (the same names in both)."""
    c = CONSUMER
    return {
        "auto_offset_reset": c["auto_offset_reset"],
        "enable_auto_commit": c["auto_commit"],
        "auto_commit_interval_ms": c["auto_commit_interval_ms"],
        "check_crcs": c["check_crcs"],
        "isolation_level": c["isolation"],
    }


# -- for the report -----------------------------------------------------------------------------


def _kv(d: dict) -> str:
    return " ".join("%s=%s" % kv for kv in d.items())


def note(fetch_backoff_ms: int) -> dict:
    """What the result file and the table say about the settings (derived from the above)."""
    return {
        "producer (librdkafka clients)": _kv(librdkafka_producer())
        + "; partition 0; poll(0) every "
        "%d produces; BufferError: poll(0.01) and retry" % CHUNK,
        "producer (kafka-python)": _kv(kafka_python_producer()) + "; partition 0",
        "producer (aiokafka)": _kv(aiokafka_producer()) + "; partition 0; default asyncio loop",
        "rdkafka_performance producer": "-P -D -p 0 " + " ".join(c_tool_producer_flags()),
        "consumer (librdkafka clients)": _kv(
            dict(librdkafka_consumer(), **{"fetch.queue.backoff.ms": str(fetch_backoff_ms)})
        )
        + "; new group per run",
        "consumer (kafka-python, aiokafka)": _kv(python_peer_consumer()) + "; new group per run",
        "rdkafka_performance consumer": "-G <group> [-B %d (C2) | -B %d (C3)] "
        % (BATCH, ARROW_BATCH)
        + " ".join(c_tool_consumer_flags(fetch_backoff_ms)),
        "payload": "one pre-allocated bytes object per run (producers); consumers read a topic "
        "filled once per size by rdkafka_performance -S 0 (sequence number at the start of "
        "each value)",
    }
