"""No import cycles inside confluent_binding, counting every import statement wherever it is
(function bodies too) and a package's ``__init__`` as a module of its own.

make lint's import contracts (pyproject.toml) check cycles between the modules of each package;
this also catches a cycle through a package's ``__init__`` and one of its own modules, which
those contracts do not see.
"""

import ast
import os

import confluent_binding

ROOT = os.path.dirname(os.path.abspath(confluent_binding.__file__))
NAME = "confluent_binding"


def _modules():
    """{module name: source path} of the package's Python modules, and the compiled core."""
    found = {NAME + "._core": None}
    for folder, _, files in os.walk(ROOT):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                parts = [NAME] + os.path.relpath(path, ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


def _known(name, modules):
    """The module ``name`` is, or the package or module it is an attribute of."""
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


def import_graph():
    """{module: {imported module: line}} within the package."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        if path is None:
            continue
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                # ``from pkg import name`` imports the module pkg.name when there is one
                targets = [base + "." + alias.name for alias in node.names]
            for target in targets:
                if target == NAME or target.startswith(NAME + "."):
                    imported = _known(target, modules)
                    if imported != module:
                        edges.setdefault(imported, node.lineno)
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph.get(successor, ()))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_checker_finds_a_cycle():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_function_level_and_relative_imports():
    graph = import_graph()
    rule_runner = graph[NAME + ".schema_registry._rule_runner"]
    # a function-level import of an optional extra
    assert NAME + ".schema_registry.rules.cel.cel_validator" in rule_runner
    assert NAME + ".schema_registry._rules" in rule_runner


def test_no_import_cycles_in_the_package():
    graph = import_graph()
    report = []
    for component in cycles(graph):
        report.append(component)
        for module in component:
            for imported, line in sorted(graph[module].items()):
                if imported in component:
                    report.append("  {} -> {} (line {})".format(module, imported, line))
    assert not report, "\n".join(map(str, report))
