"""Cluster description: describe_cluster() and the Node type other results use."""

from typing import Any, List, Optional

from ._convert import to_enum_list
from .acls import AclOperation


class Node:
    """A broker: id, host, port and rack."""

    def __init__(self, id: int, host: str, port: int, rack: Optional[str] = None) -> None:
        self.id: int = id
        self.id_string: str = str(id)
        self.host: str = host
        self.port: int = port
        self.rack: Optional[str] = rack

    def __str__(self) -> str:
        rack = "(Rack - %s)" % self.rack if self.rack else ""
        return "(%s) %s:%s %s" % (self.id, self.host, self.port, rack)


class DescribeClusterResult:
    """Result of describe_cluster()."""

    def __init__(self, controller: Optional[Node], nodes: List[Node],
                 cluster_id: Optional[str] = None,
                 authorized_operations: Optional[List[Any]] = None) -> None:
        self.cluster_id: Optional[str] = cluster_id
        self.controller: Optional[Node] = controller
        self.nodes: List[Node] = nodes
        self.authorized_operations: Optional[List[AclOperation]] = to_enum_list(
            authorized_operations, AclOperation)
