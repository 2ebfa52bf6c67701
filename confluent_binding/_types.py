"""Type aliases confluent-kafka's modules offer (``serialization.HeadersType``,
``serializing_producer.HeadersType`` and ``DeliveryCallback``), defined once."""

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

#: Message headers: a dict of name to value, or a list of (name, value) pairs (the same name may
#: repeat); a value is str (encoded as UTF-8), bytes or None.
HeadersType = Union[Dict[str, Union[str, bytes, None]], List[Tuple[str, Union[str, bytes, None]]]]

#: An ``on_delivery`` callback: called with (KafkaError or None, Message).
DeliveryCallback = Callable[[Optional[Any], Any], None]
