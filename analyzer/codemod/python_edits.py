"""Codemod stage, Python edits: manifest entries of one file -> new source, through LibCST.

Input: the file's source text and its ``PyEdit`` list (from ``apply.py``, which reads only the
manifest and the files it edits). Output: the edited source; the code is never imported or
run. Edits are located by the manifest's 1-based lines, resolved against the original tree,
checked for overlap, then applied in one transform, so lines of later edits do not shift.

Supported: ``delete_range`` (whole statements at any depth, from the first decorator, or
elements of a collection literal), ``remove_import_names``, ``remove_list_element`` and
``fold_branch`` (see ``analyzer/analysis/guards.py``: delete, delete_clause, promote_elif,
unwrap_if, unwrap_else, try_unwrap, ifexp). Everything outside an edit is kept as written.
Comments inside a removed statement go with it; comment lines above it stay. A block left
empty gets ``pass``.

Statement boundaries: LibCST ends a statement at its last line of code, tree-sitter (the
scan) may end it after the comment lines that close its last block. A folded statement is
found by its start line, and every end (the statement's, a clause's, a kept body's) may
differ from the manifest's by blank and comment lines only, never by a line holding code
(tokens decide, so a ``#`` inside a string is code).
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import tokenize
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from analyzer.codemod.py_edit import PyEdit, Rewrite
from analyzer.codemod.python_slices import Region, hollowed, regions, shifted, source_lines
from analyzer.codemod.text_edits import EditError
from analyzer.model import (
    EXPRESSION_REWRITES,
    ifexp_condition,
    ifexp_keeps_body,
)

__all__ = ["EditError", "PyEdit", "edit_python"]




Span = tuple[int, int]
N = TypeVar("N", bound=cst.CSTNode)
# the collection literals whose elements an edit may drop
Collection = cst.List | cst.Tuple | cst.Set | cst.Dict
StmtFix = Callable[[Any], tuple[list[cst.BaseStatement], list[cst.EmptyLine]]]


def edit_python(source: str, edits: Sequence[PyEdit]) -> str:
    """``source`` with every edit applied; EditError when one cannot be located or two
    overlap. LibCST parses only the regions the edits need (``python_slices``); when a
    region cannot be edited on its own, the whole file is, and says why."""
    if not edits:
        return source
    found = regions(source, edits)
    if found is not None:
        try:
            return _edit_regions(source, found)
        except (EditError, cst.ParserSyntaxError):
            pass
    return _edit_whole(source, edits)


def _edit_regions(source: str, found: list[Region]) -> str:
    lines = source_lines(source)
    newline = next((ln[len(ln.rstrip("\r\n")):] for ln in lines
                    if ln.endswith(("\n", "\r"))), "\n")
    out: list[str] = []
    at = 1
    for r in found:
        out += lines[at - 1:r.start - 1]
        head = "class _:" + newline
        lead = r.indent + "pass" + newline if r.lead else ""
        trail = r.indent + "pass" + newline if r.trail else ""
        if not r.indent:  # module level
            head = ""
        text = head + lead + "".join(hollowed(lines, r)) + trail
        by = r.start - 1 - (head + lead).count(newline)
        edited = _edit_whole(text, [shifted(e, by, r.hollow) for e in r.edits])
        if not (edited.startswith(head + lead) and edited.endswith(trail)):
            raise EditError("a region's stand-ins were edited")
        out.append(edited[len(head + lead):len(edited) - len(trail)])
        at = r.end + 1
    out += lines[at - 1:]
    return "".join(out)


def _edit_whole(source: str, edits: Sequence[PyEdit]) -> str:
    try:
        # freshly parsed: nothing else holds the tree, so the wrapper need not copy it
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except cst.ParserSyntaxError as exc:
        raise EditError(f"cannot parse: {exc.message} (line {exc.raw_line})") from exc
    plan = _Planner(wrapper, source)
    for group in _groups(edits):
        plan.add(group)
    plan.check_overlap()
    return wrapper.module.visit(_Apply(plan)).code


def _groups(edits: Sequence[PyEdit]) -> list[list[PyEdit]]:
    """Entries acting on one node together: the clauses of one folded statement, the
    elements of one line."""
    keyed: dict[tuple[Any, ...], list[PyEdit]] = {}
    for e in sorted(edits, key=lambda e: (e.start, e.end, e.names)):
        if e.kind == "fold_branch" and e.rewrite not in EXPRESSION_REWRITES and e.statement:
            key: tuple[Any, ...] = ("fold", e.statement)
        elif e.kind == "remove_list_element":
            key = ("elements", e.start)
        else:
            key = (e.kind, e.start, e.end, e.names, e.rewrite)
        keyed.setdefault(key, []).append(e)
    return list(keyed.values())


class _Planner:
    """Resolves entries to nodes of the original tree and records what to do with them."""

    def __init__(self, wrapper: MetadataWrapper, source: str) -> None:
        self.module = wrapper.module
        self.pos = wrapper.resolve(PositionProvider)
        self._parent: dict[cst.CSTNode, cst.CSTNode] | None = None
        self.lines = source.splitlines()
        self.code = code_lines(source)
        self.stmts: list[tuple[int, int, cst.CSTNode]] = []
        self.nodes: dict[type, list[cst.CSTNode]] = {}
        for node in self.pos:
            if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
                self.stmts.append((*self.span(node), node))
            self.nodes.setdefault(type(node), []).append(node)
        self.remove: dict[int, tuple[cst.CSTNode, tuple[int, int]]] = {}
        self.replace_stmt: dict[int, tuple[cst.CSTNode, StmtFix]] = {}
        self.replace_expr: dict[int, tuple[cst.CSTNode, Callable[[Any], Any]]] = {}
        self.claimed: list[tuple[int, int, str]] = []

    def of_type(self, kind: type[N]) -> list[N]:
        """The nodes of one type, in tree order (``nodes`` is keyed by ``type(node)``)."""
        return [n for n in self.nodes.get(kind, []) if isinstance(n, kind)]

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        p = self.pos[node]
        start = p.start.line
        decorators = getattr(node, "decorators", ())
        if decorators:
            start = self.pos[decorators[0]].start.line
        return start, p.end.line

    def claim(self, ranges: Sequence[tuple[int, int]], what: str) -> None:
        self.claimed.extend((s, e, what) for s, e in ranges)

    def check_overlap(self) -> None:
        ordered = sorted(self.claimed)
        for (s1, e1, w1), (s2, e2, w2) in itertools.pairwise(ordered):
            if s2 <= e1:
                raise EditError(f"overlapping edits: {w1} (lines {s1}-{e1}) and {w2} "
                                f"(lines {s2}-{e2})")

    def _blank(self, line: int) -> bool:
        """No code on ``line`` (blank, a comment, or outside the file)."""
        if self.code is not None:
            return line not in self.code
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return not text or text.startswith("#")

    def same_end(self, a: int, b: int) -> bool:
        """Lines ``a`` and ``b`` end the same code: only blank/comment lines after the first."""
        return all(self._blank(x) for x in range(min(a, b) + 1, max(a, b) + 1))

    def covers(self, outer: Span, inner: Span) -> bool:
        """``outer`` holds ``inner``, allowing ``inner`` to end in lines without code."""
        return outer[0] <= inner[0] and (inner[1] <= outer[1]
                                          or self.same_end(outer[1], inner[1]))

    def add(self, group: list[PyEdit]) -> None:
        e = group[0]
        if e.kind == "delete_range":
            self._delete_range(e)
        elif e.kind == "remove_import_names":
            self._import_names(e)
        elif e.kind == "remove_list_element":
            self._elements(group)
        elif e.kind == "fold_branch" and e.rewrite == "ifexp":
            self._ifexp(e)
        elif e.kind == "fold_branch" and e.rewrite == "compare":
            self._compare(e)
        elif e.kind == "fold_branch":
            self._fold(group)
        else:
            raise EditError(f"{e.kind} cannot be applied to a Python file")

    @property
    def parent(self) -> dict[cst.CSTNode, cst.CSTNode]:
        """Each node's parent, built on first use by one walk of the tree (LibCST's
        ParentNodeProvider costs a full visitor pass over every file, used or not)."""
        if self._parent is None:
            parents: dict[cst.CSTNode, cst.CSTNode] = {}
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                node = stack.pop()
                for child in _children(node):
                    parents[child] = node
                    stack.append(child)
            self._parent = parents
        return self._parent

    # -- statements and elements ------------------------------------------------------------
    def _delete_range(self, e: PyEdit) -> None:
        inside = [(s, t, n) for s, t, n in self.stmts if e.start <= s and t <= e.end]
        ids = {id(n) for _, _, n in inside}
        # the outermost statements of the range: none of their ancestors is in it too
        chosen = [(s, t, n) for s, t, n in inside if not self._under(n, ids)]
        if chosen:
            covered = {x for s, t, _ in chosen for x in range(s, t + 1)}
            loose = [x for x in range(e.start, e.end + 1) if x not in covered]
            if any(not self._blank(x) for x in loose):
                raise EditError(f"lines {e.start}-{e.end} are not whole statements")
            for _, _, node in chosen:
                self.remove[id(node)] = (node, (e.start, e.end))
            self.claim([(e.start, e.end)], "delete_range")
            return
        elements = [n for t in (cst.Element, cst.DictElement, cst.StarredElement,
                                cst.StarredDictElement)
                    for n in self.nodes.get(t, [])
                    if e.start <= self.span(n)[0] and self.span(n)[1] <= e.end]
        covered = {x for el in elements for x in range(self.span(el)[0], self.span(el)[1] + 1)}
        if not elements or any(not self._blank(x) for x in range(e.start, e.end + 1)
                               if x not in covered):
            raise EditError(f"lines {e.start}-{e.end} are not whole statements or elements")
        by_parent: dict[int, tuple[Collection, list[cst.CSTNode]]] = {}
        for el in elements:
            owner = self.parent[el]
            assert isinstance(owner, Collection)  # what LibCST puts elements in
            by_parent.setdefault(id(owner), (owner, []))[1].append(el)
        for owner, els in by_parent.values():
            self._drop_elements(owner, els)
        self.claim([(e.start, e.end)], "delete_range")

    def _under(self, inner: cst.CSTNode, ids: set[int]) -> bool:
        """Whether an ancestor of ``inner`` is one of the nodes ``ids`` names."""
        node = self.parent.get(inner)
        while node is not None and node is not self.module:
            if id(node) in ids:
                return True
            node = self.parent.get(node)
        return False

    def _drop_elements(self, owner: Collection, els: list[cst.CSTNode]) -> None:
        """Drop elements of one collection; edits of other elements of it accumulate
        (several dropped choices in one list are the normal case)."""
        index = {i for i, el in enumerate(owner.elements) if any(el is x for x in els)}
        drops = self.__dict__.setdefault("_element_drops", {})
        merged = frozenset(drops.get(id(owner), frozenset()) | index)
        drops[id(owner)] = merged

        def fix(updated: Any, drop: frozenset[int] = merged) -> Any:
            return remove_elements(updated, drop)
        self.replace_expr[id(owner)] = (owner, fix)

    def _import_names(self, e: PyEdit) -> None:
        found = [n for n in self.of_type(cst.ImportFrom)
                 if self.span(n)[0] >= e.start and self.span(n)[1] <= e.end]
        node = found[0] if len(found) == 1 else None
        if node is None or isinstance(node.names, cst.ImportStar):
            raise EditError(f"lines {e.start}-{e.end}: no single `from ... import` found")
        aliases = list(node.names)
        bound = [a.evaluated_alias or a.evaluated_name for a in aliases]
        missing = [n for n in e.names if n not in bound]
        if missing:
            raise EditError(f"line {e.start}: import names not found: {', '.join(missing)}")
        drop = frozenset(i for i, b in enumerate(bound) if b in e.names)
        self.claim([(e.start, e.end)], "remove_import_names")
        if len(drop) == len(aliases):
            line = self.parent[node]
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                self.remove[id(line)] = (line, (e.start, e.end))
            else:
                self.replace_expr[id(node)] = (node, lambda u: cst.RemoveFromParent())
            return
        self.replace_expr[id(node)] = (node, lambda u: remove_elements(u, drop, "names"))

    def _elements(self, group: list[PyEdit]) -> None:
        line = group[0].start
        wanted = {n for e in group for n in e.names}
        hits: dict[int, tuple[Collection, list[cst.CSTNode]]] = {}
        found: set[str] = set()
        kinds: tuple[type[Collection], ...] = (cst.List, cst.Tuple, cst.Set, cst.Dict)
        for t in kinds:
            for coll in self.of_type(t):
                for el in coll.elements:
                    value = getattr(el, "key", None) or getattr(el, "value", None)
                    if value is None or self.pos[el].start.line != line:
                        continue
                    key = _literal(value, self.module)
                    if key in wanted:
                        found.add(key)
                        hits.setdefault(id(coll), (coll, []))[1].append(el)
        if found != wanted:
            raise EditError(f"line {line}: elements not found: "
                            + ", ".join(sorted(wanted - found)))
        for coll, els in hits.values():
            self._drop_elements(coll, els)
        self.claim([(line, line)], "remove_list_element")

    # -- folded branches --------------------------------------------------------------------
    def _fold(self, group: list[PyEdit]) -> None:
        stmt = group[0].statement
        assert stmt is not None
        found = [n for s, t, n in self.stmts if s == stmt[0] and self.same_end(t, stmt[1])
                 and isinstance(n, cst.If | cst.Try)]
        if len(found) != 1:
            raise EditError(f"lines {stmt[0]}-{stmt[1]}: no single if/try statement found")
        node = found[0]
        dead = [(e.start, e.end) for e in group]
        rewrites = {e.rewrite for e in group}
        self.claim(dead, "fold_branch " + "/".join(sorted(rewrites)))
        if rewrites == {"delete"}:
            self.remove[id(node)] = (node, tuple(stmt))  # type: ignore[assignment]
            return
        if isinstance(node, cst.If):
            fix = fold_if(node, self._span_of, dead, rewrites, self.covers)
        else:
            fix = fold_try(node, self._span_of, dead, rewrites, group[0].keep, self.same_end)
        self.replace_stmt[id(node)] = (node, fix)

    def _span_of(self, node: cst.CSTNode) -> Span:
        return self.span(node)

    def _compare(self, e: PyEdit) -> None:
        """``x == Backend.ROCM_FA`` (on line ``e.start``, as ``e.names[0]``) -> ``False``."""
        if len(e.names) < 2 or e.names[1] not in ("True", "False"):
            raise EditError(f"line {e.start}: a compare rewrite needs the comparison and value")
        wanted = "".join(e.names[0].split())
        found = [n for n in self.of_type(cst.Comparison) if self.span(n)[0] == e.start
                 and "".join(self.module.code_for_node(
                     n.with_changes(lpar=[], rpar=[])).split()) == wanted]
        if len(found) != 1:
            raise EditError(f"line {e.start}: no single comparison {e.names[0]!r}")
        self.claim([(e.start, e.start)], "fold_branch compare")
        value = e.names[1]
        self.replace_expr[id(found[0])] = (
            found[0], lambda u: cst.Name(value, lpar=u.lpar, rpar=u.rpar))

    def _ifexp(self, e: PyEdit) -> None:
        stmt = e.statement or (e.start, e.end)
        cands = [n for n in self.of_type(cst.IfExp)
                 if stmt[0] <= self.span(n)[0] and self.span(n)[1] <= stmt[1]]
        test = ifexp_condition(e.reason)
        if len(cands) > 1 and test is not None:
            cands = [n for n in cands if self.module.code_for_node(n.test) == test]
        if len(cands) != 1:
            raise EditError(f"lines {stmt[0]}-{stmt[1]}: no single conditional expression")
        node = cands[0]
        dead = (e.start, e.end)
        keep_body = ifexp_keeps_body(e.keep, dead, self.span(node.body), self.span(node.orelse),
                                     e.reason)
        if keep_body is None:
            raise EditError(f"line {e.start}: cannot tell which arm of the expression stays")
        self.claim([dead], "fold_branch ifexp")

        def fix(u: cst.IfExp) -> Any:
            arm = u.body if keep_body else u.orelse
            rpar = list(u.rpar)
            after, close = u.whitespace_before_if, rpar[-1].whitespace_before if rpar else None
            if keep_body and isinstance(after, cst.ParenthesizedWhitespace) and isinstance(
                    close, cst.ParenthesizedWhitespace):  # the kept arm's line keeps its comment
                rpar[-1] = rpar[-1].with_changes(whitespace_before=close.with_changes(
                    first_line=after.first_line, empty_lines=after.empty_lines))
            return arm.with_changes(lpar=[*u.lpar, *arm.lpar], rpar=[*arm.rpar, *rpar])
        self.replace_expr[id(node)] = (node, fix)


def code_lines(source: str) -> set[int] | None:
    """1-based lines holding a token other than a comment (a multi-line string marks every
    line it spans); None when ``tokenize`` cannot read the source."""
    out: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in skip:
                out.update(range(tok.start[0], tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return None
    return out


def _literal(node: cst.CSTNode, module: cst.Module) -> str:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, str):
            return value
    return module.code_for_node(node)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A node's children, read from its dataclass fields (``node.children`` runs a visitor:
    three times slower, and this walk covers every node of every edited file)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node))
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, list | tuple):
            yield from (x for x in value if isinstance(x, cst.CSTNode))


class _Apply(cst.CSTTransformer):
    def __init__(self, plan: _Planner) -> None:
        super().__init__()
        self.plan = plan
        # the edited nodes and their ancestors: the only subtrees the pass needs to enter
        self.needed: set[int] = set()
        targets = [*plan.remove.values(), *plan.replace_stmt.values(),
                   *plan.replace_expr.values()]
        for node, _ in targets:
            current: cst.CSTNode | None = node
            while current is not None and id(current) not in self.needed:
                self.needed.add(id(current))
                current = plan.parent.get(current)

    def on_visit(self, node: Any) -> bool:
        return id(node) in self.needed or isinstance(node, cst.Module)

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        key = id(original_node)
        if key not in self.needed and not isinstance(original_node, cst.Module):
            return updated_node  # nothing edited in it
        if key in self.plan.replace_expr:
            return self.plan.replace_expr[key][1](updated_node)
        if isinstance(updated_node, cst.Module | cst.IndentedBlock):
            body, carry = self._body(original_node.body, updated_node.body)
            footer = list(updated_node.footer)
            if not body and isinstance(updated_node, cst.IndentedBlock):
                body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=strip_blank(carry))]
                carry = []
            comments = [x for x in carry if x.comment is not None]
            return updated_node.with_changes(body=body, footer=comments + footer)
        return updated_node

    def _body(self, orig: Sequence[Any], upd: Sequence[Any]
              ) -> tuple[list[Any], list[cst.EmptyLine]]:
        out: list[Any] = []
        carry: list[cst.EmptyLine] = []
        removed = False
        for o, u in zip(orig, upd, strict=True):
            if id(o) in self.plan.remove:
                _, (start, end) = self.plan.remove[id(o)]
                first = self.plan.span(o)[0]
                lead = list(u.leading_lines)
                carry = merge_leading(carry, [x for i, x in enumerate(lead)
                                              if not start <= first - len(lead) + i <= end])
                removed = True
                continue
            new = [u]
            if id(o) in self.plan.replace_stmt:
                new, tail = self.plan.replace_stmt[id(o)][1](u)
                if not new:
                    carry = merge_leading(carry, [*u.leading_lines, *tail])
                    removed = True
                    continue
            else:
                tail = []
            if carry or (removed and not out):
                lead = merge_leading(carry, list(new[0].leading_lines))
                new[0] = new[0].with_changes(
                    leading_lines=strip_blank(lead) if not out else lead)
                carry = []
            out += new
            carry = tail
        return out, carry


# -- shapes -----------------------------------------------------------------------------------
def remove_elements(node: Any, drop: frozenset[int], attr: str = "elements") -> Any:
    """``node`` without the items at ``drop`` of its ``attr`` sequence; commas fixed: the new
    last item takes the old last item's comma (none, or a trailing one)."""
    items = list(getattr(node, attr))
    kept = [x for i, x in enumerate(items) if i not in drop]
    if not kept:
        if isinstance(node, cst.List | cst.Dict) or (isinstance(node, cst.Tuple) and node.lpar):
            return node.with_changes(**{attr: []})
        raise EditError("removing every element would change what the literal means")
    if len(items) - 1 in drop:
        kept[-1] = kept[-1].with_changes(comma=_last_comma(kept[-1].comma, items[-1].comma))
    if isinstance(node, cst.Tuple) and len(kept) == 1 and not isinstance(kept[0].comma,
                                                                        cst.Comma):
        kept[0] = kept[0].with_changes(comma=cst.Comma())
    return node.with_changes(**{attr: kept})


def _last_comma(own: Any, removed: Any) -> Any:
    """The comma of a new last item: the removed last item's (none, or a trailing one whose
    line break leads to the closing bracket), keeping the item's own end-of-line comment."""
    if isinstance(own, cst.Comma) and isinstance(removed, cst.Comma):
        mine, theirs = own.whitespace_after, removed.whitespace_after
        if isinstance(mine, cst.ParenthesizedWhitespace) and \
                isinstance(theirs, cst.ParenthesizedWhitespace):
            return removed.with_changes(
                whitespace_after=theirs.with_changes(first_line=mine.first_line))
    return removed


def merge_leading(first: list[cst.EmptyLine], second: list[cst.EmptyLine]
                  ) -> list[cst.EmptyLine]:
    """``first + second`` with runs of blank lines no longer than the longest run of either."""
    cap = max(_blank_run(first), _blank_run(second))
    out: list[cst.EmptyLine] = []
    run = 0
    for line in [*first, *second]:
        run = run + 1 if line.comment is None else 0
        if run <= cap:
            out.append(line)
    return out


def _blank_run(lines: list[cst.EmptyLine]) -> int:
    best = run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        best = max(best, run)
    return best


def strip_blank(lines: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """``lines`` without the blank lines before the first comment."""
    i = 0
    while i < len(lines) and lines[i].comment is None:
        i += 1
    return lines[i:]


def _block_statements(body: Any) -> tuple[list[Any], list[cst.EmptyLine]]:
    """The statements of a clause body (they are indented relative to their block, so moving
    them up a level dedents them) and the block's trailing comment lines."""
    if isinstance(body, cst.IndentedBlock):
        return list(body.body), list(body.footer)
    return [cst.SimpleStatementLine(body=body.body,
                                    trailing_whitespace=body.trailing_whitespace)], []


def _lead(stmts: list[Any], outer: Any) -> list[Any]:
    if stmts:
        stmts[0] = stmts[0].with_changes(
            leading_lines=[*outer.leading_lines, *stmts[0].leading_lines])
    return stmts


def _if_clauses(node: Any) -> list[Any]:
    out = []
    while node is not None:
        out.append(node)
        node = node.orelse if isinstance(node, cst.If) else None
    return out


def fold_if(node: cst.If, span: Callable[[Any], Span], dead: list[Span],
            rewrites: set[Rewrite], covers: Callable[[Span, Span], bool] | None = None) -> StmtFix:
    """The rewrite of an if-chain whose clauses inside ``dead`` go: the first live ``elif``
    becomes ``if``; a sole live ``else`` (or the head, for ``unwrap_if``) is unwrapped.
    ``covers(outer, inner)``: whether a dead range holds a clause (default: plain nesting)."""
    inside = covers or (lambda o, i: o[0] <= i[0] and i[1] <= o[1])
    clauses = _if_clauses(node)
    spans = [(span(c)[0], span(c.body)[1]) if isinstance(c, cst.If) else span(c)
             for c in clauses]
    is_dead = [any(inside(d, s) for d in dead) for s in spans]
    for a, b in dead:
        if not any(inside((a, b), s) for s in spans):
            raise EditError(f"lines {a}-{b} do not hold a whole clause of the if statement")
    live = [i for i, d in enumerate(is_dead) if not d]
    if "unwrap_if" in rewrites and live != [0]:
        raise EditError(f"line {spans[0][0]}: unwrap_if, but not only the head clause stays")
    unwrap = len(live) == 1 and (isinstance(clauses[live[0]], cst.Else)
                                 or "unwrap_if" in rewrites)

    def fix(u: cst.If) -> tuple[list[Any], list[cst.EmptyLine]]:
        ucl = _if_clauses(u)
        if not live:
            return [], []
        if unwrap:
            stmts, tail = _block_statements(ucl[live[0]].body)
            return _lead(stmts, u), tail
        chain: Any = None
        for i in reversed(live):
            c = ucl[i]
            chain = c if isinstance(c, cst.Else) else c.with_changes(orelse=chain)
        return [chain.with_changes(leading_lines=u.leading_lines)], []
    return fix


def fold_try(node: cst.Try, span: Callable[[Any], Span], dead: list[Span],
             rewrites: set[Rewrite], keep: tuple[int, int] | None,
             same_end: Callable[[int, int], bool] | None = None) -> StmtFix:
    """``try_unwrap``: the body of the except clause ending at ``keep`` replaces the try.
    ``same_end(a, b)``: whether two end lines end the same code (default: equal)."""
    if rewrites != {"try_unwrap"} or keep is None:
        raise EditError(f"line {span(node)[0]}: cannot apply {sorted(rewrites)} to a try")
    ends = same_end or (lambda a, b: a == b)
    found = [i for i, h in enumerate(node.handlers)
             if span(h)[0] < keep[0] and ends(span(h)[1], keep[1])
             and keep[0] <= max(span(h)[1], keep[1])]
    if len(found) != 1:
        raise EditError(f"line {span(node)[0]}: no except clause at lines {keep[0]}-{keep[1]}")
    idx = found[0]
    if node.handlers[idx].name is not None:
        raise EditError(f"line {span(node)[0]}: the except clause binds a name; not unwrapped")
    body_start = span(node.body.body[0])[0] if isinstance(node.body, cst.IndentedBlock) \
        else span(node)[0]
    if not any(a <= body_start <= b for a, b in dead):
        raise EditError(f"line {span(node)[0]}: the try body is not in the dead lines")

    def fix(u: cst.Try) -> tuple[list[Any], list[cst.EmptyLine]]:
        stmts, tail = _block_statements(u.handlers[idx].body)
        return _lead(stmts, u), tail
    return fix
