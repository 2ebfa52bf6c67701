"""Smoke test of an installed build (also the wheel builders' test): the bundled librdkafka is
the pinned one with every feature, and a message to a dead broker gets its delivery report."""
import socket

import confluent_binding as kafka

REQUIRED_FEATURES = {"gzip", "snappy", "ssl", "sasl_plain", "sasl_scram", "sasl_gssapi",
                     "sasl_oauthbearer", "zstd", "lz4"}


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bundled_librdkafka_is_the_pinned_version():
    assert kafka.libversion() == ("2.15.1", 0x020F01FF)
    assert kafka._core._built_with() == 0x020F01FF


def test_every_required_feature_is_compiled_in():
    # librdkafka rejects a security.protocol / codec it was built without.
    for conf in ({"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512",
                  "sasl.username": "u", "sasl.password": "p"},
                 {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "GSSAPI",
                  "sasl.kerberos.kinit.cmd": "true"},
                 {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER"},
                 {"compression.codec": "zstd"}, {"compression.codec": "lz4"},
                 {"compression.codec": "snappy"}, {"compression.codec": "gzip"}):
        kafka.Producer(conf).close(0)


def test_delivery_report_from_a_dead_broker():
    reports = []
    p = kafka.Producer({"bootstrap.servers": "127.0.0.1:%d" % _closed_port(),
                        "message.timeout.ms": 200, "log_level": 0})
    p.produce("t", b"v", b"k", on_delivery=lambda err, msg: reports.append((err, msg)))
    assert p.flush(10) == 0
    p.close()
    [(err, msg)] = reports
    assert err.code() == kafka.KafkaError._MSG_TIMED_OUT
    assert (msg.topic(), msg.key(), msg.value()) == ("t", b"k", b"v")
