"""Resource configuration: describe_configs(), alter_configs(), incremental_alter_configs()."""

import functools
from enum import Enum

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

    def __init__(self, name, value, source=ConfigSource.UNKNOWN_CONFIG, is_read_only=False,
                 is_default=False, is_sensitive=False, is_synonym=False, synonyms={},
                 incremental_operation=None):
        self.name = name
        self.value = value
        self.source = source
        self.is_read_only = bool(is_read_only)
        self.is_default = bool(is_default)
        self.is_sensitive = bool(is_sensitive)
        self.is_synonym = bool(is_synonym)
        self.synonyms = synonyms
        self.incremental_operation = incremental_operation

    def __repr__(self):
        return 'ConfigEntry(%s="%s")' % (self.name, self.value)

    def __str__(self):
        return '%s="%s"' % (self.name, self.value)


@functools.total_ordering
class ConfigResource:
    """A resource whose config is described or altered; equal and hashed by (type, name)."""

    Type = ResourceType

    def __init__(self, restype, name, set_config=None, described_configs=None, error=None,
                 incremental_configs=None):
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
        self.restype = restype
        self.restype_int = int(restype.value)
        self.name = name
        self.set_config_dict = dict(set_config) if set_config is not None else {}
        self.incremental_configs = list(incremental_configs or [])
        self.configs = described_configs
        self.error = error

    def __repr__(self):
        if self.error is not None:
            return "ConfigResource(%s,%s,%r)" % (self.restype, self.name, self.error)
        return "ConfigResource(%s,%s)" % (self.restype, self.name)

    def __hash__(self):
        return hash((self.restype, self.name))

    def __eq__(self, other):
        if not isinstance(other, ConfigResource):
            return NotImplemented
        return self.restype == other.restype and self.name == other.name

    def __lt__(self, other):
        if not isinstance(other, ConfigResource):
            return NotImplemented
        # confluent-kafka's order: a smaller type first, otherwise by name
        if self.restype < other.restype:
            return True
        return self.name < other.name

    def __len__(self):
        return len(self.set_config_dict)

    def set_config(self, name, value, overwrite=True):
        """Set ``name`` to ``value`` for alter_configs() (keeps an earlier value when
        ``overwrite`` is false)."""
        if overwrite or name not in self.set_config_dict:
            self.set_config_dict[name] = value

    def add_incremental_config(self, config_entry):
        """Add a ConfigEntry with an ``incremental_operation`` for incremental_alter_configs()."""
        self.incremental_configs.append(config_entry)
