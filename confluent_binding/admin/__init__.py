"""Administrative types. The AdminClient itself comes in a later release."""

from ._metadata import BrokerMetadata, ClusterMetadata, PartitionMetadata, TopicMetadata

__all__ = ["BrokerMetadata", "ClusterMetadata", "PartitionMetadata", "TopicMetadata"]
