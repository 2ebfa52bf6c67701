"""The CEL runner data-contract rules use: cel-python's interpreter with two additions.

* ``has()`` is visible to the values it reads (:func:`in_has`), so a Protobuf message can
  answer presence as Protobuf does (an unset field is absent inside ``has()``, and reads as
  its default everywhere else).
* Namespaced functions: ``decimals.add(a, b)``, ``variants.path(v, "$.a")`` call the function
  registered under the dotted name, as the other CEL runtimes do; any other ``x.f(...)`` is a
  method call as usual.
"""

import threading

import celpy
import lark

__all__ = ["InterpretedRunner", "in_has"]

_presence = threading.local()

# methods cel-python evaluates as macros itself: never looked up as namespaced functions
_MACRO_METHODS = frozenset(("map", "filter", "all", "exists", "exists_one", "reduce", "min"))


def in_has():
    """True while the current thread evaluates the argument of a ``has()`` macro."""
    return getattr(_presence, "depth", 0) > 0


def _identifier(token):
    return token.value if isinstance(token, lark.Token) and token.type == "IDENT" else None


def _dotted_name(tree):
    """``a.b.c`` when ``tree`` is nothing but identifiers joined by dots, else None."""
    parts = []
    while isinstance(tree, lark.Tree):
        if tree.data in ("member", "primary") and len(tree.children) == 1:
            tree = tree.children[0]
            continue
        if tree.data == "ident" and len(tree.children) == 1:
            tree, last = None, tree.children[0]
        elif tree.data == "member_dot" and len(tree.children) == 2:
            tree, last = tree.children
        else:
            return None
        name = _identifier(last)
        if name is None:
            return None
        parts.append(name)
    return ".".join(reversed(parts)) if parts and tree is None else None


class _Evaluator(celpy.Evaluator):
    def macro_has_eval(self, exprlist):
        _presence.depth = getattr(_presence, "depth", 0) + 1
        try:
            return super().macro_has_eval(exprlist)
        finally:
            _presence.depth -= 1

    def member_dot_arg(self, tree):
        children = tree.children
        if len(children) >= 2:
            method = children[1]
            if (isinstance(method, lark.Token) and method.type == "IDENT"
                    and method.value not in _MACRO_METHODS):
                prefix = _dotted_name(children[0])
                functions = getattr(self.activation, "functions", None)
                if prefix is not None and functions is not None:
                    function = functions.get(prefix + "." + method.value)
                    if function is not None:
                        args = list(self.visit(children[2])) if len(children) == 3 else []
                        return function(*args)
        return super().member_dot_arg(tree)


class InterpretedRunner(celpy.InterpretedRunner):
    """cel-python's interpreter with Protobuf ``has()`` presence and namespaced functions."""

    def evaluate(self, context):
        """Evaluate the compiled expression with the variables of ``context`` (a dict of
        CEL values); returns the CEL result.
        """
        return _Evaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)
