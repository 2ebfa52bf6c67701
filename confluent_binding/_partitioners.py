"""murmur2(), consistent() and fnv1a(): the partition librdkafka's partitioner of that name (the
``partitioner`` property) picks for a key, as confluent-kafka has them. murmur2 is the Java
client's default partitioner, so keys land on the same partitions as with Java producers."""

from operator import index

from ._core import _partition

__all__ = ["consistent", "fnv1a", "murmur2"]


def _args(name, args, kwargs):
    if kwargs:
        raise TypeError("%s() takes no keyword arguments" % name)
    if len(args) != 2:
        raise TypeError("function takes exactly 2 arguments (%d given)" % len(args))
    key, count = args
    if not isinstance(key, bytes):
        try:
            memoryview(key)
        except TypeError:
            raise TypeError("a bytes-like object is required, not '%s'"
                            % type(key).__name__) from None
        raise TypeError("argument 1 must be read-only bytes-like object, not %s"
                        % type(key).__name__)
    count = index(count)
    if count > 2147483647:
        raise OverflowError("signed integer is greater than maximum")
    if count < -2147483648:
        raise OverflowError("signed integer is less than minimum")
    if count <= 0:
        raise ValueError("partition_count must be > 0, got %d" % count)
    return bytes(key), count


def murmur2(*args, **kwargs):
    """murmur2(key, partition_count): the partition of ``key`` (bytes) among
    ``partition_count`` partitions by the Java client's murmur2 hash."""
    return _partition("murmur2", *_args("murmur2", args, kwargs))


def consistent(*args, **kwargs):
    """consistent(key, partition_count): the partition of ``key`` (bytes) by its CRC32."""
    return _partition("consistent", *_args("consistent", args, kwargs))


def fnv1a(*args, **kwargs):
    """fnv1a(key, partition_count): the partition of ``key`` (bytes) by its 32-bit FNV-1a
    hash."""
    return _partition("fnv1a", *_args("fnv1a", args, kwargs))
