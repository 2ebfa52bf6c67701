"""What a CEL data-contract rule costs per record, ours next to confluent-kafka's.

Each row evaluates one rule over one record N times through each library's ``CelExecutor``
(the record converted to CEL values and the cached program run, as a serializer does per
record; compiling happens once, before timing) and prints the CPU time per evaluation (best of
--repeat runs) and ours / confluent-kafka's. No broker, no registry: the rule engine alone.

Run: ``.venv/bin/python bench/cel_rules.py`` (pinned: ``taskset -c 1 ...``). Markdown out.
"""

import argparse
import datetime
import os
import sys
import time
import types
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from confluent_kafka.schema_registry import RuleKind as CkRuleKind  # noqa: E402
from confluent_kafka.schema_registry import Schema as CkSchema  # noqa: E402
from confluent_kafka.schema_registry.rules.cel import cel_executor as ck_cel  # noqa: E402

from confluent_binding.schema_registry import RuleKind, Schema  # noqa: E402
from confluent_binding.schema_registry.confluent.type import (
    decimal_utils,  # noqa: E402
    variant_utils,  # noqa: E402
)
from confluent_binding.schema_registry.rules.cel import cel_executor  # noqa: E402

DOC = variant_utils.parse_json('{"a": [1, 2.5, "x"], "b": {"c": true}}')
RECORD = {"name": "ann", "age": 31, "email": "ann@example.org", "amount": Decimal("12.34"),
          "at": datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
          "tags": ["x", "y", "z"],
          "doc": {"metadata": DOC.metadata, "value": DOC.standalone_value_bytes()}}
RULES = [
    ("comparison", "message.age >= 18 && message.name.size() > 0"),
    ("string check", "message.email.isEmail()"),
    ("format()", "'%s is %d: %.2f'.format([message.name, message.age, 1.5]) != ''"),
    ("decimals", "decimals.gt(decimals.mul(message.amount, decimal('1.5')), decimal('10'))"),
    ("timestamp", "message.at > timestamp(1600000000)"),
    ("variant path", "variants.as(variants.path(message.doc, '$.a[1]'), 'double') > 2.0"),
    ("macro", "message.tags.all(t, t.size() == 1)"),
]


def cost(executor, kinds, schema, expr, record, count, repeat):
    ctx = types.SimpleNamespace(rule=types.SimpleNamespace(expr=expr, kind=kinds.CONDITION,
                                                           name="r"), target=schema)
    assert executor.transform(ctx, record) is True, expr
    best = None
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(count):
            executor.transform(ctx, record)
        took = (time.process_time() - start) / count
        best = took if best is None else min(best, took)
    return best * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ours = (cel_executor.CelExecutor(), RuleKind, Schema("{}", "AVRO"))
    theirs = (ck_cel.CelExecutor(), CkRuleKind, CkSchema("{}", "AVRO"))
    print("| rule | expression | confluent-kafka µs | ours µs | ours / confluent |")
    print("|---|---|--:|--:|--:|")
    rows = [(name, expr, RECORD) for name, expr in RULES]
    amount = decimal_utils.to_proto_decimal(Decimal("12.34"))  # a Protobuf message
    rows.append(("protobuf presence", "message.scale == 2 && has(message.value)", amount))
    rows.append(("protobuf decimal", "string(message) == '12.34'", amount))
    for name, expr, record in rows:
        a = cost(*theirs, expr, record, args.count, args.repeat)
        b = cost(*ours, expr, record, args.count, args.repeat)
        print("| %s | `%s` | %.0f | %.0f | %.2f |" % (name, expr, a, b, b / a))


if __name__ == "__main__":
    main()
