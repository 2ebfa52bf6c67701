"""``timestamp()`` as data-contract rules call it, and how a timestamp renders as a string.

Beyond cel-python's own ``timestamp(string)`` (RFC 3339) and its component form
(``timestamp(2009, 2, 13)``), rules may call:

* ``timestamp(int)``: epoch seconds;
* ``timestamp(value)``: a timestamp, a timezone-aware ``datetime`` or a
  ``google.protobuf.Timestamp`` (a naive ``datetime``, as Avro's ``local-timestamp-*``
  decodes to, is refused: it names no instant);
* ``timestamp(int, precision)``: an epoch value in seconds (0), millis (3), micros (6) or
  nanos (9), floored to the microsecond a timestamp holds.
"""

import datetime

import celpy
from celpy import celtypes
from celpy.evaluation import base_functions

__all__ = ["TIMESTAMP_FUNCS", "format_timestamp"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_BASE = base_functions.get("timestamp", celtypes.TimestampType)
# microseconds per unit of an epoch value, by its decimal precision
_MICROS_PER = {0: 1_000_000, 3: 1_000, 6: 1}


def _is_int(value):
    """A CEL int (not a bool, not a uint, both of which are Python ints too)."""
    return (isinstance(value, int)
            and not isinstance(value, (bool, celtypes.BoolType, celtypes.UintType)))


def _at_epoch(value, precision):
    if precision in _MICROS_PER:
        micros = value * _MICROS_PER[precision]
    elif precision == 9:
        micros = value // 1000
    else:
        raise celpy.CELEvalError(
            "timestamp: unknown precision %d; expected 0 (seconds), 3 (millis), 6 (micros) or "
            "9 (nanos)" % precision)
    return celtypes.TimestampType(_EPOCH + datetime.timedelta(microseconds=micros))


def _from_proto(message):
    seconds, nanos = int(message.seconds), int(message.nanos)
    try:
        return celtypes.TimestampType(
            _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000))
    except (OverflowError, ValueError) as e:
        raise celpy.CELEvalError("timestamp: proto Timestamp out of range: %ds %dns"
                                 % (seconds, nanos)) from e


def _one(value):
    if value is None:
        raise celpy.CELEvalError("timestamp: cannot convert null to Timestamp")
    if isinstance(value, (bool, celtypes.BoolType)):
        raise celpy.CELEvalError("timestamp: cannot convert bool to Timestamp")
    if isinstance(value, celtypes.TimestampType):
        return value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise celpy.CELEvalError(
                "timestamp: naive datetime (no timezone) cannot be converted. Use the regular "
                "timestamp-* logical type (UTC by spec), or pass an offset-adjusted epoch value "
                "via timestamp(value, precision).")
        return celtypes.TimestampType(value)
    if getattr(getattr(value, "DESCRIPTOR", None), "full_name", "") == \
            "google.protobuf.Timestamp":
        return _from_proto(value)
    if isinstance(value, celtypes.UintType):
        raise celpy.CELEvalError("timestamp: expected an int epoch, got uint")
    if isinstance(value, int):
        try:
            return _at_epoch(int(value), 0)
        except (OverflowError, ValueError, OSError) as e:
            raise celpy.CELEvalError("timestamp: epoch seconds value out of range: %d"
                                     % int(value)) from e
    return _BASE(value)


def timestamp(*args):
    """CEL ``timestamp(...)``: see the module's description."""
    if len(args) == 1:
        return _one(args[0])
    if len(args) == 2:
        value, precision = args
        if not _is_int(value):
            raise celpy.CELEvalError("timestamp: epoch value must be int, got %s"
                                     % type(value).__name__)
        if not _is_int(precision):
            raise celpy.CELEvalError("timestamp: precision must be int, got %s"
                                     % type(precision).__name__)
        try:
            return _at_epoch(int(value), int(precision))
        except (OverflowError, ValueError, OSError) as e:
            raise celpy.CELEvalError("timestamp: epoch value out of range: %d"
                                     % int(value)) from e
    return _BASE(*args)


def format_timestamp(t):
    """RFC 3339 in UTC with a ``Z``: no fraction when it is zero, else 3 digits for a whole
    millisecond and 6 otherwise (cel-python's own ``str()`` drops the fraction)."""
    t = t.astimezone(datetime.timezone.utc)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (t.year, t.month, t.day, t.hour, t.minute,
                                              t.second)
    if t.microsecond % 1000:
        text += ".%06d" % t.microsecond
    elif t.microsecond:
        text += ".%03d" % (t.microsecond // 1000)
    return text + "Z"


TIMESTAMP_FUNCS = {"timestamp": timestamp}
