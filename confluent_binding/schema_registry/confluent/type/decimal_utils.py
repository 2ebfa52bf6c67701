"""Conversions between :class:`decimal.Decimal` and ``confluent.type.Decimal`` (the unscaled
integer as minimal big-endian two's-complement bytes, as Java's ``BigInteger.toByteArray()``,
and the scale: the value is ``unscaled * 10**-scale``)."""

from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context

from . import decimal_pb2

__all__ = ["MAX_EMAX", "MAX_PREC", "MIN_EMIN", "from_proto_decimal", "to_proto_decimal",
           "unscaled_to_bytes"]

# exact arithmetic over the whole int32 range of scales: no rounding, no overflow
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


def unscaled_to_bytes(unscaled):
    """The minimal big-endian two's-complement bytes of the integer ``unscaled``."""
    magnitude = unscaled if unscaled >= 0 else ~unscaled  # -128 fits one byte, as 127 does
    return unscaled.to_bytes(magnitude.bit_length() // 8 + 1, "big", signed=True)


def from_proto_decimal(msg):
    """The :class:`~decimal.Decimal` a ``confluent.type.Decimal`` holds (its precision is not
    applied: writers set it to the unscaled value's digit count)."""
    unscaled = int.from_bytes(msg.value, "big", signed=True)
    return _EXACT.create_decimal(unscaled).scaleb(-msg.scale, _EXACT)


def to_proto_decimal(d):
    """The ``confluent.type.Decimal`` of a finite :class:`~decimal.Decimal` at its own scale
    (``Decimal("1.50")``: unscaled 150, scale 2, precision 3)."""
    sign, digits, exponent = d.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError("cannot convert non-finite Decimal '%s' to confluent.type.Decimal" % d)
    unscaled = int("".join(map(str, digits)) or "0")
    return decimal_pb2.Decimal(value=unscaled_to_bytes(-unscaled if sign else unscaled),
                               precision=len(digits), scale=-exponent)
