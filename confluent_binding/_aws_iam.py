"""OAUTHBEARER tokens from AWS IAM, wired from the configuration as confluent-kafka 2.16 does.

A client configured with ``sasl.oauthbearer.method=oidc`` and
``sasl.oauthbearer.metadata.authentication.type=aws_iam``, and no ``oauth_cb`` of its own, gets
its tokens from AWS STS ``GetWebIdentityToken`` (boto3, the ``oauthbearer-aws`` extra), with the
credentials boto3 finds (environment, profile, instance or task role). ``sasl.oauthbearer.config``
says what to ask for, as comma-separated ``key=value`` pairs::

    region=<aws region>              required
    audience=<the token's aud>       required
    duration_seconds=<60..3600>      default 300
    signing_algorithm=ES384|RS256    default ES384
    sts_endpoint=<url>               e.g. a FIPS or VPC endpoint
    aws_debug=none|console           console: botocore's debug log on stderr
    tag_<name>=<value>               a custom claim of the token (at most 50)

``sasl.oauthbearer.extensions`` (``key=value,...``) go with every token. The token's principal is
its ``sub`` claim. Everything is checked when the client is made: a wrong setting raises
ValueError there, a missing boto3 ImportError, as confluent-kafka's do.

The core calls :func:`oauth_cb_for` (registered by the package) before it builds the librdkafka
configuration; librdkafka itself only accepts ``aws_iam`` and fails every token request
without a callback.
"""

import base64
import binascii
import importlib
import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

MARKER_KEY = "sasl.oauthbearer.metadata.authentication.type"
MARKER = "aws_iam"
METHOD_KEY = "sasl.oauthbearer.method"
CONFIG_KEY = "sasl.oauthbearer.config"
EXTENSIONS_KEY = "sasl.oauthbearer.extensions"
MIN_BOTO3 = (1, 42, 25)         # the first boto3 with STS GetWebIdentityToken
MAX_TAGS = 50
DURATION_RANGE = (60, 3600)
SIGNING_ALGORITHMS = ("ES384", "RS256")
AWS_DEBUG = ("none", "console")

Token = Tuple[str, float, str, Dict[str, str]]


def oauth_cb_for(conf: Mapping[str, Any]) -> Optional[Callable[[str], Token]]:
    """The ``oauth_cb`` a client configured with ``conf`` (which has no ``oauth_cb``) uses:
    None unless ``conf`` asks for AWS IAM tokens. Raises ValueError for a configuration that
    cannot work, ImportError without a recent enough boto3."""
    if conf.get(MARKER_KEY) != MARKER:
        return None
    method = conf.get(METHOD_KEY)
    if method != "oidc":
        raise ValueError(
            "'%s=%s' requires '%s=oidc'. Current value: %s. method=oidc is mandatory for the "
            "AWS IAM authentication path."
            % (MARKER_KEY, MARKER, METHOD_KEY, "<unset>" if method is None else repr(method)))
    raw = conf.get(CONFIG_KEY)
    if not raw:
        raise ValueError(
            "'%s=%s' is set but '%s' is missing or empty. The AWS IAM autowire path requires "
            "region and audience to be supplied via %s (e.g. \"region=us-east-1,"
            "audience=https://...\")." % (MARKER_KEY, MARKER, CONFIG_KEY, CONFIG_KEY))
    boto3 = _boto3()
    settings = StsSettings.parse(str(raw), _extensions(conf.get(EXTENSIONS_KEY)))
    return StsTokens(settings, _sts_client(boto3, settings))


def _boto3() -> Any:
    try:
        boto3 = importlib.import_module("boto3")    # (untyped: Any)
    except ImportError:
        raise ImportError(
            "Config '%s=%s' requires the optional 'oauthbearer-aws' extra. Install with:\n"
            "    pip install 'confluent_binding[oauthbearer-aws]'" % (MARKER_KEY, MARKER)) from None
    if _version(boto3.__version__) < MIN_BOTO3:
        raise ImportError(
            "The AWS IAM OAUTHBEARER path requires boto3>=%s (for the STS GetWebIdentityToken "
            "operation), but found boto3 %s. Upgrade with: pip install -U "
            "'confluent_binding[oauthbearer-aws]'." % (".".join(map(str, MIN_BOTO3)),
                                                         boto3.__version__))
    return boto3


def _version(text: str) -> Tuple[int, ...]:
    """The leading integer of each dotted part ('1.42.0rc1' -> (1, 42, 0))."""
    parts = []
    for part in text.split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits or 0))
    return tuple(parts)


def _sts_client(boto3: Any, settings: "StsSettings") -> Any:
    if settings.aws_debug == "console":
        boto3.set_stream_logger("botocore", logging.DEBUG)
    kwargs: Dict[str, Any] = {"region_name": settings.region}
    if settings.sts_endpoint:
        kwargs["endpoint_url"] = settings.sts_endpoint
    return boto3.Session(region_name=settings.region).client("sts", **kwargs)


# -- librdkafka's "key=value,key=value" strings ----------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "0": "\0"}
_SPACE = " \t\n\v\f\r"          # C isspace() in the C locale, not str.isspace()


def split_fields(raw: str, sep: str = ",") -> List[str]:
    """Split as librdkafka splits its list-valued properties: ``\\`` escapes the next character
    (``\\t \\n \\r \\0`` as in C, any other one kept as is, so ``\\,`` is a comma inside a
    field), leading whitespace that is not escaped is dropped, trailing whitespace always, and
    empty fields are skipped."""
    fields = []
    field: List[str] = []
    escaped = False
    for ch in raw:
        if escaped:
            field.append(_ESCAPES.get(ch, ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == sep:
            fields.append("".join(field).rstrip(_SPACE))
            field = []
        elif ch in _SPACE and not field:
            continue
        else:
            field.append(ch)
    fields.append("".join(field).rstrip(_SPACE))
    return [f for f in fields if f]


def key_values(raw: str, what: str) -> List[Tuple[str, str]]:
    """``[(key, value)]`` of a librdkafka ``key=value`` list (split on each field's first
    ``=``); ValueError naming ``what`` for a field without a key."""
    pairs = []
    for field in split_fields(raw):
        key, eq, value = field.partition("=")
        if not eq or not key:
            raise ValueError("Malformed entry '%s' in %s (expected key=value)." % (field, what))
        pairs.append((key, value))
    return pairs


def _extensions(raw: Any) -> Dict[str, str]:
    return dict(key_values(str(raw), EXTENSIONS_KEY)) if raw else {}


# -- the STS request ------------------------------------------------------------------------

@dataclass(frozen=True)
class StsSettings:
    """What ``sasl.oauthbearer.config`` asks STS for (see the module's docstring)."""
    region: str
    audience: str
    duration_seconds: int = 300
    signing_algorithm: str = "ES384"
    sts_endpoint: Optional[str] = None
    aws_debug: str = "none"
    tags: Tuple[Tuple[str, str], ...] = ()
    extensions: Tuple[Tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, raw: str, extensions: Optional[Mapping[str, str]] = None) -> "StsSettings":
        """Read ``sasl.oauthbearer.config``; ValueError for an unknown key, an empty or
        missing required value, a value out of range (a repeated key: the last one counts)."""
        values: Dict[str, str] = {}
        tags: Dict[str, str] = {}
        seconds = 300
        for key, value in key_values(raw, CONFIG_KEY):
            if key.startswith("tag_"):
                if key == "tag_":
                    raise ValueError("%s tag key %r has empty name." % (CONFIG_KEY, key))
                tags[key[4:]] = value
                continue
            if key not in ("region", "audience", "duration_seconds", "signing_algorithm",
                           "sts_endpoint", "aws_debug"):
                raise ValueError("Unknown key %r in %s." % (key, CONFIG_KEY))
            if key == "duration_seconds":
                try:
                    seconds = int(value)
                except ValueError:
                    raise ValueError("%s 'duration_seconds' must be an integer; got %r."
                                     % (CONFIG_KEY, value)) from None
            elif value == "":
                raise ValueError("%s %r must not be empty." % (CONFIG_KEY, key))
            values[key] = value
        for key in ("region", "audience"):
            if key not in values:
                raise ValueError("%r is required in %s." % (key, CONFIG_KEY))
        algorithm = values.get("signing_algorithm", "ES384")
        if algorithm not in SIGNING_ALGORITHMS:
            raise ValueError("%s 'signing_algorithm' must be 'ES384' or 'RS256'; got %r."
                             % (CONFIG_KEY, algorithm))
        low, high = DURATION_RANGE
        if not low <= seconds <= high:
            raise ValueError("%s 'duration_seconds' must be between %d and %d inclusive; got %d."
                             % (CONFIG_KEY, low, high, seconds))
        debug = values.get("aws_debug", "none").lower()
        if debug not in AWS_DEBUG:
            raise ValueError("%s 'aws_debug' must be one of: none, console. Got %r."
                             % (CONFIG_KEY, debug))
        if len(tags) > MAX_TAGS:
            raise ValueError("%s has %d tags; AWS allows at most %d."
                             % (CONFIG_KEY, len(tags), MAX_TAGS))
        return cls(region=values["region"], audience=values["audience"],
                   duration_seconds=seconds, signing_algorithm=algorithm,
                   sts_endpoint=values.get("sts_endpoint"), aws_debug=debug,
                   tags=tuple(tags.items()), extensions=tuple((extensions or {}).items()))


class StsTokens:
    """The ``oauth_cb``: each call asks STS for a new token."""

    def __init__(self, settings: StsSettings, sts: Any):
        self.settings = settings
        self._sts = sts

    def __call__(self, oauthbearer_config: str = "") -> Token:
        s = self.settings
        request: Dict[str, Any] = {"Audience": [s.audience],
                                   "SigningAlgorithm": s.signing_algorithm,
                                   "DurationSeconds": s.duration_seconds}
        if s.tags:
            request["Tags"] = [{"Key": k, "Value": v} for k, v in s.tags]
        answer = self._sts.get_web_identity_token(**request)
        token = answer.get("WebIdentityToken")
        if not isinstance(token, str) or not token:
            raise ValueError("STS response missing WebIdentityToken; cannot mint OAUTHBEARER "
                             "token.")
        expiration = answer.get("Expiration")
        if expiration is None:
            raise ValueError("STS response missing Expiration; cannot compute token lifetime.")
        return token, expiration.timestamp(), token_subject(token), dict(s.extensions)


def token_subject(jwt: str) -> str:
    """The ``sub`` claim of a JWT (not verified: STS signed it, the broker checks it)."""
    parts = jwt.split(".")
    if len(parts) != 3:
        raise ValueError("JWT must have exactly 3 '.'-separated segments; got %d." % len(parts))
    payload = parts[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("JWT payload is not base64url-encoded JSON: %s" % exc) from None
    sub = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(sub, str) or not sub:
        raise ValueError("JWT payload is missing a 'sub' string claim.")
    return sub
