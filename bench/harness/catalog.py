"""What can be measured: the clients (one runner module each) and the workloads.

Adding a client or a workload starts here (see bench/README.md, "Adding a workload or a client").
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from harness.settings import ARROW_BATCH, BATCH

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
# the orchestrator passes the tool's path on to runners that run from a frozen copy of bench/
PERF_BIN = os.environ.get("BENCH_PERF_BIN") or os.path.join(
    ROOT, "librdkafka-build", "static", "bin", "rdkafka_performance"
)


@dataclass(frozen=True)
class Client:
    name: str  # result key, and the runner module: bench/runners/<name>.py
    label: str  # table and chart
    color: str  # chart
    pure_python: bool = False  # runs the smaller message counts (the slow peers)
    workloads: tuple = ("P1", "P2", "C1", "C2")
    memory: bool = True  # takes part in M1


@dataclass(frozen=True)
class Workload:
    id: str
    label: str
    producer: bool
    # the C tool's workload this one is compared with (×C); P2 uses its P1 run
    c_reference: str = ""
    batch: int = 0  # messages per call for batch consumers (0: one per call)


C_TOOL = "rdkafka_performance"
# the asyncio sections of the report: each of our asyncio faces against its peers, same workload
# and size, and against our synchronous client on the workload named here (P2, AP2 and AT2
# against sync P2)
AIO_FACES = {
    "confluent_binding_aio": ("aiokafka", "confluent_kafka_aio"),
    "confluent_binding_aiokafka": ("aiokafka",),
}
AIO_SYNC_REFERENCE = {"P2": "P2", "AP2": "P2", "AT2": "P2", "C1": "C1"}
SUBJECT = "confluent_binding"  # the client the ratios and the regression check are about
PEER = "confluent_kafka"  # the drop-in peer the ratios are taken against

CLIENTS = {
    c.name: c
    for c in (
        Client(
            "confluent_binding",
            "confluent_binding (ours)",
            "#d62728",
            workloads=("P1", "P2", "C1", "C2", "C3"),
        ),
        Client("confluent_kafka", "confluent-kafka", "#1f77b4"),
        Client("kafka_python", "kafka-python", "#2ca02c", pure_python=True),
        Client(
            "aiokafka", "aiokafka", "#9467bd", pure_python=True,
            workloads=("P1", "P2", "C1", "C2", "AP2", "AT2"),
        ),
        # the asyncio clients on librdkafka: P2 awaits each produce() and tracks the future it
        # returns, AP2 awaits each delivery in batches (no task per message), AT2 runs a task per
        # message awaiting its delivery, C1 is `async for` (for
        # confluent-kafka's aio, which has no `async for`: await poll(1.0))
        Client(
            "confluent_binding_aio", "confluent_binding.aio (ours)", "#ff7f0e",
            workloads=("P2", "AP2", "AT2", "C1"),
        ),
        # aiokafka's API on the same engine (the aiokafka runner on confluent_binding.aiokafka)
        Client(
            "confluent_binding_aiokafka", "confluent_binding.aiokafka (ours)", "#8c564b",
            workloads=("P1", "P2", "C1", "C2", "AP2", "AT2"),
        ),
        # 10-100x slower than the others on librdkafka (a thread pool under every call): it
        # runs the pure-Python peers' smaller counts, which still last seconds
        Client("confluent_kafka_aio", "confluent-kafka aio", "#17becf", pure_python=True,
               workloads=("P2", "AP2", "AT2", "C1")),
        # its producer always runs a per-message delivery callback: its P1 run stands for P2 too
        Client(
            C_TOOL,
            "rdkafka_performance (C)",
            "#7f7f7f",
            workloads=("P1", "C1", "C2", "C3"),
            memory=False,
        ),
    )
}

WORKLOADS = {
    w.id: w
    for w in (
        Workload("P1", "P1 produce, no callback", True, c_reference="P1"),
        Workload("P2", "P2 produce, per-message callback", True, c_reference="P1"),
        Workload("C1", "C1 consume, one per call", False, c_reference="C1"),
        Workload("C2", "C2 consume, batches of %d" % BATCH, False, c_reference="C2", batch=BATCH),
        # the C tool's C3 run is its C2 run with -B ARROW_BATCH: the same batch size
        Workload(
            "C3",
            "C3 consume into Arrow record batches of %d" % ARROW_BATCH,
            False,
            c_reference="C3",
            batch=ARROW_BATCH,
        ),
        # asyncio clients only: each delivery awaited, batches of futures in flight
        Workload("AP2", "AP2 aio produce, await each delivery in batches", True,
                 c_reference="P1"),
        # asyncio clients only: a task per message awaiting its own delivery
        Workload("AT2", "AT2 aio produce, a task per message awaits its delivery", True,
                 c_reference="P1"),
    )
}

# M1 (memory over a long run) repeats these workloads with RSS sampling.
MEMORY_WORKLOADS = ("P2", "C1")


def runs(client: str, workload: str) -> bool:
    return workload in CLIENTS[client].workloads


def label(client: str) -> str:
    c = CLIENTS.get(client)
    return c.label if c else client
