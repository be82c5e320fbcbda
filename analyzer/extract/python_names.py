"""Extract stage, Python: computed attribute names -- the shapes a ``getattr(x, <expr>)`` name
may take.

A name computed from literals and local variables (``f"forward_{p}"``, ``sub + "_" + key``)
reads every attribute its *skeleton* matches: literal parts kept, each computed part ``*``. A
local variable whose every binding in its function is a string literal (an assignment, a
conditional expression of literals, a ``for`` over a tuple or list of literals) is one of
those literals: ``sub = "w2" if w2 else "w13"`` makes ``sub + "_" + key`` read ``w2_*`` and
``w13_*``, not every name with an underscore.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.extract.fact import Fact
from analyzer.extract.python_nodes import _chain, _string_value

MAX_SHAPES = 16  # more alternatives than this: the computed part is "*"
_FUNCTIONS = {"function_definition", "lambda"}


def skeletons(data: bytes, node: ts.Node) -> list[str]:
    """The shapes of the computed name ``node`` (a plain ``*`` when nothing is known)."""
    shapes = _shapes(data, node)
    return sorted(set(shapes)) if len(shapes) <= MAX_SHAPES else ["*"]


def _shapes(data: bytes, node: ts.Node) -> list[str]:
    if node.type == "string":
        parts: list[list[str]] = []
        for child in node.children:
            if child.type == "string_content":
                parts.append([data[child.start_byte:child.end_byte].decode("utf-8", "replace")])
            elif child.type == "interpolation":
                inner = child.named_children[0] if child.named_children else None
                parts.append(_values(data, inner) if inner is not None else ["*"])
        return _join(parts)
    if node.type == "binary_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is not None and right is not None and op is not None and op.type == "+":
            return _join([_shapes(data, left), _shapes(data, right)])
    if node.type == "concatenated_string":
        return _join([_shapes(data, c) for c in node.named_children])
    if node.type == "parenthesized_expression" and node.named_children:
        return _shapes(data, node.named_children[0])
    return _values(data, node)


def _values(data: bytes, node: ts.Node) -> list[str]:
    """A computed part: a string literal's value, a local variable's literals, else ``*``."""
    if node.type == "string":
        value = _string_value(node)
        return [value] if value is not None else _shapes(data, node)
    if node.type == "identifier":
        known = local_literals(data, node)
        if known:
            return sorted(known)
    return ["*"]


def _join(parts: list[list[str]]) -> list[str]:
    total = 1
    for p in parts:
        total *= max(len(p), 1)
    if total > MAX_SHAPES:
        parts = [p if len(p) == 1 else ["*"] for p in parts]
    out = ["".join(combo) for combo in itertools.product(*parts)]
    # consecutive computed parts are one: "a**b" is "a*b"
    return [_squeeze_stars(s) for s in out]


def _squeeze_stars(shape: str) -> str:
    while "**" in shape:
        shape = shape.replace("**", "*")
    return shape


def local_literals(data: bytes, name_node: ts.Node) -> set[str] | None:
    """The string literals the local variable ``name_node`` names may hold: every binding of
    it in its function is a literal (or a conditional expression of literals, or the target of
    a ``for`` over a literal tuple/list); None when one is anything else, or when it is a
    parameter, a global or bound outside a function."""
    func = name_node.parent
    while func is not None and func.type not in _FUNCTIONS:
        func = func.parent
    if func is None or func.type != "function_definition":
        return None
    name = data[name_node.start_byte:name_node.end_byte]
    params = func.child_by_field_name("parameters")
    if params is not None and any(data[n.start_byte:n.end_byte] == name
                                  for n in _walk_identifiers(params)):
        return None
    body = func.child_by_field_name("body")
    if body is None:
        return None
    values: set[str] = set()
    found = False
    for node in _own_nodes(body):
        target: ts.Node | None = None
        source: ts.Node | None = None
        if node.type in ("assignment", "augmented_assignment"):
            target, source = node.child_by_field_name("left"), node.child_by_field_name("right")
            if node.type == "augmented_assignment" and _is_name(data, target, name):
                return None
        elif node.type == "for_statement":
            target, source = node.child_by_field_name("left"), node.child_by_field_name("right")
            if target is not None and _is_name(data, target, name):
                found = True
                got = _literal_items(source)
                if got is None:
                    return None
                values |= got
                continue
        elif node.type in ("with_item", "as_pattern", "named_expression", "global_statement",
                           "nonlocal_statement", "for_in_clause", "except_clause"):
            if any(data[n.start_byte:n.end_byte] == name for n in _walk_identifiers(node)):
                return None
            continue
        if target is None:
            continue
        if _is_name(data, target, name):
            found = True
            got = _literal_alternatives(source)
            if got is None:
                return None
            values |= got
        elif any(data[n.start_byte:n.end_byte] == name for n in _walk_identifiers(target)):
            return None  # bound in a tuple or other pattern: unknown
    return values if found else None


def _is_name(data: bytes, node: ts.Node | None, name: bytes) -> bool:
    return node is not None and node.type == "identifier" and \
        data[node.start_byte:node.end_byte] == name


def _literal_alternatives(node: ts.Node | None) -> set[str] | None:
    if node is None:
        return None
    if node.type == "string":
        value = _string_value(node)
        return {value} if value is not None else None
    if node.type == "conditional_expression":
        arms = [c for c in node.named_children]
        if len(arms) == 3:
            left, right = _literal_alternatives(arms[0]), _literal_alternatives(arms[2])
            if left is not None and right is not None:
                return left | right
        return None
    if node.type == "parenthesized_expression" and node.named_children:
        return _literal_alternatives(node.named_children[0])
    return None


def _literal_items(node: ts.Node | None) -> set[str] | None:
    """The string items of a literal tuple or list (``for k in ("a", "b")``)."""
    if node is None or node.type not in ("tuple", "list"):
        return None
    out: set[str] = set()
    for item in node.named_children:
        value = _string_value(item) if item.type == "string" else None
        if value is None:
            return None
        out.add(value)
    return out


def _own_nodes(body: ts.Node) -> list[ts.Node]:
    """The nodes of a function body, not of nested functions, lambdas or classes."""
    out: list[ts.Node] = []
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        out.append(node)
        if node.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(node.named_children)
    return out


def _walk_identifiers(node: ts.Node) -> list[ts.Node]:
    out: list[ts.Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            out.append(n)
        stack.extend(n.named_children)
    return out


@dataclass(frozen=True, slots=True)
class ParamGetattr(Fact):
    """``getattr(obj, p)`` where ``p`` is a parameter of the enclosing function: the name
    read is whatever the callers pass (``debug_torch_op(op, name, namespace="sglang")`` does
    ``getattr(torch.ops, namespace)``). ``position``: the parameter's index among the
    arguments a caller passes (``self``/``cls`` not counted; -1: keyword only);
    ``default``: its default when that is a string literal."""

    obj: str  # the object's chain as written ("torch.ops")
    function: str  # the enclosing function's name (last segment of its scope)
    scope: str
    line: int
    param: str
    position: int
    default: str | None
    has_default: bool
    # the name read, with "{}" where the parameter's value goes ("_create_{}_backend")
    template: str = "{}"


def param_getattr(data: bytes, args: ts.Node, scope: str, line: int) -> ParamGetattr | None:
    """The :class:`ParamGetattr` of a ``getattr(obj, name)`` call (``args``: its argument
    list) whose name is a parameter of the enclosing function, or None."""
    positional = [a for a in args.named_children if a.type not in ("keyword_argument",
                                                                    "comment")]
    if len(positional) < 2:
        return None
    found = _template(data, positional[1])
    if found is None:
        return None
    template, wanted = found
    obj = _chain(positional[0])
    if obj is None:
        return None
    func = args.parent
    while func is not None and func.type not in _FUNCTIONS:
        func = func.parent
    if func is None or func.type != "function_definition":
        return None
    params = func.child_by_field_name("parameters")
    name_node = func.child_by_field_name("name")
    if params is None or name_node is None:
        return None
    index = 0
    keyword_only = False
    for i, p in enumerate(params.named_children):
        if p.type in ("list_splat_pattern", "keyword_separator"):
            keyword_only = True
            continue
        if p.type == "dictionary_splat_pattern" or p.type == "positional_separator":
            continue
        ident = p if p.type == "identifier" else (
            p.child_by_field_name("name") or (p.named_children[0] if p.named_children else None))
        if ident is None:
            continue
        pname = data[ident.start_byte:ident.end_byte].decode("utf-8", "replace")
        if i == 0 and pname in ("self", "cls"):
            continue
        if pname == wanted:
            value = p.child_by_field_name("value")
            default = _string_value(value) if value is not None and value.type == "string" \
                else None
            return ParamGetattr(obj, data[name_node.start_byte:name_node.end_byte].decode(
                "utf-8", "replace"), scope, line, wanted, -1 if keyword_only else index,
                default, value is not None, template)
        index += 1
    return None


def _template(data: bytes, node: ts.Node) -> tuple[str, str] | None:
    """(template, parameter) of a name computed from one variable and literals: ``p`` gives
    ("{}", "p"), ``f"_create_{p}_backend"`` ("_create_{}_backend", "p"); None otherwise."""
    if node.type == "identifier":
        return "{}", data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if node.type != "string":
        return None
    parts: list[str] = []
    names: set[str] = set()
    for child in node.children:
        if child.type == "string_content":
            text = data[child.start_byte:child.end_byte].decode("utf-8", "replace")
            parts.append(text.replace("{", "{{").replace("}", "}}"))
        elif child.type == "interpolation":
            inner = child.named_children[0] if child.named_children else None
            if inner is None or inner.type != "identifier" or len(child.named_children) > 1:
                return None
            names.add(data[inner.start_byte:inner.end_byte].decode("utf-8", "replace"))
            parts.append("{}")
    if len(names) != 1 or "".join(parts).count("{}") != 1:
        return None
    return "".join(parts), names.pop()


@dataclass(frozen=True, slots=True)
class TypeTestAppend(Fact):
    """``types.append(C)`` where ``types`` is a list of its function that only type tests read
    (``isinstance(x, tuple(types))``): the statement adds nothing but a class to test against.
    When nothing live can construct ``C``, no object is one: the statement can go (a cascade
    in the style of flag-cleanup tools), and the import only it read with it."""

    scope: str
    line: int
    end_line: int
    list_name: str
    chain: str


_TYPE_TESTS = (b"isinstance", b"issubclass")


def type_test_appends(data: bytes, root: ts.Node,
                      scope_of: Callable[[ts.Node], str]) -> list[TypeTestAppend]:
    """Every :class:`TypeTestAppend` of a parsed file. Only a function whose body holds an
    ``L.append(x)`` statement can have one: the functions around each ``append`` of the
    source are read, in the order a depth-first walk taking the last child first meets them
    (an enclosing function first, then the later of two apart: the end descending, then the
    start)."""
    functions: dict[tuple[int, int], ts.Node] = {}
    at = data.find(b"append")
    while at >= 0:
        node = root.descendant_for_byte_range(at, at + 6)
        while node is not None and node.type != "function_definition":
            node = node.parent
        if node is not None:
            functions.setdefault((node.start_byte, node.end_byte), node)
        at = data.find(b"append", at + 6)
    out: list[TypeTestAppend] = []
    for (_start, _end), node in sorted(functions.items(), key=lambda f: (-f[0][1], f[0][0])):
        body = node.child_by_field_name("body")
        if body is not None:
            out.extend(_appends_in(data, body, scope_of))
    return out


def _appends_in(data: bytes, body: ts.Node,
                scope_of: Callable[[ts.Node], str]) -> list[TypeTestAppend]:
    nodes = _own_nodes(body)
    lists: dict[bytes, int] = {}  # name -> assignments of a list display
    for n in nodes:
        if n.type == "assignment":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and left.type == "identifier":
                name = data[left.start_byte:left.end_byte]
                lists[name] = lists.get(name, 0) + (
                    1 if right is not None and right.type == "list" else 1000)
    candidates = {name for name, n in lists.items() if n == 1}
    if not candidates:
        return []
    appends: dict[bytes, list[tuple[ts.Node, ts.Node]]] = {}
    for n in nodes:
        if n.type != "identifier" or data[n.start_byte:n.end_byte] not in candidates:
            continue
        name = data[n.start_byte:n.end_byte]
        use = _list_use(data, n)
        if use is None:
            candidates.discard(name)
        elif isinstance(use, tuple):
            appends.setdefault(name, []).append(use)
    out: list[TypeTestAppend] = []
    for name in sorted(candidates):
        for stmt, arg in appends.get(name, []):
            chain = _chain(arg)
            if chain is not None:
                out.append(TypeTestAppend(scope_of(stmt), stmt.start_point[0] + 1,
                                          stmt.end_point[0] + 1, name.decode(), chain))
    return out


def _list_use(data: bytes, name: ts.Node) -> str | tuple[ts.Node, ts.Node] | None:
    """How a read of a candidate list is used: ``"assign"`` (its own assignment), ``"test"``
    (in a type test: ``isinstance(x, L)``, ``isinstance(x, tuple(L))``), ``(statement,
    argument)`` of an ``L.append(arg)`` expression statement; None for anything else."""
    parent = name.parent
    if parent is None:
        return None
    if parent.type == "assignment" and parent.child_by_field_name("left") == name:
        return "assign"
    if parent.type == "attribute" and parent.child_by_field_name("object") == name:
        attr = parent.child_by_field_name("attribute")
        call = parent.parent
        stmt = call.parent if call is not None else None
        if attr is not None and data[attr.start_byte:attr.end_byte] == b"append" \
                and call is not None and call.type == "call" and stmt is not None \
                and stmt.type == "expression_statement" and len(stmt.named_children) == 1:
            args = call.child_by_field_name("arguments")
            items = [a for a in args.named_children if a.type != "comment"] \
                if args is not None else []
            if len(items) == 1 and items[0].type in ("identifier", "attribute"):
                return (stmt, items[0])
        return None
    node = name
    if parent.type == "argument_list" and parent.parent is not None \
            and parent.parent.type == "call" and _callee(data, parent.parent) == b"tuple":
        node = parent.parent  # tuple(L)
        parent = node.parent
    if parent is not None and parent.type == "argument_list" and parent.parent is not None \
            and _callee(data, parent.parent) in _TYPE_TESTS:
        items = [a for a in parent.named_children if a.type != "comment"]
        if len(items) == 2 and items[1] == node:
            return "test"
    return None


def _callee(data: bytes, call: ts.Node) -> bytes:
    func = call.child_by_field_name("function")
    return data[func.start_byte:func.end_byte] if func is not None else b""
