"""Decimals in CEL rules: the ``decimal(...)`` constructor, the ``decimals.*`` functions, and
``string()``, ``double()``, ``==``, ``!=`` and ``in`` made decimal-aware.

A decimal is a Python :class:`~decimal.Decimal` inside an expression. ``decimal(x)`` takes an
int, a double, a string (as Java's ``BigDecimal(String)`` reads it: no NaN, infinities,
underscores or surrounding blanks), a decimal, or a ``confluent.type.Decimal`` message;
``decimal(bytes, scale)`` reads the unscaled value as big-endian two's complement.
Arithmetic is exact but for ``decimals.div`` and ``decimals.sqrt`` (38 digits, half-up),
rounding is half-up (``round``), toward zero (``trunc``), down (``floor``) or up (``ceil``),
and ``string(d)`` is the plain (not scientific) form. A computation whose digits would run
past a sane bound is an evaluation error rather than a memory exhaustion.
"""

import datetime
import decimal
from decimal import Decimal

import celpy
from celpy import celtypes
from celpy.evaluation import bool_eq, bool_ne, operator_in

from ...confluent.type.decimal_utils import from_proto_decimal
from .timestamp_funcs import format_timestamp

__all__ = ["DECIMAL_FUNCS", "DECIMAL_OPERATOR_FUNCS", "decimal_boundary_value",
           "format_timestamp"]

_DECIMAL_MESSAGE = "confluent.type.Decimal"
_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
# division and square root: 38 digits, half-up; everything else exact
_DIV = decimal.Context(prec=38, rounding=decimal.ROUND_HALF_UP, Emax=decimal.MAX_EMAX,
                       Emin=decimal.MIN_EMIN)
_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
# the widest positional form a rule may build, and the widest coefficient bytes may carry
_WIDTH_LIMIT = 10_000_000
_COEFFICIENT_LIMIT = 4300


def _fail(message):
    raise celpy.CELEvalError(message)


def _is_bool(value):
    return isinstance(value, (bool, celtypes.BoolType))


def _decimal_message(value):
    """The ``confluent.type.Decimal`` message ``value`` is or wraps (a Protobuf field as a
    rule sees it keeps its message), else None."""
    for candidate in (value, getattr(value, "msg", None)):
        if getattr(getattr(candidate, "DESCRIPTOR", None), "full_name", "") == _DECIMAL_MESSAGE:
            return candidate
    return None


# what no decimal is (CEL's scalars and lists); a map may be a decimal message's fields
_NEVER_DECIMAL = (int, float, str, bytes, list, datetime.datetime, datetime.timedelta)


def decimal_boundary_value(v):
    """``v`` as a :class:`~decimal.Decimal` when it is one or is a ``confluent.type.Decimal``
    message, else None: how a value bound into a rule (``this``, a field) becomes the
    expression's decimal, so ``this == decimal("1.50")`` compares numbers."""
    if isinstance(v, Decimal):
        return v
    if v is None or isinstance(v, _NEVER_DECIMAL):
        return None
    message = _decimal_message(v)
    return None if message is None else from_proto_decimal(message)


# ---- widths ----------------------------------------------------------------------------

def _exponent(d):
    exponent = d.as_tuple().exponent
    if not isinstance(exponent, int):
        _fail("decimal: not a finite number '%s'" % d)
    return exponent


def _digits(d):
    """The coefficient's digit count (from the exponents: the digits are never built)."""
    if not d.is_finite():
        _fail("decimal: not a finite number '%s'" % d)
    return d.adjusted() - _exponent(d) + 1


def _check_width(needed, fn, what, limit=_WIDTH_LIMIT):
    if needed > limit:
        _fail("%s: %s needs %d digits, past this client's %d-digit limit"
              % (fn, what, needed, limit))


def _width_at(scale, d):
    """Digits ``d`` takes once written at ``scale`` (a zero is one digit at any scale)."""
    if not d:
        return 1
    return _digits(d) + scale + _exponent(d)


# ---- construction ----------------------------------------------------------------------

def _scale_arg(scale, fn):
    if _is_bool(scale) or isinstance(scale, celtypes.UintType) or not isinstance(scale, int):
        _fail("%s: scale must be int, got %s" % (fn, type(scale).__name__))
    scale = int(scale)
    if not _INT32_MIN <= scale <= _INT32_MAX:
        _fail("%s: scale out of int range: %d" % (fn, scale))
    return scale


def _bytes_arg(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    _fail("decimal: expected bytes for the (bytes, scale) overload, got %s"
          % type(value).__name__)


def _positive_zero(d):
    """BigDecimal has no negative zero: ``-0.00`` is ``0.00``."""
    return d.copy_abs() if not d and d.is_signed() else d


def _parse(text, shown):
    invalid = "decimal: invalid number '%s'" % (shown,)
    if "_" in text or text != text.strip():
        _fail(invalid)
    try:
        d = Decimal(text)
    except decimal.InvalidOperation as e:
        raise celpy.CELEvalError(invalid) from e
    if not d.is_finite() or not -_INT32_MAX <= d.as_tuple().exponent <= _INT32_MAX:
        _fail(invalid)
    return _positive_zero(d)


def _from_unscaled(value, scale):
    raw = _bytes_arg(value)
    scale = _scale_arg(scale, "decimal(bytes, scale)")
    if raw:
        _check_width(int(len(raw) * 2.408) + 1, "decimal(bytes, scale)", "the coefficient",
                     _COEFFICIENT_LIMIT)
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale, _EXACT)


def _convert(v):
    if v is None:
        _fail("decimal: cannot convert null to Decimal")
    boundary = decimal_boundary_value(v)
    if boundary is not None:
        return boundary
    if _is_bool(v):
        _fail("decimal: cannot convert bool to Decimal")
    if isinstance(v, int):
        return Decimal(int(v))
    if isinstance(v, (float, str)):
        return _parse(str(v), v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        _fail("decimal: raw bytes need a scale; use decimal(bytes, scale) or set "
              "useLogicalTypeConverters=true on the Avro client so decimal fields arrive as "
              "Decimal")
    _fail("decimal: cannot convert %s to Decimal" % type(v).__name__)


def decimal_of(*args):
    """CEL ``decimal(value)`` and ``decimal(bytes, scale)``."""
    if len(args) == 2:
        return _from_unscaled(*args)
    if len(args) != 1:
        _fail("decimal: expected 1 or 2 args, got %d" % len(args))
    return _convert(args[0])


def _d(v):
    """An operand as a finite Decimal."""
    if isinstance(v, Decimal):
        if not v.is_finite():
            _fail("decimal: not a finite number '%s'" % v)
        return v
    return _convert(v)


# ---- comparison and arithmetic ---------------------------------------------------------

def _comparison(test):
    return lambda a, b: celtypes.BoolType(test(_d(a).compare(_d(b))))


def _additive(name, operation):
    def function(a, b):
        x, y = _d(a), _d(b)
        scale = -min(_exponent(x), _exponent(y))
        _check_width(max(_width_at(scale, x), _width_at(scale, y)) + 1, name,
                     "aligning the operands")
        return operation(x, y)
    return function


def _mul(a, b):
    return _EXACT.multiply(_d(a), _d(b))


def _div(a, b):
    try:
        return _DIV.divide(_d(a), _d(b))
    except decimal.DivisionByZero as e:
        raise celpy.CELEvalError("decimals.div: division by zero") from e
    except decimal.DecimalException as e:
        raise celpy.CELEvalError("decimals.div: %s" % e) from e


def _mod(a, b):
    """The remainder takes the dividend's sign (truncated division), as BigDecimal's."""
    x, y = _d(a), _d(b)
    if y == 0:
        _fail("decimals.mod: division by zero")
    quotient = 1 if not x else max(0, x.adjusted() - y.adjusted()) + 1
    _check_width(quotient, "decimals.mod", "the integral quotient")
    return _EXACT.remainder(x, y)


def _greatest(a, b):
    return max(_d(a), _d(b))


def _least(a, b):
    return min(_d(a), _d(b))


def _neg(a):
    return _d(a).copy_negate()


def _abs(a):
    return _d(a).copy_abs()


def _sign(a):
    d = _d(a)
    return celtypes.IntType(0 if d == 0 else (1 if d > 0 else -1))


# ---- scale -----------------------------------------------------------------------------

def _rescale(d, scale, rounding, fn):
    """``d`` written at ``scale``, rounding as told (growing the coefficient is bounded)."""
    if d:
        _check_width(max(1, _width_at(scale, d)), fn, "a scale of %d" % scale)
    try:
        return d.quantize(Decimal(1).scaleb(-scale, _EXACT), rounding=rounding, context=_EXACT)
    except (decimal.InvalidOperation, decimal.Overflow, decimal.Underflow) as e:
        raise celpy.CELEvalError("%s: cannot represent a scale of %d" % (fn, scale)) from e


def _round(*args):
    if len(args) == 1:
        return _rescale(_d(args[0]), 0, decimal.ROUND_HALF_UP, "decimals.round")
    if len(args) == 2:
        scale = _scale_arg(args[1], "decimals.round")
        return _rescale(_d(args[0]), scale, decimal.ROUND_HALF_UP, "decimals.round")
    _fail("decimals.round: expected 1 or 2 args, got %d" % len(args))


def _trunc(*args):
    """Toward zero; a value already at or coarser than the scale is returned as it is."""
    if len(args) not in (1, 2):
        _fail("decimals.trunc: expected 1 or 2 args, got %d" % len(args))
    d = _d(args[0])
    scale = _scale_arg(args[1], "decimals.trunc") if len(args) == 2 else 0
    if scale >= -_exponent(d):
        return d
    return _rescale(d, scale, decimal.ROUND_DOWN, "decimals.trunc")


def _floor(a):
    return _rescale(_d(a), 0, decimal.ROUND_FLOOR, "decimals.floor")


def _ceil(a):
    return _rescale(_d(a), 0, decimal.ROUND_CEILING, "decimals.ceil")


def _sqrt(a):
    """38 digits, half-up; an exact root takes BigDecimal's preferred scale (half the
    operand's, truncated toward zero), padded no further than the 38 digits allow."""
    d = _d(a)
    if d < 0:
        _fail("decimals.sqrt: square root of negative number")
    root = _DIV.sqrt(d)
    if _EXACT.multiply(root, root) != d:
        return root
    scale = -_exponent(d)
    preferred = scale // 2 if scale >= 0 else -(-scale // 2)
    if not root:
        return _rescale(root, preferred, decimal.ROUND_HALF_UP, "decimals.sqrt")
    reduced = root.normalize(_EXACT)
    reduced_scale = -_exponent(reduced)
    room = _DIV.prec - len(reduced.as_tuple().digits)
    target = max(reduced_scale, min(preferred, reduced_scale + room))
    return _rescale(reduced, target, decimal.ROUND_HALF_UP, "decimals.sqrt")


# ---- string(), double() and equality ---------------------------------------------------

def _type_name(v):
    if v is None:
        return "null"
    for types, name in (((bool, celtypes.BoolType), "bool"), ((celtypes.UintType,), "uint"),
                        ((bytes, bytearray), "bytes"), ((str,), "string"), ((int,), "int"),
                        ((float,), "double"), ((list, tuple), "list"), ((dict,), "map")):
        if isinstance(v, types):
            return name
    return type(v).__name__


def to_string(v):
    """CEL ``string()``: a decimal in plain form, a timestamp with its fraction, a bool as
    ``true``/``false``; no overload for null, lists and maps."""
    if isinstance(v, celtypes.TimestampType):
        return celtypes.StringType(format_timestamp(v))
    d = decimal_boundary_value(v)
    if d is not None:
        _check_width(_digits(d) + abs(_exponent(d)), "string", "the plain form")
        return celtypes.StringType(format(_positive_zero(d), "f"))
    if _is_bool(v):
        return celtypes.StringType("true" if v else "false")
    if isinstance(v, (bytes, bytearray)):
        return celtypes.StringType(bytes(v).decode("utf-8"))
    if isinstance(v, str):
        return celtypes.StringType(v)
    if isinstance(v, (int, float, celtypes.DurationType)):
        return celtypes.StringType(str(v))
    _fail("found no matching overload for 'string' applied to (%s)" % _type_name(v))


def to_double(v):
    """CEL ``double()``, a decimal narrowed to the nearest double; no bool or bytes."""
    d = decimal_boundary_value(v)
    if d is not None:
        return celtypes.DoubleType(float(d))
    if _is_bool(v) or isinstance(v, (bytes, bytearray)):
        _fail("found no matching overload for 'double' applied to (%s)" % _type_name(v))
    return celtypes.DoubleType(v)


def _holds_decimal(v):
    if decimal_boundary_value(v) is not None:
        return True
    if isinstance(v, (list, tuple)):
        return any(_holds_decimal(item) for item in v)
    if isinstance(v, dict):
        return any(_holds_decimal(item) for item in v.values())
    return False


def _equal(a, b):
    """CEL equality where decimals compare as numbers (12.34 == 12.340), also inside lists
    and maps; a decimal never equals anything else."""
    da, db = decimal_boundary_value(a), decimal_boundary_value(b)
    if da is not None or db is not None:
        return da is not None and db is not None and da == db
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if _holds_decimal(a) or _holds_decimal(b):
            return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if _holds_decimal(a) or _holds_decimal(b):
            return len(a) == len(b) and all(k in b and _equal(v, b[k]) for k, v in a.items())
    return bool(bool_eq(a, b))


def _eq(a, b):
    if not _holds_decimal(a) and not _holds_decimal(b):
        return bool_eq(a, b)
    return celtypes.BoolType(_equal(a, b))


def _ne(a, b):
    if not _holds_decimal(a) and not _holds_decimal(b):
        return bool_ne(a, b)
    return celtypes.BoolType(not _equal(a, b))


def _in(item, container):
    if not _holds_decimal(item) and not _holds_decimal(container):
        return operator_in(item, container)
    if isinstance(container, (dict, list, tuple)):
        return celtypes.BoolType(any(_equal(item, each) for each in container))
    return operator_in(item, container)


#: CEL's equality operators, decimal-aware
DECIMAL_OPERATOR_FUNCS = {"_==_": _eq, "_!=_": _ne, "_in_": _in}

#: ``decimal()``, ``decimals.*``, and ``string()``/``double()`` with their decimal forms
DECIMAL_FUNCS = {
    "decimal": decimal_of,
    "decimals.eq": _comparison(lambda c: c == 0),
    "decimals.lt": _comparison(lambda c: c < 0),
    "decimals.le": _comparison(lambda c: c <= 0),
    "decimals.gt": _comparison(lambda c: c > 0),
    "decimals.ge": _comparison(lambda c: c >= 0),
    "decimals.add": _additive("decimals.add", _EXACT.add),
    "decimals.sub": _additive("decimals.sub", _EXACT.subtract),
    "decimals.mul": _mul,
    "decimals.div": _div,
    "decimals.mod": _mod,
    "decimals.greatest": _greatest,
    "decimals.least": _least,
    "decimals.sqrt": _sqrt,
    "decimals.neg": _neg,
    "decimals.abs": _abs,
    "decimals.sign": _sign,
    "decimals.round": _round,
    "decimals.trunc": _trunc,
    "decimals.floor": _floor,
    "decimals.ceil": _ceil,
    "string": to_string,
    "double": to_double,
}
