"""``confluent.types``: the older file name of ``confluent.type.Decimal``."""
