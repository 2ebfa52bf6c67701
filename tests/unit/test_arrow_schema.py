"""The columns of consume_arrow() batches: one list in the compiled core (an Arrow C data interface
schema), read by pyarrow through the PyCapsule interface and converted for Spark."""

import pytest

from confluent_binding import _core

pa = pytest.importorskip("pyarrow")

HEADERS = pa.list_(pa.field("element", pa.struct([pa.field("key", pa.string()),
                                                   pa.field("value", pa.binary())])))
SPARK_KAFKA_SOURCE = [
    ("key", pa.binary()),
    ("value", pa.binary()),
    ("topic", pa.string()),
    ("partition", pa.int32()),
    ("offset", pa.int64()),
    ("timestamp", pa.timestamp("us", tz="UTC")),
    ("timestampType", pa.int32()),
]


@pytest.mark.parametrize("headers", [False, True])
def test_the_schema_has_the_columns_of_sparks_kafka_source(headers):
    expected = pa.schema(SPARK_KAFKA_SOURCE + ([("headers", HEADERS)] if headers else []))
    schema = _core._arrow_schema(headers)
    assert schema.equals(expected, check_metadata=True)
    assert all(f.nullable for f in schema)
    assert _core._arrow_schema(headers) is schema     # imported once


@pytest.mark.parametrize("headers", [False, True])
def test_an_empty_batch_goes_through_the_pycapsule_interface(headers):
    columns = _core._ArrowColumns(headers)
    batch = pa.record_batch(columns)
    assert batch.num_rows == 0
    assert batch.schema.equals(_core._arrow_schema(headers))
    assert pa.schema(columns).equals(batch.schema)


def test_capsules_nobody_imports_release_what_they_hold():
    schema, array = _core._ArrowColumns(True).__arrow_c_array__()
    assert type(schema).__name__ == type(array).__name__ == "PyCapsule"
    assert "arrow_schema" in repr(schema) and "arrow_array" in repr(array)
    del schema, array       # their destructors call the release callbacks (no leak, no crash)


class _Exported:
    """An object handing out capsules made before: pyarrow imports them."""

    def __init__(self, capsules):
        self.capsules = capsules

    def __arrow_c_array__(self, requested_schema=None):
        return self.capsules


def test_an_import_takes_over_the_batch_and_the_capsules_are_freed_after():
    capsules = _core._ArrowColumns(False).__arrow_c_array__()
    batch = pa.record_batch(_Exported(capsules))
    assert batch.num_rows == 0
    with pytest.raises(Exception, match="released"):     # moved out: a second import fails
        pa.record_batch(_Exported(capsules))
    del capsules
    assert batch.schema.names[4] == "offset"


@pytest.mark.parametrize("headers", [False, True])
def test_sparks_schema_is_converted_from_the_arrow_schema(headers):
    pytest.importorskip("pyspark")
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    from confluent_binding.spark import kafka_schema

    fields = [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
    if headers:
        fields.append(StructField("headers", ArrayType(StructType(
            [StructField("key", StringType()), StructField("value", BinaryType())]))))
    assert kafka_schema(headers) == StructType(fields)
