"""ACL bindings and filters: create_acls(), describe_acls(), delete_acls()."""

import functools
from typing import Any, Dict, Optional, Tuple

from ._convert import OrderedEnum, to_enum


class ResourceType(OrderedEnum):
    """Kinds of Kafka resources (librdkafka's ``rd_kafka_ResourceType_t``)."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    BROKER = 4
    TRANSACTIONAL_ID = 5


class ResourcePatternType(OrderedEnum):
    """How an ACL's resource name matches (``rd_kafka_ResourcePatternType_t``)."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(OrderedEnum):
    """Operations an ACL allows or denies (``rd_kafka_AclOperation_t``)."""

    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12


class AclPermissionType(OrderedEnum):
    """Whether an ACL allows or denies (``rd_kafka_AclPermissionType_t``)."""

    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


_FIELDS = ("restype", "name", "resource_pattern_type", "principal", "host", "operation",
           "permission_type")


@functools.total_ordering
class AclBinding:
    """One ACL: who (principal, host) may or may not do what (operation) on which resource.

    The enum arguments accept a member, its name or its number.
    """

    _required: Tuple[str, ...] = _FIELDS
    _forbidden: Dict[str, Tuple[OrderedEnum, ...]] = {
        "restype": (ResourceType.ANY,),
        "resource_pattern_type": (ResourcePatternType.ANY, ResourcePatternType.MATCH),
        "operation": (AclOperation.ANY,),
        "permission_type": (AclPermissionType.ANY,),
    }

    def __init__(self, restype: Any, name: Optional[str], resource_pattern_type: Any,
                 principal: Optional[str], host: Optional[str], operation: Any,
                 permission_type: Any) -> None:
        values = dict(zip(_FIELDS, (restype, name, resource_pattern_type, principal, host,
                                    operation, permission_type)))
        for field in self._required:
            if values[field] is None:
                raise ValueError("Expected %s to be not None" % (field,))
        for field in ("name", "principal", "host"):
            if values[field] is not None and not isinstance(values[field], str):
                raise TypeError("Expected %s to be a string" % (field,))
        self.restype: ResourceType = to_enum(restype, ResourceType)
        self.name: Optional[str] = name
        self.resource_pattern_type: ResourcePatternType = to_enum(resource_pattern_type,
                                                                  ResourcePatternType)
        self.principal: Optional[str] = principal
        self.host: Optional[str] = host
        self.operation: AclOperation = to_enum(operation, AclOperation)
        self.permission_type: AclPermissionType = to_enum(permission_type, AclPermissionType)
        for field, forbidden in self._forbidden.items():
            member = getattr(self, field)
            if member in forbidden:
                raise ValueError("Cannot use enum %s, value %s in this class"
                                 % (field, member.name))
        self.restype_int: int = self.restype.value
        self.resource_pattern_type_int: int = self.resource_pattern_type.value
        self.operation_int: int = self.operation.value
        self.permission_type_int: int = self.permission_type.value

    def _to_tuple(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, f) for f in _FIELDS)

    def __repr__(self) -> str:
        return "%s(%s,%s,%s,%s,%s,%s,%s)" % ((type(self).__name__,) + self._to_tuple())

    def __hash__(self) -> int:
        return hash(self._to_tuple())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AclBinding):
            return NotImplemented
        return self._to_tuple() == other._to_tuple()

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, AclBinding):
            return NotImplemented
        return self._to_tuple() < other._to_tuple()


class AclBindingFilter(AclBinding):
    """A pattern over ACL bindings: None for name/principal/host and the ``ANY`` members match
    everything."""

    _required = ("restype", "resource_pattern_type", "operation", "permission_type")
    _forbidden: Dict[str, Tuple[OrderedEnum, ...]] = {
        "restype": (ResourceType.UNKNOWN,),
        "resource_pattern_type": (ResourcePatternType.UNKNOWN,),
        "operation": (AclOperation.UNKNOWN,),
        "permission_type": (AclPermissionType.UNKNOWN,),
    }
