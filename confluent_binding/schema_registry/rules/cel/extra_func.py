"""CEL functions beyond cel-python's standard library that data-contract rules use:
``format()`` (:mod:`.string_format`), protovalidate's string checks ``isEmail()``,
``isHostname()``, ``isIpv4()``, ``isIpv6()``, ``isUri()``, ``isUriRef()``, ``isUuid()`` (each
takes a string, ``isIpv4``/``isIpv6`` also bytes, as a function or a method:
``this.isEmail()``), and the decimal, timestamp and variant functions
(:mod:`.decimal_funcs`, :mod:`.timestamp_funcs`, :mod:`.variant_funcs`)."""

import ipaddress
import uuid
from email.utils import parseaddr
from urllib.parse import urlparse

import celpy
from celpy import celtypes

from . import string_format

__all__ = ["EXTRA_FUNCS", "is_email", "is_hostname", "is_ipv4", "is_ipv6", "is_uri",
           "is_uri_ref", "is_uuid", "make_extra_funcs", "validate_email",
           "validate_host_and_port", "validate_ip", "validate_port", "validate_uuid"]

_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _valid_hostname(host):
    """RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, at most
    63 characters each and 253 in all (a trailing dot allowed), not all digits."""
    if not host or len(host) > 253:
        return False
    if host.endswith("."):
        host = host[:-1]
    labels = host.split(".")
    for label in labels:
        if not 0 < len(label) <= 63 or label[0] == "-" or label[-1] == "-":
            return False
        if not set(label) <= _HOST_CHARS:
            return False
    return not labels[-1].isdigit()


def validate_email(addr):
    """A bare address (no display name) with a local part of at most 64 characters and a host
    name domain, 254 characters at most."""
    if parseaddr(addr)[1] != addr or len(addr) > 254:
        return False
    local, at, domain = addr.rpartition("@")
    if not at or "@" in local or len(local) > 64 or not local:
        return False
    return _valid_hostname(domain)


def validate_ip(value, version=None):
    """True when ``value`` (a str, or packed bytes) is an IP address: IPv4 or IPv6, or only the
    given ``version`` (4 or 6).

    Raises:
        celpy.CELEvalError: ``version`` is neither None, 4 nor 6.
    """
    kinds = {None: ipaddress.ip_address, 4: ipaddress.IPv4Address, 6: ipaddress.IPv6Address}
    if version not in kinds:
        raise celpy.CELEvalError("invalid argument, expected 4 or 6")
    try:
        kinds[version](value)
    except ValueError:
        return False
    return True


def validate_port(value):
    """True when ``value`` is a port number: decimal digits only, 0 to 65535."""
    return value.isdigit() and int(value) <= 65535


def validate_host_and_port(value, *, port_required):
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port``."""
    if not value:
        return False
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return False
        rest = value[end + 1:]
        if not rest:
            return not port_required and validate_ip(value[1:end], 6)
        return rest.startswith(":") and validate_ip(value[1:end], 6) and validate_port(rest[1:])
    host, colon, port = value.rpartition(":")
    if not colon:
        return not port_required and (_valid_hostname(value) or validate_ip(value, 4))
    return (_valid_hostname(host) or validate_ip(host, 4)) and validate_port(port)


def validate_uuid(value):
    """True when ``value`` parses as a UUID (hyphenated or not, optionally braced or with
    a ``urn:uuid:`` prefix, as Python's :class:`uuid.UUID`).
    """
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _string(value):
    if not isinstance(value, celtypes.StringType):
        raise celpy.CELEvalError("invalid argument, expected string")
    return str(value)


def _address(value):
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    raise celpy.CELEvalError("invalid argument, expected string or bytes")


def is_email(value):
    """CEL's ``isEmail()``: the string is a bare e-mail address (see :func:`validate_email`).

    Raises:
        celpy.CELEvalError: the argument is not a string.
    """
    return celtypes.BoolType(validate_email(_string(value)))


def is_hostname(value):
    """CEL's ``isHostname()``: the string is a DNS host name (labels of letters, digits and
    hyphens, 253 characters at most).

    Raises:
        celpy.CELEvalError: the argument is not a string.
    """
    return celtypes.BoolType(_valid_hostname(_string(value)))


def is_ipv4(value):
    """CEL's ``isIpv4()``: the string (or 4 packed bytes) is an IPv4 address.

    Raises:
        celpy.CELEvalError: the argument is neither a string nor bytes.
    """
    return celtypes.BoolType(validate_ip(_address(value), 4))


def is_ipv6(value):
    """CEL's ``isIpv6()``: the string (or 16 packed bytes) is an IPv6 address.

    Raises:
        celpy.CELEvalError: the argument is neither a string nor bytes.
    """
    return celtypes.BoolType(validate_ip(_address(value), 6))


def is_uri(value):
    """An absolute URI: a scheme, an authority and a path."""
    parts = urlparse(_string(value))
    return celtypes.BoolType(bool(parts.scheme and parts.netloc and parts.path))


def is_uri_ref(value):
    """A URI or a relative reference (only a fragment with no scheme or path is refused)."""
    parts = urlparse(_string(value))
    return celtypes.BoolType(not (parts.fragment and not (parts.scheme and parts.path)))


def is_uuid(value):
    """CEL's ``isUuid()``: the string is a UUID (see :func:`validate_uuid`).

    Raises:
        celpy.CELEvalError: the argument is not a string.
    """
    return celtypes.BoolType(validate_uuid(_string(value)))


def make_extra_funcs(locale="en_US"):
    """The functions by their CEL names, ``format()`` for ``locale``."""
    from .decimal_funcs import DECIMAL_FUNCS, DECIMAL_OPERATOR_FUNCS
    from .timestamp_funcs import TIMESTAMP_FUNCS
    from .variant_funcs import VARIANT_FUNCS

    return {"format": string_format.StringFormat(locale).format, "isEmail": is_email,
            "isHostname": is_hostname, "isIpv4": is_ipv4, "isIpv6": is_ipv6, "isUri": is_uri,
            "isUriRef": is_uri_ref, "isUuid": is_uuid, **DECIMAL_FUNCS,
            **DECIMAL_OPERATOR_FUNCS, **TIMESTAMP_FUNCS, **VARIANT_FUNCS}


EXTRA_FUNCS = make_extra_funcs()
