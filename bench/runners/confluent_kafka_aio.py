"""Runner: confluent-kafka's ``confluent_kafka.aio`` (its thread-pool asyncio clients), through
the same calls as ``runners.confluent_binding_aio`` (``runners.aio_api``)."""

import sys

import confluent_kafka
from confluent_kafka import aio

from runners.aio_api import AIOConfluentAPI
from runners.skeleton import main

if __name__ == "__main__":
    sys.exit(main(AIOConfluentAPI(confluent_kafka, aio, "confluent_kafka_aio")))
