"""``confluent/type/variant.proto``: ``Variant`` (a semi-structured value: its metadata and
value buffers)."""

from .._build import file_descriptor, message_class

DESCRIPTOR = file_descriptor("confluent/type/variant.proto")
Variant = message_class(DESCRIPTOR, "Variant")
