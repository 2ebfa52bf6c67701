# Configuration: a Python dict -> rd_kafka_conf_t*, with the Python-only keys split off.

from includes.rdkafka cimport (
    RD_KAFKA_CONF_OK,
    RD_KAFKA_RESP_ERR__INVALID_ARG,
    rd_kafka_conf_destroy,
    rd_kafka_conf_new,
    rd_kafka_conf_set,
    rd_kafka_conf_t,
)

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
        errstr[0] = 0
        if rd_kafka_conf_set(self.ptr, key.encode(), value.encode(), errstr, sizeof(errstr)) \
                != RD_KAFKA_CONF_OK:
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
                if value is not None:
                    self.set(key, _conf_value(key, value))
        return 0

    cdef rd_kafka_conf_t *take(self):
        cdef rd_kafka_conf_t *p = self.ptr
        self.ptr = NULL
        return p
