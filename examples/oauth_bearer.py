"""SASL OAUTHBEARER with a token provider of your own (``oauth_cb``): the client asks it for a
token when it is created and again before each token expires, always on the application's
thread, inside poll()/flush() (and once in the constructor).

    python examples/oauth_bearer.py [--bootstrap-servers HOST:PORT] [--topic NAME]
                                    [--lifetime SECONDS]

The provider here makes an unsecured JWT (``alg: none``), which only a broker configured with
Kafka's unsecured validator accepts: fine for development, never for production. In production
``oauth_cb`` fetches a token from your identity provider, or librdkafka does it for you with
``sasl.oauthbearer.method=oidc`` and the client credentials (no callback needed).
Bootstrap servers (a SASL_PLAINTEXT listener) default to $KAFKA_BOOTSTRAP_SERVERS, else
localhost:9092.
"""
import argparse
import base64
import json
import os
import sys
import time
import uuid

from confluent_binding import Producer


def unsecured_jwt(subject, lifetime):
    """A development token: header and claims, base64url-encoded, no signature."""
    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    now = time.time()
    return "%s.%s." % (part({"alg": "none"}),
                       part({"sub": subject, "iat": int(now), "exp": int(now + lifetime)}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--topic", default=f"example-oauth-{uuid.uuid4().hex[:6]}")
    parser.add_argument("--lifetime", type=float, default=4.0,
                        help="seconds each token is valid (refreshed at 80%% of it)")
    args = parser.parse_args()

    fetched = []

    def oauth_cb(config):
        # ``config`` is sasl.oauthbearer.config, e.g. the scope to ask for.
        # Returns (token, expiry as seconds since the epoch[, principal[, extensions]]).
        fetched.append(time.monotonic())
        return unsecured_jwt("example-app", args.lifetime), time.time() + args.lifetime, \
            "example-app"

    producer = Producer({
        "bootstrap.servers": args.bootstrap_servers,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER",
        "sasl.oauthbearer.config": "scope=produce",
        "oauth_cb": oauth_cb,
    })
    print(f"first token fetched while the producer was created: {len(fetched) == 1}")

    delivered = []
    deadline = time.monotonic() + 2.5 * args.lifetime
    i = 0
    while time.monotonic() < deadline:          # long enough for the token to be refreshed
        producer.produce(args.topic, f"event {i}".encode(),
                         on_delivery=lambda err, msg: delivered.append(err is None))
        i += 1
        producer.poll(0.2)                      # serves delivery reports and token refreshes
    assert producer.flush(30) == 0, "not delivered"
    print(f"delivered {sum(delivered)}/{i} messages with {len(fetched)} tokens")
    return 0 if all(delivered) and len(fetched) >= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
