"""Avro schemas parsed by the ``avro`` package, as the legacy Avro clients take them."""

from .error import ClientError

__all__ = ["ClientError", "load", "loads"]


def loads(schema_str):
    """The ``avro.schema.Schema`` the JSON text ``schema_str`` describes; :class:`ClientError`
    when it is not a valid schema."""
    try:
        from avro import schema
        from avro.errors import SchemaParseException
    except ImportError as e:
        raise ImportError("confluent_binding.avro needs the avro package: "
                          "pip install 'confluent_binding[avro]'") from e
    try:
        return schema.parse(schema_str)
    except SchemaParseException as e:
        raise ClientError("Schema parse failed: %s" % e) from None


def load(fp):
    """The schema in the file at path ``fp`` (see :func:`loads`)."""
    with open(fp) as f:
        return loads(f.read())
