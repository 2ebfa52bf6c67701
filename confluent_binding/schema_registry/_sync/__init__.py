"""confluent-kafka's ``schema_registry._sync`` package, where its blocking Schema Registry client
and serdes live: each module here offers the names of its namesake one level up (the same
objects), for code that imports them from there."""
