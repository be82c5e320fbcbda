"""Extract stage, Python: the finite values of a computed ``import_module`` name.

``for _group in _GROUPS: import_module(f"{__name__}.{_group}")`` (a package that imports each
of its listed submodules) names exactly ``len(_GROUPS)`` modules. An f-string whose every
``{...}`` is ``__name__`` / ``__package__`` (the module's own name, which only the resolve
stage knows: written :data:`OWN_NAME` here, filled in by :func:`with_own_name`) or the
variable of an enclosing ``for`` over string literals (inline, or a module-level name bound
once to a tuple/list of them) expands to those values. Anything else is no finite set (None):
the call stays a computed import (``PackageWalk``).
"""

from __future__ import annotations

import dataclasses
import itertools

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.python_facts import PythonFacts
from analyzer.extract.python_nodes import _string_value

OWN_NAME = "{__name__}"  # the module's own dotted name, in a StringRef value
MAX_VALUES = 256  # more combinations than this: no finite set worth listing


def expand_fstring(node: ts.Node, root: ts.Node) -> list[str] | None:
    """The values the f-string ``node`` can take, or None."""
    if node.type != "string":
        return None
    choices: list[list[str]] = []
    for child in node.children:
        if child.type == "string_start" and "b" in tsu.text(child).lower():
            return None
        if child.type == "string_content":
            choices.append([tsu.text(child)])
        elif child.type == "interpolation":
            expr = child.named_children[0] if child.named_children else None
            if expr is None or len(child.named_children) != 1 or expr.type != "identifier":
                return None
            name = tsu.text(expr)
            if name in ("__name__", "__package__"):
                choices.append([OWN_NAME])
                continue
            values = _loop_values(node, name, root)
            if values is None:
                return None
            choices.append(values)
    count = 1
    for c in choices:
        count *= len(c)
    if not choices or count > MAX_VALUES:
        return None
    return ["".join(parts) for parts in itertools.product(*choices)]


def _loop_values(node: ts.Node, name: str, root: ts.Node) -> list[str] | None:
    """The strings ``name`` takes as the variable of the nearest enclosing ``for``."""
    parent = node.parent
    while parent is not None:
        if parent.type == "for_statement":
            left = parent.child_by_field_name("left")
            if left is not None and left.type == "identifier" and tsu.text(left) == name:
                right = parent.child_by_field_name("right")
                return _strings(right, root) if right is not None else None
        if parent.type in ("function_definition", "class_definition", "lambda"):
            return None  # a parameter or local of another shape: not followed
        parent = parent.parent
    return None


def _strings(node: ts.Node, root: ts.Node) -> list[str] | None:
    """The elements of a tuple/list of string literals, inline or a module-level name bound
    to one exactly once (a tuple: a list may grow)."""
    if node.type == "identifier":  # a module-level tuple (a list may be appended to)
        bound = _module_assignments(root, tsu.text(node))
        return _strings(bound[0], root) if len(bound) == 1 and bound[0].type == "tuple" \
            else None
    if node.type not in ("tuple", "list"):
        return None
    out: list[str] = []
    for elem in node.named_children:
        if elem.type == "comment":
            continue
        value = _string_value(elem) if elem.type == "string" else None
        if value is None:
            return None
        out.append(value)
    return out or None


def _module_assignments(root: ts.Node, name: str) -> list[ts.Node]:
    """The values assigned to ``name`` by module-level statements (any rebinding counts)."""
    out: list[ts.Node] = []
    for stmt in root.named_children:
        expr = stmt.named_children[0] if stmt.type == "expression_statement" \
            and stmt.named_children else None
        if expr is None or expr.type not in ("assignment", "augmented_assignment"):
            continue
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is not None and left.type == "identifier" and tsu.text(left) == name:
            out.append(right if right is not None and expr.type == "assignment" else left)
    return out


def with_own_name(facts: PythonFacts, module: str) -> PythonFacts:
    """``facts`` with :data:`OWN_NAME` in its strings replaced by ``module``."""
    if not any(OWN_NAME in s.value for s in facts.strings):
        return facts
    strings = tuple(dataclasses.replace(s, value=s.value.replace(OWN_NAME, module))
                    if OWN_NAME in s.value else s for s in facts.strings)
    return dataclasses.replace(facts, strings=strings)
