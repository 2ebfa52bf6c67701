"""Benchmark runner: confluent_binding (this project). See bench/_common.py for the protocol."""

import os
import sys

# bench/run.py points BENCH_PYTHONPATH at a frozen copy of the built package; else the work tree.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or _ROOT)

import confluent_binding as kafka  # noqa: E402

from _rdkafka_api import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(kafka, "confluent_binding", kafka.__version__))
