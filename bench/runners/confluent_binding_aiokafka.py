"""Runner: confluent_binding.aiokafka (aiokafka's API on this project's asyncio engine): the
aiokafka runner's calls, unchanged, on ``confluent_binding.aiokafka``."""

import os
import sys

# The orchestrator points BENCH_PYTHONPATH at a frozen copy of the built package; else the tree.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or _ROOT)

import confluent_binding  # noqa: E402
from confluent_binding import aiokafka  # noqa: E402
from runners.aiokafka import AIOKafka  # noqa: E402
from runners.skeleton import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(AIOKafka(aiokafka, "confluent_binding_aiokafka", confluent_binding.__version__)))
