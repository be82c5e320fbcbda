"""Plan stage, soundness: what one Python file binds and reads, as the checks compare it
before and after a pruning -- a pure function of the file's syntax tree (``ast``: parsed,
never run).

:class:`FileLint` is computed the same way for the original file (at scan time, and recorded
in the manifest for ``depgraph verify``), for the file with the plan's edits simulated
(``analyzer.plan.check.simulate``) and for the pruned file read back from disk (verify): one
definition of what a file holds, whoever asks.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyflakes import checker as pyflakes_checker
from pyflakes import messages as pyflakes_messages

_UNDEFINED = (pyflakes_messages.UndefinedName, pyflakes_messages.UndefinedLocal,
              pyflakes_messages.UndefinedExport)


@dataclass(frozen=True)
class FileLint:
    """One file's names: pyflakes' undefined names (count per name, first line of each), its
    module-level names (and how often each is bound outside compound statements), each
    top-level class's attributes, its module-level ``raise`` statements and, per function
    (``Class.method`` for methods), how often it binds each name it also reads, outside
    ``dead`` line ranges (folded branches: code that never runs)."""

    undefined: Counter[str]
    undefined_lines: dict[str, int]
    module_names: frozenset[str]
    binding_counts: Counter[str]
    class_attrs: dict[str, frozenset[str]]
    raises: tuple[int, ...]  # lines of module-level ``raise`` statements
    bindings: dict[str, dict[str, int]] = field(default_factory=dict)
    # per function: the names it reads (what a lost binding is checked against; the plan's
    # check keeps only the names asked, analyzer.plan.check.simulate), and its line
    reads: dict[str, frozenset[str]] = field(default_factory=dict)
    function_lines: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The manifest's form (``verify_baseline_python``)."""
        return {"undefined": dict(sorted(self.undefined.items())),
                "names": sorted(self.module_names),
                "binding_counts": dict(sorted(self.binding_counts.items())),
                "classes": {c: sorted(a) for c, a in sorted(self.class_attrs.items())},
                "raises": len(self.raises), "bindings": self.bindings}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileLint:
        return cls(Counter(data.get("undefined", {})), {}, frozenset(data.get("names", ())),
                   Counter(data.get("binding_counts", {})),
                   {c: frozenset(a) for c, a in data.get("classes", {}).items()},
                   tuple([0] * int(data.get("raises", 0))), dict(data.get("bindings", {})))


def parse(source: bytes, path: str) -> ast.Module | None:
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None


def lint_tree(tree: ast.Module, path: str, dead: list[tuple[int, int]] | None = None,
              undefined: Counter[str] | None = None) -> FileLint:
    """The :class:`FileLint` of ``tree`` (``undefined``: pyflakes' names when the caller has
    them already)."""
    lines: dict[str, int] = {}
    found = undefined if undefined is not None else undefined_names(tree, path, lines)
    starts: dict[str, int] = {}
    bindings, reads = function_bindings(tree, dead or [], starts)
    return FileLint(Counter(found), lines, frozenset(module_names(tree)),
                    module_binding_counts(tree, dead or []),
                    {c: frozenset(n) for c, n in class_attrs(tree).items()},
                    tuple(s.lineno for s in tree.body if isinstance(s, ast.Raise)),
                    bindings, reads, starts)


def undefined_names(tree: ast.Module, path: str, lines: dict[str, int] | None) -> Counter[str]:
    """pyflakes' undefined names of ``tree`` (per name; ``lines``: the first line of each)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lint = pyflakes_checker.Checker(tree, filename=path)
    found = lint.messages
    # the checker holds itself in a cycle (bound handlers) and every node in `_parents`:
    # break it, so the tree is freed at once (scans run with the cyclic collector paused)
    for scope in lint.deadScopes:  # scopes and their bindings point at each other
        scope.clear()
    lint._nodeHandlers.clear()  # type: ignore[attr-defined]  # private, not in types-pyflakes
    lint._parents.clear()  # type: ignore[attr-defined]  # private, not in types-pyflakes
    lint.deadScopes.clear()
    out: Counter[str] = Counter()
    for m in found:
        if isinstance(m, _UNDEFINED):
            name = str(m.message_args[0])
            out[name] += 1
            if lines is not None:
                lines.setdefault(name, m.lineno)
    return out


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block and of the if/try/with/for blocks in it, not of defs."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for attr in ("body", "orelse", "finalbody"):
            block = getattr(stmt, attr, None)
            if isinstance(block, list):
                stack.extend(s for s in block if isinstance(s, ast.stmt))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)


def names_of_block(body: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for stmt in top_level(body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            out.update(a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For
                        | ast.AsyncFor | ast.With | ast.AsyncWith):
            targets = (stmt.targets if isinstance(stmt, ast.Assign)
                       else [i.optional_vars for i in stmt.items if i.optional_vars]
                       if isinstance(stmt, ast.With | ast.AsyncWith) else [stmt.target])
            for t in targets:
                out.update(n.id for n in ast.walk(t)
                           if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return out


def module_names(tree: ast.Module) -> set[str]:
    return names_of_block(tree.body)


def module_binding_counts(tree: ast.Module, dead: Sequence[tuple[int, int]] = ()
                          ) -> Counter[str]:
    """How often each module-level name is bound outside compound statements, not counting
    bindings in ``dead`` line ranges (folded branches: they never run, so a plan folding one
    away leaves every binding that ran)."""
    counts: Counter[str] = Counter()
    for stmt in top_level(tree.body):
        if any(a <= stmt.lineno <= b for a, b in dead):
            continue
        counts.update(names_of_block([stmt]) if not isinstance(
            stmt, ast.If | ast.Try | ast.With | ast.For | ast.While) else ())
    return counts


def class_attrs(tree: ast.Module) -> dict[str, set[str]]:
    return {stmt.name: names_of_block(stmt.body) for stmt in tree.body
            if isinstance(stmt, ast.ClassDef)}


def bound_names(node: ast.AST) -> set[str]:
    """Every name a statement binds, at any depth (its defs, assignments, imports)."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.add(sub.id)
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(sub.name)
        elif isinstance(sub, ast.alias):
            out.add(sub.asname or sub.name.split(".")[0])
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
    return out


# -- bindings inside functions ------------------------------------------------------------------
# Fields whose values are never a node that binds or reads a name: expression contexts and
# operators (leaf singletons), and fields holding strings or numbers. Leaving them out of the
# walks below visits the same names in the same order as ``ast.iter_child_nodes`` would.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "module", "level", "kind",
                          "conversion", "is_async", "asname", "type_comment"})
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _child_fields(cls: type[ast.AST]) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    return fields


def _push_children(node: ast.AST, stack: list[ast.AST]) -> None:
    """``stack.extend(ast.iter_child_nodes(node))`` without the leaves of ``_LEAF_FIELDS``."""
    for field_name in _child_fields(type(node)):
        value = getattr(node, field_name, None)
        if isinstance(value, ast.AST):
            stack.append(value)
        elif isinstance(value, list):
            stack.extend([item for item in value if isinstance(item, ast.AST)])


def function_scopes(tree: ast.Module
                    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, function node) of every function, methods as ``Class.method``."""
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    children: list[ast.AST] = []
    while stack:
        prefix, node = stack.pop()
        children.clear()
        _push_children(node, children)
        for child in children:
            if isinstance(child, _DEFS):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    yield name, child
                stack.append((name + ".", child))
            elif not isinstance(child, ast.expr):
                stack.append((prefix, child))


def reads_and_bindings(func: ast.AST) -> tuple[set[str], list[tuple[str, int]]]:
    """Names a function reads, and its bindings as (name, line): of the nodes of its own scope
    (not of nested functions, classes or lambdas, whose own nodes are theirs)."""
    reads: set[str] = set()
    binds: list[tuple[str, int]] = []
    stack: list[ast.AST] = []
    _push_children(func, stack)
    name_node, alias_node, lambda_node, load = ast.Name, ast.alias, ast.Lambda, ast.Load
    while stack:
        node = stack.pop()
        cls = type(node)
        if cls is name_node:  # its only child is its context
            assert isinstance(node, ast.Name)
            if type(node.ctx) is load:
                reads.add(node.id)
            else:
                binds.append((node.id, node.lineno))
        elif cls is alias_node:  # no children
            assert isinstance(node, ast.alias)
            binds.append((node.asname or node.name.split(".")[0], node.lineno))
        elif isinstance(node, _DEFS):
            binds.append((node.name, node.lineno))
        elif cls is not lambda_node:
            _push_children(node, stack)
    return reads, binds


def function_bindings(tree: ast.Module, dead: list[tuple[int, int]],
                      starts: dict[str, int] | None = None
                      ) -> tuple[dict[str, dict[str, int]], dict[str, frozenset[str]]]:
    """Per function, for each name it binds and reads: how many of its bindings are outside
    folded branches (the ones that run, so the ones a pruning must keep); and per function
    every name it reads. Functions of one qualified name (typing
    overloads, a property and its setter) are counted together. ``starts``, when given,
    gets each function's first line."""
    counts_of: dict[str, dict[str, int]] = {}
    reads_of: dict[str, set[str]] = {}
    for name, func in function_scopes(tree):
        if starts is not None:
            starts[name] = min(starts.get(name, func.lineno), func.lineno)
        reads, binds = reads_and_bindings(func)
        reads_of.setdefault(name, set()).update(reads)
        counts = counts_of.setdefault(name, {})
        for var, line in binds:
            if var in reads and not any(s <= line <= e for s, e in dead):
                counts[var] = counts.get(var, 0) + 1
    return ({n: c for n, c in counts_of.items() if c},
            {n: frozenset(r) for n, r in reads_of.items()})


def unbound_reads(before: FileLint, after: FileLint) -> list[tuple[str, str, int, int]]:
    """(function, name, bindings before, now) of each function still reading a name that
    lost a binding the original ran: on some path the name may now be unbound (an import
    removed from one branch of a live function)."""
    out: list[tuple[str, str, int, int]] = []
    for func, want in sorted(before.bindings.items()):
        have = after.bindings.get(func, {})
        reads = after.reads.get(func, frozenset())
        for var, n in sorted(want.items()):
            now = have.get(var, 0)
            if now < n and var in reads:
                out.append((func, var, n, now))
    return out
