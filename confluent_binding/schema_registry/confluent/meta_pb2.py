"""``confluent/meta.proto``: ``Meta``, ``Rule`` and the options that carry a Meta."""

from ._build import META_FIELD_NUMBER, file_descriptor, message_class

DESCRIPTOR = file_descriptor("confluent/meta.proto")
Meta = message_class(DESCRIPTOR, "Meta")
Rule = message_class(DESCRIPTOR, "Rule")

FILE_META_FIELD_NUMBER = MESSAGE_META_FIELD_NUMBER = FIELD_META_FIELD_NUMBER = \
    ENUM_META_FIELD_NUMBER = ENUM_VALUE_META_FIELD_NUMBER = META_FIELD_NUMBER
file_meta = DESCRIPTOR.extensions_by_name["file_meta"]
message_meta = DESCRIPTOR.extensions_by_name["message_meta"]
field_meta = DESCRIPTOR.extensions_by_name["field_meta"]
enum_meta = DESCRIPTOR.extensions_by_name["enum_meta"]
enum_value_meta = DESCRIPTOR.extensions_by_name["enum_value_meta"]
