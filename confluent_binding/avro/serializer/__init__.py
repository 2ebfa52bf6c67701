"""The legacy Avro serializer's errors."""

__all__ = ["KeySerializerError", "SerializerError", "ValueSerializerError"]


class SerializerError(Exception):
    """A message could not be encoded or decoded; ``message`` says why."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def __repr__(self):
        return "{}(error={})".format(type(self).__name__, self.message)

    def __str__(self):
        return self.message


class KeySerializerError(SerializerError):
    """A message key could not be encoded."""


class ValueSerializerError(SerializerError):
    """A message value could not be encoded."""
