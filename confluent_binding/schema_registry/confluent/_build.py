"""Confluent's own Protobuf types (``confluent/meta.proto``, ``confluent/type/decimal.proto``,
``confluent/type/variant.proto``, ``confluent/types/decimal.proto``), defined here and built
into descriptors when first imported.

Each file is declared field by field below, as its ``.proto`` text says, and added to the
default descriptor pool; a file of that name already in the pool (another library built it
first) is used as it is, so one process holds one ``confluent.Meta``.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {"string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "uint32": _F.TYPE_UINT32,
          "int32": _F.TYPE_INT32}


def _field(name, number, type_name, repeated=False):
    field = _F(name=name, number=number,
               label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
    if type_name in _TYPES:
        field.type = _TYPES[type_name]
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = type_name
    return field


def _message(name, *fields, nested=(), map_entry=False):
    message = descriptor_pb2.DescriptorProto(name=name, field=list(fields),
                                             nested_type=list(nested))
    if map_entry:
        message.options.map_entry = True
    return message


def _file(name, package=None, messages=(), dependencies=(), public=(), extensions=(),
          go_package=None):
    proto = descriptor_pb2.FileDescriptorProto(
        name=name, syntax="proto3", message_type=list(messages),
        dependency=list(dependencies), public_dependency=list(public),
        extension=list(extensions))
    if package is not None:
        proto.package = package
    if go_package is not None:
        proto.options.go_package = go_package
    return proto


def _meta_file():
    # message Meta { string doc = 1; map<string, string> params = 2;
    #                repeated string tags = 3; repeated Rule rules = 4; }
    # message Rule { string name = 1; string doc = 2; string expr = 3; string sql = 4; }
    # extend google.protobuf.{File,Message,Field,Enum,EnumValue}Options { Meta ..._meta = 1088; }
    meta = _message(
        "Meta", _field("doc", 1, "string"),
        _field("params", 2, ".confluent.Meta.ParamsEntry", repeated=True),
        _field("tags", 3, "string", repeated=True),
        _field("rules", 4, ".confluent.Rule", repeated=True),
        nested=[_message("ParamsEntry", _field("key", 1, "string"),
                         _field("value", 2, "string"), map_entry=True)])
    rule = _message("Rule", _field("name", 1, "string"), _field("doc", 2, "string"),
                    _field("expr", 3, "string"), _field("sql", 4, "string"))
    extensions = []
    for name, options in (("file_meta", "FileOptions"), ("message_meta", "MessageOptions"),
                          ("field_meta", "FieldOptions"), ("enum_meta", "EnumOptions"),
                          ("enum_value_meta", "EnumValueOptions")):
        extension = _field(name, META_FIELD_NUMBER, ".confluent.Meta")
        extension.extendee = ".google.protobuf." + options
        extensions.append(extension)
    return _file("confluent/meta.proto", "confluent", [meta, rule],
                 dependencies=["google/protobuf/descriptor.proto"], extensions=extensions,
                 go_package="../confluent")


#: the field number of Confluent's ``(confluent.*_meta)`` options
META_FIELD_NUMBER = 1088

_FILES = {
    "confluent/meta.proto": _meta_file,
    # message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; }
    "confluent/type/decimal.proto": lambda: _file(
        "confluent/type/decimal.proto", "confluent.type", [_message(
            "Decimal", _field("value", 1, "bytes"), _field("precision", 2, "uint32"),
            _field("scale", 3, "int32"))]),
    # message Variant { bytes metadata = 1; bytes value = 2; }
    "confluent/type/variant.proto": lambda: _file(
        "confluent/type/variant.proto", "confluent.type", [_message(
            "Variant", _field("metadata", 1, "bytes"), _field("value", 2, "bytes"))]),
    # the older file name: import public "confluent/type/decimal.proto";
    "confluent/types/decimal.proto": lambda: _file(
        "confluent/types/decimal.proto", dependencies=["confluent/type/decimal.proto"],
        public=[0]),
}


def file_descriptor(name):
    """The FileDescriptor of one of Confluent's files, built into the default pool once."""
    pool = descriptor_pool.Default()
    try:
        return pool.FindFileByName(name)
    except KeyError:
        pass
    proto = _FILES[name]()
    for dependency in proto.dependency:
        if dependency in _FILES:
            file_descriptor(dependency)
        else:  # google/protobuf/descriptor.proto: the runtime's own
            __import__("google.protobuf.descriptor_pb2")
    pool.Add(proto)
    return pool.FindFileByName(name)


def message_class(file, name):
    """The message class of ``name`` (a message of ``file``)."""
    return message_factory.GetMessageClass(file.message_types_by_name[name])
