"""OpenTelemetry spans for producing and consuming, following OpenTelemetry's messaging
semantic conventions (Kafka).

Tracing is turned on per client by wrapping it (:func:`confluent_binding.metrics.trace`): the
wrapper has the client's API, and only its produce and consume calls do more. An unwrapped
client runs exactly the code it always runs, so tracing costs nothing when it is off.

* A produced message gets a ``send <topic>`` span (kind PRODUCER). Its context is injected into
  the message's headers with OpenTelemetry's propagator (W3C ``traceparent``/``tracestate`` by
  default), as the message's creation context. The span ends with the delivery report, which
  librdkafka's clients serve inside ``poll()``/``flush()`` on the application's thread (the
  asyncio faces on the loop): a wrapper around the message's delivery callback ends it, with an
  error status and ``error.type`` when the delivery failed.
* A consumed message gets a ``process <topic>`` span (kind CONSUMER) when the consume call hands
  it to the application. It is linked to the message's creation context and, when no span is
  current (processing outside any other trace), is its child as well. It ends when the
  application comes back for more (the next poll/consume call of the same client) or closes the
  client: it covers the processing of what the previous call returned.
"""
import functools
from typing import Any, Dict, List, Mapping, Optional, Tuple, TypeVar

from opentelemetry import propagate
from opentelemetry import trace as otel_trace
from opentelemetry.propagators.textmap import Getter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from .._version import __version__
from ._errors import error_type

SYSTEM = "kafka"
SCOPE = "confluent_binding"
# the headers a message carries its creation context in, under the W3C propagator
CONTEXT_HEADERS = ("traceparent", "tracestate")


class _HeaderGetter(Getter):
    """Reads a propagator's fields from Kafka headers: a list of (str, bytes|str|None)."""

    def get(self, carrier: Any, key: str) -> Optional[List[str]]:
        out = []
        for k, v in carrier:
            if k == key and v is not None:
                out.append(v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray))
                           else str(v))
        return out or None

    def keys(self, carrier: Any) -> List[str]:
        return [k for k, _ in carrier]


_GETTER = _HeaderGetter()


def _header_list(headers: Any) -> List[Tuple[str, Any]]:
    """The headers as a new list of pairs (the client takes a list or a dict)."""
    if headers is None:
        return []
    if isinstance(headers, Mapping):
        return list(headers.items())
    return list(headers)


def _key_text(key: Any) -> Optional[str]:
    """The key as the conventions want it: its string form when it has an unambiguous one."""
    if isinstance(key, str):
        return key
    if isinstance(key, (bytes, bytearray, memoryview)):
        try:
            return bytes(key).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    return None


def _error_text(error: Any) -> str:
    """What went wrong, for the span status: a KafkaError's reason, else the exception's."""
    for e in (error, (getattr(error, "args", None) or (None,))[0]):
        text = getattr(e, "str", None)
        if callable(text):
            return str(text())
    return str(error)


def _creation_context(headers: Any) -> Any:
    """The span context a message's headers carry (invalid when they carry none)."""
    if not headers:
        return None, otel_trace.INVALID_SPAN_CONTEXT
    ctx = propagate.extract(headers, getter=_GETTER)
    return ctx, otel_trace.get_current_span(ctx).get_span_context()


class Tracing:
    """The spans of one client: its tracer and the attributes every span of it carries."""

    def __init__(self, tracer_provider: Any, client_id: Optional[str],
                 group_id: Optional[str]) -> None:
        provider = tracer_provider or otel_trace.get_tracer_provider()
        self.tracer = provider.get_tracer(SCOPE, __version__)
        self.base: Dict[str, Any] = {"messaging.system": SYSTEM}
        if client_id:
            self.base["messaging.client.id"] = str(client_id)
        self.group_id = group_id

    # -- producing --

    def start_send(self, topic: str, key: Any, value: Any, partition: Optional[int],
                   headers: Any) -> Tuple[Any, List[Tuple[str, Any]]]:
        """Start the ``send`` span of one message; returns it and the headers to produce (the
        given ones plus the span's context). A message whose headers already carry a creation
        context keeps it (the conventions' custom creation context): the span links to it."""
        attrs = dict(self.base)
        attrs["messaging.operation.name"] = "send"
        attrs["messaging.operation.type"] = "send"
        attrs["messaging.destination.name"] = topic
        if partition is not None and partition >= 0:
            attrs["messaging.destination.partition.id"] = str(partition)
        text = _key_text(key)
        if text is not None:
            attrs["messaging.kafka.message.key"] = text
        if value is None:
            attrs["messaging.kafka.message.tombstone"] = True
        headers = _header_list(headers)
        _, custom = _creation_context(headers)
        links = [Link(custom)] if custom.is_valid else None
        span = self.tracer.start_span("send %s" % topic, kind=SpanKind.PRODUCER,
                                      attributes=attrs, links=links)
        if not custom.is_valid:
            carrier: Dict[str, str] = {}
            propagate.inject(carrier, context=otel_trace.set_span_in_context(span))
            headers.extend((k, v.encode()) for k, v in carrier.items())
        return span, headers

    def end_send(self, span: Any, err: Any, msg: Any) -> None:
        """End a ``send`` span with a delivery report (``err`` None: delivered)."""
        if msg is not None:
            partition, offset = msg.partition(), msg.offset()
            if partition is not None and partition >= 0:
                span.set_attribute("messaging.destination.partition.id", str(partition))
            if offset is not None and offset >= 0:
                span.set_attribute("messaging.kafka.offset", offset)
        if err is not None:
            self.fail(span, err)
        else:
            span.end()

    def end_sent(self, span: Any, fut: Any) -> None:
        """End a ``send`` span from the future of an asyncio face (a done-callback): its
        result is the delivered Message (or the aiokafka face's RecordMetadata), its error the
        failed delivery's."""
        if fut.cancelled():
            span.end()      # the report is still served, but nobody reads it any more
            return
        exc = fut.exception()
        if exc is not None:
            self.fail(span, exc)
            return
        result = fut.result()
        if result is not None:          # the aiokafka face with acks=0: no metadata
            partition, offset = result.partition, result.offset
            if callable(partition):
                partition, offset = partition(), offset()
            if partition is not None and partition >= 0:
                span.set_attribute("messaging.destination.partition.id", str(partition))
            if offset is not None and offset >= 0:
                span.set_attribute("messaging.kafka.offset", offset)
        span.end()

    def fail(self, span: Any, error: Any) -> None:
        """End a span with the error it ended with."""
        span.set_attribute("error.type", error_type(error))
        span.set_status(Status(StatusCode.ERROR, _error_text(error)))
        span.end()

    def delivered(self, span: Any, cb: Any, err: Any, msg: Any) -> Any:
        """The delivery callback a traced message is produced with: ends its span, then calls
        the application's callback (``cb``) as the client would have."""
        self.end_send(span, err, msg)
        if cb is not None:
            return cb(err, msg)
        return None

    def callback(self, span: Any, cb: Any) -> Any:
        return functools.partial(self.delivered, span, cb)

    # -- consuming --

    def start_process(self, topic: str, partition: int, offset: int, key: Any,
                      headers: Any) -> Any:
        """Start the ``process`` span of one consumed message."""
        attrs = dict(self.base)
        attrs["messaging.operation.name"] = "process"
        attrs["messaging.operation.type"] = "process"
        attrs["messaging.destination.name"] = topic
        attrs["messaging.destination.partition.id"] = str(partition)
        attrs["messaging.kafka.offset"] = offset
        if self.group_id:
            attrs["messaging.consumer.group.name"] = self.group_id
        text = _key_text(key)
        if text is not None:
            attrs["messaging.kafka.message.key"] = text
        ctx, creation = _creation_context(headers)
        links = None
        parent = None
        if creation.is_valid:
            links = [Link(creation)]
            # the creation context is the parent only when processing happens outside any
            # other span (the conventions advise against it inside one)
            if not otel_trace.get_current_span().get_span_context().is_valid:
                parent = ctx
        return self.tracer.start_span("process %s" % topic, context=parent,
                                      kind=SpanKind.CONSUMER, attributes=attrs, links=links)

    def message_span(self, msg: Any) -> Any:
        """The span of a consumed Message, or None for an event (a Message with an error)."""
        if msg is None or msg.error() is not None:
            return None
        return self.start_process(msg.topic(), msg.partition(), msg.offset(), msg.key(),
                                  msg.headers())

    def record_span(self, rec: Any) -> Any:
        """The span of an aiokafka ConsumerRecord."""
        return self.start_process(rec.topic, rec.partition, rec.offset, rec.key, rec.headers)


# -- the wrappers --------------------------------------------------------------------------


class _Traced:
    """A client with tracing: every attribute but the traced calls is the client's own."""

    def __init__(self, client: Any, tracing: Tracing) -> None:
        self._client = client
        self._tracing = tracing

    @property
    def wrapped(self) -> Any:
        """The client this wraps (its calls made on it directly are not traced)."""
        return self._client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return "<traced %r>" % (self._client,)

    def _finish(self) -> None:
        """Ends the spans still open when the application closes the client: none here (a
        consumer's ``process`` spans, see :class:`_Consuming`)."""


_T = TypeVar("_T", bound=_Traced)


class _TracedSync(_Traced):
    """A client of the blocking API: ``with`` is the client's own (the wrapper's open spans end
    on the way out)."""

    def __enter__(self: _T) -> _T:
        self._client.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> Any:
        self._finish()
        return self._client.__exit__(*exc_info)


class _TracedAsync(_Traced):
    """A client of an asyncio API: ``async with`` is the client's own (the wrapper's open spans
    end on the way out)."""

    async def __aenter__(self: _T) -> _T:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        self._finish()
        return await self._client.__aexit__(*exc_info)


class _Queued(_Traced):
    """A producer face whose length and truth are its queue's (the client's own)."""

    def __len__(self) -> int:
        return len(self._client)

    def __bool__(self) -> bool:
        return bool(self._client)


class _Consuming(_Traced):
    """A consumer face: the ``process`` spans of what the last consume call returned, ended
    when the application comes back for more, or closes the client."""

    def __init__(self, client: Any, tracing: Tracing) -> None:
        super().__init__(client, tracing)
        self._open: List[Any] = []

    def _finish(self) -> None:
        spans, self._open = self._open, []
        for span in spans:
            span.end()

    def _add(self, span: Any) -> None:
        if span is not None:
            self._open.append(span)


class _ConsumingAsync(_Consuming, _TracedAsync):
    """An asyncio consumer face: ``async for`` as its consume calls. ``_span``: the span of
    one item the client hands out (a Message or an aiokafka ConsumerRecord)."""

    def _span(self, item: Any) -> Any:
        return self._tracing.message_span(item)

    def __aiter__(self: _T) -> _T:
        self._client.__aiter__()      # raises as the client's does once it is closed or stopped
        return self

    async def __anext__(self) -> Any:
        self._finish()
        item = await self._client.__anext__()
        self._add(self._span(item))
        return item


class TracedProducer(_Queued, _TracedSync):
    """A traced :class:`~confluent_binding.Producer` (as ``trace()`` returns it)."""

    def __init__(self, client: Any, tracing: Tracing, on_delivery: Any = None) -> None:
        super().__init__(client, tracing)
        self._on_delivery = on_delivery

    def produce(self, topic: str, value: Any = None, key: Any = None, partition: int = -1,
                on_delivery: Any = None, callback: Any = None, timestamp: int = 0,
                headers: Any = None) -> None:
        self._send(topic, key, value, partition, on_delivery or callback, timestamp, headers)

    def _send(self, topic: str, key: Any, value: Any, partition: int, cb: Any,
              timestamp: int, headers: Any) -> None:
        """Produces one message with its ``send`` span, ended by the delivery report (then
        ``cb``, else the configured callback, is called) or by the produce call's failure."""
        t = self._tracing
        span, headers = t.start_send(topic, key, value, partition, headers)
        try:
            self._produce(topic, key, value, partition, t.callback(span, cb or self._on_delivery),
                          timestamp, headers)
        except BaseException as e:
            t.fail(span, e)
            raise

    def _produce(self, topic: str, key: Any, value: Any, partition: int, on_delivery: Any,
                 timestamp: int, headers: Any) -> None:
        self._client.produce(topic, value, key, partition=partition, on_delivery=on_delivery,
                             timestamp=timestamp, headers=headers)

    def produce_batch(self, topic: str, messages: Any, partition: int = -1,
                      on_delivery: Any = None, callback: Any = None) -> int:
        t = self._tracing
        default = on_delivery or callback or self._on_delivery
        given = list(messages)
        copies, spans = [], []
        for m in given:
            m = dict(m) if isinstance(m, Mapping) else m
            if isinstance(m, dict):
                span, m["headers"] = t.start_send(topic, m.get("key"), m.get("value"),
                                                  m.get("partition", partition),
                                                  m.get("headers"))
                own = m.pop("callback", None), m.pop("on_delivery", None)
                m["callback"] = t.callback(span, own[0] or own[1] or default)
                spans.append(span)
            else:
                spans.append(None)
            copies.append(m)
        try:
            n = self._client.produce_batch(topic, copies, partition)
        except BaseException as e:
            for span in spans:
                if span is not None:
                    t.fail(span, e)
            raise
        for original, copy, span in zip(given, copies, spans):
            if isinstance(copy, dict) and "_error" in copy:
                if isinstance(original, dict):
                    original["_error"] = copy["_error"]
                t.fail(span, copy["_error"])
        return n


class TracedSerializingProducer(TracedProducer):
    """A traced :class:`~confluent_binding.SerializingProducer` (key before value)."""

    def produce(self, topic: str, key: Any = None, value: Any = None,  # type: ignore[override]
                partition: int = -1, on_delivery: Any = None, timestamp: int = 0,
                headers: Any = None) -> None:
        self._send(topic, key, value, partition, on_delivery, timestamp, headers)

    def _produce(self, topic: str, key: Any, value: Any, partition: int, on_delivery: Any,
                 timestamp: int, headers: Any) -> None:
        self._client.produce(topic, key=key, value=value, partition=partition,
                             on_delivery=on_delivery, timestamp=timestamp, headers=headers)


class TracedConsumer(_Consuming, _TracedSync):
    """A traced :class:`~confluent_binding.Consumer`."""

    def poll(self, timeout: Optional[float] = -1) -> Any:
        self._finish()
        msg = self._client.poll(timeout)
        if msg is not None:
            self._add(self._tracing.message_span(msg))
        return msg

    def consume(self, num_messages: int = 1, timeout: Optional[float] = -1) -> Any:
        self._finish()
        msgs = self._client.consume(num_messages, timeout)
        for msg in msgs:
            self._add(self._tracing.message_span(msg))
        return msgs

    def close(self, *args: Any, **kwargs: Any) -> Any:
        self._finish()
        return self._client.close(*args, **kwargs)


class TracedAIOProducer(_Queued, _TracedAsync):
    """A traced :class:`~confluent_binding.aio.AIOProducer`."""

    async def produce(self, topic: str, value: Any = None, key: Any = None,
                      partition: int = -1, on_delivery: Any = None, timestamp: int = 0,
                      headers: Any = None, callback: Any = None) -> Any:
        return await self._send(topic, key, value, partition, on_delivery or callback,
                                timestamp, headers)

    async def _send(self, topic: str, key: Any, value: Any, partition: int, cb: Any,
                    timestamp: int, headers: Any) -> Any:
        """Produces one message with its ``send`` span; returns the delivery's future."""
        t = self._tracing
        span, headers = t.start_send(topic, key, value, partition, headers)
        try:
            # without a callback of the application's the span ends from the future's
            # done-callback, and produce() keeps its compiled path
            fut = await self._produce(topic, key, value, partition,
                                      None if cb is None else t.callback(span, cb),
                                      timestamp, headers)
        except BaseException as e:
            t.fail(span, e)
            raise
        if cb is None:
            fut.add_done_callback(functools.partial(t.end_sent, span))
        return fut

    def _produce(self, topic: str, key: Any, value: Any, partition: int, on_delivery: Any,
                 timestamp: int, headers: Any) -> Any:
        return self._client.produce(topic, value, key, partition, on_delivery, timestamp,
                                    headers)


class TracedAsyncSerializingProducer(TracedAIOProducer):
    """A traced :class:`~confluent_binding.aio.AsyncSerializingProducer` (key before value)."""

    async def produce(self, topic: str, key: Any = None,  # type: ignore[override]
                      value: Any = None, partition: int = -1, timestamp: int = 0,
                      headers: Any = None, on_delivery: Any = None) -> Any:
        return await self._send(topic, key, value, partition, on_delivery, timestamp, headers)

    def _produce(self, topic: str, key: Any, value: Any, partition: int, on_delivery: Any,
                 timestamp: int, headers: Any) -> Any:
        return self._client.produce(topic, key, value, partition=partition, timestamp=timestamp,
                                    headers=headers, on_delivery=on_delivery)


class TracedAIOConsumer(_ConsumingAsync):
    """A traced :class:`~confluent_binding.aio.AIOConsumer`."""

    async def poll(self, timeout: Optional[float] = -1) -> Any:
        self._finish()
        msg = await self._client.poll(timeout)
        if msg is not None:
            self._add(self._tracing.message_span(msg))
        return msg

    async def consume(self, num_messages: int = 1, timeout: Optional[float] = -1) -> Any:
        self._finish()
        msgs = await self._client.consume(num_messages, timeout)
        for msg in msgs:
            self._add(self._tracing.message_span(msg))
        return msgs

    async def close(self) -> Any:
        self._finish()
        return await self._client.close()


class TracedAIOKafkaProducer(_TracedAsync):
    """A traced :class:`~confluent_binding.aiokafka.AIOKafkaProducer`: ``send`` and
    ``send_and_wait`` are traced (``send_batch`` is not: a batch has no per-record headers)."""

    async def send(self, topic: str, value: Any = None, key: Any = None,
                   partition: Optional[int] = None, timestamp_ms: Optional[int] = None,
                   headers: Any = None) -> Any:
        t = self._tracing
        span, headers = t.start_send(topic, key, value, partition, headers)
        try:
            fut = await self._client.send(topic, value, key, partition, timestamp_ms, headers)
        except BaseException as e:
            t.fail(span, e)
            raise
        fut.add_done_callback(functools.partial(t.end_sent, span))
        return fut

    async def send_and_wait(self, topic: str, value: Any = None, key: Any = None,
                            partition: Optional[int] = None, timestamp_ms: Optional[int] = None,
                            headers: Any = None) -> Any:
        return await (await self.send(topic, value, key, partition, timestamp_ms, headers))


class TracedAIOKafkaConsumer(_ConsumingAsync):
    """A traced :class:`~confluent_binding.aiokafka.AIOKafkaConsumer`: ``getone``,
    ``getmany`` and ``async for``."""

    def _span(self, item: Any) -> Any:
        return self._tracing.record_span(item)

    async def getone(self, *partitions: Any) -> Any:
        self._finish()
        rec = await self._client.getone(*partitions)
        self._add(self._tracing.record_span(rec))
        return rec

    async def getmany(self, *partitions: Any, timeout_ms: int = 0,
                      max_records: Optional[int] = None) -> Any:
        self._finish()
        out = await self._client.getmany(*partitions, timeout_ms=timeout_ms,
                                         max_records=max_records)
        for recs in out.values():
            for rec in recs:
                self._add(self._tracing.record_span(rec))
        return out

    async def stop(self) -> None:
        self._finish()
        await self._client.stop()


def traced(client: Any, tracer_provider: Any, conf: Optional[Mapping[str, Any]]) -> Any:
    """The traced wrapper of ``client`` (see :func:`confluent_binding.metrics.trace`)."""
    from .. import Consumer, Producer
    from ..serializing_producer import SerializingProducer

    if isinstance(client, _Traced):
        raise ValueError("%r is traced already" % (client,))
    conf = dict(conf or {})
    client_id = conf.get("client.id")
    group_id = conf.get("group.id")
    if isinstance(client, Producer):
        tracing = Tracing(tracer_provider, client_id, None)
        cls = TracedSerializingProducer if isinstance(client, SerializingProducer) \
            else TracedProducer
        # a message's own callback replaces the configured one (confluent-kafka's rule), so
        # the configured one is called by the message's tracing callback
        return cls(client, tracing, conf.get("on_delivery"))
    if isinstance(client, Consumer):
        return TracedConsumer(client, Tracing(tracer_provider, client_id, group_id))
    from ..aio import AIOConsumer, AIOProducer
    from ..aio._serializing import AsyncSerializingProducer
    if isinstance(client, AsyncSerializingProducer):
        return TracedAsyncSerializingProducer(client, Tracing(tracer_provider, client_id, None))
    if isinstance(client, AIOProducer):
        return TracedAIOProducer(client, Tracing(tracer_provider, client_id, None))
    if isinstance(client, AIOConsumer):
        return TracedAIOConsumer(client, Tracing(tracer_provider, client_id, group_id))
    from ..aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    if isinstance(client, (AIOKafkaProducer, AIOKafkaConsumer)):
        # the aiokafka-style clients keep the configuration their keywords made
        made = getattr(client, "_conf", {})
        client_id = client_id or made.get("client.id")
        if isinstance(client, AIOKafkaProducer):
            return TracedAIOKafkaProducer(client, Tracing(tracer_provider, client_id, None))
        group_id = group_id or getattr(client, "_group_id", None)
        return TracedAIOKafkaConsumer(client, Tracing(tracer_provider, client_id, group_id))
    raise TypeError("trace() takes a Producer, Consumer, AIOProducer, AIOConsumer, "
                    "AIOKafkaProducer or AIOKafkaConsumer, not %s" % type(client).__name__)


__all__ = ["Tracing", "traced", "CONTEXT_HEADERS", "TracedProducer", "TracedConsumer",
           "TracedAIOProducer", "TracedAIOConsumer", "TracedAIOKafkaProducer",
           "TracedAIOKafkaConsumer"]
