"""Benchmark runner: confluent-kafka (the peer we are a drop-in for). See bench/_common.py."""

import sys

import confluent_kafka as kafka

from _rdkafka_api import main

if __name__ == "__main__":
    sys.exit(main(kafka, "confluent_kafka", kafka.__version__))
