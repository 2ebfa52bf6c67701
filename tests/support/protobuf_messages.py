"""Protobuf message classes for the serde tests, built from descriptors (no protoc needed)."""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory


def build_messages():
    """Generated-style classes for two files, main.proto importing common/address.proto."""
    pool = descriptor_pool.DescriptorPool()
    dep = descriptor_pb2.FileDescriptorProto(
        name="common/address.proto", package="shop", syntax="proto3"
    )
    address = dep.message_type.add(name="Address")
    address.field.add(name="city", number=1, type=9, label=1)
    pool.Add(dep)
    main = descriptor_pb2.FileDescriptorProto(
        name="main.proto", package="shop", syntax="proto3", dependency=["common/address.proto"]
    )
    first = main.message_type.add(name="First")
    first.field.add(name="id", number=1, type=3, label=1)
    order = main.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=5, label=1)
    order.field.add(name="note", number=2, type=9, label=1)
    order.field.add(name="ship_to", number=3, type=11, label=1, type_name=".shop.Address")
    line = order.nested_type.add(name="Line")
    line.field.add(name="sku", number=1, type=9, label=1)
    pool.Add(main)
    get = message_factory.GetMessageClass
    return (
        get(pool.FindMessageTypeByName("shop.First")),
        get(pool.FindMessageTypeByName("shop.Order")),
        get(pool.FindMessageTypeByName("shop.Order.Line")),
    )
