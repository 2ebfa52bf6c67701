"""Lets Spark find confluent_binding's Kafka source by name, without a register() call.

Spark (4.0+) imports every top-level module whose name starts with ``pyspark_`` and registers
its ``DefaultSource`` data source, so ``spark.read.format("cbkafka")`` works once the package is
installed with its ``[spark]`` extra.
"""

from confluent_binding.spark import KafkaDataSource as DefaultSource

__all__ = ["DefaultSource"]
