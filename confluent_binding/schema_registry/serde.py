"""confluent-kafka's ``schema_registry.serde``: what the Schema Registry serdes share (the wire
format, subject naming, the data-contract rules), and the asyncio serdes' bases.

The code lives in private modules below this one: :mod:`._serde` (the blocking serdes' base
classes), :mod:`._rules` and :mod:`._rule_runner` (the rules), :mod:`._aserde` (the asyncio
bases, built on :mod:`._serde`), :mod:`._wire` (the wire format).
"""

# Each private module's __all__ is what this module offers of it. Besides __all__, the imports
# marked F401 offer what confluent-kafka's serde module has too (what it imports for its own use,
# the varint helpers).
from ..serialization import (  # noqa: F401
    Deserializer,
    MessageField,
    SerializationError,
    Serializer,
)
from . import _aserde, _rules, _serde, _wire
from ._aserde import *  # noqa: F403
from ._rest import WouldBlock, may_block  # noqa: F401
from ._rule_runner import default_validation_rule_executor
from ._rules import *  # noqa: F403
from ._serde import *  # noqa: F403
from ._wire import *  # noqa: F403
from ._wire import (  # noqa: F401
    encode_message_indexes,
    read_message_indexes,
    read_varint,
    write_varint,
)
from .error import SchemaRegistryError  # noqa: F401

__all__ = ["default_validation_rule_executor"]
__all__ += _wire.__all__
__all__ += _serde.__all__
__all__ += _rules.__all__
__all__ += _aserde.__all__
