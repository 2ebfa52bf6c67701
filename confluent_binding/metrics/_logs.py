"""librdkafka's log lines through Python's ``logging``: one logger per client instance."""
import logging
from typing import Any, Dict

#: the parent of every client's logger
LOGGER_PREFIX = "confluent_binding.librdkafka"


class ClientLogs:
    """The object ``logger`` is set to by :func:`confluent_binding.metrics.route_logs`: it
    sends each librdkafka line to the logger ``<prefix>.<client instance name>`` (the instance
    name is ``<client.id>#<producer|consumer>-<n>``), as ``[FACILITY] message``, at the level
    librdkafka's syslog level maps to (0-2 CRITICAL, 3 ERROR, 4 WARNING, 5-6 INFO, 7 DEBUG)."""

    def __init__(self, prefix: str = LOGGER_PREFIX) -> None:
        self.prefix = prefix
        self._loggers: Dict[str, logging.Logger] = {}

    def logger_for(self, client_name: str) -> logging.Logger:
        """The logger of the client instance ``client_name``."""
        lg = self._loggers.get(client_name)
        if lg is None:
            lg = self._loggers[client_name] = logging.getLogger(
                "%s.%s" % (self.prefix, client_name))
        return lg

    def log(self, level: int, msg: str, *args: Any) -> None:
        """Called by the client as ``log(level, "%s [%s] %s", facility, name, message)``, as
        confluent-kafka calls its ``logger``: logs ``[facility] message`` on the client's
        logger."""
        if len(args) == 3:
            facility, name, message = args
            lg = self.logger_for(str(name))
            if lg.isEnabledFor(level):
                lg.log(level, "[%s] %s", facility, message)
        else:
            logging.getLogger(self.prefix).log(level, msg, *args)
