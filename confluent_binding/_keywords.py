"""The one rule that turns keyword arguments into configuration properties.

``Producer(bootstrap_servers="h:9092")`` means ``{"bootstrap.servers": "h:9092"}``: a keyword's
underscores stand for dots. Kept as given: a name that already has a dot (it is spelled as a
property: ``**{"linger.ms": 5}``), the clients' Python-only keys (``on_delivery``, ``error_cb``,
...) and ``log_level``, librdkafka's one property spelled with an underscore. The rule lives in
the compiled core (``src/conf.pyx``), which applies it to every client's keywords; this module is
where the Python side (the test harness's ``client_config()``, ...) takes it from.
"""

from ._core import _KEPT_AS_GIVEN as KEPT_AS_GIVEN
from ._core import _properties as properties
from ._core import _property_name as property_name

__all__ = ["KEPT_AS_GIVEN", "properties", "property_name"]
