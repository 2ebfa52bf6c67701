"""What the verifiable producer and consumer share: configuration from the command line and the
JSON events on stdout."""

import datetime
import json
import os
import re
import signal
import socket
import sys
import time

__all__ = ["VerifiableClient"]

_JAVA_ASSIGNOR = re.compile(r"org\.apache\.kafka\.clients\.consumer\.(\w+)Assignor")
#: the Java assignors' librdkafka names (librdkafka's sticky assignor is the cooperative one)
_ASSIGNORS = {"range": "range", "roundrobin": "roundrobin", "sticky": "cooperative-sticky",
              "cooperativesticky": "cooperative-sticky"}


def _text(data):
    """A key or value as JSON can carry it: the bytes decoded as UTF-8."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf-8", "replace")
    return data


class VerifiableClient:
    """The kafkatest protocol: every event is one JSON object on a line of stdout, with its
    ``name``; diagnostics go to stderr; SIGTERM asks the client to finish (``run`` turns False).
    """

    def __init__(self, conf):
        self.conf = conf
        self.conf["client.id"] = "python@" + socket.gethostname()
        self.run = True
        signal.signal(signal.SIGTERM, self.sig_term)
        self.dbg("Pid is %d" % os.getpid())

    def sig_term(self, sig, frame):
        """The SIGTERM handler: ends the client's main loop (``run``) so it closes cleanly and
        reports ``shutdown_complete``, as Kafka's system tests expect.
        """
        self.dbg("SIGTERM")
        self.run = False

    @staticmethod
    def _timestamp():
        return time.strftime("%H:%M:%S", time.localtime())

    def dbg(self, s):
        """A diagnostic line on stderr."""
        sys.stderr.write("%% %s DEBUG: %s\n" % (self._timestamp(), s))

    def err(self, s, term=False):
        """An error line on stderr; with ``term`` the process exits with status 1."""
        sys.stderr.write("%% %s ERROR: %s\n" % (self._timestamp(), s))
        if term:
            sys.stderr.write("%% FATAL ERROR ^\n")
            sys.exit(1)

    def send(self, d):
        """Write the event ``d`` (a dict with its ``name``) as one JSON line on stdout."""
        d["_time"] = str(datetime.datetime.now())
        line = json.dumps(d)
        self.dbg("SEND: %s" % line)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    @staticmethod
    def set_config(conf, args):
        """Copy the client properties among the parsed arguments ``args`` into ``conf``.

        Arguments named ``conf_<property>`` and ``topicconf_<property>`` are client properties
        (the others are the program's own); ``None`` means not given. A Java assignor class name
        (``org.apache.kafka.clients.consumer.RangeAssignor``) becomes librdkafka's strategy name
        (``range``; ``StickyAssignor`` and ``CooperativeStickyAssignor`` become
        ``cooperative-sticky``).
        """
        for name, value in args.items():
            if value is None:
                continue
            if name.startswith("topicconf_"):
                conf[name[len("topicconf_"):]] = value
                continue
            if not name.startswith("conf_"):
                continue
            name = name[len("conf_"):]
            if name == "partition.assignment.strategy":
                value = _JAVA_ASSIGNOR.sub(
                    lambda m: _ASSIGNORS.get(m.group(1).lower(), m.group(1).lower()), value)
            conf[name] = value

    @staticmethod
    def read_config_file(path):
        """The ``key=value`` properties of a Java client's configuration file (``#`` starts a
        comment line)."""
        conf = {}
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                key, sep, value = line.partition("=")
                if not sep or not key:
                    raise ValueError("%s: invalid line, no key=value pair: %s" % (path, line))
                conf[key] = value
        return conf



def add_connection_arguments(parser, role):
    """The options both clients take: the brokers, a Java client properties file
    (``--producer.config``/``--consumer.config``) and ``-X key=value`` properties."""
    parser.add_argument("--broker-list", dest="conf_bootstrap.servers")
    parser.add_argument("--bootstrap-server", dest="conf_bootstrap.servers")
    parser.add_argument("--%s.config" % role, dest="config_file",
                        help="a Java client properties file")
    parser.add_argument("-X", nargs=1, dest="extra_conf", action="append", default=[],
                        help="client property key=value")


def client_config(parser, args, conf):
    """``conf`` with the client properties of the parsed ``args`` (see ``set_config``), then
    those of the properties file, then the ``-X`` ones: a later one wins."""
    if args["conf_bootstrap.servers"] is None:
        parser.error("one of --broker-list and --bootstrap-server is required")
    VerifiableClient.set_config(conf, args)
    if args["config_file"] is not None:
        conf.update(VerifiableClient.read_config_file(args["config_file"]))
    for [item] in args["extra_conf"]:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error("-X %s: expected key=value" % item)
        conf[key] = value
    return conf
