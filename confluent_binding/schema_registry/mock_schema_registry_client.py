"""An in-memory stand-in for a registry, for applications' unit tests: what
``SchemaRegistryClient.new_client({"url": "mock://..."})`` returns, as in confluent-kafka.

It answers like confluent-kafka's ``MockSchemaRegistryClient``: every new (subject, schema) gets
the next id and the subject's next version, unknown schemas/versions raise
``SchemaRegistryError(404, 40400, "Schema Not Found")``, deletes forget, config calls return
``None``.  No compatibility checks: test those against a real registry.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Dict, List, Literal, Optional, Union

from ._associations import (
    Association,
    AssociationCreateOrUpdateRequest,
    AssociationInfo,
    AssociationResponse,
)
from ._client import _CLIENTS_BY_URL_PREFIX, SchemaRegistryClient
from ._types import RegisteredSchema, Schema, ServerConfig
from .error import SchemaRegistryError

__all__ = ["MockSchemaRegistryClient"]


def _not_found() -> SchemaRegistryError:
    return SchemaRegistryError(404, 40400, "Schema Not Found")


def _page(items: list, offset: int, limit: int) -> list:
    if offset > 0:
        items = items[offset:]
    if limit >= 0:
        items = items[:limit]
    return items


class MockSchemaRegistryClient(SchemaRegistryClient):
    """In-memory registry with :class:`SchemaRegistryClient`'s methods; no network."""

    def __init__(self, conf: Dict[str, Any]):
        super().__init__(conf)
        self._lock = threading.Lock()
        self._max_id = 0
        self._by_id: Dict[int, RegisteredSchema] = {}
        self._by_guid: Dict[Optional[str], RegisteredSchema] = {}
        self._subjects: Dict[str, List[RegisteredSchema]] = {}
        self._associations: Dict[str, List[Association]] = {}

    def _find(self, subject_name: str, match) -> Optional[RegisteredSchema]:
        with self._lock:
            return next((rs for rs in self._subjects.get(subject_name, []) if match(rs)), None)

    def _latest(self, subject_name: str) -> Optional[RegisteredSchema]:
        with self._lock:
            versions = self._subjects.get(subject_name) or []
            return max(versions, key=lambda rs: rs.version or 0, default=None)

    def register_schema(
        self, subject_name: str, schema: Schema, normalize_schemas: bool = False
    ) -> int:
        """Register ``schema`` under ``subject_name`` in memory; its id.

        As :meth:`register_schema_full_response`: an equal schema already registered under the
        subject keeps its id.

        Returns:
            int: the schema's id.
        """
        return self.register_schema_full_response(subject_name, schema, normalize_schemas).schema_id  # type: ignore

    def register_schema_full_response(
        self, subject_name: str, schema: Schema, normalize_schemas: bool = False
    ) -> RegisteredSchema:
        """Register ``schema`` under ``subject_name`` in memory.

        A schema equal to one the subject already has answers that registration; a new one gets the
        next id (1, 2, ... across subjects), the subject's next version and a random GUID. No
        compatibility check, and ``normalize_schemas`` is ignored.

        Args:
            subject_name: the subject.
            schema: the :class:`Schema`.
            normalize_schemas: ignored (the real registry normalizes first).

        Returns:
            RegisteredSchema: the subject, version, id and GUID.
        """
        found = self._find(subject_name, lambda rs: rs.schema == schema)
        if found is not None:
            return found
        with self._lock:
            versions = self._subjects.setdefault(subject_name, [])
            self._max_id += 1
            rs = RegisteredSchema(
                subject=subject_name,
                version=max((v.version or 0 for v in versions), default=0) + 1,
                schema_id=self._max_id,
                guid=str(uuid.uuid4()),
                schema=schema,
            )
            versions.append(rs)
            self._by_id[rs.schema_id] = rs  # type: ignore[index]
            self._by_guid[rs.guid] = rs
        return rs

    def get_schema(
        self,
        schema_id: int,
        subject_name: Optional[str] = None,
        fmt: Optional[str] = None,
        reference_format: Optional[str] = None,
    ) -> Schema:
        """The schema registered with id ``schema_id``.

        Args:
            schema_id: the id :meth:`register_schema` gave.
            subject_name: ignored.
            fmt: ignored (the schema is returned as registered).
            reference_format: ignored.

        Returns:
            Schema: the schema.

        Raises:
            SchemaRegistryError: no such id (404, error code 40400), or its subject was deleted.
        """
        with self._lock:
            rs = self._by_id.get(schema_id)
        if rs is None:
            raise _not_found()
        return rs.schema

    def get_schema_by_guid(self, guid: str, fmt: Optional[str] = None) -> Schema:
        """The schema registered with GUID ``guid``.

        Args:
            guid: the GUID (a string) a registration gave.
            fmt: ignored.

        Returns:
            Schema: the schema.

        Raises:
            SchemaRegistryError: no such GUID (404, error code 40400).
        """
        with self._lock:
            rs = self._by_guid.get(guid)
        if rs is None:
            raise _not_found()
        return rs.schema

    def lookup_schema(
        self,
        subject_name: str,
        schema: Schema,
        normalize_schemas: bool = False,
        fmt: Optional[str] = None,
        deleted: bool = False,
    ) -> RegisteredSchema:
        """The registration of ``schema`` under ``subject_name``: the version equal to it.

        Args:
            subject_name: the subject.
            schema: the :class:`Schema` to look for (compared field by field, no normalization).
            normalize_schemas: ignored.
            fmt: ignored.
            deleted: ignored (deleted versions are gone from the mock).

        Returns:
            RegisteredSchema: the registration.

        Raises:
            SchemaRegistryError: the subject has no such schema (404, error code 40400).
        """
        found = self._find(subject_name, lambda rs: rs.schema == schema)
        if found is None:
            raise _not_found()
        return found

    def get_subjects(
        self,
        subject_prefix: Optional[str] = None,
        deleted: bool = False,
        deleted_only: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[str]:
        """The registered subjects, in the order they were first registered.

        Args:
            subject_prefix: only subjects starting with it.
            deleted: ignored (deleted subjects are gone from the mock).
            deleted_only: ignored.
            offset: skip that many.
            limit: at most that many (-1: all).

        Returns:
            list[str]: subject names.
        """
        with self._lock:
            subjects = list(self._subjects)
        if subject_prefix is not None:
            subjects = [s for s in subjects if s.startswith(subject_prefix)]
        return _page(subjects, offset, limit)

    def delete_subject(self, subject_name: str, permanent: bool = False) -> List[int]:
        """Forget ``subject_name`` and its versions (their ids are forgotten too).

        Args:
            subject_name: the subject.
            permanent: ignored (every delete is permanent here).

        Returns:
            list[int]: the versions removed (empty for an unknown subject).
        """
        with self._lock:
            removed = self._subjects.pop(subject_name, [])
            for rs in removed:
                self._by_id.pop(rs.schema_id, None)  # type: ignore[arg-type]
        return [rs.version for rs in removed]  # type: ignore[misc]

    def get_latest_version(self, subject_name: str, fmt: Optional[str] = None) -> RegisteredSchema:
        """The subject's highest version.

        Args:
            subject_name: the subject.
            fmt: ignored.

        Returns:
            RegisteredSchema: the registration.

        Raises:
            SchemaRegistryError: the subject is unknown (404, error code 40400).
        """
        rs = self._latest(subject_name)
        if rs is None:
            raise _not_found()
        return rs

    def get_latest_with_metadata(
        self,
        subject_name: str,
        metadata: Dict[str, str],
        deleted: bool = False,
        fmt: Optional[str] = None,
    ) -> RegisteredSchema:
        """A version of ``subject_name`` whose metadata properties include every
        ``metadata`` item: the first such one registered, as confluent-kafka's mock answers.

        Args:
            subject_name: the subject.
            metadata: property name to value, all of which must match.
            deleted: ignored.
            fmt: ignored.

        Returns:
            RegisteredSchema: the registration.

        Raises:
            SchemaRegistryError: no version matches (404, error code 40400).
        """
        def has_metadata(rs: RegisteredSchema) -> bool:
            md = rs.schema.metadata
            props = md.properties.properties if md is not None and md.properties is not None else {}
            return metadata.items() <= props.items()

        found = self._find(subject_name, has_metadata)
        if found is None:
            raise _not_found()
        return found

    def get_version(
        self,
        subject_name: str,
        version: Union[int, Literal["latest"]] = "latest",
        deleted: bool = False,
        fmt: Optional[str] = None,
    ) -> RegisteredSchema:
        """Version ``version`` of ``subject_name``.

        Args:
            subject_name: the subject.
            version: a version number, or ``"latest"`` for the highest.
            deleted: ignored (deleted versions are gone from the mock).
            fmt: ignored.

        Returns:
            RegisteredSchema: the registration.

        Raises:
            SchemaRegistryError: no such subject or version (404, error code 40400).
        """
        if version == "latest":
            rs = self._latest(subject_name)
        else:
            rs = self._find(subject_name, lambda r: r.version == version)
        if rs is None:
            raise _not_found()
        return rs

    def get_versions(
        self,
        subject_name: str,
        deleted: bool = False,
        deleted_only: bool = False,
        offset: int = 0,
        limit: int = -1,
    ) -> List[int]:
        """The version numbers of ``subject_name`` in the order they were registered.

        Args:
            subject_name: the subject.
            deleted: ignored.
            deleted_only: ignored.
            offset: skip that many.
            limit: at most that many (-1: all).

        Returns:
            list[int]: the versions (empty for an unknown subject).
        """
        with self._lock:
            versions = [rs.version for rs in self._subjects.get(subject_name, [])]
        return _page(versions, offset, limit)

    def delete_version(self, subject_name: str, version: int, permanent: bool = False) -> int:
        """Forget version ``version`` of ``subject_name``.

        Args:
            subject_name: the subject.
            version: the version number.
            permanent: ignored.

        Returns:
            int: the deleted version's schema id (confluent-kafka's mock answers the id where the
            registry answers the version).

        Raises:
            SchemaRegistryError: no such subject or version (404, error code 40400).
        """
        rs = self._find(subject_name, lambda r: r.version == version)
        if rs is None:
            raise _not_found()
        with self._lock:
            self._subjects[subject_name].remove(rs)
        return rs.schema_id  # type: ignore[return-value]  # confluent's mock answers the id

    def set_config(
        self, subject_name: Optional[str] = None, config: Optional[ServerConfig] = None
    ) -> ServerConfig:
        """Accepted and ignored: the mock keeps no configuration.

        Returns:
            None (as confluent-kafka's mock).
        """
        return None  # type: ignore[return-value]

    def get_config(self, subject_name: Optional[str] = None) -> ServerConfig:
        """The mock keeps no configuration.

        Returns:
            None (as confluent-kafka's mock).
        """
        return None  # type: ignore[return-value]

    def get_associations_by_resource_name(
        self,
        resource_name: str,
        resource_namespace: str,
        resource_type: Optional[str] = None,
        association_types: Optional[List[str]] = None,
        offset: int = 0,
        limit: int = -1,
    ) -> List[Association]:
        """The associations created for resources named ``resource_name``.

        Args:
            resource_name: the resource's name (a topic's name).
            resource_namespace: its namespace (the Kafka cluster id), or ``"-"`` for any.
            resource_type: only this resource type (``"topic"``), or None for any.
            association_types: only these association types (``"key"``, ``"value"``), or None.
            offset: ignored.
            limit: ignored.

        Returns:
            list[Association]: the matching associations.
        """
        with self._lock:
            every = [a for group in self._associations.values() for a in group]
        return [
            a
            for a in every
            if a.resource_name == resource_name
            and resource_namespace in ("-", a.resource_namespace)
            and resource_type in (None, a.resource_type)
            and (association_types is None or a.association_type in association_types)
        ]

    def create_association(self, request: AssociationCreateOrUpdateRequest) -> AssociationResponse:
        """Record the request's associations for its resource (the request needs a
        ``resource_id``; without one nothing is recorded).

        Args:
            request: an :class:`AssociationCreateOrUpdateRequest`.

        Returns:
            AssociationResponse: the resource and the associations created.
        """
        created = []
        if request.associations and request.resource_id is not None:
            with self._lock:
                group = self._associations.setdefault(request.resource_id, [])
                for info in request.associations:
                    frozen = bool(info.frozen)
                    group.append(
                        Association(
                            subject=info.subject,
                            guid=None,
                            resource_name=request.resource_name,
                            resource_namespace=request.resource_namespace,
                            resource_id=request.resource_id,
                            resource_type=request.resource_type,
                            association_type=info.association_type,
                            frozen=frozen,
                        )
                    )
                    created.append(
                        AssociationInfo(
                            subject=info.subject,
                            association_type=info.association_type,
                            lifecycle=info.lifecycle,
                            frozen=frozen,
                            schema=info.schema,
                        )
                    )
        return AssociationResponse(
            resource_name=request.resource_name,
            resource_namespace=request.resource_namespace,
            resource_id=request.resource_id,
            resource_type=request.resource_type,
            associations=created,
        )

    def delete_associations(
        self,
        resource_id: str,
        resource_type: Optional[str] = None,
        association_types: Optional[List[str]] = None,
        cascade_lifecycle: bool = False,
    ) -> None:
        """Forget associations of the resource ``resource_id``: all of them, or only those that
        match ``resource_type`` and ``association_types``, where given.

        Args:
            resource_id: the resource's id.
            resource_type: only associations of this resource type.
            association_types: only associations of these types.
            cascade_lifecycle: ignored (the mock does not delete the subjects).
        """
        with self._lock:
            group = self._associations.get(resource_id)
            if group is None:
                return
            if resource_type is None and association_types is None:
                del self._associations[resource_id]
                return
            self._associations[resource_id] = [
                a
                for a in group
                if (resource_type is not None and a.resource_type != resource_type)
                or (association_types is not None and a.association_type not in association_types)
            ]


# SchemaRegistryClient.new_client's client for mock:// URLs
_CLIENTS_BY_URL_PREFIX["mock://"] = MockSchemaRegistryClient
