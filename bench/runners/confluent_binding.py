"""Runner: confluent_binding (this project), through the calls in ``runners.confluent_api``, plus
C3: ``Consumer.consume_arrow(10000, 1.0)``, the columnar consume (pyarrow RecordBatches, no
Python object per record)."""

import os
import sys

# The orchestrator points BENCH_PYTHONPATH at a frozen copy of the built package; else the tree.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or _ROOT)

from harness.settings import ARROW_BATCH  # noqa: E402

import confluent_binding  # noqa: E402
from runners.confluent_api import ConfluentAPI  # noqa: E402
from runners.skeleton import consume_batches, main  # noqa: E402


def account_arrow(run, batch, n: int) -> tuple:
    """``account`` for a RecordBatch: rows and value bytes from the value column's offsets; the
    first and last rows checked against their index. No per-row Python."""
    k = batch.num_rows
    if not k:
        return 0, 0, 0
    values, offsets = batch.column("value"), batch.column("offset")
    ends = memoryview(values.buffers()[1]).cast("i")
    nbytes = ends[values.offset + k] - ends[values.offset]
    run.checkpoint(n, offsets[0].as_py(), values[0].as_py())
    last = offsets[k - 1].as_py()
    if last != n + k - 1:
        run.problem(
            "batch at #%d: last offset %d, expected %d (lost or duplicated)" % (n, last, n + k - 1)
        )
    return k, nbytes, 0


class Binding(ConfluentAPI):
    def workloads(self) -> dict:
        table = super().workloads()
        table["C3"] = self.consume_arrow
        return table

    def consume_arrow(self, run):
        # pyarrow loaded before the clock starts, and only by C3: imported by every workload it
        # added about 46 MB to the RSS of the others' runs
        import pyarrow  # noqa: F401

        return consume_batches(self, run, lambda c: c.consume_arrow, account_arrow, ARROW_BATCH)


if __name__ == "__main__":
    sys.exit(main(Binding(confluent_binding, "confluent_binding")))
