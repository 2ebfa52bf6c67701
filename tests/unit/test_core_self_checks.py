"""Every method of every compiled class checks its ``self``: called unbound with an object of
another type (``Consumer.poll(None)``, ``Producer.produce(object(), "t")``) it raises TypeError
instead of reading that object as the class's C struct. Run in a child process, so that a crash
fails the test with the names of what crashed rather than ending the whole run."""

import json
import subprocess
import sys
import textwrap

import confluent_binding._core as core

CHILD = textwrap.dedent("""
    import json, sys, types
    import confluent_binding._core as core

    HEAP_TYPE = 1 << 9
    WRONG_SELVES = (None, 0, "x", object())
    METHODS = (types.MethodDescriptorType, types.WrapperDescriptorType)
    ATTRIBUTES = (types.GetSetDescriptorType, types.MemberDescriptorType)

    def compiled_classes():
        for name, value in sorted(vars(core).items()):
            if (isinstance(value, type) and value.__module__ == core.__name__
                    and not value.__flags__ & HEAP_TYPE):
                yield value

    results = []
    for cls in compiled_classes():
        for name, attr in sorted(vars(cls).items()):
            if name in ("__new__", "__doc__", "__pyx_vtable__"):
                continue
            if isinstance(attr, METHODS):
                call = attr
            elif isinstance(attr, ATTRIBUTES):
                call = attr.__get__
            elif callable(attr) and not isinstance(attr, (type, classmethod, staticmethod,
                                                          types.ClassMethodDescriptorType,
                                                          types.BuiltinFunctionType)):
                call = attr     # a method that does not check its self
            else:
                continue
            # (an attribute's __get__ takes None for access on the class)
            for wrong in WRONG_SELVES if call is attr else WRONG_SELVES[1:]:
                print(cls.__name__, name, type(wrong).__name__, file=sys.stderr, flush=True)
                try:
                    call(wrong)
                    outcome = ("returned", "")
                except BaseException as exc:
                    outcome = (type(exc).__name__, str(exc))
                results.append([cls.__name__, name, type(wrong).__name__, *outcome])
    print(json.dumps(results))
""")


def test_every_compiled_class_is_checked():
    names = {name for name, value in vars(core).items()
             if isinstance(value, type) and value.__module__ == core.__name__}
    assert {"Producer", "Consumer", "ShareConsumer", "Message", "TopicPartition"} <= names


def test_methods_called_unbound_with_a_wrong_self_raise_type_error():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                           timeout=120)
    if child.returncode != 0:
        last = child.stderr.strip().splitlines()[-1:] or ["?"]
        raise AssertionError("the child process ended with %d at (class, method, self type) %s"
                             % (child.returncode, last[0]))
    results = json.loads(child.stdout)
    checked = {(cls, name) for cls, name, *_ in results}
    # The calls the crash was seen with are among those checked.
    assert {("Consumer", "poll"), ("Producer", "produce"), ("ShareConsumer", "poll"),
            ("Message", "value"), ("TopicPartition", "__repr__")} <= checked
    wrong = [r for r in results
             if r[3] != "TypeError" or "descriptor" not in r[4] or r[0] not in r[4]]
    assert not wrong, "not refused by the self check: %s" % wrong[:10]


def test_unbound_calls_with_a_wrong_self_as_confluent_kafka():
    from tests.support.parity import Raises, same

    cases = [("Consumer", "poll", lambda m: m.Consumer.poll(None), "NoneType"),
             ("Producer", "produce", lambda m: m.Producer.produce(object(), "t"), "object"),
             ("Producer", "flush", lambda m: m.Producer.flush(1), "int")]
    for cls, method, call, wrong in cases:
        same(call, Raises(TypeError, "descriptor '%s' for '%s' objects doesn't apply to a '%s'"
                          % (method, cls, wrong)))
