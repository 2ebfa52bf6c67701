"""A typed program using the AdminClient (type-checked, never run)."""
from concurrent.futures import Future
from typing import Dict, List

from confluent_binding import TopicPartition
from confluent_binding.admin import (
    AdminClient,
    ConfigResource,
    ConsumerGroupDescription,
    NewTopic,
    OffsetSpec,
    ResourceType,
    TopicCollection,
)


def create(admin: AdminClient) -> List[str]:
    futures: Dict[str, "Future[None]"] = admin.create_topics(
        [NewTopic("events", num_partitions=3, replication_factor=1)])
    created: List[str] = []
    for topic, future in futures.items():
        future.result(30)
        created.append(topic)
    return created


def describe(admin: AdminClient) -> int:
    total = 0
    for description in admin.describe_topics(TopicCollection(["events"])).values():
        topic = description.result()
        total += len(topic.partitions)
        for partition in topic.partitions:
            leader = partition.leader
            print(partition.id, leader.host if leader is not None else None)
    configs = admin.describe_configs([ConfigResource(ResourceType.TOPIC, "events")])
    for resource, future in configs.items():
        for name, entry in future.result().items():
            print(resource.name, name, entry.value, entry.is_default)
    return total


def offsets(admin: AdminClient) -> List[int]:
    request = {TopicPartition("events", 0): OffsetSpec.latest()}
    return [f.result().offset for f in admin.list_offsets(request).values()]


def groups(admin: AdminClient) -> List[str]:
    listed = admin.list_consumer_groups().result()
    names = [g.group_id for g in listed.valid or []]
    described: Dict[str, "Future[ConsumerGroupDescription]"] = (
        admin.describe_consumer_groups(names) if names else {})
    return [d.result().state.name for d in described.values()]


def run() -> None:
    with AdminClient({"bootstrap.servers": "localhost:9092"}) as admin:
        create(admin)
        describe(admin)
        offsets(admin)
        groups(admin)
