"""Extract stage, Python: literal containers and module-level calls, for string registries.

Facts the registry analysis (analysis/registries.py) needs to decide entries keyed by strings
without re-parsing: module-level ``NAME = {...}`` / ``[...]`` / ``(...)`` / ``{..}`` literals
with one entry per string key or element, ``class X(...Enum)`` bodies with one entry per
member, and module-level calls with their positional string arguments
(``Registry.register("fa3", handler)``), and string-keyed dict displays anywhere. Each entry
records whether it has its lines to itself,
so a deletion can remove whole lines or must remove only the element.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.python_nodes import _chain, _end_line, _line, _string_value

_CONTAINERS = {"dictionary": "dict", "list": "list", "tuple": "tuple", "set": "set"}
_BEFORE = re.compile(rb"[ \t]*")
_AFTER = re.compile(rb"[ \t]*,?[ \t]*(#[^\n]*)?")


@dataclass(frozen=True)
class LiteralEntry:
    key: str | None  # dict key / string element / enum member name
    value: str | None  # string value (dict value, enum member value), if a string literal
    start_line: int
    end_line: int
    alone: bool  # nothing else on its lines (a trailing comma and comment aside)


@dataclass(frozen=True)
class Literal:
    name: str  # the assigned name, or the Enum class name
    kind: str  # "dict" | "list" | "tuple" | "set" | "enum"
    start_line: int
    end_line: int
    entries: tuple[LiteralEntry, ...]


@dataclass(frozen=True)
class Display:
    """A dict display anywhere in the file with at least two string keys (``backend_map =
    {"fa3": self._create_fa3_backend, ...}`` in a method, ``defaultdict(f, {"npu": ...})``)."""

    scope: str  # the top-level definition it is in ("" for the module body)
    start_line: int
    end_line: int
    entries: tuple[LiteralEntry, ...]


def displays(data: bytes, nodes: list[ts.Node], scope_of: Callable[[ts.Node], str]
             ) -> list[Display]:
    out: list[Display] = []
    for node in nodes:
        entries: list[LiteralEntry] = []
        for child in node.named_children:
            if child.type != "pair":
                continue
            k, v = child.child_by_field_name("key"), child.child_by_field_name("value")
            key = _string_value(k) if k is not None and k.type == "string" else None
            if key is not None:
                value = _string_value(v) if v is not None and v.type == "string" else None
                entries.append(_entry(data, child, key, value))
        if len(entries) >= 2:
            out.append(Display(scope_of(node), _line(node), _end_line(node), tuple(entries)))
    return out


@dataclass(frozen=True)
class CallFact:
    callee: str  # dotted chain
    string_args: tuple[str | None, ...]  # positional arguments: the string, or None
    start_line: int
    end_line: int
    scope: str  # "" for the module body (only module-level calls are recorded)


def collect(data: bytes, root: ts.Node) -> tuple[list[Literal], list[CallFact]]:
    literals: list[Literal] = []
    calls: list[CallFact] = []
    for stmt in root.named_children:
        if stmt.type == "expression_statement" and stmt.named_children:
            expr = stmt.named_children[0]
            if expr.type == "assignment":
                lit = _assigned_literal(data, expr)
                if lit:
                    literals.append(lit)
            elif expr.type == "call":
                call = _call(expr)
                if call:
                    calls.append(call)
        node = stmt.child_by_field_name("definition") if stmt.type == "decorated_definition" \
            else stmt
        if node is not None and node.type == "class_definition":
            lit = _enum(data, node)
            if lit:
                literals.append(lit)
    return literals, calls


def _alone(data: bytes, node: ts.Node) -> bool:
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    end = data.find(b"\n", node.end_byte)
    end = len(data) if end < 0 else end
    return bool(_BEFORE.fullmatch(data[start:node.start_byte])
                and _AFTER.fullmatch(data[node.end_byte:end]))


def _entry(data: bytes, node: ts.Node, key: str | None, value: str | None) -> LiteralEntry:
    return LiteralEntry(key, value, _line(node), _end_line(node), _alone(data, node))


def _assigned_literal(data: bytes, expr: ts.Node) -> Literal | None:
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier":
        return None
    kind = _CONTAINERS.get(right.type)
    if kind is None:
        return None
    entries: list[LiteralEntry] = []
    for child in right.named_children:
        if child.type == "pair":
            k, v = child.child_by_field_name("key"), child.child_by_field_name("value")
            key = _string_value(k) if k is not None and k.type == "string" else None
            value = _string_value(v) if v is not None and v.type == "string" else None
            entries.append(_entry(data, child, key, value))
        elif child.type == "string":
            entries.append(_entry(data, child, _string_value(child), None))
    return Literal(tsu.text(left), kind, _line(expr), _end_line(expr), tuple(entries))


def _enum(data: bytes, node: ts.Node) -> Literal | None:
    bases = node.child_by_field_name("superclasses")
    body = node.child_by_field_name("body")
    if bases is None or body is None or "Enum" not in tsu.text(bases):
        return None
    entries: list[LiteralEntry] = []
    for stmt in body.named_children:
        if stmt.type != "expression_statement" or not stmt.named_children:
            continue
        expr = stmt.named_children[0]
        if expr.type != "assignment":
            continue
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is None or left.type != "identifier":
            continue
        value = _string_value(right) if right is not None and right.type == "string" else None
        entries.append(_entry(data, stmt, tsu.text(left), value))
    name = node.child_by_field_name("name")
    return Literal(tsu.text(name), "enum", _line(node), _end_line(node), tuple(entries))


def _call(expr: ts.Node) -> CallFact | None:
    func, args = expr.child_by_field_name("function"), expr.child_by_field_name("arguments")
    callee = _chain(func) if func is not None else None
    if not callee or args is None:
        return None
    strings = tuple(_string_value(a) if a.type == "string" else None
                    for a in args.named_children if a.type != "keyword_argument")
    return CallFact(callee, strings, _line(expr), _end_line(expr), "")
