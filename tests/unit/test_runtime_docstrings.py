"""The compiled classes carry their docstrings at runtime: ``help()`` in a REPL shows every
public method, property and attribute documented, from the extension itself (the one source:
the docs site renders it and the stub ``_core.pyi`` copies it)."""
import inspect
import pydoc

import confluent_binding._core as core


def _public_classes():
    return [obj for name, obj in sorted(vars(core).items())
            if inspect.isclass(obj) and not name.startswith("_")
            and obj.__module__ == core.__name__]


def _members(cls):
    for name, value in sorted(vars(cls).items()):
        if name.startswith("_"):
            continue
        if inspect.isroutine(value) or inspect.isdatadescriptor(value):
            yield name, value


def _text(doc):
    return " ".join((doc or "").split())


def test_help_shows_a_docstring_for_every_public_compiled_member():
    classes = _public_classes()
    assert {"Consumer", "Producer", "Message", "TopicPartition", "DeliveryFuture",
            "ThrottleEvent"} <= {c.__name__ for c in classes}
    missing, not_shown, checked = [], [], 0
    for cls in classes:
        page = _text(pydoc.render_doc(cls, renderer=pydoc.plaintext))
        for name, value in _members(cls):
            checked += 1
            doc = inspect.getdoc(value)
            # Cython's embedded signature line alone is no documentation
            lines = [line for line in (doc or "").splitlines()
                     if line.strip() and not line.startswith(name + "(")]
            if not lines:
                missing.append("%s.%s" % (cls.__name__, name))
            elif _text(lines[0]) not in page:
                not_shown.append("%s.%s" % (cls.__name__, name))
    assert checked > 80     # the walk reaches the members
    assert missing == []
    assert not_shown == []

