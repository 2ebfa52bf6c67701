"""``confluent/types/decimal.proto``: imports ``confluent/type/decimal.proto`` publicly."""

from .._build import file_descriptor
from ..type.decimal_pb2 import Decimal  # noqa: F401  (the public import's message)

DESCRIPTOR = file_descriptor("confluent/types/decimal.proto")
