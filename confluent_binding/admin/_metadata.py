"""Cluster metadata returned by list_topics()."""


class ClusterMetadata:
    """Brokers and topics of a cluster, as returned by ``list_topics()``."""

    def __init__(self):
        self.cluster_id = None
        self.controller_id = -1
        self.brokers = {}
        self.topics = {}
        self.orig_broker_id = -1
        self.orig_broker_name = None

    def __repr__(self):
        return "ClusterMetadata({})".format(self.cluster_id)

    def __str__(self):
        return str(self.cluster_id)


class BrokerMetadata:
    def __init__(self):
        self.id = -1
        self.host = None
        self.port = -1

    def __repr__(self):
        return "BrokerMetadata({}, {}:{})".format(self.id, self.host, self.port)

    def __str__(self):
        return "{}:{}/{}".format(self.host, self.port, self.id)


class TopicMetadata:
    def __init__(self):
        self.topic = None
        self.partitions = {}
        self.error = None

    def __repr__(self):
        if self.error is not None:
            return "TopicMetadata({}, {} partitions, {})".format(
                self.topic, len(self.partitions), self.error)
        return "TopicMetadata({}, {} partitions)".format(self.topic, len(self.partitions))

    def __str__(self):
        return self.topic


class PartitionMetadata:
    def __init__(self):
        self.id = -1
        self.leader = -1
        self.replicas = []
        self.isrs = []
        self.error = None

    def __repr__(self):
        if self.error is not None:
            return "PartitionMetadata({}, {})".format(self.id, self.error)
        return "PartitionMetadata({})".format(self.id)

    def __str__(self):
        return "{}".format(self.id)


class GroupMember:
    """A member of a group in list_groups()."""

    def __init__(self):
        self.id = None
        self.client_id = None
        self.client_host = None
        self.metadata = None
        self.assignment = None


class GroupMetadata:
    """A group as returned by list_groups()."""

    def __init__(self):
        self.broker = None
        self.id = None
        self.error = None
        self.state = None
        self.protocol_type = None
        self.protocol = None
        self.members = []

    def __repr__(self):
        if self.error is not None:
            return "GroupMetadata({}, {})".format(self.id, self.error)
        return "GroupMetadata({})".format(self.id)

    def __str__(self):
        return str(self.id)
