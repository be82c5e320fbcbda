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
from typing import Any

from analyzer.plan_check import (
    FileSim,
    _chain_conflicts,
    _class_attrs,
    _import_conflicts,
    _module_names,
    _undefined,
)


def _file_facts(source: bytes, path: str) -> dict[str, Any] | None:
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None
    return {
        "undefined": dict(_undefined(tree, path, None)),
        "names": sorted(_module_names(tree)),
        "classes": {c: sorted(a) for c, a in _class_attrs(tree).items()},
        "raises": sum(1 for s in tree.body if isinstance(s, ast.Raise)),
    }


def python_baseline(sources: dict[str, bytes], edited: set[str]) -> dict[str, Any]:
    """Facts of the original files the plan edits (see the module docstring)."""
    out: dict[str, Any] = {}
    for path in sorted(edited):
        data = sources.get(path)
        if data is None or not path.endswith((".py", ".pyi")):
            continue
        facts = _file_facts(data, path)
        if facts is not None:
            out[path] = facts
    return out


def check_python(result, baseline: dict[str, Any]) -> list:
    """Problems of the pruned tree's edited files against ``baseline``."""
    from analyzer.verify import VerifyProblem

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
        after = _undefined(after_tree, path, lines)
        for name, n in sorted(after.items()):
            if n > before["undefined"].get(name, 0):
                problems.append(VerifyProblem(path, lines.get(name, 0),
                                              f"undefined name {name!r} (new after pruning)"))
        raises = sum(1 for s in after_tree.body if isinstance(s, ast.Raise))
        if raises > before["raises"]:
            line = next(s.lineno for s in after_tree.body if isinstance(s, ast.Raise))
            problems.append(VerifyProblem(path, line, "the module now raises when imported "
                                          "(a module-level raise the original did not run)"))
        module = index.by_path.get(path)
        if module is None:
            continue
        gone = set(before["names"]) - _module_names(after_tree)
        if gone:
            lost_names[module] = gone
        attrs = _class_attrs(after_tree)
        for cls, names in before["classes"].items():
            lost = set(names) - attrs.get(cls, set())
            if lost:
                lost_attrs[(module, cls)] = lost
        sims[path] = FileSim()
    if lost_names or lost_attrs:
        watched = set().union(*lost_names.values(), *lost_attrs.values())
        for name in sorted(index.modules):
            mod = index.modules[name]
            found = _import_conflicts(index, mod, None, set(), lost_names, sims, {})
            found += _chain_conflicts(index, mod, None, watched, lost_names, lost_attrs, sims)
            problems.extend(VerifyProblem(c.path, c.line, c.what + " (removed by the pruning)")
                            for c in found)
    return problems


def _parse(data: bytes, path: str) -> ast.Module | None:
    try:
        return ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        return None
