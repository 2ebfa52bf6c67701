"""The path language of ``variants.path(v, path)``, a small JSONPath subset.

``$`` is the value itself; ``.name`` selects an object's field by an identifier name (a letter
or ``_``, then letters, digits and ``_``, Unicode-aware); ``[i]`` an array's element (a
non-negative int32 index); ``["key"]`` or ``['key']`` a field by any key (inside the quotes
only a doubled backslash and a backslash before the quote are escapes). A path that does not
parse is a :class:`ValueError`; a step that does not resolve (no such field, out of bounds, a
field of an array) makes :func:`walk` return None.
"""

from functools import lru_cache

from ...confluent.type.variant_utils import Variant, VariantType

__all__ = ["Variant", "VariantType", "parse", "walk"]


def walk(root, path):
    """The :class:`Variant` ``path`` selects in ``root``, or None."""
    current = root
    for kind, arg in parse(path):
        if current is None:
            return None
        if kind == "field":
            is_object = current.get_type() == VariantType.OBJECT
            current = current.get_field_by_key(arg) if is_object else None
        else:
            is_array = current.get_type() == VariantType.ARRAY
            current = current.get_element_at_index(arg) if is_array else None
    return current


@lru_cache(maxsize=1000)
def parse(path):
    """``path`` as a tuple of ``("field", key)`` and ``("index", i)`` steps."""
    if not path:
        raise ValueError("variant path must start with '$'")
    if path[0] != "$":
        raise ValueError("variant path must start with '$', got: " + path)
    steps = []
    pos = 1
    while pos < len(path):
        ch = path[pos]
        if ch == ".":
            key, pos = _identifier(path, pos + 1)
            steps.append(("field", key))
        elif ch == "[":
            pos += 1
            if pos >= len(path):
                raise ValueError("unexpected end of input after '[' in variant path: " + path)
            if path[pos] in "\"'":
                key, pos = _quoted(path, pos)
                steps.append(("field", key))
            else:
                index, pos = _index(path, pos)
                steps.append(("index", index))
            if pos >= len(path) or path[pos] != "]":
                raise ValueError("expected ']' in variant path: " + path)
            pos += 1
        else:
            raise ValueError("unexpected character '%s' in variant path: %s" % (ch, path))
    return tuple(steps)


def _identifier(path, pos):
    if pos >= len(path) or not (path[pos].isalpha() or path[pos] == "_"):
        raise ValueError("expected identifier (starting with a letter or '_') after '.' in "
                         "variant path: " + path)
    end = pos + 1
    while end < len(path) and (path[end].isalnum() or path[end] == "_"):
        end += 1
    return path[pos:end], end


def _quoted(path, pos):
    quote = path[pos]
    pos += 1
    key = []
    while pos < len(path):
        ch = path[pos]
        pos += 1
        if ch == quote:
            return "".join(key), pos
        if ch != "\\":
            key.append(ch)
            continue
        if pos >= len(path):
            raise ValueError("unterminated escape at end of quoted key in variant path: " + path)
        escaped = path[pos]
        pos += 1
        if escaped not in ("\\", quote):
            raise ValueError("unsupported escape '\\%s' in quoted key of variant path (only "
                             "'\\\\' and '\\%s' are allowed): %s" % (escaped, quote, path))
        key.append(escaped)
    raise ValueError("unterminated quoted key in variant path: " + path)


def _index(path, pos):
    if path[pos] == "-":
        raise ValueError("negative indices are not supported in variant path: " + path)
    end = pos
    while end < len(path) and "0" <= path[end] <= "9":
        end += 1
    if end == pos:
        raise ValueError("expected integer index in variant path: " + path)
    index = int(path[pos:end])
    if index > 2 ** 31 - 1:
        raise ValueError("index out of int range in variant path: " + path)
    return index, end
