"""AWS IAM OAUTHBEARER from configuration (confluent-kafka 2.16's autowire): what is checked when
a client is made, side by side with confluent-kafka, and the ``key=value`` lists read as
librdkafka reads them. The tokens themselves, from boto3's STS client against a real broker:
tests/integration/test_oauth_aws_iam.py."""
import importlib

import pytest

import confluent_binding as kafka
from confluent_binding import _aws_iam

pytest.importorskip("boto3")
peer_strings = pytest.importorskip("confluent_kafka._util.librdkafka_string_parser")

from tests.support.parity import Raises, same  # noqa: E402  (skips without confluent_kafka)

BASE = {"bootstrap.servers": "127.0.0.1:1", "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER"}
AWS = {"sasl.oauthbearer.method": "oidc",
       "sasl.oauthbearer.metadata.authentication.type": "aws_iam"}
GOOD = "region=eu-west-1,audience=https://kafka.example"


def _made(client, **conf):
    def scenario(m):
        full = dict(BASE, **conf)
        if client == "AdminClient":
            m = importlib.import_module(m.__name__ + ".admin")
        return type(getattr(m, client)(dict(full, **({"group.id": "g"} if client == "Consumer"
                                                     else {})))).__name__
    return scenario


def _conf(config=None, **more):
    conf = dict(AWS, **more)
    if config is not None:
        conf["sasl.oauthbearer.config"] = config
    return conf


BAD = [
    ("method unset", {"sasl.oauthbearer.metadata.authentication.type": "aws_iam",
                      "sasl.oauthbearer.config": GOOD}, "Current value: <unset>."),
    ("method OIDC", _conf(GOOD, **{"sasl.oauthbearer.method": "OIDC"}), "Current value: 'OIDC'."),
    ("method default", _conf(GOOD, **{"sasl.oauthbearer.method": "default"}),
     "requires 'sasl.oauthbearer.method=oidc'"),
    ("no config", _conf(), "'sasl.oauthbearer.config' is missing or empty"),
    ("empty config", _conf(""), "'sasl.oauthbearer.config' is missing or empty"),
    ("unknown key", _conf(GOOD + ",foo=1"), "Unknown key 'foo' in sasl.oauthbearer.config."),
    ("extension key", _conf(GOOD + ",extension_a=1"), "Unknown key 'extension_a'"),
    ("no region", _conf("audience=x"), "'region' is required in sasl.oauthbearer.config."),
    ("no audience", _conf("region=eu-west-1"), "'audience' is required"),
    ("empty region", _conf("region=,audience=x"), "'region' must not be empty."),
    ("malformed", _conf(GOOD + ",oops"), "Malformed entry 'oops' in sasl.oauthbearer.config"),
    ("empty key", _conf(GOOD + ",=v"), "Malformed entry '=v'"),
    ("duration text", _conf(GOOD + ",duration_seconds=ten"),
     "'duration_seconds' must be an integer; got 'ten'."),
    ("duration empty, no region", _conf("duration_seconds=,audience=x"),
     "'duration_seconds' must be an integer; got ''."),
    ("duration low", _conf(GOOD + ",duration_seconds=59"),
     "must be between 60 and 3600 inclusive; got 59."),
    ("duration high", _conf(GOOD + ",duration_seconds=3601"), "got 3601."),
    ("algorithm", _conf(GOOD + ",signing_algorithm=HS256,duration_seconds=5"),
     "'signing_algorithm' must be 'ES384' or 'RS256'; got 'HS256'."),
    ("aws_debug", _conf(GOOD + ",aws_debug=Verbose"),
     "'aws_debug' must be one of: none, console. Got 'verbose'."),
    ("empty tag name", _conf(GOOD + ",tag_=x"), "tag key 'tag_' has empty name."),
    ("too many tags", _conf(GOOD + "".join(",tag_t%d=v" % i for i in range(51))),
     "has 51 tags; AWS allows at most 50."),
    ("extensions", _conf(GOOD, **{"sasl.oauthbearer.extensions": "a=b,c"}),
     "Malformed entry 'c' in sasl.oauthbearer.extensions"),
]


@pytest.mark.parametrize("client", ["Producer", "Consumer", "AdminClient"])
@pytest.mark.parametrize("conf,text", [(c, t) for _, c, t in BAD], ids=[n for n, _, _ in BAD])
def test_a_configuration_that_cannot_work_raises_when_the_client_is_made(client, conf, text):
    same(_made(client, **conf), Raises(ValueError, text))


def test_a_configuration_that_can_work_is_read_whole():
    conf = _conf(GOOD + ",duration_seconds=3600,signing_algorithm=RS256,"
                 "sts_endpoint=http://127.0.0.1:1,aws_debug=NONE,tag_team=a\\,b,tag_x=,"
                 "duration_seconds=900",
                 **{"sasl.oauthbearer.extensions": "logicalCluster=lkc-1,a=b=c"})
    tokens = _aws_iam.oauth_cb_for(conf)
    assert tokens.settings == _aws_iam.StsSettings(
        region="eu-west-1", audience="https://kafka.example", duration_seconds=900,
        signing_algorithm="RS256", sts_endpoint="http://127.0.0.1:1", aws_debug="none",
        tags=(("team", "a,b"), ("x", "")), extensions=(("logicalCluster", "lkc-1"), ("a", "b=c")))
    assert tokens._sts.meta.endpoint_url == "http://127.0.0.1:1"
    assert tokens._sts.meta.region_name == "eu-west-1"


def test_only_the_exact_marker_and_no_oauth_cb_of_the_application_wire_it():
    plain = {"sasl.mechanisms": "PLAIN", "sasl.username": "u", "sasl.password": "p"}
    # without an oauth_cb, this configuration is refused (no method=oidc) ...
    with pytest.raises(ValueError, match="requires 'sasl.oauthbearer.method=oidc'"):
        kafka.Producer(dict(BASE, **plain, **{
            "sasl.oauthbearer.metadata.authentication.type": "aws_iam"}))
    # ... with one, the application's is used (a PLAIN client never asks it for a token)
    kafka.Producer(dict(BASE, **plain, **{
        "sasl.oauthbearer.metadata.authentication.type": "aws_iam",
        "oauth_cb": lambda config: ("t", 0.0)}))
    # librdkafka takes AWS_IAM too, but the autowire only the exact value, as confluent-kafka's
    assert _aws_iam.oauth_cb_for(dict(AWS, **{
        "sasl.oauthbearer.metadata.authentication.type": "AWS_IAM"})) is None
    kafka.Producer(dict(BASE, **plain, **dict(AWS, **{
        "sasl.oauthbearer.metadata.authentication.type": "AWS_IAM"})))


FIELDS = ["", "a", " a ,b", "a,,b", ",a,", "a\\,b,c", "a\\\\,b", "\\ a", "a\\ ", "a\\tb\\n",
          "x\\0y", "trailing\\", "k=v=w", "  ,  ,", "tab\t,\tlead", "\\,", "a\u00a0,b"]


@pytest.mark.parametrize("raw", FIELDS)
def test_fields_are_split_as_librdkafka_splits_them(raw):
    assert _aws_iam.split_fields(raw) == peer_strings.split(raw, ",", True)


def test_the_token_principal_is_its_subject():
    # {"sub": "arn:aws:iam::123:role/app", "exp": 1}
    payload = "eyJzdWIiOiJhcm46YXdzOmlhbTo6MTIzOnJvbGUvYXBwIiwiZXhwIjoxfQ"
    assert _aws_iam.token_subject("e30.%s.sig" % payload) == "arn:aws:iam::123:role/app"
    for bad in ("a.b", "e30.e30.s", "e30.!!.s", "e30.%s.s" % "eyJzdWIiOiIifQ"):
        with pytest.raises(ValueError):
            _aws_iam.token_subject(bad)
