"""Value types of the Schema Registry's associations API (a subject associated with a resource,
e.g. a topic), as confluent-kafka's; ``to_dict``/``from_dict`` speak the registry's JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ._types import Schema, _put

# offered by confluent-kafka's ``schema_registry`` package and client module, as _types.__all__
__all__ = [
    "Association",
    "AssociationCreateOrUpdateInfo",
    "AssociationCreateOrUpdateRequest",
    "AssociationInfo",
    "AssociationResponse",
]


@dataclass(frozen=True)
class Association:
    """An association between a subject and a resource (e.g. a topic)."""

    subject: Optional[str]
    guid: Optional[str]
    resource_name: Optional[str]
    resource_namespace: Optional[str]
    resource_id: Optional[str]
    resource_type: Optional[str]
    association_type: Optional[str]
    frozen: bool = False

    def to_dict(self) -> Dict[str, Any]:
        """The association as the registry's JSON object (camelCase keys; ``frozen`` always
        present).
        """
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "guid", self.guid)
        _put(d, "resourceName", self.resource_name)
        _put(d, "resourceNamespace", self.resource_namespace)
        _put(d, "resourceId", self.resource_id)
        _put(d, "resourceType", self.resource_type)
        _put(d, "associationType", self.association_type)
        d["frozen"] = self.frozen
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Association":
        """An association from the registry's JSON object.

        Args:
            src_dict: the JSON object (``resourceName``, ``associationType``, ...); a missing
                ``frozen`` means False.

        Returns:
            Association: the new instance.
        """
        return cls(
            subject=src_dict.get("subject"),
            guid=src_dict.get("guid"),
            resource_name=src_dict.get("resourceName"),
            resource_namespace=src_dict.get("resourceNamespace"),
            resource_id=src_dict.get("resourceId"),
            resource_type=src_dict.get("resourceType"),
            association_type=src_dict.get("associationType"),
            frozen=src_dict.get("frozen", False),
        )


@dataclass
class AssociationInfo:
    """One association in a response."""

    subject: Optional[str] = None
    association_type: Optional[str] = None
    lifecycle: Optional[str] = None
    frozen: bool = False
    schema: Optional[Schema] = None

    def to_dict(self) -> Dict[str, Any]:
        """The association as the registry's JSON object (``frozen`` always present)."""
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "associationType", self.association_type)
        _put(d, "lifecycle", self.lifecycle)
        d["frozen"] = self.frozen
        _put(d, "schema", None if self.schema is None else self.schema.to_dict())
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationInfo":
        """An association from the registry's JSON object.

        Args:
            src_dict: the JSON object; a missing ``frozen`` means False, a ``schema`` is parsed
                with :meth:`Schema.from_dict`.

        Returns:
            AssociationInfo: the new instance.
        """
        schema = src_dict.get("schema")
        return cls(
            subject=src_dict.get("subject"),
            association_type=src_dict.get("associationType"),
            lifecycle=src_dict.get("lifecycle"),
            frozen=src_dict.get("frozen", False),
            schema=Schema.from_dict(schema) if schema else None,
        )


@dataclass
class AssociationCreateOrUpdateInfo:
    """One association to create or update."""

    subject: Optional[str] = None
    association_type: Optional[str] = None
    lifecycle: Optional[str] = None
    frozen: Optional[bool] = None
    schema: Optional[Schema] = None
    normalize: Optional[bool] = None

    def to_dict(self) -> Dict[str, Any]:
        """The request's entry as the registry's JSON object (unset fields left out)."""
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "associationType", self.association_type)
        _put(d, "lifecycle", self.lifecycle)
        _put(d, "frozen", self.frozen)
        _put(d, "schema", None if self.schema is None else self.schema.to_dict())
        _put(d, "normalize", self.normalize)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationCreateOrUpdateInfo":
        """An entry from the registry's JSON object.

        Args:
            src_dict: the JSON object; a ``schema`` is parsed with :meth:`Schema.from_dict`.

        Returns:
            AssociationCreateOrUpdateInfo: the new instance.
        """
        schema = src_dict.get("schema")
        return cls(
            subject=src_dict.get("subject"),
            association_type=src_dict.get("associationType"),
            lifecycle=src_dict.get("lifecycle"),
            frozen=src_dict.get("frozen"),
            schema=Schema.from_dict(schema) if schema else None,
            normalize=src_dict.get("normalize"),
        )


def _resource_dict(obj: Any) -> Dict[str, Any]:
    d: Dict[str, Any] = {}
    _put(d, "resourceName", obj.resource_name)
    _put(d, "resourceNamespace", obj.resource_namespace)
    _put(d, "resourceId", obj.resource_id)
    _put(d, "resourceType", obj.resource_type)
    if obj.associations is not None:
        d["associations"] = [a.to_dict() for a in obj.associations]
    return d


def _resource_fields(src_dict: Dict[str, Any], item: Any) -> Dict[str, Any]:
    items = src_dict.get("associations")
    return {
        "resource_name": src_dict.get("resourceName"),
        "resource_namespace": src_dict.get("resourceNamespace"),
        "resource_id": src_dict.get("resourceId"),
        "resource_type": src_dict.get("resourceType"),
        "associations": [item.from_dict(a) for a in items] if items else None,
    }


@dataclass
class AssociationCreateOrUpdateRequest:
    """Request to create or update the associations of one resource."""

    resource_name: Optional[str] = None
    resource_namespace: Optional[str] = None
    resource_id: Optional[str] = None
    resource_type: Optional[str] = None
    associations: Optional[List[AssociationCreateOrUpdateInfo]] = None

    def to_dict(self) -> Dict[str, Any]:
        """The request as the registry's JSON object: the resource's fields and its
        ``associations``.
        """
        return _resource_dict(self)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationCreateOrUpdateRequest":
        """A request from the registry's JSON object.

        Args:
            src_dict: the JSON object; each of ``associations`` is parsed with
                :meth:`AssociationCreateOrUpdateInfo.from_dict`.

        Returns:
            AssociationCreateOrUpdateRequest: the new instance.
        """
        return cls(**_resource_fields(src_dict, AssociationCreateOrUpdateInfo))


@dataclass
class AssociationResponse:
    """The registry's answer to creating or updating associations."""

    resource_name: Optional[str] = None
    resource_namespace: Optional[str] = None
    resource_id: Optional[str] = None
    resource_type: Optional[str] = None
    associations: Optional[List[AssociationInfo]] = None

    def to_dict(self) -> Dict[str, Any]:
        """The response as the registry's JSON object: the resource's fields and its
        ``associations``.
        """
        return _resource_dict(self)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationResponse":
        """A response from the registry's JSON object.

        Args:
            src_dict: the JSON object; each of ``associations`` is parsed with
                :meth:`AssociationInfo.from_dict`.

        Returns:
            AssociationResponse: the new instance.
        """
        return cls(**_resource_fields(src_dict, AssociationInfo))
