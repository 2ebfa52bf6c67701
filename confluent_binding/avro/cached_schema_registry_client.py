"""The legacy Schema Registry client of the Avro clients (superseded by
:class:`confluent_binding.schema_registry.SchemaRegistryClient`).

It speaks the registry's REST API over the Schema Registry client's transport (httpx: proxies from
the environment, kept-alive connections), with the configuration keys, answers, caching and error
messages of confluent-kafka's ``CachedSchemaRegistryClient``.
"""

import base64
import json
import logging
import types
import urllib.parse
import warnings
from collections import defaultdict

from ..schema_registry._rest import DEFAULT_TIMEOUT, RestClient, _httpx, _Target
from .error import ClientError
from .load import loads

__all__ = ["ACCEPT_HDR", "CachedSchemaRegistryClient", "ClientError", "VALID_AUTH_PROVIDERS",
           "VALID_LEVELS", "VALID_METHODS", "loads", "log"]

VALID_LEVELS = ["NONE", "FULL", "FORWARD", "BACKWARD"]
VALID_METHODS = ["GET", "POST", "PUT", "DELETE"]
VALID_AUTH_PROVIDERS = ["URL", "USER_INFO", "SASL_INHERIT"]

#: the Accept header of every request
ACCEPT_HDR = ("application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, "
              "application/json")
_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
# what a path segment may keep unescaped (as an HTTP library sends a URL it is given)
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"

log = logging.getLogger(__name__)


def _success(code):
    return 200 <= code <= 299



def _connection_error():
    """What a registry that cannot be reached raises: confluent-kafka's legacy client runs on
    requests, so requests' ``ConnectionError`` where requests is installed (code catching it
    keeps working), else the built-in ``ConnectionError``."""
    try:
        from requests.exceptions import ConnectionError as RequestsConnectionError
    except ImportError:
        return ConnectionError
    return RequestsConnectionError

class CachedSchemaRegistryClient:
    """A Schema Registry client that caches schemas by id and ids by subject and schema.

    ``url`` is a dict of settings (``url``, ``ssl.ca.location``, ``ssl.certificate.location``,
    ``ssl.key.location``, ``ssl.key.password``, ``basic.auth.credentials.source`` — ``URL``,
    ``USER_INFO`` or ``SASL_INHERIT`` —, ``basic.auth.user.info``, ``sasl.mechanism``,
    ``sasl.username``, ``sasl.password``, ``auto.register.schemas``), or (deprecated) the
    registry's URL with the TLS files as the other arguments. Failed requests raise
    :class:`ClientError` or answer ``None``, method by method, as confluent-kafka's.

    .. deprecated:: 1.1.0
       the URL-and-files form: pass a dict.
    """

    def __init__(self, url, max_schemas_per_subject=1000, ca_location=None, cert_location=None,
                 key_location=None):
        if isinstance(url, dict):
            conf = dict(url)
        else:
            conf = {"url": url, "ssl.ca.location": ca_location,
                    "ssl.certificate.location": cert_location, "ssl.key.location": key_location}
            warnings.warn(
                "CachedSchemaRegistry constructor is being deprecated. "
                "Use CachedSchemaRegistryClient(dict: config) instead. "
                "Existing params ca_location, cert_location and key_location will be replaced "
                "with their librdkafka equivalents as keys in the conf dict: `ssl.ca.location`, "
                "`ssl.certificate.location` and `ssl.key.location` respectively",
                category=DeprecationWarning, stacklevel=2)
        self.max_schemas_per_subject = max_schemas_per_subject
        url = conf.pop("url", "")
        if not isinstance(url, str):
            raise TypeError("URL must be of type str")
        if not url.startswith("http"):
            raise ValueError("Invalid URL provided for Schema Registry")

        # subject -> {schema -> id}, id -> schema, subject -> {schema -> version}; a schema is
        # known by its JSON text (the avro package's schema objects are not hashable)
        self.subject_to_schema_ids = defaultdict(dict)
        self.id_to_schema = defaultdict(dict)
        self.subject_to_schema_versions = defaultdict(dict)

        cert = conf.pop("ssl.certificate.location", None)
        key = conf.pop("ssl.key.location", None)
        if bool(cert) != bool(key):
            raise ValueError("Both schema.registry.ssl.certificate.location and "
                             "schema.registry.ssl.key.location must be set")
        tls = {"ssl.ca.location": conf.pop("ssl.ca.location", None),
               "ssl.certificate.location": cert or None, "ssl.key.location": key or None,
               "ssl.key.password": conf.pop("ssl.key.password", None)}
        self._auth = self._configure_basic_auth(url, conf)
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        netloc = parts.netloc.rsplit("@", 1)[-1]
        self.url = urllib.parse.urlunsplit(parts._replace(netloc=netloc, fragment=""))
        self.auto_register_schemas = conf.pop("auto.register.schemas", True)
        if conf:
            raise ValueError("Unrecognized configuration properties: {}".format(conf.keys()))
        # The TLS files are read by the first request, as confluent-kafka's (requests-based)
        # client does: a client can be made before its certificates are in place.
        self._tls = ({k: v for k, v in tls.items() if v is not None}
                     if parts.scheme == "https" else None)
        self._target_made = None
        # what confluent-kafka's requests session of this client holds, under its name: the
        # basic credentials, the client certificate and key, the CA (True: the default ones)
        self._session = types.SimpleNamespace(
            auth=self._auth, cert=(tls["ssl.certificate.location"], tls["ssl.key.location"]),
            verify=tls["ssl.ca.location"] or True)

    @property
    def _target(self):
        if self._target_made is None:
            ssl_context = RestClient._ssl_context(self._tls) if self._tls is not None else None
            self._target_made = _Target(self.url, ssl_context, None, DEFAULT_TIMEOUT)
        return self._target_made

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def close(self):
        """Close the kept-alive connections."""
        target = getattr(self, "_target_made", None)  # not there when the constructor failed
        if target is not None:
            target.close()

    @staticmethod
    def _configure_basic_auth(url, conf):
        source = str(conf.pop("basic.auth.credentials.source", "URL")).upper()
        if source not in VALID_AUTH_PROVIDERS:
            raise ValueError("schema.registry.basic.auth.credentials.source must be one of {}"
                             .format(VALID_AUTH_PROVIDERS))
        if source == "SASL_INHERIT":
            if str(conf.pop("sasl.mechanism", "")).upper() == "GSSAPI":
                raise ValueError("SASL_INHERIT does not support SASL mechanism GSSAPI")
            return conf.pop("sasl.username", ""), conf.pop("sasl.password", "")
        if source == "USER_INFO":
            return tuple(conf.pop("basic.auth.user.info", "").split(":"))
        parts = urllib.parse.urlsplit(url)
        return (urllib.parse.unquote(parts.username or ""),
                urllib.parse.unquote(parts.password or ""))

    def _send_request(self, url, method="GET", body=None, headers=None):
        """(the decoded JSON answer, or its bytes when it is not JSON; the HTTP status)."""
        if method not in VALID_METHODS:
            raise ClientError("Method {} is invalid; valid methods include {}"
                              .format(method, VALID_METHODS))
        request_headers = {"Accept": ACCEPT_HDR}
        data = None
        if body:
            data = json.dumps(body).encode("utf-8")
            request_headers["Content-Length"] = str(len(data))
            request_headers["Content-Type"] = _CONTENT_TYPE
        if any(self._auth):
            token = base64.b64encode(":".join(self._auth).encode("utf-8")).decode("ascii")
            request_headers["Authorization"] = "Basic " + token
        request_headers.update(headers or {})
        path = url[len(self.url):].lstrip("/") if url.startswith(self.url) else url
        target = self._target.request_target(urllib.parse.quote(path, safe=_PATH_SAFE))
        try:
            status, content = self._target.send(method, target, data, request_headers)
        except _httpx().ConnectError as exc:
            raise _connection_error()(str(exc)) from exc
        try:
            return json.loads(content), status
        except ValueError:
            return content, status

    def _url(self, *segments):
        return "/".join((self.url,) + tuple(str(s) for s in segments))

    def _cache_schema(self, schema, schema_id, subject=None, version=None):
        # the first schema object seen for an id stays the one answered for it
        schema = self.id_to_schema.setdefault(schema_id, schema)
        if subject:
            self.subject_to_schema_ids[subject][str(schema)] = schema_id
            if version:
                self.subject_to_schema_versions[subject][str(schema)] = version

    def register(self, subject, avro_schema):
        """POST /subjects/<subject>/versions: register the parsed ``avro_schema`` under
        ``subject``; its id."""
        schema_id = self.subject_to_schema_ids[subject].get(str(avro_schema))
        if schema_id is not None:
            return schema_id
        result, code = self._send_request(self._url("subjects", subject, "versions"),
                                          method="POST", body={"schema": str(avro_schema)})
        if code in (401, 403):
            raise ClientError("Unauthorized access. Error code:%s message:%s" % (code, result))
        if code == 409:
            raise ClientError("Incompatible Avro schema:%s message:%s" % (code, result))
        if code == 422:
            raise ClientError("Invalid Avro schema:%s message:%s" % (code, result))
        if not _success(code):
            raise ClientError("Unable to register schema. Error code:%s message:%s"
                              % (code, result))
        schema_id = result["id"]
        self._cache_schema(avro_schema, schema_id, subject)
        return schema_id

    def check_registration(self, subject, avro_schema):
        """POST /subjects/<subject>: the id of ``avro_schema`` if it is registered under
        ``subject``; :class:`ClientError` if not."""
        schema_id = self.subject_to_schema_ids[subject].get(str(avro_schema))
        if schema_id is not None:
            return schema_id
        result, code = self._send_request(self._url("subjects", subject), method="POST",
                                          body={"schema": str(avro_schema)})
        if code in (401, 403):
            raise ClientError("Unauthorized access. Error code:" + str(code))
        if code == 404:
            raise ClientError("Schema or subject not found:" + str(code))
        if not _success(code):
            raise ClientError("Unable to check schema registration. Error code:" + str(code))
        schema_id = result["id"]
        self._cache_schema(avro_schema, schema_id, subject)
        return schema_id

    def delete_subject(self, subject):
        """DELETE /subjects/<subject>: the versions deleted."""
        result, code = self._send_request(self._url("subjects", subject), method="DELETE")
        if not _success(code):
            raise ClientError("Unable to delete subject: {}".format(result))
        return result

    def get_by_id(self, schema_id):
        """GET /schemas/ids/<id>: the parsed schema, or None when the registry has none."""
        if schema_id in self.id_to_schema:
            return self.id_to_schema[schema_id]
        result, code = self._send_request(self._url("schemas", "ids", schema_id))
        if code == 404:
            log.error("Schema not found:" + str(code))
            return None
        if not _success(code):
            log.error("Unable to get schema for the specific ID:" + str(code))
            return None
        try:
            schema = loads(result.get("schema"))
        except ClientError as e:
            raise ClientError("Received bad schema (id %s) from registry: %s"
                              % (schema_id, e)) from None
        self._cache_schema(schema, schema_id)
        return schema

    def get_latest_schema(self, subject):
        """GET /subjects/<subject>/versions/latest: (id, parsed schema, version), or
        (None, None, None)."""
        return self.get_by_version(subject, "latest")

    def get_by_version(self, subject, version):
        """GET /subjects/<subject>/versions/<version>: (id, parsed schema, version), or
        (None, None, None)."""
        result, code = self._send_request(self._url("subjects", subject, "versions", version))
        if code == 404:
            log.error("Schema not found:" + str(code))
            return None, None, None
        if code == 422:
            log.error("Invalid version:" + str(code))
            return None, None, None
        if not _success(code):
            return None, None, None
        schema_id, version = result["id"], result["version"]
        schema = self.id_to_schema.get(schema_id) or loads(result["schema"])
        self._cache_schema(schema, schema_id, subject, version)
        return schema_id, schema, version

    def get_version(self, subject, avro_schema):
        """POST /subjects/<subject>: the version of ``avro_schema`` under ``subject``, or
        None."""
        version = self.subject_to_schema_versions[subject].get(str(avro_schema))
        if version is not None:
            return version
        result, code = self._send_request(self._url("subjects", subject), method="POST",
                                          body={"schema": str(avro_schema)})
        if code == 404:
            log.error("Not found:" + str(code))
            return None
        if not _success(code):
            log.error("Unable to get version of a schema:" + str(code))
            return None
        self._cache_schema(avro_schema, result["id"], subject, result["version"])
        return result["version"]

    def test_compatibility(self, subject, avro_schema, version="latest"):
        """POST /compatibility/subjects/<subject>/versions/<version>: whether ``avro_schema``
        is compatible (False also when the check cannot be made)."""
        url = self._url("compatibility", "subjects", subject, "versions", version)
        try:
            result, code = self._send_request(url, method="POST",
                                              body={"schema": str(avro_schema)})
        except Exception as e:
            log.error("_send_request() failed: %s", e)
            return False
        if code == 404:
            log.error("Subject or version not found:" + str(code))
            return False
        if code == 422:
            log.error("Invalid subject or schema:" + str(code))
            return False
        if _success(code):
            return result.get("is_compatible")
        log.error("Unable to check the compatibility: " + str(code))
        return False

    def update_compatibility(self, level, subject=None):
        """PUT /config[/<subject>]: set the compatibility level (one of
        :data:`VALID_LEVELS`); the level set."""
        if level not in VALID_LEVELS:
            raise ClientError("Invalid level specified: %s" % level)
        url = self._url("config", subject) if subject else self._url("config")
        result, code = self._send_request(url, method="PUT", body={"compatibility": level})
        if _success(code):
            return result["compatibility"]
        raise ClientError("Unable to update level: %s. Error code: %d" % (level, code))

    def get_compatibility(self, subject=None):
        """GET /config[/<subject>]: the compatibility level, one of :data:`VALID_LEVELS`."""
        url = self._url("config", subject) if subject else self._url("config")
        result, code = self._send_request(url)
        if not _success(code):
            raise ClientError("Unable to fetch compatibility level. Error code: %d" % code)
        compatibility = result.get("compatibilityLevel")
        if compatibility not in VALID_LEVELS:
            raise ClientError("Invalid compatibility level received: %s" % (
                "No compatibility was returned" if compatibility is None else compatibility))
        return compatibility
