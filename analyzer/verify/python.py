"""Verify stage, Python: what the pruning may have broken in the Python files it edited,
compared with what the manifest recorded of the original tree.

``python_baseline(result, deletions)`` runs at scan time on the original tree, for the files
the plan edits: pyflakes' undefined names (counts per name), the module-level names and class
attributes each file binds, and the number of module-level ``raise`` statements. Stored in the
manifest (``verify_baseline_python``), so ``depgraph verify --before`` needs no copy of the
original tree.

``check_python(result, baseline)`` runs on the re-scan of the pruned tree and reports, as
``path:line: what``:
- a name pyflakes finds undefined more often than before (an import, assignment or definition
  removed while remaining code reads it, a string annotation naming a removed
  ``TYPE_CHECKING`` import);
- a module-level name or class attribute (an enum member) the pruning removed while remaining
  code imports it or reads it as ``module.name`` / ``Class.attr``;
- a module whose body now raises at import (more module-level ``raise`` statements than
  before: a ``try`` folded onto a handler that raises).
Nothing is imported or run: files are parsed with ``ast`` and read with pyflakes.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from analyzer.plan.check import (
    FileSim,
    chain_conflicts,
    class_attrs,
    import_conflicts,
    module_names,
    undefined_names,
)
from analyzer.util.parallel import parallel_map
from analyzer.verify.problem import VerifyProblem

if TYPE_CHECKING:
    from analyzer.extract.cache import FactsCache
    from analyzer.pipeline.scan import ScanResult

_CACHE_KIND = "verify-python"  # facts-cache entries of _file_facts


def _file_facts(source: bytes, path: str, dead: list[tuple[int, int]],
                undefined: dict[str, int] | None) -> dict[str, Any] | None:
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None
    return {
        "undefined": undefined if undefined is not None else dict(
            undefined_names(tree, path, None)),
        "names": sorted(module_names(tree)),
        "classes": {c: sorted(a) for c, a in class_attrs(tree).items()},
        "raises": sum(1 for s in tree.body if isinstance(s, ast.Raise)),
        "bindings": _live_bindings(tree, dead),
    }


def python_baseline(sources: dict[str, bytes], edited: set[str],
                    dead: dict[str, list[tuple[int, int]]] | None = None,
                    linted: dict[str, dict[str, int]] | None = None,
                    cache: FactsCache | None = None, jobs: int = 1) -> dict[str, Any]:
    """Facts of the original files the plan edits (see the module docstring). ``dead``:
    per file, the line ranges of folded branches (code that never runs on the target);
    ``linted``: pyflakes' undefined names of originals the plan check already linted.
    ``cache``: the facts cache, where each file's facts are kept under its bytes and folded
    ranges (a pure function of both), so a re-analysis parses only what changed. Files not
    cached are parsed and linted in ``jobs`` worker processes."""
    out: dict[str, Any] = {}
    todo: list[tuple[bytes, str, list[tuple[int, int]], dict[str, int] | None]] = []
    keys: list[str] = []
    for path in sorted(edited):
        data = sources.get(path)
        if data is None or not path.endswith((".py", ".pyi")):
            continue
        ranges = sorted((dead or {}).get(path, []))
        key = hashlib.sha256(data + repr(ranges).encode()).hexdigest()
        cached = cache.get(path, key, _CACHE_KIND) if cache is not None else None
        if cached is not None:
            if cached:  # {} stands for "does not parse"
                out[path] = cached
        else:
            todo.append((data, path, ranges, (linted or {}).get(path)))
            keys.append(key)
    done = parallel_map(_file_facts_job, todo, jobs, size=lambda job: len(job[0]))
    for (_, path, _, _), key, facts in zip(todo, keys, done, strict=True):
        if cache is not None:
            cache.put(path, key, _CACHE_KIND, facts or {})
        if facts is not None:
            out[path] = facts
    return dict(sorted(out.items()))


def _file_facts_job(job: tuple[bytes, str, list[tuple[int, int]], dict[str, int] | None]
                    ) -> dict[str, Any] | None:
    return _file_facts(*job)


def _scopes(tree: ast.Module
            ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, function node) of every function, methods as ``Class.method``."""
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    yield name, child
                stack.append((name + ".", child))
            elif not isinstance(child, ast.expr):
                stack.append((prefix, child))


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function's own scope (not of nested functions, classes or lambdas)."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                          | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _bindings_in(func: ast.AST) -> tuple[set[str], list[tuple[str, int]]]:
    """Names a function reads, and its bindings as (name, line)."""
    reads: set[str] = set()
    binds: list[tuple[str, int]] = []
    for node in _own_nodes(func):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                reads.add(node.id)
            else:
                binds.append((node.id, node.lineno))
        elif isinstance(node, ast.alias):
            binds.append((node.asname or node.name.split(".")[0], node.lineno))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            binds.append((node.name, node.lineno))
    return reads, binds


def _live_bindings(tree: ast.Module, dead: list[tuple[int, int]]) -> dict[str, dict[str, int]]:
    """Per function, for each name it binds and reads: how many of its bindings are outside
    folded branches (the ones that run, so the ones a pruning must keep)."""
    out: dict[str, dict[str, int]] = {}
    for name, func in _scopes(tree):
        reads, binds = _bindings_in(func)
        counts = out.get(name, {})  # overloads and setters: one name, counted together
        for var, line in binds:
            if var in reads and not any(s <= line <= e for s, e in dead):
                counts[var] = counts.get(var, 0) + 1
        if counts:
            out[name] = counts
    return out


def check_python(result: ScanResult, baseline: dict[str, Any]) -> list[VerifyProblem]:
    """Problems of the pruned tree's edited files against ``baseline``."""
    problems: list[VerifyProblem] = []
    lost_names: dict[str, set[str]] = {}
    lost_attrs: dict[tuple[str, str], set[str]] = {}
    sims: dict[str, FileSim] = {}
    index = result.index
    for path, before in sorted(baseline.items()):
        try:
            data = (result.root / path).read_bytes()
        except OSError:
            continue  # deleted: the import checks of the re-scan cover it
        after_tree = _parse(data, path)
        if after_tree is None:
            continue  # reported by the compile check
        lines: dict[str, int] = {}
        after = undefined_names(after_tree, path, lines)
        for name, n in sorted(after.items()):
            if n > before["undefined"].get(name, 0):
                problems.append(VerifyProblem(path, lines.get(name, 0),
                                              f"undefined name {name!r} (new after pruning)"))
        raises = sum(1 for s in after_tree.body if isinstance(s, ast.Raise))
        if raises > before["raises"]:
            line = next(s.lineno for s in after_tree.body if isinstance(s, ast.Raise))
            problems.append(VerifyProblem(path, line, "the module now raises when imported "
                                          "(a module-level raise the original did not run)"))
        problems.extend(_unbound(path, after_tree, before.get("bindings", {})))
        module = index.by_path.get(path)
        if module is None:
            continue
        gone = set(before["names"]) - module_names(after_tree)
        if gone:
            lost_names[module] = gone
        attrs = class_attrs(after_tree)
        for cls, names in before["classes"].items():
            lost = set(names) - attrs.get(cls, set())
            if lost:
                lost_attrs[(module, cls)] = lost
        sims[path] = FileSim()
    if lost_names or lost_attrs:
        watched = set().union(*lost_names.values(), *lost_attrs.values())
        for name in sorted(index.modules):
            mod = index.modules[name]
            found = import_conflicts(index, mod, None, set(), lost_names, sims, {})
            found += chain_conflicts(index, mod, None, watched, lost_names, lost_attrs, sims)
            problems.extend(VerifyProblem(c.path, c.line, c.what + " (removed by the pruning)")
                            for c in found)
    return problems


def _unbound(path: str, tree: ast.Module, expected: dict[str, dict[str, int]]
             ) -> list[VerifyProblem]:
    """A function still reading a name that lost a binding the original ran: on some path
    the name may now be unbound (an import removed from one branch of a live function)."""
    out: list[VerifyProblem] = []
    # functions of one qualified name (typing overloads, a property and its setter) are
    # counted together, as the baseline counted them
    grouped: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for name, func in _scopes(tree):
        grouped.setdefault(name, []).append(func)
    for name, funcs in grouped.items():
        want = expected.get(name)
        if not want:
            continue
        reads: set[str] = set()
        have: dict[str, int] = {}
        for func in funcs:
            r, binds = _bindings_in(func)
            reads |= set(r)
            for var, _line in binds:
                have[var] = have.get(var, 0) + 1
        for var, n in sorted(want.items()):
            if var in reads and have.get(var, 0) < n:
                out.append(VerifyProblem(path, funcs[0].lineno, f"{name}: {var!r} may be "
                                         f"unbound (bound {n} times before, "
                                         f"{have.get(var, 0)} now)"))
    return out


def _parse(data: bytes, path: str) -> ast.Module | None:
    try:
        return ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        return None
