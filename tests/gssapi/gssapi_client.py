"""A Kafka client run by test_gssapi.py in a child process, with the GSSAPI build of the package.

    python gssapi_client.py PACKAGE_DIR MODE CONFIG_JSON [TOPIC]

PACKAGE_DIR holds the confluent_binding package built with CB_GSSAPI=1; it goes first on
sys.path, so the package is that build and not the default one of the checkout or venv. The
Kerberos environment (KRB5_CONFIG, KRB5CCNAME) comes from the parent. MODE:

  round-trip    produce three messages to TOPIC, consume them in a group; prints the delivery
                reports and the consumed messages
  auth-failure  a producer that cannot authenticate: polls until error_cb reports an error of
                code _AUTHENTICATION; prints the errors seen and how long that took

Prints one JSON object on stdout.
"""
import json
import sys
import time


def round_trip(kafka, conf, topic):
    reports = []
    p = kafka.Producer(conf)
    for i in range(3):
        p.produce(topic, b"value-%d" % i, b"key-%d" % i, headers=[("n", b"%d" % i)],
                  on_delivery=lambda err, msg: reports.append(
                      [str(err) if err else None, msg.partition(), msg.offset()]))
    left = p.flush(60)
    p.close()
    consumed = []
    c = kafka.Consumer(dict(conf, **{"group.id": "gssapi-" + topic,
                                     "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    deadline = time.monotonic() + 60
    try:
        while len(consumed) < 3 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error() is not None:
                consumed.append({"error": str(m.error())})
                break
            consumed.append({"key": m.key().decode(), "value": m.value().decode(),
                             "headers": [[k, v.decode()] for k, v in m.headers()],
                             "partition": m.partition(), "offset": m.offset()})
    finally:
        c.close()
    return {"unflushed": left, "reports": reports, "consumed": consumed}


def auth_failure(kafka, conf):
    errors = []
    start = time.monotonic()
    p = kafka.Producer(dict(conf, error_cb=errors.append))
    deadline = start + 60
    while (not any(e.code() == kafka.KafkaError._AUTHENTICATION for e in errors)
           and time.monotonic() < deadline):
        p.poll(0.2)
    elapsed = time.monotonic() - start
    p.close(0)
    return {"seconds": elapsed,
            "errors": [[e.name(), e.str()] for e in errors]}


def main():
    package_dir, mode, conf = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    sys.path.insert(0, package_dir)
    import confluent_binding as kafka

    out = {"package": kafka.__file__, "core": kafka._core.__file__}
    if mode == "round-trip":
        out.update(round_trip(kafka, conf, sys.argv[4]))
    elif mode == "auth-failure":
        out.update(auth_failure(kafka, conf))
    else:
        raise SystemExit("unknown mode %r" % mode)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
