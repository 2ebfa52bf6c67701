"""Runner: confluent-kafka (the peer we are a drop-in for), through ``runners.confluent_api``."""

import sys

import confluent_kafka

from runners.confluent_api import ConfluentAPI
from runners.skeleton import main

if __name__ == "__main__":
    sys.exit(main(ConfluentAPI(confluent_kafka, "confluent_kafka")))
