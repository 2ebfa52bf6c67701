"""aiokafka's helpers (``aiokafka.helpers``): ``create_ssl_context``."""

import ssl
from typing import Any, Dict, Optional

__all__ = ["create_ssl_context"]


class _FileSSLContext(ssl.SSLContext):
    """An SSLContext that remembers the files it was made from, so that the clients can hand
    them to librdkafka (which does its own TLS with OpenSSL, not Python's ``ssl``)."""

    _librdkafka_files: Optional[Dict[str, str]] = None


def create_ssl_context(*, cafile: Any = None, capath: Any = None, cadata: Any = None,
                       certfile: Any = None, keyfile: Any = None, password: Any = None,
                       crlfile: Any = None) -> ssl.SSLContext:
    """A client-side :class:`ssl.SSLContext` verifying the broker against ``cafile``/
    ``capath``/``cadata`` (the system's CAs when none is given), with the client certificate
    ``certfile``/``keyfile`` (``password`` unlocks the key) and the revocation list
    ``crlfile``. Given as ``ssl_context=`` to the clients here, its files become librdkafka's
    ``ssl.ca.location``, ``ssl.ca.pem``, ``ssl.certificate.location``, ``ssl.key.location``,
    ``ssl.key.password`` and ``ssl.crl.location``."""
    context = _FileSSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if cafile or capath or cadata:
        context.load_verify_locations(cafile, capath, cadata)
    else:
        context.load_default_certs(ssl.Purpose.SERVER_AUTH)
    if crlfile:
        context.load_verify_locations(crlfile)
        context.verify_flags |= ssl.VERIFY_CRL_CHECK_LEAF
    if certfile:
        context.load_cert_chain(certfile, keyfile, password)
    files = {"ssl.ca.location": cafile or capath, "ssl.crl.location": crlfile,
             "ssl.certificate.location": certfile, "ssl.key.location": keyfile or (
                 certfile if certfile else None),
             "ssl.key.password": password() if callable(password) else password}
    if cadata:
        files["ssl.ca.pem"] = cadata if isinstance(cadata, str) else ssl.DER_cert_to_PEM_cert(
            bytes(cadata))
    if isinstance(files["ssl.key.password"], bytes):
        files["ssl.key.password"] = files["ssl.key.password"].decode()
    context._librdkafka_files = {k: str(v) for k, v in files.items() if v}
    return context


def _ssl_properties(context: Any) -> Any:
    """librdkafka's properties for an ``ssl_context=``: the files of one made by
    :func:`create_ssl_context`, and its verification switches. A context made otherwise holds
    nothing librdkafka can read: ValueError naming the properties to give instead."""
    files = getattr(context, "_librdkafka_files", None)
    if files is None:
        raise ValueError(
            "ssl_context: only a context made by aiokafka.helpers.create_ssl_context can be "
            "used (librdkafka does its own TLS); give ssl.ca.location, "
            "ssl.certificate.location, ssl.key.location (and ssl.key.password) in extra")
    conf = dict(files)
    if context.verify_mode == ssl.CERT_NONE:
        conf["enable.ssl.certificate.verification"] = "false"
    conf["ssl.endpoint.identification.algorithm"] = "https" if context.check_hostname else "none"
    return conf
