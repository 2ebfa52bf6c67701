"""Argument checks shared by the admin model types (same exception types and messages as
confluent-kafka, so code that catches them keeps working)."""

from enum import Enum
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, TypeVar

_E = TypeVar("_E", bound=Enum)


def to_enum(value: Any, enum_class: Type[_E]) -> _E:
    """``value`` as a member of ``enum_class``: a member, its name (any case) or its number."""
    if isinstance(value, str):
        try:
            return enum_class[value.upper()]
        except KeyError:
            raise ValueError('Unknown value "%s": should be a %s'
                             % (value, enum_class.__name__)) from None
    if isinstance(value, int):
        return enum_class(value)
    if not isinstance(value, enum_class):
        raise TypeError('Unknown value "%s": should be a %s' % (value, enum_class.__name__))
    return value


def to_enum_list(values: Any, enum_class: Type[_E]) -> Optional[List[_E]]:
    """A list of ``enum_class`` members, or None for a missing or empty list."""
    if not values:
        return None
    return [to_enum(v, enum_class) for v in values]


class OrderedEnum(Enum):
    """An Enum whose members order by value (confluent's admin enums do)."""

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.value < other.value


def check_int32(value: Any, what: Optional[str] = None) -> int:
    """``value`` as a C int, with CPython's argument-parsing messages."""
    import operator

    value = operator.index(value)
    if value > 0x7FFFFFFF:
        raise OverflowError("signed integer is greater than maximum")
    if value < -0x80000000:
        raise OverflowError("signed integer is less than minimum")
    return value


def check_str_arg(value: Any, position: int) -> str:
    """A required ``str`` positional argument, with CPython's argument-parsing message."""
    if not isinstance(value, str):
        raise TypeError("argument %d must be str, not %s" % (position, _type_name(value)))
    return value


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


_MISSING = object()


def parse_args(args: Tuple[Any, ...], kwargs: Dict[str, Any], names: Sequence[str],
               required: int) -> List[Any]:
    """Bind ``args``/``kwargs`` to ``names`` the way CPython's C argument parser does, with its
    messages (the compiled confluent-kafka types are built that way). Missing optional
    arguments come back as ``_MISSING``."""
    if len(args) > len(names):
        raise TypeError("function takes at most %d arguments (%d given)"
                        % (len(names), len(args) + len(kwargs)))
    values = list(args) + [_MISSING] * (len(names) - len(args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError("'%s' is an invalid keyword argument for this function" % key)
        i = names.index(key)
        if i < len(args):
            raise TypeError("argument for function given by name ('%s') and position (%d)"
                            % (key, i + 1))
        values[i] = value
    for i in range(required):
        if values[i] is _MISSING:
            raise TypeError("function missing required argument '%s' (pos %d)" % (names[i], i + 1))
    return values
