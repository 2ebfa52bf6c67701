"""Schema Registry data in Spark: Avro records in, typed columns, Avro records out.

Writes six orders to a topic with the Avro serializer, three with version 1 of the schema and
three with version 2 (a field added); reads the topic with Spark into typed columns (each
record decoded with its own writer schema, resolved to the latest version); sums the amounts
per region; writes the totals to a second topic as Avro (schema derived from the DataFrame and
registered); reads them back.

Uses the cluster in $KAFKA_BOOTSTRAP_SERVERS (or a local broker) and the Schema Registry at
$SCHEMA_REGISTRY_URL.

    SCHEMA_REGISTRY_URL=http://localhost:8081 python examples/spark_schema_registry.py
"""

import decimal
import json
import os
import sys
import uuid

import confluent_binding as kafka
from confluent_binding.admin import AdminClient, NewTopic
from confluent_binding.schema_registry import SchemaRegistryClient
from confluent_binding.schema_registry.avro import AvroSerializer
from confluent_binding.serialization import MessageField, SerializationContext

V1 = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "region", "type": "string"},
        {"name": "amount",
         "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    ],
}
# version 2: a coupon code, optional (a default keeps the subject backward compatible)
V2 = dict(V1, fields=V1["fields"] + [{"name": "coupon", "type": ["null", "string"],
                                      "default": None}])
ORDERS = [
    (V1, {"id": "o1", "region": "EU", "amount": decimal.Decimal("20.50")}),
    (V1, {"id": "o2", "region": "US", "amount": decimal.Decimal("10.00")}),
    (V1, {"id": "o3", "region": "EU", "amount": decimal.Decimal("21.00")}),
    (V2, {"id": "o4", "region": "US", "amount": decimal.Decimal("15.00"), "coupon": "SPRING"}),
    (V2, {"id": "o5", "region": "EU", "amount": decimal.Decimal("20.00"), "coupon": None}),
    (V2, {"id": "o6", "region": "US", "amount": decimal.Decimal("15.00"), "coupon": "SPRING"}),
]


def produce_orders(bootstrap, registry_url, topic):
    """The orders, each serialized with its schema version (registered on first use)."""
    registry = SchemaRegistryClient({"url": registry_url})
    v1, v2 = (AvroSerializer(registry, json.dumps(s)) for s in (V1, V2))
    ctx = SerializationContext(topic, MessageField.VALUE)
    producer = kafka.Producer({"bootstrap.servers": bootstrap})
    for schema, order in ORDERS:
        value = (v1 if schema is V1 else v2)(order, ctx)
        producer.produce(topic, value, order["id"].encode())
    assert producer.flush(30) == 0


def pipeline(spark, bootstrap, registry_url):
    from pyspark.sql import functions as F

    suffix = uuid.uuid4().hex[:8]
    orders, totals = "orders-" + suffix, "totals-" + suffix
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, 1) for t in (orders, totals)]).values():
        f.result()
    produce_orders(bootstrap, registry_url, orders)

    df = (spark.read.format("cbkafka")
          .option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", orders)
          .option("valueFormat", "avro")  # the reader schema: the subject's latest version
          .option("schema.registry.url", registry_url)
          .load())
    print("value: %s" % df.schema["value"].dataType.simpleString())
    print("read %d orders written with 2 schema versions" % df.count())
    per_region = (df.groupBy("value.region")
                  .agg(F.count("*").alias("orders"), F.sum("value.amount").alias("total"))
                  .orderBy("region"))
    for row in per_region.collect():
        print("%s  %d  %s" % (row.region, row.orders, row.total))

    # Struct columns written as Avro: the schema derived from the DataFrame, registered under
    # <topic>-value (auto.register.schemas, TopicNameStrategy: confluent's defaults).
    (per_region.select(F.struct("region", "total").alias("value"))
     .write.format("cbkafka").mode("append")
     .option("kafka.bootstrap.servers", bootstrap)
     .option("topic", totals)
     .option("valueFormat", "avro")
     .option("schema.registry.url", registry_url)
     .save())
    back = (spark.read.format("cbkafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", totals)
            .option("valueFormat", "avro")
            .option("schema.registry.url", registry_url)
            .load())
    rows = sorted((r.region, r.total) for r in back.select("value.*").collect())
    print("read back %d totals: %s" % (len(rows), rows))
    for f in admin.delete_topics([orders, totals]).values():
        f.result()


def main():
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    registry_url = os.environ.get("SCHEMA_REGISTRY_URL")
    if not registry_url:
        sys.exit("set SCHEMA_REGISTRY_URL to a Schema Registry")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("schema-registry-example")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    confluent_binding.spark.register(spark)
    try:
        from quickstart import cluster

        with cluster() as c:
            pipeline(spark, c.bootstrap_servers, registry_url)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
