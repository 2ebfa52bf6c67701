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

    python docs/apigen.py            prints the docstring counts per module
"""

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
    """Objects that get a description of their own (classes and functions); the rest (constants,
    instances) are described in every module that has them."""
    return inspect.isclass(obj) or inspect.isroutine(obj)


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


def has_doc(obj):
    """True when ``obj`` has a docstring of its own beyond a signature line."""
    doc = obj.__doc__ if not isinstance(obj, property) else (obj.fget.__doc__ if obj.fget else
                                                              obj.__doc__)
    if not isinstance(doc, str):
        return False
    lines = [line.strip() for line in doc.strip().splitlines()]
    while lines and _SIGNATURE_LINE.match(lines[0]):
        lines.pop(0)
    return any(lines)


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
    described, elsewhere, data = [], [], []
    for attr in public_names(module):
        obj = getattr(module, attr)
        if not _described(obj):
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
    main()
