"""Cluster description: describe_cluster() and the Node type other results use."""

from ._convert import to_enum_list
from .acls import AclOperation


class Node:
    """A broker: id, host, port and rack."""

    def __init__(self, id, host, port, rack=None):
        self.id = id
        self.id_string = str(id)
        self.host = host
        self.port = port
        self.rack = rack

    def __str__(self):
        rack = "(Rack - %s)" % self.rack if self.rack else ""
        return "(%s) %s:%s %s" % (self.id, self.host, self.port, rack)


class DescribeClusterResult:
    """Result of describe_cluster()."""

    def __init__(self, controller, nodes, cluster_id=None, authorized_operations=None):
        self.cluster_id = cluster_id
        self.controller = controller
        self.nodes = nodes
        self.authorized_operations = to_enum_list(authorized_operations, AclOperation)
