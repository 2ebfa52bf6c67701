"""AWS IAM OAUTHBEARER from configuration alone (confluent-kafka 2.16's autowire) against the real
broker, side by side with confluent-kafka: boto3's real STS client (``sts_endpoint``) asks an STS
endpoint of this test's own for a web identity token, which the broker's unsecured OAUTHBEARER
validator checks; records go through with it.

The STS endpoint speaks STS's query protocol (a form-encoded POST answered with XML), signed
by boto3 with the credentials of the environment the test sets."""
import importlib
import time
import urllib.parse
import uuid
from datetime import datetime, timezone

import pytest

from tests.support.http_gate import HttpGate
from tests.support.oauth_token_server import unsecured_jwt
from tests.support.parity import same

pytest.importorskip("boto3")
pytestmark = pytest.mark.integration

PRINCIPAL = "arn:aws:iam::123456789012:role/payments-app"


class FakeSts:
    """Answers GetWebIdentityToken with an unsecured JWT for :data:`PRINCIPAL` that expires
    after the requested duration; ``requests`` holds each request's form fields and the
    credential scope of its signature."""

    def __init__(self):
        self.requests = []
        self.gate = HttpGate("http://127.0.0.1:1", local=self._answer)

    def _answer(self, method, path, body):
        form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
        self.requests.append(form)
        expires = time.time() + int(form.get("DurationSeconds", "300"))
        token = unsecured_jwt(PRINCIPAL, expires)
        expiration = datetime.fromtimestamp(int(expires), timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        xml = ('<GetWebIdentityTokenResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
               "<GetWebIdentityTokenResult><WebIdentityToken>%s</WebIdentityToken>"
               "<Expiration>%s</Expiration></GetWebIdentityTokenResult>"
               "<ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata>"
               "</GetWebIdentityTokenResponse>" % (token, expiration, uuid.uuid4()))
        return 200, xml.encode(), {"Content-Type": "text/xml"}

    def __enter__(self):
        self.gate.__enter__()
        return self

    def __exit__(self, *exc):
        self.gate.__exit__(*exc)


def aws_conf(cluster, sts, config, **more):
    """A client configuration that gets its tokens from ``sts`` (``config``: the
    sasl.oauthbearer.config settings other than the endpoint)."""
    conf = {"bootstrap.servers": cluster.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.metadata.authentication.type": "aws_iam",
            "sasl.oauthbearer.config": config + ",sts_endpoint=" + sts.gate.url,
            "log_level": 0}
    conf.update(more)
    return conf


@pytest.fixture
def aws_environment(monkeypatch, tmp_path):
    """Credentials in the environment, and nothing else boto3 could look at."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_records_go_through_with_tokens_from_sts(secure_cluster, aws_environment):
    topic = secure_cluster.create_topic("aws-iam-" + uuid.uuid4().hex[:8])

    def scenario(m):
        with FakeSts() as sts:
            conf = aws_conf(secure_cluster, sts, "region=eu-west-1,audience=https://kafka.example,"
                            "duration_seconds=900,signing_algorithm=RS256,tag_team=pay\\,ments",
                            **{"sasl.oauthbearer.extensions": "logicalCluster=lkc-1"})
            value = b"by-" + m.__name__.encode()
            p = m.Producer(conf)
            reports = []
            p.produce(topic, value, on_delivery=lambda err, msg: reports.append(err))
            assert p.flush(30) == 0
            c = m.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex,
                                        "auto.offset.reset": "earliest"}))
            c.subscribe([topic])
            got = None
            deadline = time.monotonic() + 60
            while got is None or got.error() is not None or got.value() != value:
                assert time.monotonic() < deadline, "record not read back"
                got = c.poll(1)
            c.close()
            requests = [dict(r) for r in sts.requests]
        return {"delivered": reports == [None], "read": got.value() == value,
                # one token for the producer and one for the consumer, each asked for alike
                "requests": len(requests) >= 2 and all(r == requests[0] for r in requests),
                "request": requests[0]}

    same(scenario, {"delivered": True, "read": True, "requests": True, "request": {
        "Action": "GetWebIdentityToken", "Version": "2011-06-15",
        "Audience.member.1": "https://kafka.example", "SigningAlgorithm": "RS256",
        "DurationSeconds": "900", "Tags.member.1.Key": "team",
        "Tags.member.1.Value": "pay,ments"}})


def test_the_credential_scope_names_the_configured_region(secure_cluster, aws_environment):
    """boto3 signs for STS in the configured region, as confluent-kafka's does."""
    def scenario(m):
        with FakeSts() as sts:
            conf = aws_conf(secure_cluster, sts, "region=ap-south-2,audience=a")
            admin = importlib.import_module(m.__name__ + ".admin").AdminClient(conf)
            brokers = sorted(admin.list_topics(timeout=30).brokers)
            scope = sts.gate.requests[0].headers["Authorization"].split("Credential=")[1]
            return brokers, scope.split("/")[2:4]

    same(scenario, ([1], ["ap-south-2", "sts"]))
