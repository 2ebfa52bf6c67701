"""Resource configuration: describe_configs(), alter_configs(), incremental_alter_configs()."""

import functools
from enum import Enum
from typing import Any, Dict, List, Optional

from .._core import KafkaError
from .acls import ResourceType


class AlterConfigOpType(Enum):
    """Operations of incremental_alter_configs() (``rd_kafka_AlterConfigOpType_t``)."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


class ConfigSource(Enum):
    """Where a config value comes from (``rd_kafka_ConfigSource_t``)."""

    UNKNOWN_CONFIG = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    GROUP_CONFIG = 8


class ConfigEntry:
    """One config property: as described by the broker, or an incremental alteration."""

    def __init__(self, name: str, value: Optional[str],
                 source: ConfigSource = ConfigSource.UNKNOWN_CONFIG, is_read_only: bool = False,
                 is_default: bool = False, is_sensitive: bool = False, is_synonym: bool = False,
                 synonyms: Dict[str, "ConfigEntry"] = {},
                 incremental_operation: Optional[AlterConfigOpType] = None) -> None:
        self.name: str = name
        self.value: Optional[str] = value
        self.source: ConfigSource = source
        self.is_read_only: bool = bool(is_read_only)
        self.is_default: bool = bool(is_default)
        self.is_sensitive: bool = bool(is_sensitive)
        self.is_synonym: bool = bool(is_synonym)
        self.synonyms: Dict[str, ConfigEntry] = synonyms
        self.incremental_operation: Optional[AlterConfigOpType] = incremental_operation

    def __repr__(self) -> str:
        return 'ConfigEntry(%s="%s")' % (self.name, self.value)

    def __str__(self) -> str:
        return '%s="%s"' % (self.name, self.value)


@functools.total_ordering
class ConfigResource:
    """A resource whose config is described or altered; equal and hashed by (type, name)."""

    Type = ResourceType

    def __init__(self, restype: Any, name: str, set_config: Optional[Dict[str, str]] = None,
                 described_configs: Optional[Dict[str, ConfigEntry]] = None,
                 error: Optional[KafkaError] = None,
                 incremental_configs: Optional[List[ConfigEntry]] = None) -> None:
        if name is None:
            raise ValueError("Expected resource name to be a string")
        if isinstance(restype, str):
            try:
                restype = ResourceType[restype.upper()]
            except KeyError:
                raise ValueError('Unknown resource type "%s": should be a ConfigResource.Type'
                                 % restype) from None
        elif isinstance(restype, int):
            restype = ResourceType(restype)
        self.restype: ResourceType = restype
        self.restype_int: int = int(restype.value)
        self.name: str = name
        self.set_config_dict: Dict[str, str] = dict(set_config) if set_config is not None else {}
        self.incremental_configs: List[ConfigEntry] = list(incremental_configs or [])
        self.configs: Optional[Dict[str, ConfigEntry]] = described_configs
        self.error: Optional[KafkaError] = error

    def __repr__(self) -> str:
        if self.error is not None:
            return "ConfigResource(%s,%s,%r)" % (self.restype, self.name, self.error)
        return "ConfigResource(%s,%s)" % (self.restype, self.name)

    def __hash__(self) -> int:
        return hash((self.restype, self.name))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfigResource):
            return NotImplemented
        return self.restype == other.restype and self.name == other.name

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ConfigResource):
            return NotImplemented
        # confluent-kafka's order: a smaller type first, otherwise by name
        if self.restype < other.restype:
            return True
        return self.name < other.name

    def __len__(self) -> int:
        return len(self.set_config_dict)

    def set_config(self, name: str, value: str, overwrite: bool = True) -> None:
        """Set ``name`` to ``value`` for alter_configs() (keeps an earlier value when
        ``overwrite`` is false)."""
        if overwrite or name not in self.set_config_dict:
            self.set_config_dict[name] = value

    def add_incremental_config(self, config_entry: ConfigEntry) -> None:
        """Add a ConfigEntry with an ``incremental_operation`` for incremental_alter_configs()."""
        self.incremental_configs.append(config_entry)
