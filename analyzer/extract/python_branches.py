"""Extract stage, Python: branch facts for guard folding (analysis/guards.py).

``if`` statements, conditional expressions and ``try``/``except ImportError`` statements with
their conditions as small ``Cond`` trees, and module-level ``NAME = expr`` assignments, so the
analysis can fold platform probes and config comparisons without re-parsing.

Line ranges end at the last line of code: tree-sitter puts the comment lines that follow a
block's last statement inside the block (and the if/try statement), LibCST does not, and the
codemod (``analyzer/codemod/python_edits.py``) locates statements by these ranges, so a
clause or branch ends where its last statement (or a nested block's last statement) ends.
Byte spans are tree-sitter's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.fact import Fact
from analyzer.extract.python_nodes import (
    _catches_import_error,
    _chain,
    _has_raise,
    _line,
    _string_value,
)


@dataclass(frozen=True, slots=True)
class Cond(Fact):
    """A condition as a small expression tree (serialisable: strings and tuples only).

    ``kind``: ``name`` (value: dotted chain; zero-argument calls inside a chain are kept as
    ``f().attr``), ``call`` (value: dotted callee; args: positional string-literal arguments;
    children: the other positional arguments), ``str`` (value), ``const`` (value: ``True``,
    ``False``, ``None`` or an integer's text), ``strs`` (args: a tuple/list/set of string
    literals), ``tuple`` (children: ``name`` conditions of a tuple/list/set of plain name
    chains), ``not`` / ``and`` / ``or`` (children), ``cmp`` (value: the operator, one of
    ``== != is is not in not in < <= > >=``; children: two operands) and ``unknown``
    (value: the source text, shortened). Parentheses are unwrapped.
    """

    kind: str
    value: str = ""
    args: tuple[str, ...] = ()
    children: tuple[Cond, ...] = ()

    exact_equality: ClassVar[bool] = True  # strings and conditions only


@dataclass(frozen=True, slots=True)
class Clause(Fact):
    """One clause of a ``Branch``: ``if``/``elif``/``else`` of an if statement, the ``if``
    (true) and ``else`` arms of a conditional expression, or ``try``/``except``/``else``/
    ``finally`` of a try statement (``cond`` of an except clause: the caught names; None for a
    bare ``except``). Lines are 1-based inclusive and include the clause's header."""

    kind: str
    cond: Cond | None
    start_line: int
    end_line: int
    body_start_line: int
    start_byte: int = 0
    end_byte: int = 0
    own_lines: bool = False  # ifexp arm: no other code shares its lines (brackets aside)
    # ifexp arm: the name chains (".name" for an attribute name) that folding it away (with
    # the condition) stops reading, read nowhere else of the statement on the expression's
    # lines -- they make no edges once it folds, although lines they share stay
    reads: tuple[str, ...] = ()
    body_stmts: tuple[int, ...] = ()  # if/elif/else: first lines of the body's statements


@dataclass(frozen=True, slots=True)
class Branch(Fact):
    """An ``if`` statement (kind ``if``), a conditional expression ``a if c else b`` (kind
    ``ifexp``; byte spans locate arms sharing a line) or a ``try`` statement whose except
    clauses catch ImportError (kind ``try_import``)."""

    kind: str
    clauses: tuple[Clause, ...]
    start_line: int
    end_line: int
    scope: str
    depth: int  # enclosing blocks: 0 for a module body statement
    start_byte: int = 0
    end_byte: int = 0
    import_lines: tuple[int, ...] = ()  # try_import: imports directly in the try body
    body_lines: tuple[int, ...] = ()  # try_import: every statement directly in the try body
    sole_in_block: bool = False  # the only statement of its block (deleting it needs `pass`)
    # try_import: some ImportError-catching handler may raise (a `raise` anywhere in it):
    # when the import fails the statement raises, so the import cannot be folded away
    handler_raises: bool = False
    # try_import: the first ImportError-catching handler binds the exception (`as e`); the
    # codemod cannot put its body in the statement's place, so the try is not folded
    handler_binds: bool = False


@dataclass(frozen=True, slots=True)
class ModuleAssign(Fact):
    """A module-level unconditional ``NAME = expr`` (or ``NAME: T = expr``)."""

    name: str
    cond: Cond
    line: int


class BranchCollector:
    """Collects ``Branch`` and ``ModuleAssign`` facts of one parsed file."""

    def __init__(self, data: bytes, root: ts.Node, scope_of: Callable[[ts.Node], str]):
        self.data = data
        self.root = root
        self._scope_of = scope_of

    def branches(self, caps: dict[str, list[ts.Node]]) -> list[Branch]:
        out: list[Branch] = []
        for node in caps.get("branch.if", []):
            out.append(self._branch(node, "if", _if_clauses(node)))
        for node in caps.get("branch.ifexp", []):
            arms = [c for c in node.named_children if c.type != "comment"]
            if len(arms) == 3:
                then, cond, other = arms
                arm = _clause("if", _cond(cond), then, then, then)
                alt = _clause("else", None, other, other, other)
                arms_out = []
                for clause, arm_node, kept in ((arm, then, other), (alt, other, then)):
                    arms_out.append(replace(clause, own_lines=self._owns_lines(arm_node),
                                            reads=self._exclusive_reads(node, kept)))
                out.append(self._branch(node, "ifexp", arms_out))
        for node in caps.get("branch.try", []):
            excepts = [c for c in node.named_children if c.type == "except_clause"]
            if not any(_catches_import_error(c) for c in excepts):
                continue
            body = node.child_by_field_name("body")
            if body is None:
                continue
            stmts = [c for c in body.named_children if c.type != "comment"]
            clauses = [_clause("try", None, node, body, node, end=body)]
            for c in node.named_children:
                if c.type in {"except_clause", "else_clause", "finally_clause"}:
                    kind = c.type.split("_")[0]
                    block = next((b for b in c.named_children if b.type == "block"), c)
                    clauses.append(_clause(kind, _except_cond(c) if kind == "except" else None,
                                           c, block, c))
            out.append(self._branch(
                node, "try_import", clauses,
                import_lines=tuple(_line(s) for s in stmts
                                   if s.type in {"import_statement", "import_from_statement"}),
                body_lines=tuple(_line(s) for s in stmts),
                handler_raises=any(_catches_import_error(c) and _has_raise(c)
                                   for c in excepts),
                handler_binds=next((any(k.type == "as_pattern" for k in c.named_children)
                                    for c in excepts if _catches_import_error(c)), False)))
        out.sort(key=lambda b: (b.start_byte, b.kind))
        return out

    def _exclusive_reads(self, ifexp: ts.Node, kept: ts.Node) -> tuple[str, ...]:
        """What folding ``ifexp`` onto ``kept`` stops reading: chains (and ``.attribute``
        names) read in the condition or the other arm and nowhere else of the statement on
        the expression's lines."""
        stmt = ifexp
        while (up := stmt.parent) is not None and up.type not in ("block", "module"):
            stmt = up
        first, last = ifexp.start_point[0], ifexp.end_point[0]
        inside: set[str] = set()
        outside: set[str] = set()
        stack = [stmt]
        while stack:
            node = stack.pop()
            if node.end_point[0] < first or node.start_point[0] > last:
                continue
            if node.type == "identifier":
                read = _read_of(node)
                if read is not None:
                    at = node.start_byte
                    gone = ifexp.start_byte <= at < ifexp.end_byte and not (
                        kept.start_byte <= at < kept.end_byte)
                    (inside if gone else outside).add(read)
                continue
            stack.extend(node.children)
        return tuple(sorted(inside - outside))

    def _owns_lines(self, node: ts.Node) -> bool:
        data = self.data
        first = data.rfind(b"\n", 0, node.start_byte) + 1
        last = data.find(b"\n", node.end_byte)
        after = data[node.end_byte:last if last >= 0 else len(data)]
        return bool(_OPEN_ONLY.fullmatch(data[first:node.start_byte])
                    and _CLOSE_ONLY.fullmatch(after))

    def _branch(self, node: ts.Node, kind: str, clauses: list[Clause], **extra: object) -> Branch:
        depth, parent = 0, node.parent
        while parent is not None:
            depth += parent.type == "block"
            parent = parent.parent
        block = node.parent
        sole = kind != "ifexp" and block is not None and block.type == "block" and [
            c for c in block.named_children if c.type != "comment"] == [node]
        return Branch(kind, tuple(clauses), _line(node), _code_end_line(node),
                      self._scope_of(node), depth, node.start_byte, node.end_byte,
                      sole_in_block=sole, **extra)  # type: ignore[arg-type]

    def module_assigns(self, rebound: set[str]) -> list[ModuleAssign]:
        """``NAME = expr`` of the module body; a name some function declares ``global``
        gets an ``unknown`` condition (it changes at run time)."""
        out: list[ModuleAssign] = []
        for stmt in self.root.named_children:
            if stmt.type != "expression_statement" or len(stmt.named_children) != 1:
                continue
            expr = stmt.named_children[0]
            names: list[str] = []
            while expr.type == "assignment":
                left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
                if left is None or right is None or left.type != "identifier":
                    names = []
                    break
                names.append(tsu.text(left))
                expr = right
            if names:
                cond = _cond(expr)
                out.extend(ModuleAssign(n, Cond("unknown", f"global {n}") if n in rebound
                                        else cond, _line(stmt)) for n in names)
        return out


# -- guards: conditions as Cond trees --------------------------------------------------------
_PLAIN_CHAIN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_OPEN_ONLY = re.compile(rb"[\s(\[{,]*(?:else)?[\s(\[{]*")
_CLOSE_ONLY = re.compile(rb"[\s)\]},]*(?:#.*)?")
_CMP_OPS = {"==", "!=", "is", "is not", "in", "not in", "<", "<=", ">", ">="}
_CONSTS = {"true": "True", "false": "False", "none": "None"}


def _read_of(node: ts.Node) -> str | None:
    """What an identifier reads: ``.name`` when it is an attribute's name, else the longest
    dotted chain it heads (``a.b.c``)."""
    parent = node.parent
    if parent is not None and parent.type == "attribute" \
            and parent.child_by_field_name("attribute") == node:
        return "." + tsu.text(node)
    top = node
    while top.parent is not None and top.parent.type == "attribute" \
            and top.parent.start_byte == top.start_byte:
        top = top.parent
    return _chain(top) or tsu.text(node)


def _clause(kind: str, cond: Cond | None, node: ts.Node, body: ts.Node, start: ts.Node,
            end: ts.Node | None = None) -> Clause:
    """Clause from ``start`` (its header) to the end of ``end`` (default: ``node``)."""
    last = end if end is not None else node
    return Clause(kind, cond, _line(start), _code_end_line(last), _line(body), start.start_byte,
                  last.end_byte)


def _code_end_line(node: ts.Node) -> int:
    """1-based line where ``node``'s code ends: the end of its last token that is not a
    comment (comment lines tree-sitter puts at the end of a block are not the statement's)."""
    while True:
        kids = [c for c in node.children if c.type != "comment"]
        if not kids:
            break
        node = kids[-1]
    row, col = node.end_point
    return row if col == 0 and row > node.start_point[0] else row + 1


def _if_clauses(node: ts.Node) -> list[Clause]:
    body = node.child_by_field_name("consequence")
    cond = node.child_by_field_name("condition")
    out = [replace(_clause("if", _cond(cond) if cond is not None else Cond("unknown"), node,
                           body or node, node, end=body or node), body_stmts=_stmts(body))]
    for alt in node.children_by_field_name("alternative"):
        alt_body = alt.child_by_field_name("consequence" if alt.type == "elif_clause" else "body")
        if alt.type == "elif_clause":
            c = alt.child_by_field_name("condition")
            out.append(replace(_clause("elif", _cond(c) if c is not None else Cond("unknown"),
                                       alt, alt_body or alt, alt), body_stmts=_stmts(alt_body)))
        else:
            out.append(replace(_clause("else", None, alt, alt_body or alt, alt),
                               body_stmts=_stmts(alt_body)))
    return out


def _stmts(block: ts.Node | None) -> tuple[int, ...]:
    if block is None:
        return ()
    return tuple(_line(c) for c in block.named_children if c.type != "comment")


def _except_cond(clause: ts.Node) -> Cond | None:
    kinds = [c for c in clause.named_children if c.type not in {"block", "comment"}]
    if not kinds:
        return None
    value = kinds[0]
    if value.type == "as_pattern" and value.named_children:
        value = value.named_children[0]
    if value.type in {"tuple", "parenthesized_expression"}:
        names = [Cond("name", c) for n in value.named_children if (c := _chain(n))]
        return Cond("or", children=tuple(names)) if len(names) != 1 else names[0]
    return _cond(value)


def _cond_chain(node: ts.Node) -> str | None:
    """Dotted chain, allowing zero-argument calls inside it (``get_args().backend``)."""
    raw = node.text or b""
    if _PLAIN_CHAIN.fullmatch(raw):
        return raw.decode("utf-8")
    if node.type == "identifier":
        return tsu.text(node)
    if node.type == "attribute":
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        head = _cond_chain(obj) if obj is not None and attr is not None else None
        return f"{head}.{tsu.text(attr)}" if head else None
    if node.type == "call":
        func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if func is None or args is None or args.type != "argument_list" or args.named_children:
            return None
        head = _cond_chain(func)
        return f"{head}()" if head else None
    return None


def _unknown(node: ts.Node) -> Cond:
    text = " ".join(tsu.text(node).split())
    return Cond("unknown", text if len(text) <= 80 else text[:77] + "...")


def _cond(node: ts.Node, depth: int = 0) -> Cond:
    """The ``Cond`` tree of an expression; ``unknown`` for anything else (never raises)."""
    t = node.type
    if depth > 40:
        return _unknown(node)
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return _cond(inner[0], depth + 1) if len(inner) == 1 else _unknown(node)
    if t in {"identifier", "attribute"}:
        chain = _cond_chain(node)
        return Cond("name", chain) if chain else _unknown(node)
    if t in _CONSTS:
        return Cond("const", _CONSTS[t])
    if t == "integer":
        text = tsu.text(node).replace("_", "")
        return Cond("const", str(int(text, 0))) if text.isdigit() else _unknown(node)
    if t == "string":
        value = _string_value(node)
        return Cond("str", value) if value is not None else _unknown(node)
    if t == "not_operator":
        arg = node.child_by_field_name("argument")
        return Cond("not", children=(_cond(arg, depth + 1),)) if arg is not None else _unknown(
            node)
    if t == "boolean_operator":
        op = tsu.text(node.child_by_field_name("operator"))
        parts: list[Cond] = []
        for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
            sub = _cond(side, depth + 1) if side is not None else Cond("unknown")
            parts.extend(sub.children if sub.kind == op else (sub,))
        return Cond(op, children=tuple(parts)) if op in {"and", "or"} else _unknown(node)
    if t == "comparison_operator":
        op_nodes = node.children_by_field_name("operators")
        operands = [c for c in node.named_children if c.type != "comment" and c not in op_nodes]
        op = " ".join(tsu.text(op_nodes[0]).split()) if len(op_nodes) == 1 else ""
        if op not in _CMP_OPS or len(operands) != 2:
            return _unknown(node)
        return Cond("cmp", op, children=tuple(_cond(o, depth + 1) for o in operands))
    if t in {"tuple", "list", "set"}:
        values = [_string_value(c) if c.type == "string" else None
                  for c in node.named_children if c.type != "comment"]
        if all(v is not None for v in values):
            return Cond("strs", args=tuple(v for v in values if v is not None))
        chains = [_cond_chain(c) if c.type in ("identifier", "attribute") else None
                  for c in node.named_children if c.type != "comment"]
        if chains and all(chains):  # (Backend.A, Backend.B): enum members, say
            return Cond("tuple", children=tuple(Cond("name", c) for c in chains if c))
        return _unknown(node)
    if t == "call":
        func, arg_list = node.child_by_field_name("function"), node.child_by_field_name(
            "arguments")
        callee = _cond_chain(func) if func is not None else None
        if callee is None or arg_list is None or arg_list.type != "argument_list":
            return _unknown(node)
        strs: list[str] = []
        others: list[Cond] = []
        for arg in arg_list.named_children:
            if arg.type in {"keyword_argument", "comment"}:
                continue
            value = _string_value(arg) if arg.type == "string" else None
            if value is not None:
                strs.append(value)
            else:
                others.append(_cond(arg, depth + 1))
        return Cond("call", callee, tuple(strs), tuple(others))
    return _unknown(node)
