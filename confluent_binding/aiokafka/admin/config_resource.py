"""``aiokafka.admin.config_resource``: :class:`ConfigResource`, :class:`ConfigResourceType`."""

from enum import IntEnum
from typing import Any

__all__ = ["ConfigResource", "ConfigResourceType"]


class ConfigResourceType(IntEnum):
    """The kinds of resource with configs (Kafka's codes)."""
    BROKER = 4
    TOPIC = 2


class ConfigResource:
    """A resource whose configs are described or altered: ``resource_type`` (a
    ConfigResourceType or its name), ``name``, ``configs`` {name: value} (to alter; to
    describe, the names wanted, None for all)."""

    def __init__(self, resource_type: Any, name: Any, configs: Any = None) -> None:
        if not isinstance(resource_type, ConfigResourceType):
            resource_type = ConfigResourceType[str(resource_type).upper()]
        self.resource_type = resource_type
        self.name = name
        self.configs = configs
