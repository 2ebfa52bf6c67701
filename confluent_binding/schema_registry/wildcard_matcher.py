"""Wildcards over dotted names, as data-contract rules and metadata tags use them.

``?`` is one character of a name segment, ``*`` one or more characters (or none) inside a
segment (it never crosses a ``.``), ``**`` any run of characters across segments; a ``\\``
stands for itself and makes the character after it literal. The whole text must match.
"""

import functools
import re

__all__ = ["wildcard_match"]


@functools.lru_cache(maxsize=1024)
def _compile(pattern, separator="."):
    not_sep = "[^" + re.escape(separator) + "]"
    # "**.*" reads as "**": whatever follows the last separator is covered already
    pattern = pattern.replace("**" + separator + "*", "**")
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if i < n and pattern[i] == "*":
                out.append(".*")
                i += 1
            else:
                out.append(not_sep + "*")
        elif c == "?":
            out.append(not_sep)
        elif c == "\\":
            out.append(re.escape("\\"))
            if i < n:
                out.append(re.escape(pattern[i]))
                i += 1
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def wildcard_match(text, matcher):
    """True when the dotted name ``text`` matches the wildcard ``matcher`` entirely."""
    return _compile(matcher).fullmatch(text) is not None
