"""The one name of a failure that metrics and spans carry as ``error.type``."""
from typing import Any


def error_type(error: Any) -> str:
    """A low-cardinality name of a failure: librdkafka's error code name (``_MSG_TIMED_OUT``,
    ``UNKNOWN_TOPIC_OR_PART``) of a KafkaError or of the KafkaError an exception carries as
    ``args[0]``, else the exception's class name."""
    name = getattr(error, "name", None)
    if callable(name):
        return str(name())
    args = getattr(error, "args", ())
    if args and callable(getattr(args[0], "name", None)):
        return str(args[0].name())
    return type(error).__qualname__
