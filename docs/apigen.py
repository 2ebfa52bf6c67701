"""The API reference's pages, generated from the package itself, and a count of public names
without a docstring.

Every public module of ``confluent_binding`` (no part of its dotted name starts with ``_``) gets
a page. A name is public in a module when the module's ``__all__`` lists it or it is a class
the module defines, or, without ``__all__``, when it does not start with ``_`` and is a class or
function of this package.
An object re-exported by several modules (``Producer`` is ``confluent_binding.Producer`` and
``confluent_binding.cimpl.Producer``) is described once, in its *home*: the module that defines
it when that module is public, else the shortest public module that exports it; the other pages
link there.

    python docs/apigen.py            prints the docstring counts per module (-v: and the names)
    python docs/apigen.py --sync-stub   copies the compiled module's docstrings into its stub
"""

import ast
import functools
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

PACKAGE = "confluent_binding"

# A docstring that is only a signature (Cython's embedded one, a dataclass's generated one) does
# not count as documentation.
_SIGNATURE_LINE = re.compile(r"^[\w.]+\(.*\)(\s*->\s*.*)?$")


def public_modules():
    """Names of the package's public modules, parents before children, sorted."""
    package = importlib.import_module(PACKAGE)
    names = [PACKAGE]
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def _ours(obj):
    return (getattr(obj, "__module__", None) or "").split(".")[0] == PACKAGE


def public_names(module):
    """The module's public names, in ``__all__`` order (or sorted)."""
    if hasattr(module, "__all__"):
        names = [n for n in module.__all__ if hasattr(module, n)]
        # A class the module defines but leaves out of ``__all__`` (one its functions return)
        # is public too.
        return names + sorted(n for n, v in vars(module).items()
                              if not n.startswith("_") and n not in names
                              and inspect.isclass(v) and v.__module__ == module.__name__)
    return sorted(n for n, v in vars(module).items()
                  if not n.startswith("_") and not inspect.ismodule(v)
                  and (inspect.isclass(v) or inspect.isroutine(v)) and _ours(v))


def _described(obj):
    """Objects that get a description of their own (this package's classes and functions); the
    rest (constants, instances) are described in every module that has them, and another
    package's classes and functions that a module re-exports (tink's ``KmsClient``) are named
    with their origin, neither described nor counted here."""
    return (inspect.isclass(obj) or inspect.isroutine(obj)) and _ours(obj)


def _foreign(obj):
    return (inspect.isclass(obj) or inspect.isroutine(obj)) and not _ours(obj)


def homes(modules):
    """``{id(obj): "module.Name"}`` for every class and function."""
    exported = {}
    for name in modules:
        module = sys.modules[name]
        for attr in public_names(module):
            obj = getattr(module, attr)
            if _described(obj):
                exported.setdefault(id(obj), []).append((name, attr, obj))
    result = {}
    for key, places in exported.items():
        defining = getattr(places[0][2], "__module__", None)
        own = [p for p in places if p[0] == defining and p[1] == places[0][2].__name__]
        mod, attr, _ = own[0] if own else min(places, key=lambda p: (p[0].count("."), p[0]))
        result[key] = "%s.%s" % (mod, attr)
    return result


# The compiled module's stub: where the compiled classes' members that have no docstring in the
# extension itself are documented (what IDEs show, and what the API reference shows for them).
CORE = PACKAGE + "._core"
STUB = Path(__file__).resolve().parent.parent / PACKAGE / "_core.pyi"


@functools.lru_cache(maxsize=None)
def stub_docs():
    """``{"Class": doc, "Class.member": doc}`` from the compiled module's stub: the docstrings of
    its classes and methods, and the string literal that follows an attribute's annotation."""
    docs = {}
    for node in ast.parse(STUB.read_text()).body:
        if not isinstance(node, ast.ClassDef):
            continue
        if ast.get_docstring(node):
            docs[node.name] = ast.get_docstring(node)
        body = node.body
        for i, item in enumerate(body):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    ast.get_docstring(item):
                docs["%s.%s" % (node.name, item.name)] = ast.get_docstring(item)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and \
                    i + 1 < len(body) and isinstance(body[i + 1], ast.Expr) and \
                    isinstance(body[i + 1].value, ast.Constant) and \
                    isinstance(body[i + 1].value.value, str):
                docs["%s.%s" % (node.name, item.target.id)] = \
                    inspect.cleandoc(body[i + 1].value.value)
    return docs


def runtime_doc(obj):
    """``obj``'s own docstring, cleaned, without the signature line Cython embeds; or None."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return None
    text = _strip_signature(inspect.cleandoc(doc))
    return text if text and text != "None" else None


def _strip_signature(text):
    """``text`` without the signature Cython embeds at its start (``Name(args) -> T``, which may
    span lines)."""
    if not re.match(r"[\w.]+\(", text):
        return text.strip()
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ")" and depth == 0:
            rest = text[i + 1:]
            first, _, after = rest.partition("\n")
            if first.strip() and not re.match(r"\s*->", first):
                return text.strip()        # not a signature: prose that starts with a call
            return after.strip()
    return text.strip()


def stub_edits():
    """The docstrings the compiled module has and its stub lacks: ``[(line, indent, doc)]``, a
    docstring to insert after 1-based ``line`` of the stub (a class header's last line, a
    one-line ``def``, an attribute's annotation), for every public class, method and attribute
    of the stub whose compiled counterpart has a docstring of its own."""
    core = importlib.import_module(CORE)
    edits = []
    for node in ast.parse(STUB.read_text()).body:
        cls = getattr(core, node.name, None) if isinstance(node, ast.ClassDef) else None
        if cls is None or node.name.startswith("_") or not inspect.isclass(cls):
            continue
        if node.body[0].lineno == node.lineno:      # ``class X: ...`` on one line: left alone
            continue
        indent = " " * node.body[0].col_offset
        if ast.get_docstring(node) is None and runtime_doc(cls) and \
                "__doc__" in vars(cls):
            first = node.body[0]
            start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
            edits.append((start - 1, indent, runtime_doc(cls)))
        body = node.body
        for i, item in enumerate(body):
            if isinstance(item, ast.FunctionDef):
                name, documented = item.name, ast.get_docstring(item) is not None
                if any(getattr(d, "id", None) == "overload" for d in item.decorator_list):
                    continue
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                name = item.target.id
                documented = i + 1 < len(body) and isinstance(body[i + 1], ast.Expr) and \
                    isinstance(body[i + 1].value, ast.Constant)
            else:
                continue
            member = vars(cls).get(name)
            if not (inspect.isroutine(member) or inspect.isdatadescriptor(member)):
                continue        # a constant: its docstring would be its type's
            if name.startswith("_") or documented or not runtime_doc(member):
                continue
            edits.append((item.end_lineno, indent + ("    " if isinstance(item, ast.FunctionDef)
                                                      else ""), runtime_doc(member)))
    return edits


def stub_mismatches():
    """``Class.member`` names whose docstring in the stub differs from the compiled one (both
    present): one of the two was edited alone."""
    core = importlib.import_module(CORE)
    out = []
    for key, doc in sorted(stub_docs().items()):
        cls_name, _, member = key.partition(".")
        if cls_name.startswith("_"):
            continue
        cls = getattr(core, cls_name, None)
        obj = cls if not member else vars(cls).get(member) if inspect.isclass(cls) else None
        if obj is None or (member and not (inspect.isroutine(obj) or
                                           inspect.isdatadescriptor(obj))):
            continue
        if not member and "__doc__" not in vars(cls):
            continue
        compiled = runtime_doc(obj)
        if compiled is not None and compiled != inspect.cleandoc(doc):
            out.append(key)
    return out


def sync_stub():
    """Copies into the stub (``_core.pyi``) every docstring the compiled module has and the stub
    lacks, so IDEs show them; returns how many were added."""
    lines = STUB.read_text().split("\n")
    edits = stub_edits()
    for line, indent, doc in sorted(edits, reverse=True):
        lines[line - 1] = re.sub(r": \.\.\.(\s*#.*)?$", r":\1", lines[line - 1])
        body = doc.replace('"""', '\\"\\"\\"').splitlines()
        if len(body) == 1:
            text = [indent + '"""%s"""' % body[0]]
        else:
            text = [indent + '"""' + body[0]] + [(indent + b) if b.strip() else ""
                                                 for b in body[1:]] + [indent + '"""']
        lines[line:line] = text
    STUB.write_text("\n".join(lines))
    stub_docs.cache_clear()
    return len(edits)


def _own_doc(obj):
    doc = obj.__doc__ if not isinstance(obj, property) else (obj.fget.__doc__ if obj.fget else
                                                              obj.__doc__)
    slots = getattr(getattr(obj, "__objclass__", None), "__slots__", None)
    if doc is None and isinstance(slots, dict):
        # a slot's docstring is the value of the ``__slots__`` dict (as pydoc and autodoc read)
        doc = slots.get(getattr(obj, "__name__", None))
    if not isinstance(doc, str):
        return False
    text = _strip_signature(inspect.cleandoc(doc))
    return bool(text) and text != "None"      # (a docstring that is the text "None" is none)


def has_doc(obj):
    """True when ``obj`` has a docstring of its own beyond a signature line, at runtime (what
    ``help()`` shows; the compiled classes' docstrings are copied from there into the stub)."""
    return _own_doc(obj)


def class_members(cls):
    """The class's own public methods and properties (not inherited ones)."""
    for name, value in sorted(vars(cls).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if inspect.isroutine(value) or isinstance(value, property) or \
                inspect.isdatadescriptor(value) or inspect.ismethoddescriptor(value):
            yield name, value


def undocumented(modules, home_of):
    """``{module: (documented, total, [names without a docstring])}``, each class, function,
    method and property counted once, in its home module, and each module itself."""
    counts = {}
    for name in modules:
        module = sys.modules[name]
        total, missing = 1, [] if has_doc(module) else ["(module docstring)"]
        for attr in public_names(module):
            obj = getattr(module, attr)
            if not _described(obj) or home_of.get(id(obj)) != "%s.%s" % (name, attr):
                continue
            total += 1
            if not has_doc(obj):
                missing.append(attr)
            if inspect.isclass(obj):
                for member, value in class_members(obj):
                    total += 1
                    if not has_doc(value):
                        missing.append("%s.%s" % (attr, member))
        counts[name] = (total - len(missing), total, missing)
    return counts


def _title(text, char):
    return "%s\n%s\n" % (text, char * len(text))


def module_page(name, home_of):
    """The reST of one module's page."""
    module = sys.modules[name]
    out = [_title("``%s``" % name, "="), "",
           ".. automodule:: %s" % name, "   :no-members:", ""]
    described, elsewhere, data, foreign = [], [], [], []
    for attr in public_names(module):
        obj = getattr(module, attr)
        if _foreign(obj):
            foreign.append((attr, "%s.%s" % (obj.__module__, obj.__qualname__)))
        elif not _described(obj):
            data.append(attr)
        elif home_of[id(obj)] == "%s.%s" % (name, attr):
            described.append((attr, obj))
        else:
            elsewhere.append((attr, home_of[id(obj)]))
    for attr, obj in described:
        if inspect.isclass(obj):
            kind = "autoexception" if issubclass(obj, BaseException) else "autoclass"
            out += [".. %s:: %s.%s" % (kind, name, attr), "   :members:", "   :undoc-members:",
                    "   :show-inheritance:", ""]
        else:
            out += [".. autofunction:: %s.%s" % (name, attr), ""]
    for attr in data:
        out += [".. autodata:: %s.%s" % (name, attr), "   :no-value:", ""]
    if foreign:
        out += [_title("From other packages", "-"), "",
                "These names are re-exported from the packages that define them:", ""]
        out += ["- ``%s``: ``%s``" % (attr, origin) for attr, origin in foreign]
        out.append("")
    if elsewhere:
        out += [_title("Also here", "-"), "",
                "These names are described where they are defined:", ""]
        out += ["- ``%s``: :py:obj:`%s`" % (attr, home) for attr, home in elsewhere]
        out.append("")
    return "\n".join(out)


def write_pages(outdir):
    """Writes one page per public module and ``index.rst`` into ``outdir``; returns the
    module names. Files are rewritten only when their text changes (Sphinx then rebuilds only
    what changed)."""
    modules = public_modules()
    for name in modules:
        importlib.import_module(name)
    home_of = homes(modules)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    pages = {"%s.rst" % name: module_page(name, home_of) for name in modules}
    pages["index.rst"] = "\n".join([
        _title("API reference", "="), "",
        "Generated from the docstrings of every public module. A class or function that "
        "several modules export is described in the module that defines it; the other "
        "modules' pages link there.", "",
        ".. toctree::", "   :maxdepth: 1", ""] + ["   %s" % name for name in modules]) + "\n"
    for file in outdir.glob("*.rst"):
        if file.name not in pages:
            file.unlink()
    for file, text in pages.items():
        path = outdir / file
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return modules


def main():
    modules = public_modules()
    for name in modules:
        importlib.import_module(name)
    counts = undocumented(modules, homes(modules))
    width = max(map(len, modules))
    all_doc = all_total = 0
    for name in modules:
        doc, total, missing = counts[name]
        all_doc += doc
        all_total += total
        print("%-*s %4d / %4d documented, %4d missing" % (width, name, doc, total, len(missing)))
        if "-v" in sys.argv[1:] and missing:
            print("    " + ", ".join(missing))
    print("%-*s %4d / %4d documented, %4d missing" % (width, "total", all_doc, all_total,
                                                       all_total - all_doc))


if __name__ == "__main__":
    if "--sync-stub" in sys.argv[1:]:
        print("docstrings added to %s: %d" % (STUB.name, sync_stub()))
    else:
        main()
