"""The Variant binary format (Apache Parquet's encoding of semi-structured values, carried by
``confluent.type.Variant``): :class:`Variant` reads one, :class:`VariantBuilder` and
:func:`parse_json` write one, with the same bytes, JSON text and errors as confluent-kafka's
``variant_utils`` (and the Java client's ``VariantUtils``).

A variant is two buffers. The metadata: a header byte (version 1 in the low four bits, the
width of its offsets less one in the top two), the number of keys, the keys' offsets and the
keys' UTF-8 bytes. The value: a header byte whose low two bits are the basic type (primitive,
short string, object, array) and whose upper six bits say more (the primitive's type, the short
string's length, the widths of an object's or array's ids and offsets), then the payload, all
integers little-endian. An object's fields are sorted by key; its values follow in the order
they were written.
"""

# the format and reading are written in _variant, writing in _variant_builder
from . import _variant, _variant_builder
from ._variant import *  # noqa: F403
from ._variant_builder import *  # noqa: F403

__all__ = sorted(_variant.__all__ + _variant_builder.__all__)

# the classes and functions are this module's (as in confluent-kafka), wherever they are written
for _public in (_variant.Variant, _variant.VariantError, _variant.VariantType, _variant.from_bytes,
                _variant.to_json_string, _variant_builder.VariantBuilder,
                _variant_builder.parse_json):
    _public.__module__ = __name__
del _public
