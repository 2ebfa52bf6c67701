"""Errors of the Schema Registry client (``confluent_kafka.schema_registry.error``)."""

from typing import Optional

try:  # re-exported like confluent-kafka does, when the [avro] extra is installed
    from fastavro.schema import SchemaParseException, UnknownType  # noqa: F401
except ImportError:
    pass

__all__ = [
    "OAuthTokenError",
    "SchemaParseException",
    "SchemaRegistryConnectionError",
    "SchemaRegistryError",
    "UnknownType",
]


class SchemaRegistryError(Exception):
    """An error answered by the Schema Registry.

    Args:
        http_status_code (int): HTTP status code of the response (-1 when there was none).
        error_code (int): the registry's error code (e.g. 40401 subject not found, 40403 schema
            not found, 409 incompatible schema, 42201 invalid schema); -1 when unknown.
        error_message (str): the registry's description of the error.
    """

    UNKNOWN = -1

    def __init__(self, http_status_code: int, error_code: int, error_message: str) -> None:
        self.http_status_code = http_status_code
        self.error_code = error_code
        self.error_message = error_message

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return "{} (HTTP status code {}, SR code {})".format(
            self.error_message, self.http_status_code, self.error_code
        )


class SchemaRegistryConnectionError(SchemaRegistryError, ConnectionError):
    """No Schema Registry URL answered (refused, unresolvable, timed out, TLS failure), after the
    configured retries.  Both a :class:`SchemaRegistryError` (codes -1) and a
    :class:`ConnectionError`; ``__cause__`` is the last network error."""

    def __init__(self, error_message: str) -> None:
        ConnectionError.__init__(self, error_message)
        SchemaRegistryError.__init__(self, self.UNKNOWN, self.UNKNOWN, error_message)

    __str__ = SchemaRegistryError.__str__


class OAuthTokenError(Exception):
    """An OAuth bearer token could not be retrieved."""

    def __init__(
        self, message: str, status_code: Optional[int] = None, response_text: Optional[str] = None
    ) -> None:
        self.message = message
        self.status_code = status_code
        self.response_text = response_text
        super().__init__(f"{message} (HTTP {status_code}): {response_text}")
