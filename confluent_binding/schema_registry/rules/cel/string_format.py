"""``format()``: printf-style string formatting for CEL (``"%s is %d".format([name, n])``).

Verbs: ``%s`` (strings as they are, bytes as hex, lists as ``[a, "b"]``), ``%d``, ``%f`` and
``%e`` (an optional ``.N`` precision, 6 by default; an integer argument prints as ``%d``),
``%x``/``%X`` (integers, bytes and strings in hex), ``%o``, ``%b`` and ``%%``. A verb that does
not fit its argument, an unknown verb, or too few or too many arguments is an evaluation
error.
"""

from typing import Any, Callable

import celpy
from celpy import celtypes

__all__ = ["QUOTE_TRANS", "StringFormat", "format", "format_value", "quote"]

#: the escapes a string gets inside a quoted CEL string literal
QUOTE_TRANS = str.maketrans({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                             "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"'})

_INTEGERS = (celtypes.IntType, celtypes.UintType)


def quote(s: str) -> str:
    """``s`` as a double-quoted CEL string literal."""
    return '"%s"' % s.translate(QUOTE_TRANS)


def _failed(message):
    return celpy.CELEvalError(message)


class StringFormat:
    """``format()`` for one locale (accepted for the signature; numbers use ``.`` and no
    grouping)."""

    def __init__(self, locale: str) -> None:
        self.locale: str = locale

    def format(self, fmt: Any, args: Any) -> Any:
        """CEL's ``fmt.format(args)``: ``fmt`` with each verb replaced by the next of ``args``
        (see the module description for the verbs).

        Returns:
            the formatted CEL string, or a ``celpy.CELEvalError`` (returned, as CEL functions
            report errors) for a bad verb, a verb that does not fit its argument, or too few or
            too many arguments.
        """
        if not isinstance(fmt, celtypes.StringType):
            return _failed("format() requires a string as the first argument")
        if not isinstance(args, celtypes.ListType):
            return _failed("format() requires a list as the second argument")
        pieces = []
        used = 0
        i, end = 0, len(fmt)
        while i < end:
            ch = fmt[i]
            if ch != "%":
                pieces.append(ch)
                i += 1
                continue
            if fmt.startswith("%%", i):
                pieces.append("%")
                i += 2
                continue
            if used >= len(args):
                return _failed("format() not enough arguments for format string")
            arg = args[used]
            used += 1
            i += 1
            if i >= end:
                return _failed("format() incomplete format specifier")
            precision = 6
            if fmt[i] == ".":
                i += 1
                start = i
                while i < end and fmt[i].isdigit():
                    i += 1
                precision = int(fmt[start:i]) if i > start else 0
                if i >= end:
                    return _failed("format() incomplete format specifier")
            verb = fmt[i]
            i += 1
            text = self._verb(verb, arg, precision)
            if isinstance(text, celpy.CELEvalError):
                return text
            pieces.append(text)
        if used < len(args):
            return _failed("format() too many arguments for format string")
        return celtypes.StringType("".join(pieces))

    def _verb(self, verb, arg, precision):
        if verb == "f":
            return self.format_float(arg, precision)
        if verb == "e":
            return self.format_exponential(arg, precision)
        if verb == "d":
            return self.format_int(arg)
        if verb == "s":
            return self.format_string(arg)
        if verb == "x":
            return self.format_hex(arg)
        if verb == "X":
            text = self.format_hex(arg)
            return text if isinstance(text, celpy.CELEvalError) else str(text).upper()
        if verb == "o":
            return self.format_oct(arg)
        if verb == "b":
            return self.format_bin(arg)
        return _failed("format() unknown format specifier: " + verb)

    def format_float(self, arg: Any, precision: int) -> Any:
        """``%f``: a double with ``precision`` decimals; an integer prints as ``%d``."""
        if isinstance(arg, celtypes.DoubleType):
            return celtypes.StringType("%.*f" % (precision, arg))
        return self.format_int(arg)

    def format_exponential(self, arg: Any, precision: int) -> Any:
        """``%e``: a double in exponent form with ``precision`` decimals; an integer prints as
        ``%d``.
        """
        if isinstance(arg, celtypes.DoubleType):
            return celtypes.StringType("%.*e" % (precision, arg))
        return self.format_int(arg)

    def format_int(self, arg: Any) -> Any:
        """``%d``: an int or uint in decimal (an error for any other type)."""
        if isinstance(arg, _INTEGERS):
            return celtypes.StringType(arg)  # type: ignore[arg-type]  # (an int: its digits)
        return _failed("format_int() requires an integer argument")

    def format_hex(self, arg: Any) -> Any:
        """``%x``: an integer, the bytes, or the UTF-8 bytes of a string, in lower-case hex."""
        if isinstance(arg, _INTEGERS):
            return celtypes.StringType("%x" % arg)
        if isinstance(arg, celtypes.BytesType):
            return celtypes.StringType(bytes(arg).hex())
        if isinstance(arg, celtypes.StringType):
            return celtypes.StringType(str(arg).encode("utf-8").hex())
        return _failed("format_hex() requires an integer, string, or binary argument")

    def format_oct(self, arg: Any) -> Any:
        """``%o``: an integer in octal."""
        if isinstance(arg, _INTEGERS):
            return celtypes.StringType("%o" % arg)
        return _failed("format_oct() requires an integer argument")

    def format_bin(self, arg: Any) -> Any:
        """``%b``: an integer (or a bool, as 0/1) in binary, with a leading ``-`` when
        negative.
        """
        if isinstance(arg, _INTEGERS + (celtypes.BoolType,)):
            return celtypes.StringType(bin(int(arg))[2:] if arg >= 0 else "-" + bin(-int(arg))[2:])
        return _failed("format_bin() requires an integer argument")

    def format_string(self, arg: Any) -> Any:
        """``%s``: a string as it is, bytes as hex, a list as ``[a, "b"]``, anything else as
        its string form.
        """
        if isinstance(arg, celtypes.StringType):
            return arg
        if isinstance(arg, celtypes.BytesType):
            return celtypes.StringType(bytes(arg).hex())
        if isinstance(arg, celtypes.ListType):
            return self.format_list(arg)
        return celtypes.StringType(arg)

    def format_value(self, arg: Any) -> Any:
        """One value as it reads inside a list: strings quoted."""
        if isinstance(arg, str):
            return celtypes.StringType(quote(arg))
        if isinstance(arg, celtypes.UintType):
            return celtypes.StringType(arg)  # type: ignore[arg-type]  # (a uint: its digits)
        return self.format_string(arg)

    def format_list(self, arg: Any) -> Any:
        """A list as ``[a, "b", 3]``: each item as :meth:`format_value` writes it."""
        items = []
        for item in arg:
            text = self.format_value(item)
            if isinstance(text, celpy.CELEvalError):
                return text
            items.append(str(text))
        return celtypes.StringType("[" + ", ".join(items) + "]")


_EN_US = StringFormat("en_US")
format: Callable[[Any, Any], Any] = _EN_US.format  # noqa: A001 - confluent-kafka's name
format_value: Callable[[Any], Any] = _EN_US.format_value
