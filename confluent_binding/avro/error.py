"""The legacy Schema Registry client's error."""

__all__ = ["ClientError"]


class ClientError(Exception):
    """An error of :class:`~confluent_binding.avro.CachedSchemaRegistryClient` (or of parsing a
    schema): ``message`` says what, ``http_code`` is the registry's HTTP status when it answered
    with one."""

    def __init__(self, message, http_code=None):
        self.message = message
        self.http_code = http_code
        super().__init__(message)

    def __repr__(self):
        return "ClientError(error={})".format(self.message)

    def __str__(self):
        return self.message
