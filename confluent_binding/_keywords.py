"""The one rule that turns keyword arguments into configuration properties.

``Producer(bootstrap_servers="h:9092")`` means ``{"bootstrap.servers": "h:9092"}``: a keyword's
underscores stand for dots. Kept as given: a name that already has a dot (it is spelled as a
property: ``**{"linger.ms": 5}``), the clients' Python-only keys (``on_delivery``, ``error_cb``,
...) and ``log_level``, librdkafka's one property spelled with an underscore. The clients and the
test harness's ``client_config()`` both use it.
"""

from typing import Any, Dict, Mapping

# The Python-only configuration keys spelled with an underscore, and librdkafka's log_level.
KEPT_AS_GIVEN = frozenset({"error_cb", "stats_cb", "throttle_cb", "oauth_cb", "on_delivery",
                           "on_commit", "log_level"})


def property_name(keyword: str) -> str:
    """The configuration property a keyword argument names."""
    if "." in keyword or keyword in KEPT_AS_GIVEN:
        return keyword
    return keyword.replace("_", ".")


def properties(keywords: Mapping[str, Any]) -> Dict[str, Any]:
    """``{property_name(k): v}`` for every keyword argument."""
    return {property_name(k): v for k, v in keywords.items()}
