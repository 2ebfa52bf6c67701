"""Runner: confluent_binding (this project), through the calls in ``runners.confluent_api``."""

import os
import sys

# The orchestrator points BENCH_PYTHONPATH at a frozen copy of the built package; else the tree.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or _ROOT)

import confluent_binding  # noqa: E402
from runners.confluent_api import ConfluentAPI  # noqa: E402
from runners.skeleton import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(ConfluentAPI(confluent_binding, "confluent_binding")))
