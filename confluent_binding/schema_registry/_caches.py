"""The Schema Registry client's caches: what the registry has answered (by id, guid, schema and
version) and a bounded, expiring mapping for the latest versions."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, defaultdict
from typing import Any, Dict, Generic, Hashable, Optional, Tuple, TypeVar

from ._types import RegisteredSchema, Schema

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _BoundedCache(Generic[K, V]):
    """Least-recently-used mapping of at most ``capacity`` entries, each optionally expiring
    ``ttl`` seconds after it was set.  Not thread-safe by itself (the client holds a lock)."""

    def __init__(self, capacity: int, ttl: Optional[float] = None):
        self._capacity = max(int(capacity), 1)
        self._ttl = ttl
        self._data: "OrderedDict[K, Tuple[float, V]]" = OrderedDict()

    def get(self, key: K) -> Optional[V]:
        item = self._data.get(key)
        if item is None:
            return None
        expires, value = item
        if expires <= time.monotonic():
            del self._data[key]
            return None
        self._data.move_to_end(key)
        return value

    def set(self, key: K, value: V) -> None:
        expires = time.monotonic() + self._ttl if self._ttl is not None else float("inf")
        self._data[key] = (expires, value)
        self._data.move_to_end(key)
        while len(self._data) > self._capacity:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()


class _SchemaCache:
    """What the registry has answered, by id, guid, schema and version; thread-safe.

    Registered schemas never change (ids and versions are immutable in the registry), so these
    entries live until a delete through this client or :meth:`SchemaRegistryClient.clear_caches`.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.schema_id_index: Dict[Optional[str], Dict[int, Tuple[Optional[str], Schema]]] = (
            defaultdict(dict)
        )
        self.schema_guid_index: Dict[str, Schema] = {}
        self.schema_index: Dict[Optional[str], Dict[Schema, int]] = defaultdict(dict)
        self.rs_id_index: Dict[Optional[str], Dict[int, RegisteredSchema]] = defaultdict(dict)
        self.rs_version_index: Dict[Optional[str], Dict[Optional[int], RegisteredSchema]] = (
            defaultdict(dict)
        )
        self.rs_schema_index: Dict[Optional[str], Dict[Schema, RegisteredSchema]] = defaultdict(
            dict
        )

    def set_schema(
        self, subject: Optional[str], schema_id: Optional[int], guid: Optional[str], schema: Schema
    ) -> None:
        with self.lock:
            if schema_id is not None:
                self.schema_id_index[subject][schema_id] = (guid, schema)
                self.schema_index[subject][schema] = schema_id
            if guid is not None:
                self.schema_guid_index[guid] = schema

    def set_registered_schema(self, schema: Schema, registered_schema: RegisteredSchema) -> None:
        subject, schema_id = registered_schema.subject, registered_schema.schema_id
        with self.lock:
            if schema_id is not None:
                self.schema_id_index[subject][schema_id] = (registered_schema.guid, schema)
                self.schema_index[subject][schema] = schema_id
                self.rs_id_index[subject][schema_id] = registered_schema
            if registered_schema.guid is not None:
                self.schema_guid_index[registered_schema.guid] = schema
            self.rs_version_index[subject][registered_schema.version] = registered_schema
            self.rs_schema_index[subject][schema] = registered_schema

    def get_schema_by_id(
        self, subject: Optional[str], schema_id: int
    ) -> Optional[Tuple[Optional[str], Schema]]:
        with self.lock:
            return self.schema_id_index.get(subject, {}).get(schema_id)

    def get_schema_by_guid(self, guid: str) -> Optional[Schema]:
        with self.lock:
            return self.schema_guid_index.get(guid)

    def get_id_by_schema(self, subject: str, schema: Schema) -> Optional[int]:
        with self.lock:
            return self.schema_index.get(subject, {}).get(schema)

    def get_registered_by_subject_schema(
        self, subject: str, schema: Schema
    ) -> Optional[RegisteredSchema]:
        with self.lock:
            return self.rs_schema_index.get(subject, {}).get(schema)

    def get_registered_by_subject_id(
        self, subject: str, schema_id: int
    ) -> Optional[RegisteredSchema]:
        with self.lock:
            return self.rs_id_index.get(subject, {}).get(schema_id)

    def get_registered_by_subject_version(
        self, subject: str, version: int
    ) -> Optional[RegisteredSchema]:
        with self.lock:
            return self.rs_version_index.get(subject, {}).get(version)

    def remove_by_subject(self, subject: str) -> None:
        with self.lock:
            for index in (
                self.schema_id_index,
                self.schema_index,
                self.rs_id_index,
                self.rs_version_index,
                self.rs_schema_index,
            ):
                index.pop(subject, None)

    def remove_by_subject_version(self, subject: str, version: int) -> None:
        with self.lock:
            for index in (self.rs_id_index, self.rs_schema_index):
                entries: Dict[Any, Any] = index.get(subject, {})
                for key in [k for k, rs in entries.items() if rs.version == version]:
                    del entries[key]
            rs = self.rs_version_index.get(subject, {}).pop(version, None)
            if rs is not None and rs.schema_id is not None:
                self.schema_id_index.get(subject, {}).pop(rs.schema_id, None)
                self.schema_index.get(subject, {}).pop(rs.schema, None)

    def clear(self) -> None:
        with self.lock:
            for index in (
                self.schema_id_index,
                self.schema_guid_index,
                self.schema_index,
                self.rs_id_index,
                self.rs_version_index,
                self.rs_schema_index,
            ):
                index.clear()
