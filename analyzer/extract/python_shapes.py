"""Extract stage, Python: the shapes of tree-sitter nodes the extractor asks about.

Pure questions about one node and its neighbours (where a string literal's value goes, which
arm of a conditional expression it is, whether a value is only tested or probed, the sole
``return`` of a function), used by ``analyzer/extract/python.py`` while it walks a file.
"""

from __future__ import annotations

import re
from bisect import bisect_right

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.python_branches import Cond
from analyzer.extract.python_branches import _cond as _branch_cond
from analyzer.extract.python_nodes import (
    _chain,
    _line,
    _string_value,
    _tolerates_attribute_error,
    _walk,
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _main_guard(root: ts.Node) -> int | None:
    for stmt in root.named_children:
        if stmt.type == "if_statement":
            condition = tsu.text(stmt.child_by_field_name("condition")).replace("'", '"')
            if "__name__" in condition and '"__main__"' in condition:
                return _line(stmt)
    return None


def _receiver(node: ts.Node) -> tuple[str, str] | None:
    """(kind, target) of where a string literal's value goes, or None (compared, indexed,
    printed, an element of a collection ...): through conditional-expression arms,
    parentheses and the tuples of an unpacking assignment (``a, b = "fa3", x``). A tuple
    assigned whole to one name is a collection, as a list is (``supported = ("fa3",
    "triton")``, then ``x in supported``): its elements are not that name's value."""
    child, parent = node, node.parent
    index = None
    while parent is not None:
        ptype = parent.type
        if ptype == "conditional_expression" and parent.named_children \
                and parent.named_children[1] != child:
            child, parent = parent, parent.parent
            continue
        if ptype == "parenthesized_expression":
            child, parent = parent, parent.parent
            continue
        if ptype in ("expression_list", "tuple") and index is None:
            index = [c for c in parent.named_children if c.type != "comment"].index(child)
            child, parent = parent, parent.parent
            continue
        break
    if parent is None:
        return None
    ptype = parent.type
    if ptype == "assignment" and parent.child_by_field_name("right") == child:
        left = parent.child_by_field_name("left")
        if left is None:
            return None
        if index is not None:
            if left.type not in ("pattern_list", "tuple_pattern"):
                return None
            elems = [c for c in left.named_children if c.type != "comment"]
            left = elems[index] if index < len(elems) else left
        return "assign", tsu.text(left)
    if ptype in ("default_parameter", "typed_default_parameter") \
            and parent.child_by_field_name("value") == child:
        name = parent.child_by_field_name("name")
        return "default", tsu.text(name) if name is not None else ""
    if ptype == "keyword_argument" and parent.child_by_field_name("value") == child:
        name = parent.child_by_field_name("name")
        return "keyword", tsu.text(name) if name is not None else ""
    if ptype == "return_statement":
        return "return", ""
    return None


def _arm(node: ts.Node) -> tuple[int, int]:
    """(start byte, arm index) of the conditional expression whose arm ``node`` directly is
    (parentheses aside), or (-1, -1)."""
    child, parent = node, node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        child, parent = parent, parent.parent
    if parent is None or parent.type != "conditional_expression":
        return -1, -1
    arms = [c for c in parent.named_children if c.type != "comment"]
    if len(arms) != 3 or child not in (arms[0], arms[2]):
        return -1, -1
    return parent.start_byte, arms.index(child)


# what may hold a string between it and the collection element it is in
_ELEMENT_WRAPPERS = frozenset({"argument_list", "call", "keyword_argument",
                               "parenthesized_expression"})


def _element_of(node: ts.Node) -> tuple[int, str] | None:
    """The element of a collection literal ``node`` (a string) is in -- the string itself, a
    call whose arguments hold it (``TestFile("cpu/test_x.py", 30)``), or a dict item (by its
    key) -- as (first line, name as ``remove_list_element`` matches it); None when the
    string is not in one."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in ("list", "tuple", "set"):
            if child.type == "string":
                value = _string_value(child)
                return None if value is None else (child.start_point[0] + 1, value)
            return child.start_point[0] + 1, tsu.text(child)
        if parent.type == "pair":
            key = parent.child_by_field_name("key")
            if key is None or parent.parent is None or parent.parent.type != "dictionary":
                return None
            value = _string_value(key) if key.type == "string" else tsu.text(key)
            return None if value is None else (key.start_point[0] + 1, value)
        if parent.type not in _ELEMENT_WRAPPERS:
            return None
        child, parent = parent, parent.parent
    return None


def _call_of(node: ts.Node) -> str | None:
    """Dotted callee if ``node`` is a positional argument of a call."""
    parent = node.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return None
    func = parent.parent.child_by_field_name("function")
    return _chain(func) if func is not None else None


def _span_name(starts: list[int], spans: list[tuple[int, int, str]], at: int) -> str:
    """The name of the (sorted, non-overlapping) byte span holding ``at``, or ``""``."""
    i = bisect_right(starts, at) - 1
    if i >= 0:
        start, end, name = spans[i]
        if start <= at < end:
            return name
    return ""


def _named_attribute(obj: ts.Node) -> str | None:
    """``name`` when ``obj`` is the object of ``getattr(obj, "name"[, default])`` or
    ``hasattr(obj, "name")``: a read of ``obj.name`` spelled as a call."""
    call = _call_arg(obj, "getattr") or _call_arg(obj, "hasattr")
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None:
        return None
    positional = [a for a in args.named_children if a.type not in ("comment", "keyword_argument")]
    if len(positional) < 2 or positional[1].type != "string":
        return None
    value = _string_value(positional[1])
    return value if value and _IDENTIFIER.fullmatch(value) else None


def _sole_return(function: ts.Node) -> Cond | None:
    """The returned expression of a function whose body is one ``return <expr>`` (a
    docstring aside), as a condition tree; None otherwise."""
    body = function.child_by_field_name("body")
    stmts = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    if len(stmts) == 2 and stmts[0].type == "expression_statement" \
            and stmts[0].named_children and stmts[0].named_children[0].type == "string":
        stmts = stmts[1:]
    if len(stmts) != 1 or stmts[0].type != "return_statement" or not stmts[0].named_children:
        return None
    return _branch_cond(stmts[0].named_children[0])


def _call_arg(node: ts.Node, callee: str) -> ts.Node | None:
    """The ``callee(...)`` call whose first positional argument is ``node``, or None."""
    args = node.parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    func = call.child_by_field_name("function") if call is not None else None
    if args is None or call is None or func is None or func.type != "identifier" \
            or tsu.text(func) != callee:
        return None
    positional = [a for a in args.named_children if a.type not in ("comment", "keyword_argument")]
    return call if positional and positional[0] == node else None


def _probed(node: ts.Node) -> bool:
    """``node`` is only asked about: ``hasattr(node, ...)``, ``hasattr(getattr(node, ...),
    ...)``, or ``x = node`` / ``x = getattr(node, ...)`` where every other use of ``x`` in
    its function is a truth test, ``hasattr(x, ...)`` (patch_torch's
    ``register_fake_if_exists``) or a ``getattr(x, name)`` whose AttributeError a ``try``
    catches and carries on from (cpu_graph_runner's ``register_inductor_fallback_ops``)."""
    if _call_arg(node, "hasattr") is not None:
        return True
    inner = _call_arg(node, "getattr")
    if inner is not None and _call_arg(inner, "hasattr") is not None:
        return True
    value = inner if inner is not None else node
    assign = value.parent
    if assign is None or assign.type != "assignment" \
            or assign.child_by_field_name("right") != value:
        return False
    left = assign.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return False
    name = tsu.text(left)
    scope = assign
    while scope.parent is not None and scope.type != "function_definition":
        scope = scope.parent
    if scope.type != "function_definition":
        return False
    for other in _walk(scope):
        if other.type != "identifier" or other == left or tsu.text(other) != name:
            continue
        parent = other.parent
        if parent is None:
            return False
        if parent.type in ("attribute", "keyword_argument") and parent.child_by_field_name(
                "attribute" if parent.type == "attribute" else "name") == other:
            continue  # `x.ops`, `f(ops=...)`: another name
        if _call_arg(other, "hasattr") is not None:
            continue
        if (found := _call_arg(other, "getattr")) is not None \
                and _tolerates_attribute_error(found):
            continue  # `try: getattr(x, name) / except AttributeError: continue`: a probe
        if parent.type in ("boolean_operator", "not_operator") or (
                parent.type in ("if_statement", "elif_clause", "while_statement")
                and parent.child_by_field_name("condition") == other):
            continue
        return False
    return True




_TEST_PARENTS = {"if_statement", "elif_clause", "while_statement", "assert_statement"}


def _tested(node: ts.Node) -> bool:
    """``node``'s value is only tested, not handed on: the condition of an if/elif/while/
    assert or of a conditional expression, the operand of ``not``, compared ``is``/``is not``
    ``None``, or an operand of ``and``/``or`` that is itself tested."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in _TEST_PARENTS:
        return True
    if parent.type == "conditional_expression":  # `a if COND else b`: the middle operand
        operands = parent.named_children
        return len(operands) == 3 and operands[1].id == node.id
    if parent.type == "not_operator":
        return True
    if parent.type == "comparison_operator":
        ops = [c.type for c in parent.children if not c.is_named]
        others = [c for c in parent.named_children if c.id != node.id]
        return ops in (["is"], ["is not"], ["=="], ["!="]) and len(others) == 1 \
            and others[0].type == "none"
    if parent.type == "boolean_operator":
        return _tested(parent)
    return False


def _is_type_checking_test(condition: str) -> bool:
    """The test of an ``if`` is exactly ``TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``): only
    then is its body typing-only. ``TYPE_CHECKING or not is_rocm()`` is true at run time on
    the platforms the second operand selects: its body is runtime code."""
    text = "".join(condition.split()).strip("()")
    return text in ("TYPE_CHECKING", "typing.TYPE_CHECKING", "t.TYPE_CHECKING")


def data_of(data: bytes, node: ts.Node) -> bytes:
    return data[node.start_byte:node.end_byte]

