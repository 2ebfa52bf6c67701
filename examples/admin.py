"""Create topics with the AdminClient, then describe them and one of their configs.

    python examples/admin.py [--bootstrap-servers HOST:PORT] [--prefix NAME]

Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import os
import sys
import uuid

from confluent_binding import KafkaException, TopicCollection
from confluent_binding.admin import AdminClient, ConfigResource, NewTopic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--prefix", default=f"example-{uuid.uuid4().hex[:6]}")
    args = parser.parse_args()

    orders, audit = f"{args.prefix}-orders", f"{args.prefix}-audit"
    with AdminClient({"bootstrap.servers": args.bootstrap_servers}) as admin:
        # Every request returns futures keyed by what was asked for.
        futures = admin.create_topics([
            NewTopic(orders, num_partitions=3, replication_factor=1),
            NewTopic(audit, num_partitions=1, replication_factor=1,
                     config={"cleanup.policy": "compact"}),
        ])
        for name, future in futures.items():
            try:
                future.result()             # None, or raises KafkaException
                print(f"created {name}")
            except KafkaException as e:
                print(f"could not create {name}: {e.args[0].str()}")
                return 1

        for name, desc in admin.describe_topics(TopicCollection([orders, audit])).items():
            d = desc.result()
            print(f"{name}: {len(d.partitions)} partitions, "
                  f"leaders {[p.leader.id for p in d.partitions]}")

        resource = ConfigResource("topic", audit)
        configs = admin.describe_configs([resource])[resource].result()
        print(f"{audit}: cleanup.policy={configs['cleanup.policy'].value}")

        for future in admin.delete_topics([orders, audit]).values():
            future.result()
        print(f"deleted {orders} and {audit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
