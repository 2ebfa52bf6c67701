"""The blocking Schema Registry client, :class:`SchemaRegistryClient` (offered by
:mod:`.schema_registry_client`, as confluent-kafka's)."""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Literal, Optional, Union

from ._associations import Association, AssociationCreateOrUpdateRequest, AssociationResponse
from ._caches import _BoundedCache, _SchemaCache
from ._rest import RestClient, urlencode
from ._types import RegisteredSchema, Schema, SchemaVersion, ServerConfig


def _schema_id_query(
    subject: Optional[str], deleted: bool, offset: int, limit: int
) -> Dict[str, Any]:
    query: Dict[str, Any] = {"offset": offset, "limit": limit, "subject": subject}
    if deleted:  # sent only when asked for, as confluent-kafka does
        query["deleted"] = True
    return query


def _version_segment(version: Union[int, str]) -> str:
    return urlencode(str(version))


#: The client class :meth:`SchemaRegistryClient.new_client` returns for a URL prefix other than
#: HTTP(S): the in-memory MockSchemaRegistryClient (a subclass, defined above this module) adds
#: itself for ``mock://``; the package loads it with this module.
_CLIENTS_BY_URL_PREFIX: Dict[str, Callable[[Dict[str, Any]], "SchemaRegistryClient"]] = {}


class SchemaRegistryClient:
    """A Schema Registry client (Confluent's REST API).

    Configuration (``*`` required), as in confluent-kafka:

    ==================================== ======= ===================================================
    ``url`` *                            str     Comma-separated registry URLs, tried in order (the
                                                 next one on a network error or a retriable status)
    ``ssl.ca.location``                  str     CA file or directory to verify the registry
                                                 (``False``: no verification); the TLS settings
                                                 serve OAuth token requests as well
    ``ssl.certificate.location``         str     Client certificate (PEM), may include the key
    ``ssl.key.location``                 str     Client private key (PEM)
    ``ssl.key.password``                 str     Password of the private key
    ``basic.auth.user.info``             str     ``username:password``; by default taken from the
                                                 URL's userinfo if present
    ``basic.auth.credentials.source``    str     ``URL`` or ``USER_INFO`` (confluent-kafka 1.x name;
                                                 optional)
    ``bearer.auth.credentials.source``   str     ``STATIC_TOKEN``, ``OAUTHBEARER``,
                                                 ``OAUTHBEARER_AZURE_IMDS`` or ``CUSTOM`` with their
                                                 ``bearer.auth.*`` settings
    ``proxy``                            str     HTTP proxy, e.g. ``http://localhost:8030``; without
                                                 it, ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``
                                                 from the environment (OAuth token requests too)
    ``timeout``                          number  Seconds per request (default 60; confluent-kafka
                                                 has no limit)
    ``cache.capacity``                   int     Entries of the latest-version caches (1000)
    ``cache.latest.ttl.sec``             number  Lifetime of cached latest versions (no expiry)
    ``max.retries``                      int     Retries per URL (3) of a 408, 429 or 5xx answer
                                                 (500, 502, 503, 504) or of no answer
    ``retries.wait.ms``                  int     First retry's maximum wait, doubled each retry
                                                 (1000); an answer's ``Retry-After`` instead
    ``retries.max.wait.ms``              int     Maximum wait between retries (20000)
    ==================================== ======= ===================================================

    Failures raise :class:`SchemaRegistryError` (``http_status_code``, ``error_code``,
    ``error_message``); when no URL answers at all, its subclass
    :class:`~confluent_binding.schema_registry.error.SchemaRegistryConnectionError`.
    """

    def __init__(self, conf: Dict[str, Any]):
        self._setup(conf, RestClient(conf))

    @classmethod
    def _with_rest_client(cls, conf: Dict[str, Any], rest_client: Any) -> "SchemaRegistryClient":
        """A client whose requests go through ``rest_client`` (a configured REST client)."""
        self = cls.__new__(cls)
        self._setup(conf, rest_client)
        return self

    def _setup(self, conf: Dict[str, Any], rest_client: Any) -> None:
        self._conf = conf
        self._rest_client = rest_client
        self._cache = _SchemaCache()
        self._latest_lock = threading.Lock()
        capacity = self._rest_client.cache_capacity
        ttl = self._rest_client.cache_latest_ttl_sec
        self._latest_version_cache: _BoundedCache[str, RegisteredSchema] = _BoundedCache(
            capacity, ttl
        )
        self._latest_with_metadata_cache: _BoundedCache[Any, RegisteredSchema] = _BoundedCache(
            capacity, ttl
        )

    def __enter__(self) -> "SchemaRegistryClient":
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the kept-alive connections (the client reconnects if used again)."""
        if self._rest_client is not None:
            self._rest_client.close()

    def config(self) -> Dict[str, Any]:
        """The configuration dict the client was created with (as confluent-kafka's)."""
        return self._conf

    # -- schemas --------------------------------------------------------------------------------

    def register_schema(
        self, subject_name: str, schema: Schema, normalize_schemas: bool = False
    ) -> int:
        """Register ``schema`` under ``subject_name``; returns its schema id.

        Raises :class:`SchemaRegistryError` if the schema is invalid or violates the subject's
        compatibility level."""
        return self.register_schema_full_response(  # type: ignore[return-value]
            subject_name, schema, normalize_schemas=normalize_schemas
        ).schema_id

    def register_schema_full_response(
        self, subject_name: str, schema: Schema, normalize_schemas: bool = False
    ) -> RegisteredSchema:
        """Register ``schema`` under ``subject_name``; returns what the registry answered (the id;
        the version, subject and guid where the registry sends them).  Cached: registering the
        same schema under the same subject again sends nothing."""
        schema_id = self._cache.get_id_by_schema(subject_name, schema)
        if schema_id is not None:
            cached = self._cache.get_schema_by_id(subject_name, schema_id)
            if cached is not None:
                return RegisteredSchema(
                    schema_id=schema_id,
                    guid=cached[0],
                    subject=subject_name,
                    version=None,
                    schema=cached[1],
                )
        response = self._rest_client.post(
            "subjects/{}/versions".format(urlencode(subject_name)),
            body=schema.to_dict(),
            query={"normalize": normalize_schemas},
        )
        answered = RegisteredSchema.from_dict(response)
        registered = RegisteredSchema(
            schema_id=answered.schema_id,
            guid=answered.guid,
            subject=answered.subject or subject_name,
            version=answered.version,
            schema=answered.schema,
        )
        # The answer may carry only the id: cache the schema that was sent.
        cached_schema = registered.schema if registered.schema.schema_str is not None else schema
        self._cache.set_schema(subject_name, registered.schema_id, registered.guid, cached_schema)
        return registered

    def get_schema(
        self,
        schema_id: int,
        subject_name: Optional[str] = None,
        fmt: Optional[str] = None,
        reference_format: Optional[str] = None,
    ) -> Schema:
        """The schema with id ``schema_id`` (cached after the first request)."""
        cached = self._cache.get_schema_by_id(subject_name, schema_id)
        if cached is not None:
            return cached[1]
        query = {"subject": subject_name, "format": fmt, "reference_format": reference_format}
        response = self._rest_client.get("schemas/ids/{}".format(schema_id), query)
        registered = RegisteredSchema.from_dict(response)
        self._cache.set_schema(subject_name, schema_id, registered.guid, registered.schema)
        if subject_name is not None:
            self._cache.set_registered_schema(registered.schema, registered)
        return registered.schema

    def get_schema_by_guid(self, guid: str, fmt: Optional[str] = None) -> Schema:
        """The schema with globally unique id ``guid`` (cached after the first request)."""
        schema = self._cache.get_schema_by_guid(guid)
        if schema is not None:
            return schema
        response = self._rest_client.get(
            "schemas/guids/{}".format(urlencode(guid)), {"format": fmt}
        )
        registered = RegisteredSchema.from_dict(response)
        self._cache.set_schema(None, registered.schema_id, registered.guid, registered.schema)
        return registered.schema

    def get_schema_types(self) -> List[str]:
        """The schema types the registry supports, e.g. ``['AVRO', 'JSON', 'PROTOBUF']``."""
        return self._rest_client.get("schemas/types")

    def get_subjects_by_schema_id(
        self,
        schema_id: int,
        subject_name: Optional[str] = None,
        deleted: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[str]:
        """The subjects under which schema ``schema_id`` is registered."""
        query = _schema_id_query(subject_name, deleted, offset, limit)
        return self._rest_client.get("schemas/ids/{}/subjects".format(schema_id), query)

    def get_schema_versions(
        self,
        schema_id: int,
        subject_name: Optional[str] = None,
        deleted: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[SchemaVersion]:
        """The (subject, version) pairs of schema ``schema_id``."""
        query = _schema_id_query(subject_name, deleted, offset, limit)
        response = self._rest_client.get("schemas/ids/{}/versions".format(schema_id), query)
        return [SchemaVersion.from_dict(item) for item in response]

    def lookup_schema(
        self,
        subject_name: str,
        schema: Schema,
        normalize_schemas: bool = False,
        fmt: Optional[str] = None,
        deleted: bool = False,
    ) -> RegisteredSchema:
        """How ``schema`` is registered under ``subject_name`` (id, version); cached.  Raises
        :class:`SchemaRegistryError` (40401 / 40403) if the subject or schema is unknown."""
        registered = self._cache.get_registered_by_subject_schema(subject_name, schema)
        if registered is not None:
            return registered
        query: Dict[str, Any] = {"normalize": normalize_schemas, "deleted": deleted, "format": fmt}
        response = self._rest_client.post(
            "subjects/{}".format(urlencode(subject_name)), body=schema.to_dict(), query=query
        )
        answered = RegisteredSchema.from_dict(response)
        registered = RegisteredSchema(
            schema_id=answered.schema_id,
            guid=answered.guid,
            subject=answered.subject,
            version=answered.version,
            schema=schema,  # the caller's schema, so later lookups of it hit the cache
        )
        self._cache.set_registered_schema(schema, registered)
        return registered

    # -- subjects and versions ------------------------------------------------------------------

    def get_subjects(
        self,
        subject_prefix: Optional[str] = None,
        deleted: bool = False,
        deleted_only: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[str]:
        """The registered subject names."""
        query = {
            "deleted": deleted,
            "deleted_only": deleted_only,
            "offset": offset,
            "limit": limit,
            "subjectPrefix": subject_prefix,
        }
        return self._rest_client.get("subjects", query)

    def delete_subject(self, subject_name: str, permanent: bool = False) -> List[int]:
        """Delete ``subject_name`` (soft, or hard with ``permanent``); returns its versions."""
        if permanent:
            versions = self._rest_client.delete(
                "subjects/{}".format(urlencode(subject_name)), {"permanent": True}
            )
            self._cache.remove_by_subject(subject_name)
        else:
            versions = self._rest_client.delete("subjects/{}".format(urlencode(subject_name)))
        return versions

    def get_latest_version(self, subject_name: str, fmt: Optional[str] = None) -> RegisteredSchema:
        """The latest version registered under ``subject_name``.  Cached (for
        ``cache.latest.ttl.sec`` if set); :meth:`clear_latest_caches` forgets it."""
        with self._latest_lock:
            registered = self._latest_version_cache.get(subject_name)
        if registered is not None:
            return registered
        response = self._rest_client.get(
            "subjects/{}/versions/latest".format(urlencode(subject_name)), {"format": fmt}
        )
        registered = RegisteredSchema.from_dict(response)
        with self._latest_lock:
            self._latest_version_cache.set(subject_name, registered)
        return registered

    def get_latest_with_metadata(
        self,
        subject_name: str,
        metadata: Dict[str, str],
        deleted: bool = False,
        fmt: Optional[str] = None,
    ) -> RegisteredSchema:
        """The latest version under ``subject_name`` whose metadata has these key/value pairs."""
        cache_key = (subject_name, frozenset(metadata.items()), deleted)
        with self._latest_lock:
            registered = self._latest_with_metadata_cache.get(cache_key)
        if registered is not None:
            return registered
        query: Dict[str, Any] = {"deleted": deleted, "format": fmt}
        if metadata:
            query["key"] = list(metadata.keys())
            query["value"] = list(metadata.values())
        response = self._rest_client.get(
            "subjects/{}/metadata".format(urlencode(subject_name)), query
        )
        registered = RegisteredSchema.from_dict(response)
        with self._latest_lock:
            self._latest_with_metadata_cache.set(cache_key, registered)
        return registered

    def get_version(
        self,
        subject_name: str,
        version: Union[int, Literal["latest"]] = "latest",
        deleted: bool = False,
        fmt: Optional[str] = None,
    ) -> RegisteredSchema:
        """Version ``version`` (or ``"latest"``, never cached) of ``subject_name``."""
        if version != "latest":
            registered = self._cache.get_registered_by_subject_version(subject_name, version)
            if registered is not None:
                return registered
        response = self._rest_client.get(
            "subjects/{}/versions/{}".format(urlencode(subject_name), _version_segment(version)),
            {"deleted": deleted, "format": fmt},
        )
        registered = RegisteredSchema.from_dict(response)
        self._cache.set_registered_schema(registered.schema, registered)
        return registered

    def get_referenced_by(
        self,
        subject_name: str,
        version: Union[int, Literal["latest"]] = "latest",
        offset: int = 0,
        limit: int = -1,
    ) -> List[int]:
        """Ids of the schemas that reference version ``version`` of ``subject_name``."""
        return self._rest_client.get(
            "subjects/{}/versions/{}/referencedby".format(
                urlencode(subject_name), _version_segment(version)
            ),
            {"offset": offset, "limit": limit},
        )

    def get_versions(
        self,
        subject_name: str,
        deleted: bool = False,
        deleted_only: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[int]:
        """The versions registered under ``subject_name``."""
        return self._rest_client.get(
            "subjects/{}/versions".format(urlencode(subject_name)),
            {"deleted": deleted, "deleted_only": deleted_only, "offset": offset, "limit": limit},
        )

    def delete_version(self, subject_name: str, version: int, permanent: bool = False) -> int:
        """Delete one version (soft, or hard with ``permanent``); returns its number."""
        response = self._rest_client.delete(
            "subjects/{}/versions/{}".format(urlencode(subject_name), _version_segment(version)),
            {"permanent": True} if permanent else None,
        )
        self._cache.remove_by_subject_version(subject_name, version)
        return response

    # -- compatibility, config, modes -----------------------------------------------------------

    def set_compatibility(
        self, subject_name: Optional[str] = None, level: Optional[str] = None
    ) -> str:
        """Set the compatibility level of ``subject_name`` (global without); returns the answer
        (``{"compatibility": LEVEL}``)."""
        if level is None:
            raise ValueError("level must be set")
        return self._rest_client.put(
            self._config_path(subject_name), body={"compatibility": level.upper()}
        )

    def get_compatibility(self, subject_name: Optional[str] = None) -> str:
        """The compatibility level of ``subject_name`` (global without)."""
        return self._rest_client.get(self._config_path(subject_name))["compatibilityLevel"]

    def test_compatibility(
        self,
        subject_name: str,
        schema: Schema,
        version: Union[int, str] = "latest",
        normalize: bool = False,
        verbose: bool = False,
    ) -> bool:
        """Whether ``schema`` is compatible with version ``version`` of ``subject_name``."""
        response = self._rest_client.post(
            "compatibility/subjects/{}/versions/{}".format(
                urlencode(subject_name), _version_segment(version)
            ),
            body=schema.to_dict(),
            query={"normalize": normalize, "verbose": verbose},
        )
        return response["is_compatible"]

    def test_compatibility_all_versions(
        self, subject_name: str, schema: Schema, normalize: bool = False, verbose: bool = False
    ) -> bool:
        """Whether ``schema`` is compatible with the versions of ``subject_name`` its
        compatibility level covers."""
        response = self._rest_client.post(
            "compatibility/subjects/{}/versions".format(urlencode(subject_name)),
            body=schema.to_dict(),
            query={"normalize": normalize, "verbose": verbose},
        )
        return response["is_compatible"]

    @staticmethod
    def _config_path(subject_name: Optional[str]) -> str:
        return "config" if subject_name is None else "config/{}".format(urlencode(subject_name))

    def set_config(
        self, subject_name: Optional[str] = None, config: Optional[ServerConfig] = None
    ) -> ServerConfig:
        """Update the config of ``subject_name`` (global without); returns the registry's answer."""
        if config is None:
            raise ValueError("config must be set")
        return self._rest_client.put(self._config_path(subject_name), body=config.to_dict())

    def delete_config(self, subject_name: Optional[str] = None) -> ServerConfig:
        """Delete the config of ``subject_name`` (back to the global one); returns the old one."""
        return ServerConfig.from_dict(self._rest_client.delete(self._config_path(subject_name)))

    def get_config(self, subject_name: Optional[str] = None) -> ServerConfig:
        """The config of ``subject_name`` (global without)."""
        return ServerConfig.from_dict(self._rest_client.get(self._config_path(subject_name)))

    def get_mode(self, subject_name: str) -> str:
        """The mode of ``subject_name``: ``READWRITE``, ``READONLY`` or ``IMPORT``."""
        return self._rest_client.get("mode/{}".format(urlencode(subject_name)))["mode"]

    def update_mode(self, subject_name: str, mode: str, force: bool = False) -> str:
        """Set the mode of ``subject_name``; returns the new mode."""
        return self._rest_client.put(
            "mode/{}".format(urlencode(subject_name)), body={"mode": mode}, query={"force": force}
        )["mode"]

    def delete_mode(self, subject_name: str) -> str:
        """Delete the mode of ``subject_name`` (back to the global one)."""
        return self._rest_client.delete("mode/{}".format(urlencode(subject_name)))["mode"]

    def get_global_mode(self) -> str:
        """The registry's global mode."""
        return self._rest_client.get("mode")["mode"]

    def update_global_mode(self, mode: str, force: bool = False) -> str:
        """Set the registry's global mode; returns the new mode."""
        return self._rest_client.put("mode", body={"mode": mode}, query={"force": force})["mode"]

    def get_contexts(self, offset: int = 0, limit: int = -1) -> List[str]:
        """The registry's schema contexts."""
        return self._rest_client.get("contexts", query={"offset": offset, "limit": limit})

    # -- caches ---------------------------------------------------------------------------------

    def clear_latest_caches(self) -> None:
        """Forget the cached latest versions."""
        with self._latest_lock:
            self._latest_version_cache.clear()
            self._latest_with_metadata_cache.clear()

    def clear_caches(self) -> None:
        """Forget everything cached."""
        self.clear_latest_caches()
        self._cache.clear()

    # -- associations ---------------------------------------------------------------------------

    def get_associations_by_resource_name(
        self,
        resource_name: str,
        resource_namespace: str,
        resource_type: Optional[str] = None,
        association_types: Optional[List[str]] = None,
        offset: int = 0,
        limit: int = -1,
    ) -> List[Association]:
        """Associations of a resource (e.g. a topic) in a namespace (``-`` for any)."""
        query: Dict[str, Any] = {
            "resourceType": resource_type,
            "associationType": association_types,
        }
        if offset > 0:
            query["offset"] = offset
        if limit >= 1:
            query["limit"] = limit
        response = self._rest_client.get(
            "associations/resources/{}/{}".format(
                urlencode(resource_namespace), urlencode(resource_name)
            ),
            query,
        )
        return [Association.from_dict(a) for a in response]

    def create_association(self, request: AssociationCreateOrUpdateRequest) -> AssociationResponse:
        """Create (or update) associations between subjects and a resource."""
        return AssociationResponse.from_dict(
            self._rest_client.post("associations", body=request.to_dict())
        )

    def delete_associations(
        self,
        resource_id: str,
        resource_type: Optional[str] = None,
        association_types: Optional[List[str]] = None,
        cascade_lifecycle: bool = False,
    ) -> None:
        """Delete the associations of a resource."""
        query = {
            "cascadeLifecycle": cascade_lifecycle,
            "resourceType": resource_type,
            "associationType": association_types,
        }
        self._rest_client.delete(
            "associations/resources/{}".format(urlencode(resource_id)), query=query
        )

    @staticmethod
    def new_client(conf: Dict[str, Any]) -> "SchemaRegistryClient":
        """A client for ``conf``: for a ``mock://`` URL the in-memory ``MockSchemaRegistryClient``
        (for unit tests), else a :class:`SchemaRegistryClient`."""
        url = conf.get("url")
        if isinstance(url, str):
            for prefix, client_class in _CLIENTS_BY_URL_PREFIX.items():
                if url.startswith(prefix):
                    return client_class(conf)
        return SchemaRegistryClient(conf)
