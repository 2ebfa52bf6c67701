"""``confluent.type``: the Decimal and Variant messages, and the Decimal conversions."""
