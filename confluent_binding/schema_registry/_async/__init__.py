"""confluent-kafka's ``schema_registry._async`` package, where its asyncio Schema Registry client
and serdes live: each module here offers the names of its namesake one level up (the same
objects, :mod:`confluent_binding.schema_registry._aserde` being where the asyncio serdes' code
is), for code that imports them from there."""
