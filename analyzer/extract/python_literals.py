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

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.fact import Fact
from analyzer.extract.python_nodes import _chain, _end_line, _line, _string_value

_CONTAINERS = {"dictionary": "dict", "list": "list", "tuple": "tuple", "set": "set"}
_BEFORE = re.compile(rb"[ \t]*")
_AFTER = re.compile(rb"[ \t]*,?[ \t]*(#[^\n]*)?")


@dataclass(frozen=True, slots=True)
class LiteralEntry(Fact):
    key: str | None  # dict key / string element / enum member name
    value: str | None  # string value (dict value, enum member value), if a string literal
    start_line: int
    end_line: int
    alone: bool  # nothing else on its lines (a trailing comma and comment aside)
    module: str | None = None  # dict value `("module", "Class")`: its first string


@dataclass(frozen=True, slots=True)
class Literal(Fact):
    name: str  # the assigned name, or the Enum class name
    kind: str  # "dict" | "list" | "tuple" | "set" | "enum"
    start_line: int
    end_line: int
    entries: tuple[LiteralEntry, ...]


@dataclass(frozen=True, slots=True)
class Display(Fact):
    """A dict display anywhere in the file with at least two string keys (``backend_map =
    {"fa3": self._create_fa3_backend, ...}`` in a method, ``defaultdict(f, {"npu": ...})``)."""

    scope: str  # the top-level definition it is in ("" for the module body)
    start_line: int
    end_line: int
    entries: tuple[LiteralEntry, ...]


@dataclass(frozen=True, slots=True)
class ChainElement(Fact):
    """An element of a ``ChainDisplay``: the chain as written, its line, and whether the
    codemod can name it by text (the chain occurs once on its line, written without spaces)."""

    chain: str
    line: int
    unique: bool


@dataclass(frozen=True, slots=True)
class ChainDisplay(Fact):
    """A list, tuple or set display whose elements are attribute chains (and ``*splats``):
    ``[Backend.FLASH_ATTN, Backend.FLASHMLA, *sparse]`` in a priority list, ``x in
    (Backend.FA, Backend.ROCM_FA)``. An element naming a dropped enum member can go when others
    remain (analyzer/decide/registries.py). Tuples only where their positions mean nothing
    (a membership test, a ``for`` loop, assigned to one name)."""

    scope: str
    start_line: int
    elements: tuple[ChainElement, ...]
    others: int  # splats and other elements that stay whatever is dropped


# parents under which a tuple is a set of values, not a record of positions
_TUPLE_AS_SET = {"comparison_operator", "for_statement", "for_in_clause"}


def chain_displays(data: bytes, nodes: list[ts.Node], scope_of: Callable[[ts.Node], str]
                   ) -> list[ChainDisplay]:
    lines = data.split(b"\n")
    out: list[ChainDisplay] = []
    for node in nodes:
        parent = node.parent
        if parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if parent is None:
            continue
        if node.type == "tuple" and parent.type not in _TUPLE_AS_SET and not (
                parent.type == "assignment" and _single_target(parent, node)):
            continue
        if parent.type == "assignment" and not _single_target(parent, node):
            continue  # `a, b = [X.A, X.B]` unpacks: positions matter
        if parent.type == "comparison_operator" and not _membership(parent, node):
            continue  # `x == (X.A, X.B)` compares the whole display
        elements: list[ChainElement] = []
        others = 0
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type == "list_splat":
                others += 1
                continue
            chain = _chain(child) if child.type == "attribute" else None
            if chain is None:
                elements = []
                break
            line = _line(child)
            text = lines[line - 1] if line <= len(lines) else b""
            written = tsu.text(child)
            elements.append(ChainElement(chain, line, written == chain
                                         and text.count(chain.encode()) == 1))
        if elements and len(elements) + others >= 2:
            out.append(ChainDisplay(scope_of(node), _line(node), tuple(elements), others))
    return out


@dataclass(frozen=True, slots=True)
class ChainComparison(Fact):
    """``x == Backend.FA3`` (``!=``, ``is``, ``is not``) outside any condition -- a keyword
    argument (``is_rocm_aiter=(backend == Backend.ROCM_FA)``), an assignment, a return -- on
    one line, written once on it: with the member dropped it folds to its value."""

    scope: str
    line: int
    text: str  # the comparison as written
    chains: tuple[str, ...]  # its attribute-chain operands, as written
    op: str  # "==" | "!=" | "is" | "is not"


_EQUALITY = {"==", "!=", "is", "is not"}
_LITERALS = {"string", "integer", "float", "true", "false", "none", "concatenated_string"}
# where a comparison is (part of) a condition: guard folding decides those
_CONDITIONS = {"if_statement", "elif_clause", "while_statement", "conditional_expression",
               "assert_statement", "boolean_operator", "not_operator", "if_clause",
               "comparison_operator"}


def chain_comparisons(data: bytes, nodes: list[ts.Node], scope_of: Callable[[ts.Node], str]
                      ) -> list[ChainComparison]:
    lines = data.split(b"\n")
    out: list[ChainComparison] = []
    for node in nodes:
        operands = node.named_children
        ops = [c.type for c in node.children if not c.is_named]
        if len(operands) != 2 or len(ops) != 1 or ops[0] not in _EQUALITY \
                or _line(node) != _end_line(node) or _in_condition(node):
            continue
        chains = [c for c in operands if c.type == "attribute" and _chain(c) == tsu.text(c)]
        if not chains or any(c.type in _LITERALS for c in operands):
            continue
        text = tsu.text(node)
        line = lines[_line(node) - 1] if _line(node) <= len(lines) else b""
        if line.count(text.encode()) != 1:
            continue
        out.append(ChainComparison(scope_of(node), _line(node), text,
                                   tuple(tsu.text(c) for c in chains), ops[0]))
    return out


def _in_condition(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("block", "module"):
        if parent.type in _CONDITIONS:
            return True
        if parent.type.endswith("_statement"):
            return False
        parent = parent.parent
    return False


def _membership(comparison: ts.Node, value: ts.Node) -> bool:
    """``value`` is the right operand of ``in`` / ``not in``."""
    children = comparison.children
    i = next((i for i, c in enumerate(children) if c.id == value.id), None)
    if i is None:  # inside parentheses
        i = next((i for i, c in enumerate(children) if c.start_byte <= value.start_byte
                  and value.end_byte <= c.end_byte), None)
    return i is not None and i > 0 and children[i - 1].type in ("in", "not in")


def _single_target(assignment: ts.Node, value: ts.Node) -> bool:
    left = assignment.child_by_field_name("left")
    right = assignment.child_by_field_name("right")
    return right is not None and right.id == value.id and left is not None \
        and left.type in ("identifier", "attribute")


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


@dataclass(frozen=True, slots=True)
class CallFact(Fact):
    callee: str  # dotted chain
    string_args: tuple[str | None, ...]  # positional arguments: the string, or None
    start_line: int
    end_line: int
    scope: str  # "" for the module body (only module-level calls are recorded)
    keyword_args: tuple[tuple[str, str], ...] = ()  # keyword -> string value


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
        calls.extend(_statement_calls(stmt))
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
            entry = _entry(data, child, key, value)
            first = v.named_children[0] if v is not None and v.type == "tuple" \
                and v.named_children else None
            if first is not None and first.type == "string":
                entry = dataclasses.replace(entry, module=_string_value(first))
            entries.append(entry)
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


def _statement_calls(stmt: ts.Node) -> list[CallFact]:
    """Calls that are whole statements of the module body, also under module-level ``if``
    blocks; a call that is the one argument of such a call (``ext_modules.append(
    CMakeExtension(name="x"))``) is recorded too, spanning the statement."""
    if stmt.type == "if_statement":
        out: list[CallFact] = []
        for part in (stmt, *stmt.children_by_field_name("alternative")):
            body = part.child_by_field_name("consequence") or part.child_by_field_name("body")
            for child in body.named_children if body is not None else ():
                out.extend(_statement_calls(child))
        return out
    if stmt.type != "expression_statement" or not stmt.named_children \
            or stmt.named_children[0].type != "call":
        return []
    expr = stmt.named_children[0]
    call = _call(expr)
    if call is None:
        return []
    args = expr.child_by_field_name("arguments")
    only = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    inner = _call(only[0]) if len(only) == 1 and only[0].type == "call" else None
    if inner is None:
        return [call]
    return [call, CallFact(inner.callee, inner.string_args, call.start_line, call.end_line, "",
                           inner.keyword_args)]


def _call(expr: ts.Node) -> CallFact | None:
    func, args = expr.child_by_field_name("function"), expr.child_by_field_name("arguments")
    callee = _chain(func) if func is not None else None
    if not callee or args is None:
        return None
    strings = tuple(_string_value(a) if a.type == "string" else None
                    for a in args.named_children if a.type != "keyword_argument")
    keywords: list[tuple[str, str]] = []
    for a in args.named_children:
        name, value = a.child_by_field_name("name"), a.child_by_field_name("value")
        if a.type == "keyword_argument" and name is not None and value is not None \
                and value.type == "string":
            text = _string_value(value)
            if text is not None:
                keywords.append((tsu.text(name), text))
    return CallFact(callee, strings, _line(expr), _end_line(expr), "", tuple(keywords))
