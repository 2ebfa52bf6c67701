"""``confluent/type/decimal.proto``: ``Decimal`` (the unscaled value as big-endian two's
complement bytes, its precision and its scale)."""

from .._build import file_descriptor, message_class

DESCRIPTOR = file_descriptor("confluent/type/decimal.proto")
Decimal = message_class(DESCRIPTOR, "Decimal")
