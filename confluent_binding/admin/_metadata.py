"""Cluster metadata returned by list_topics() and list_groups(): plain classes the compiled core
builds, defined there (the core imports nothing from the package) and named here."""

from .._core import (
    BrokerMetadata,
    ClusterMetadata,
    GroupMember,
    GroupMetadata,
    PartitionMetadata,
    TopicMetadata,
)

__all__ = ["BrokerMetadata", "ClusterMetadata", "GroupMember", "GroupMetadata",
           "PartitionMetadata", "TopicMetadata"]
