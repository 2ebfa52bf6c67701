"""``aiokafka.coordinator``: the group assignors given to ``partition_assignment_strategy``
(the group protocol itself is librdkafka's)."""
