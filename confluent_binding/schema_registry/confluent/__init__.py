"""Confluent's own Protobuf types: ``meta_pb2`` (``confluent.Meta``, the ``(confluent.*_meta)``
options that carry docs, params, tags and rules), ``type.decimal_pb2``
(``confluent.type.Decimal``), ``type.variant_pb2`` (``confluent.type.Variant``) and
``types.decimal_pb2`` (the older file name of the Decimal), as confluent-kafka's modules of these
names offer them."""
