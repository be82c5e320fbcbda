"""Plan stage, soundness: a Python file with the plan's edits simulated -- applied to a parsed
copy (``ast``), never written, never run -- and its :class:`~analyzer.plan.check.lint.FileLint`
before and after, with the deletions that removed each binding (what a break is blamed on).

The codemod (``analyzer.codemod.python_edits``) makes the same edits with LibCST on the real
bytes; the simulation needs only the names each edit removes, so the standard ``ast`` does.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from analyzer.model import (
    EXPRESSION_REWRITES,
    Deletion,
    DeletionKind,
    ifexp_condition,
    ifexp_keeps_body,
)
from analyzer.plan.check.lint import FileLint, bound_names, function_bindings, lint_tree, parse

_STATEMENT_EDITS: tuple[DeletionKind, ...] = ("delete_range", "fold_branch")
_V = TypeVar("_V")


@dataclass
class FileSim:
    """One file before and after its simulated edits: the lints of both (``before.bindings``
    counted outside the branches the edits fold), and, per name, the deletions whose removed
    code bound it (any level)."""

    before: FileLint | None = None
    after: FileLint | None = None
    binders: dict[str, list[Deletion]] = field(default_factory=lambda: defaultdict(list))
    edits: tuple[Deletion, ...] = ()

    @property
    def parsed(self) -> bool:
        return self.after is not None

    def culprits(self, name: str) -> list[Deletion]:
        """The deletions that removed ``name``: those whose removed code bound it, else every
        edit of the file (sound when the binding cannot be told)."""
        return list(dict.fromkeys(self.binders.get(name, ()))) or list(self.edits)


def lint_original(source: bytes, path: str) -> FileLint | None:
    """The file as it is (None when it does not parse): a function of its bytes alone. It
    keeps no ``reads``: only a simulation's ``after`` is asked what a function reads
    (:func:`~analyzer.plan.check.lint.unbound_reads`), and the check keeps a lint of every
    file it simulates for the whole scan (tens of thousands of name sets on the largest
    trees)."""
    tree = parse(source, path)
    return _lint_of(tree, path) if tree is not None else None


def _lint_of(tree: ast.Module, path: str) -> FileLint:
    return dataclasses.replace(lint_tree(tree, path), reads={})


def simulate(source: bytes, edits: list[Deletion], path: str,
             original: FileLint | None = None) -> FileSim:
    """The effect of ``edits`` (one file's deletions) on what the file binds and reads;
    ``original`` is the file's :func:`lint_original` when the caller has it already."""
    tree = parse(source, path)
    return _simulated(tree, edits, path, original, source)


def lint_and_simulate(source: bytes, edits: list[Deletion], path: str
                      ) -> tuple[FileLint | None, FileSim]:
    """(:func:`lint_original`, :func:`simulate`) of one file, parsed once: the simulation
    edits the tree the original was linted from."""
    tree = parse(source, path)
    original = _lint_of(tree, path) if tree is not None else None
    return original, _simulated(tree, edits, path, original, source)


def _simulated(tree: ast.Module | None, edits: list[Deletion], path: str,
               original: FileLint | None, source: bytes) -> FileSim:
    sim = FileSim(edits=tuple(edits))
    if tree is None:
        return sim
    before = original if original is not None else lint_tree(tree, path)
    folded = [(d.start_line or 0, d.end_line or 0) for d in edits
              if d.kind == "fold_branch" and d.rewrite not in EXPRESSION_REWRITES]
    # (without folds, the bindings are the original's: counted outside no range)
    bindings = _reused(function_bindings(tree, folded)[0], before.bindings) if folded \
        else before.bindings
    sim.before = dataclasses.replace(before, bindings=bindings, reads={})
    _remove(tree, edits, sim, source)
    sim.after = _kept_small(lint_tree(tree, path), sim.before)
    return sim


def _kept_small(after: FileLint, before: FileLint) -> FileLint:
    """``after`` as the check keeps it for the whole scan (one per simulated file): of what
    each function reads, only the names whose bindings the edits reduced (the only ones
    :func:`~analyzer.plan.check.lint.unbound_reads` asks about); and each value equal to
    ``before``'s is ``before``'s object (most of a file survives its edits)."""
    reads: dict[str, frozenset[str]] = {}
    for func, want in before.bindings.items():
        have = after.bindings.get(func, {})
        lost = [var for var, n in want.items() if have.get(var, 0) < n]
        if lost and (asked := after.reads.get(func, frozenset()).intersection(lost)):
            reads[func] = asked
    return FileLint(
        _same(after.undefined, before.undefined),
        _same(after.undefined_lines, before.undefined_lines),
        _same(after.module_names, before.module_names),
        _same(after.binding_counts, before.binding_counts),
        _reused(after.class_attrs, before.class_attrs),
        _same(after.raises, before.raises),
        _reused(after.bindings, before.bindings),
        reads,
        _same(after.function_lines, before.function_lines))


def _same(value: _V, known: _V) -> _V:
    """``known`` when equal to ``value`` (one object kept, and pickled, instead of two)."""
    return known if value == known else value


def _reused(values: dict[str, _V], known: dict[str, _V]) -> dict[str, _V]:
    """``values`` with each entry equal to ``known``'s taken from ``known`` (``known`` itself
    when all are)."""
    if values == known:
        return known
    return {k: _same(v, known[k]) if k in known else v for k, v in values.items()}


def _span(node: ast.stmt) -> tuple[int, int]:
    start = node.lineno
    for dec in getattr(node, "decorator_list", ()):
        start = min(start, dec.lineno)
    return start, node.end_lineno or node.lineno


def _remove(tree: ast.Module, edits: list[Deletion], sim: FileSim, source: bytes) -> None:
    """Apply ``edits`` to ``tree`` in place, noting in ``sim.binders`` which deletion removed
    each binding."""
    ranges = [(d.start_line or 0, d.end_line or 0, d) for d in edits
              if d.kind in _STATEMENT_EDITS and d.rewrite not in EXPRESSION_REWRITES
              and d.start_line]
    names_at = {(d.start_line or 0): d for d in edits if d.kind == "remove_import_names"}
    tree.body = _Remover(ranges, names_at, sim).visit(tree.body)
    _fold_clauses(tree, edits, sim)
    _remove_elements(tree, edits)
    _fold_ifexps(tree, edits, source)
    _fold_comparisons(tree, edits)


class _Remover:
    """The statements of a body (any depth) that no statement edit's lines hold, the names
    ``remove_import_names`` drops taken out of their import; each binding removed noted in
    ``sim.binders`` under the deletion that removed it. (A class rather than a recursive
    nested function: that is a reference cycle, never freed while a scan keeps the collector
    paused, ``analyzer.util.gc_pause``.)"""

    def __init__(self, ranges: list[tuple[int, int, Deletion]],
                 names_at: dict[int, Deletion], sim: FileSim) -> None:
        self.ranges, self.names_at, self.sim = ranges, names_at, sim

    def owner(self, start: int, end: int) -> Deletion | None:
        for s, e, d in self.ranges:
            if s <= start and end <= e:
                return d
        return None

    def visit(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        binders = self.sim.binders
        for stmt in body:
            start, end = _span(stmt)
            d = self.owner(start, end)
            if d is not None:
                for name in bound_names(stmt):
                    binders[name].append(d)
                continue
            if isinstance(stmt, ast.ImportFrom) and stmt.lineno in self.names_at:
                d = self.names_at[stmt.lineno]
                keep = [a for a in stmt.names if (a.asname or a.name) not in d.names]
                for a in stmt.names:
                    if (a.asname or a.name) in d.names:
                        binders[a.asname or a.name].append(d)
                if not keep:
                    continue
                stmt.names = keep
            _each_block(stmt, self.visit)
            out.append(stmt)
        return out


def _each_block(stmt: ast.stmt, edit: Callable[[list[ast.stmt]], list[ast.stmt]]) -> None:
    """Replace each block of statements directly in ``stmt`` (its body, ``else`` and
    ``finally`` blocks, its ``except`` handlers' and ``case`` clauses' bodies) by ``edit``
    of it."""
    for attr in ("body", "orelse", "finalbody"):
        block = getattr(stmt, attr, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(stmt, attr, edit(block))
    for handler in getattr(stmt, "handlers", ()):
        handler.body = edit(handler.body)
    for case in getattr(stmt, "cases", ()):
        case.body = edit(case.body)


# folds of some clauses of an ``if`` statement: the statement stays, less those clauses
_CLAUSE_REWRITES = frozenset({"delete_clause", "promote_elif", "unwrap_if", "unwrap_else"})


def _fold_clauses(tree: ast.Module, edits: list[Deletion], sim: FileSim) -> None:
    """The ``if`` statements the plan folds some clauses of, as the codemod leaves them: the
    statements of a dead clause are gone already (they lie in its lines), and its condition
    goes too -- what it reads is read no more (``elif is_hip():`` folded away leaves
    ``is_hip`` unused). ``unwrap_if`` leaves the ``if`` body alone, ``unwrap_else`` the
    ``else`` body; ``delete_clause`` and ``promote_elif`` leave the live clauses, the first
    one the ``if``. A statement whose lines are not the fold's is left as it is (its
    conditions still count: never fewer reads than the real edit leaves)."""
    folds: dict[tuple[int, int], list[Deletion]] = defaultdict(list)
    for d in edits:
        if d.kind == "fold_branch" and d.rewrite in _CLAUSE_REWRITES and d.statement \
                and d.start_line and d.end_line:
            folds[d.statement].append(d)
    if not folds:
        return

    tree.body = _ClauseFolder(folds, sim).rebuild(tree.body)


class _ClauseFolder:
    """A body (any depth) with the ``if`` statements of ``folds`` (by their lines) as the
    codemod leaves them (:func:`_folded_if`). (A class: see :class:`_Remover`.)"""

    def __init__(self, folds: dict[tuple[int, int], list[Deletion]], sim: FileSim) -> None:
        self.folds, self.sim = folds, sim

    def rebuild(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            _each_block(stmt, self.rebuild)
            mine = self.folds.get((stmt.lineno, stmt.end_lineno or stmt.lineno)) \
                if isinstance(stmt, ast.If) else None
            if mine:
                assert isinstance(stmt, ast.If)
                out.extend(_folded_if(stmt, mine, self.sim))
            else:
                out.append(stmt)
        return out


def _folded_if(stmt: ast.If, folds: list[Deletion], sim: FileSim) -> list[ast.stmt]:
    """What is left of ``stmt`` (an ``if``/``elif`` chain) once ``folds`` are made."""
    chain = [stmt]  # the if, then each elif (an else holding only an if reads alike)
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
        chain.append(chain[-1].orelse[0])
    rest = chain[-1].orelse  # the else body (what the fold left of it)
    unwrap = next((d for d in folds if d.rewrite == "unwrap_if"), None)
    if unwrap is not None:  # the if body alone stays: every condition goes
        for link in chain:
            _lose_test(link, unwrap, sim)
        return list(stmt.body)
    owner = {i: d for i, link in enumerate(chain) for d in folds
             if (d.start_line or 0) <= link.lineno <= (d.end_line or 0)}
    if not owner:
        return [stmt]
    for i, d in owner.items():
        _lose_test(chain[i], d, sim)
    live = [link for i, link in enumerate(chain) if i not in owner]
    if not live:  # every condition folded away: the else body is what runs
        return list(rest)
    for link, after in zip(live, [*live[1:], None], strict=True):
        link.orelse = [after] if after is not None else list(rest)
    return [live[0]]


def _lose_test(link: ast.If, d: Deletion, sim: FileSim) -> None:
    """A clause's condition goes with ``d``: the names it binds (``elif (m := ...)``) are
    bound no more."""
    for node in ast.walk(link.test):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            sim.binders[node.target.id].append(d)


def _fold_ifexps(tree: ast.Module, edits: list[Deletion], source: bytes) -> None:
    """Conditional expressions the plan folds become their kept arm in the simulated tree,
    found and told apart as the codemod does (``analyzer.model.ifexp_keeps_body``). One it
    cannot tell stays whole: its reads still count, never fewer than the edit leaves."""
    folds = [d for d in edits if d.rewrite == "ifexp" and d.statement and d.keep]
    if not folds:
        return

    def span(node: ast.AST) -> tuple[int, int]:
        return getattr(node, "lineno", 0), getattr(node, "end_lineno", 0) or 0

    text = source.decode("utf-8", "replace")
    found: dict[int, list[ast.IfExp]] = defaultdict(list)  # fold -> its candidates
    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp):
            first, last = span(node)
            for i, d in enumerate(folds):
                assert d.statement is not None
                if d.statement[0] <= first and last <= d.statement[1]:
                    found[i].append(node)
    keeps: dict[int, bool] = {}  # id of the expression -> its body arm stays
    for i, cands in found.items():
        d = folds[i]
        test = ifexp_condition(d.reason)
        if len(cands) > 1 and test is not None:
            cands = [n for n in cands if ast.get_source_segment(text, n.test) == test]
        if len(cands) != 1:
            continue
        node = cands[0]
        keep_body = ifexp_keeps_body(d.keep, (d.start_line or 0, d.end_line or 0),
                                     span(node.body), span(node.orelse), d.reason)
        if keep_body is not None:
            keeps[id(node)] = keep_body

    _IfExpFolder(keeps).visit(tree)


def _fold_comparisons(tree: ast.Module, edits: list[Deletion]) -> None:
    """Comparisons with a dropped enum member the plan folds become their value."""
    folds = {(d.start_line, _squeeze(d.names[0])): d.names[1] == "True" for d in edits
             if d.rewrite == "compare" and len(d.names) >= 2}
    if not folds:
        return

    _CompareFolder(folds).visit(tree)


class _IfExpFolder(ast.NodeTransformer):
    """Each conditional expression ``keeps`` names (by id) replaced by its kept arm (a
    class of the module: one made per call would be a cycle the paused collector keeps)."""

    def __init__(self, keeps: dict[int, bool]) -> None:
        self.keeps = keeps

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        keep_body = self.keeps.get(id(node))
        node = self.generic_visit(node)  # type: ignore[assignment]
        if keep_body is None:
            return node
        return node.body if keep_body else node.orelse


class _CompareFolder(ast.NodeTransformer):
    """Each comparison ``folds`` names (by line and squeezed text) replaced by its value."""

    def __init__(self, folds: dict[tuple[int | None, str], bool]) -> None:
        self.folds = folds

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        value = self.folds.get((node.lineno, _squeeze(ast.unparse(node))))
        if value is None:
            return node
        return ast.copy_location(ast.Constant(value), node)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _code_of(element: str) -> str | None:
    """An element's name as ``ast.unparse`` writes it, when it is a call (else None)."""
    if "(" not in element:
        return None
    try:
        node = ast.parse(element.strip(), mode="eval").body
    except SyntaxError:
        return None
    return ast.unparse(node) if isinstance(node, ast.Call) else None


def _remove_elements(tree: ast.Module, edits: list[Deletion]) -> None:
    """Registry entries the plan removes from a collection (a dict entry on lines of its
    own, an element sharing its line): gone from the simulated tree too."""
    spans = [(d.start_line or 0, d.end_line or 0) for d in edits
             if d.category == "registry-entry" and d.kind == "delete_range" and d.start_line]
    elements = {(d.start_line or 0, n) for d in edits if d.kind == "remove_list_element"
                for n in d.names}
    if not spans and not elements:
        return
    # an element written as code (a call holding a test's path): matched as Python reads it
    written = {(line, code) for line, n in elements if (code := _code_of(n)) is not None}

    def gone(first: ast.AST, last: ast.AST) -> bool:
        start, end = getattr(first, "lineno", 0), getattr(last, "end_lineno", 0) or 0
        return any(s <= start and end <= e for s, e in spans)

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):  # a member in a display of chains
            return (node.lineno, ast.unparse(node)) in elements
        if isinstance(node, ast.Call):
            return (node.lineno, ast.unparse(node)) in written
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and \
            (node.lineno, node.value) in elements

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True)
                     if not (k is not None and (gone(k, v) or named(k)))]
            node.keys = [k for k, _ in pairs]
            node.values = [v for _, v in pairs]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            node.elts = [e for e in node.elts if not (gone(e, e) or named(e))]
