# Configuration: a Python dict -> rd_kafka_conf_t*, with the Python-only keys split off.

from libc.stdio cimport FILE, fclose
from includes.rdkafka cimport (
    RD_KAFKA_CONF_OK,
    RD_KAFKA_CONF_UNKNOWN,
    RD_KAFKA_RESP_ERR__INVALID_ARG,
    rd_kafka_conf_destroy,
    rd_kafka_conf_res_t,
    rd_kafka_conf_new,
    rd_kafka_conf_properties_show,
    rd_kafka_conf_set,
    rd_kafka_conf_t,
)


cdef extern from "stdio.h" nogil:
    FILE *open_memstream(char **ptr, size_t *sizeloc)

# The one rule that turns keyword arguments into configuration properties (re-exported by the
# package's _keywords module, which the clients and the test harness use). A keyword's
# underscores stand for dots; kept as given: a name that already has a dot (spelled as a
# property: **{"linger.ms": 5}), the clients' Python-only keys and log_level, librdkafka's one
# property spelled with an underscore.
_KEPT_AS_GIVEN = frozenset({"error_cb", "stats_cb", "throttle_cb", "oauth_cb", "on_delivery",
                            "on_commit", "log_level"})


def _property_name(keyword):
    """The configuration property a keyword argument names."""
    if "." in keyword or keyword in _KEPT_AS_GIVEN:
        return keyword
    return keyword.replace("_", ".")


def _properties(keywords):
    """``{property_name(k): v}`` for every keyword argument."""
    return {_property_name(k): v for k, v in keywords.items()}


def _merge_conf(tuple args, dict kwargs):
    """Producer(conf), Producer(conf, **kwargs) and Producer(**kwargs) -> one new dict.

    Keywords name properties by the rule above (bootstrap_servers -> bootstrap.servers). The
    caller's dict is never modified.
    """
    if len(args) > 1:
        raise TypeError("expected at most one positional argument: the configuration dict")
    if not args and not kwargs:
        raise TypeError("expected configuration dict")
    conf = {}
    if args:
        if not isinstance(args[0], dict):
            raise TypeError("expected configuration dict, not %s" % type(args[0]).__name__)
        conf.update(args[0])
    conf.update(_properties(kwargs))
    return conf


cdef str _conf_value(str key, value):
    """librdkafka takes strings: bool -> 'true'/'false', numbers -> str."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if callable(value):
        raise TypeError("configuration property '%s' expects a string value, not a callable" % key)
    raise TypeError("configuration property '%s' expects a str, int, float or bool, not %s"
                    % (key, type(value).__name__))


def _pop_callable(dict conf, str key):
    cb = conf.pop(key, None)
    if cb is not None and not callable(cb):
        raise TypeError("configuration property '%s' must be callable, not %s"
                        % (key, type(cb).__name__))
    return cb


cdef bint _conf_bool(object value, str key) except -1:
    """A Python-only boolean property: a bool or 'true'/'false' (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError("'%s' must be a bool or 'true'/'false', not %r" % (key, value))


# -- an unknown property: what was probably meant (the error path only) --

# Java client properties that people bring along, and what to use here instead.
_JAVA_PROPERTIES = {
    "key.serializer": "a Java client property: serialize keys in Python, or use "
                      "SerializingProducer, whose 'key.serializer' is a Serializer object",
    "value.serializer": "a Java client property: serialize values in Python, or use "
                        "SerializingProducer, whose 'value.serializer' is a Serializer object",
    "key.deserializer": "a Java client property: deserialize keys in Python, or use "
                        "DeserializingConsumer, whose 'key.deserializer' is a Deserializer object",
    "value.deserializer": "a Java client property: deserialize values in Python, or use "
                          "DeserializingConsumer, whose 'value.deserializer' is a Deserializer "
                          "object",
    "partitioner.class": "a Java client property: librdkafka's 'partitioner' chooses the "
                         "partitioner ('murmur2_random' places keys as the Java client's default)",
    "interceptor.classes": "a Java client property: there are no interceptors; use the "
                           "callbacks (on_delivery, on_commit, stats_cb)",
    "buffer.memory": "a Java client property: did you mean \"queue.buffering.max.kbytes\"?",
    "max.block.ms": "a Java client property: produce() does not block; a full queue raises "
                    "BufferError (see \"queue.buffering.max.messages\")",
    "fetch.max.wait.ms": "a Java client property: did you mean \"fetch.wait.max.ms\"?",
    "ssl.truststore.location": "a Java client property: did you mean \"ssl.ca.location\" "
                               "(PEM)?",
    "default.api.timeout.ms": "a Java client property: each blocking call takes its own timeout",
}

# The keys the clients take besides librdkafka's properties.
_PYTHON_ONLY_KEYS = _KEPT_AS_GIVEN | {"logger", "default.topic.config"}

_property_names = None


def _librdkafka_property_names():
    """Every configuration property librdkafka knows (global and topic), read once from its own
    table (``rd_kafka_conf_properties_show()``)."""
    global _property_names
    cdef char *text = NULL
    cdef size_t size = 0
    cdef FILE *fp
    if _property_names is None:
        fp = open_memstream(&text, &size)
        if fp == NULL:
            raise MemoryError()
        rd_kafka_conf_properties_show(fp)
        fclose(fp)
        try:
            table = text[:size].decode("utf-8", "replace")
        finally:
            free(text)
        names = set()
        for line in table.splitlines():
            name = line.split("|", 1)[0].strip()
            if "|" in line and name and name != "Property" and not name.startswith("-"):
                names.add(name)
        _property_names = frozenset(names)
    return _property_names


def _unknown_property_hint(str key):
    """What an unknown property name probably meant: a Java client property explained, or
    " (did you mean ...?)" with the closest known names, or ''."""
    java = _JAVA_PROPERTIES.get(key)
    if java is not None:
        return " (%s)" % java
    if key in _PYTHON_ONLY_KEYS:            # on_delivery given to a Consumer
        return " (this client does not take it)"
    import difflib
    known = sorted(_librdkafka_property_names() | _PYTHON_ONLY_KEYS)
    close = difflib.get_close_matches(key, known, 3, 0.8)
    if not close and "_" in key:        # a keyword spelling inside the dict: bootstrap_servers
        close = difflib.get_close_matches(key.replace("_", "."), known, 3, 0.8)
    if not close:
        return ""
    return " (did you mean %s?)" % " or ".join('"%s"' % name for name in close)


cdef int _raise_unknown_property(str key, str reason) except -1:
    raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG,
                                    reason + _unknown_property_hint(key)))


@cython.binding(False)
cdef class _Conf:
    """Owns one rd_kafka_conf_t until rd_kafka_new() takes it."""

    def __cinit__(self):
        self.ptr = rd_kafka_conf_new()

    def __dealloc__(self):
        if self.ptr != NULL:
            rd_kafka_conf_destroy(self.ptr)

    cdef int set(self, str key, str value) except -1:
        cdef char errstr[512]
        cdef rd_kafka_conf_res_t res
        errstr[0] = 0
        res = rd_kafka_conf_set(self.ptr, key.encode(), value.encode(), errstr, sizeof(errstr))
        if res == RD_KAFKA_CONF_UNKNOWN:
            _raise_unknown_property(key, _cstr(errstr))
        if res != RD_KAFKA_CONF_OK:
            _raise_errstr(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr)
        return 0

    cdef int set_all(self, dict conf) except -1:
        """Set every librdkafka property of conf (Python-only keys must be gone).

        A None value leaves the property unset (at librdkafka's default). The entries of
        'default.topic.config' are applied after the others, so they win, as in confluent-kafka.
        """
        topic_conf = conf.pop("default.topic.config", None)
        if topic_conf is not None and not isinstance(topic_conf, dict):
            raise TypeError("'default.topic.config' must be a dict")
        for props in (conf, topic_conf or {}):
            for key, value in props.items():
                if not isinstance(key, str):
                    raise TypeError("configuration keys must be str, not %s"
                                    % type(key).__name__)
                if value is None:
                    continue
                if callable(value) and key not in _librdkafka_property_names():
                    # a misspelt callback key (on_delivry): unknown, as confluent-kafka says
                    _raise_unknown_property(key, 'No such configuration property: "%s"' % key)
                self.set(key, _conf_value(key, value))
        return 0

    cdef rd_kafka_conf_t *take(self):
        cdef rd_kafka_conf_t *p = self.ptr
        self.ptr = NULL
        return p
