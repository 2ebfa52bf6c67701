"""Sphinx configuration of the documentation site (``make docs`` builds it into build/docs)."""

import inspect
import sys
import typing
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import apigen  # noqa: E402
import generated  # noqa: E402

import confluent_binding  # noqa: E402

project = "confluent_binding"
author = "the confluent_binding authors"
copyright = "the confluent_binding authors"
release = confluent_binding.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# Tables generated from the data they show (benchmark results, confluent-kafka's API names),
# included by the pages: docs/generated.py.
generated.write_all(HERE / "_generated")

# The API reference: one page per public module, generated at each build (docs/apigen.py).
API_MODULES = apigen.write_pages(HERE / "api")
HOME_OF = apigen.homes(API_MODULES)
# A short name (``KafkaNode``) that a docstring refers to, and the one description it can mean.
_BY_SHORT_NAME = {}
for _home in set(HOME_OF.values()):
    _BY_SHORT_NAME.setdefault(_home.rsplit(".", 1)[1], set()).add(_home)

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_inherit_docstrings = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Cross-references are checked (-n): a link to a page, a section or a name of this package that
# does not exist fails the build. Names from outside it (the standard library, pyspark, pyarrow,
# typing constructs in signatures) cannot be resolved without fetching other sites' inventories,
# which the build does not do, so they are not checked.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(?!confluent_binding\b).*"),
]

html_theme = "alabaster"
html_title = "confluent_binding %s" % release
html_theme_options = {"description": "A Cython binding over librdkafka with confluent-kafka's API",
                      "fixed_sidebar": True}
html_static_path = []


def _lookup(target):
    """The object a dotted name of this package names, or None."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        obj = module
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def _resolve_reexport(app, env, node, contnode):
    """A reference to a name of this package that is described under another name (a class
    re-exported by ``confluent_binding`` but defined in ``confluent_binding.admin``, a base
    class in a private module) goes to that description; so does a short name that only one
    described class or function has. Private names (a part that starts
    with ``_``) and type variables are not described anywhere: they stay plain text. Any other
    reference to this package that resolves nowhere is left to fail the build."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py":
        return None
    if "." not in target and len(_BY_SHORT_NAME.get(target, ())) == 1:
        home = next(iter(_BY_SHORT_NAME[target]))
        return env.domains["py"].resolve_xref(env, node["refdoc"], app.builder,
                                              node["reftype"], home, node, contnode)
    if not target.startswith("confluent_binding."):
        return None
    obj = _lookup(target)
    home = HOME_OF.get(id(obj)) if obj is not None else None
    if home is not None and home != target:
        return env.domains["py"].resolve_xref(env, node["refdoc"], app.builder,
                                              node["reftype"], home, node, contnode)
    if isinstance(obj, typing.TypeVar) or any(p.startswith("_") for p in target.split(".")):
        return contnode
    return None


def _no_type_docstring(app, what, name, obj, options, lines):
    """A constant without a documentation comment of its own would show its type's docstring
    (``dict``'s, ``int``'s): drop that."""
    doc = type(obj).__doc__
    if what in ("data", "attribute") and obj is not None and isinstance(doc, str) and \
            "\n".join(lines).strip() == inspect.cleandoc(doc):
        lines[:] = []


def setup(app):
    app.connect("missing-reference", _resolve_reexport)
    app.connect("autodoc-process-docstring", _no_type_docstring)
