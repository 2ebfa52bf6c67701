"""Create the topics an example needs, so that the examples run on clusters that do not create
topics on first use (``auto.create.topics.enable=false``, as managed clusters have it).

    from topics import ensure_topics
    ensure_topics("localhost:9092", {"orders": 3})

A topic that exists already is left as it is (its partition count included).
"""
from confluent_binding import KafkaError, KafkaException
from confluent_binding.admin import AdminClient, NewTopic


def ensure_topics(bootstrap_servers, partitions_by_topic, timeout=30.0):
    """Creates each topic of ``{name: partitions}`` that does not exist yet (replication
    factor: the broker's default) and returns the names it created."""
    admin = AdminClient({"bootstrap.servers": bootstrap_servers})
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=n) for name, n in partitions_by_topic.items()],
        operation_timeout=timeout, request_timeout=timeout)
    created = []
    for name, future in futures.items():
        try:
            future.result(timeout)
            created.append(name)
        except KafkaException as e:
            if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise
    return created
