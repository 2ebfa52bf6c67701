"""``aiokafka.coordinator.assignors``: the assignors librdkafka runs for a consumer group."""
