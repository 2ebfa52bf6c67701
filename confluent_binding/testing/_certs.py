"""Test certificates made with the ``openssl`` command-line tool.

One throw-away CA signs a broker certificate (SAN ``IP:127.0.0.1``,
``DNS:localhost``) and a client certificate.  Keys are unencrypted PKCS#8, the
form Kafka's PEM key store reads (``ssl.keystore.type=PEM``).  ECDSA P-256 by
default (milliseconds to make, where RSA-2048 takes about a second each).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List

__all__ = ["CertError", "TestCertificates", "make_test_certificates"]


class CertError(RuntimeError):
    """openssl is missing or failed."""


@dataclass
class TestCertificates:
    """The PEM files of a throw-away CA and of a broker and a client certificate it signed
    (for SSL listeners and mutual TLS in tests); every field is a file path."""

    __test__ = False  # not a pytest test class

    ca_cert: Path  # CA certificate (client trust store, broker trust store)
    ca_key: Path
    broker_cert: Path
    broker_key: Path
    broker_keystore: Path  # PKCS#8 key + certificate chain, for ssl.keystore.location
    client_cert: Path
    client_key: Path


_EXT_BROKER = """\
basicConstraints = critical, CA:FALSE
keyUsage = critical, {usage}
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
"""

_EXT_CLIENT = """\
basicConstraints = critical, CA:FALSE
keyUsage = critical, {usage}
extendedKeyUsage = clientAuth
"""

_NEWKEY = {
    "ec": ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "rsa": ["-newkey", "rsa:2048"],
}
_USAGE = {"ec": "digitalSignature", "rsa": "digitalSignature, keyEncipherment"}


def _run(cmd: List[str], cwd: Path) -> None:
    proc = subprocess.run(
        cmd, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    if proc.returncode != 0:
        raise CertError(
            "%s failed (exit %d):\n%s"
            % (" ".join(cmd), proc.returncode, proc.stdout.decode("utf-8", "replace"))
        )


def make_test_certificates(
    directory: Path, days: int = 3650, key_type: str = "ec"
) -> TestCertificates:
    """Create a CA, a broker and a client certificate in ``directory``
    (``key_type`` ``"ec"`` or ``"rsa"``)."""
    newkey = _NEWKEY[key_type]
    openssl = shutil.which("openssl")
    if not openssl:
        raise CertError(
            "the 'openssl' command is needed for SSL test listeners (apt-get install openssl)")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    days_s = str(days)
    _run(
        [
            openssl, "req", "-x509", *newkey, "-nodes", "-sha256",
            "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", days_s,
            "-subj", "/CN=confluent_binding test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ],
        d,
    )
    for name, cn, ext in (("broker", "localhost", _EXT_BROKER), ("client", "client", _EXT_CLIENT)):
        (d / ("%s.ext" % name)).write_text(ext.format(usage=_USAGE[key_type]))
        _run(
            [
                openssl, "req", "-new", *newkey, "-nodes", "-sha256",
                "-keyout", "%s-key.pem" % name, "-out", "%s.csr" % name, "-subj", "/CN=%s" % cn,
            ],
            d,
        )
        _run(
            [
                openssl, "x509", "-req", "-sha256", "-in", "%s.csr" % name,
                "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
                "-out", "%s.pem" % name, "-days", days_s, "-extfile", "%s.ext" % name,
            ],
            d,
        )
    # Kafka PEM key store: private key followed by the certificate chain.
    keystore = d / "broker-keystore.pem"
    keystore.write_bytes(
        (d / "broker-key.pem").read_bytes() + (d / "broker.pem").read_bytes()
        + (d / "ca.pem").read_bytes()
    )
    for p in d.glob("*-key.pem"):
        p.chmod(0o600)
    keystore.chmod(0o600)
    return TestCertificates(
        ca_cert=d / "ca.pem",
        ca_key=d / "ca-key.pem",
        broker_cert=d / "broker.pem",
        broker_key=d / "broker-key.pem",
        broker_keystore=keystore,
        client_cert=d / "client.pem",
        client_key=d / "client-key.pem",
    )
