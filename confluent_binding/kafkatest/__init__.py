"""The verifiable clients Apache Kafka's system tests (kafkatest) drive, as confluent-kafka has
them.

Each is a program: ``python -m confluent_binding.kafkatest.verifiable_producer --topic T
--broker-list HOST:PORT`` (and ``verifiable_consumer``) takes the Java VerifiableProducer's and
VerifiableConsumer's options and writes one JSON event per line on stdout (``startup_complete``,
``producer_send_success``, ``partitions_assigned``, ``records_consumed``, ``offsets_committed``,
``shutdown_complete``, ...), its diagnostics on stderr. SIGTERM ends a client cleanly.
"""
