"""Runner: confluent_binding.aio (this project's asyncio clients: no threads, librdkafka wakes
the loop).

P2 ``await produce(topic, value, partition=0)`` per message, ``add_done_callback`` on each
returned future (counters only); C1 ``async for`` over the consumer.
"""

import os
import sys

# The orchestrator points BENCH_PYTHONPATH at a frozen copy of the built package; else the tree.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or _ROOT)

import confluent_binding  # noqa: E402
from confluent_binding import aio  # noqa: E402
from runners.aio_api import AIOConfluentAPI  # noqa: E402
from runners.skeleton import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(AIOConfluentAPI(confluent_binding, aio, "confluent_binding_aio")))
