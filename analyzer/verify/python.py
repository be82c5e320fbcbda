"""Verify stage, Python: the breaks of a pruned tree, by the checks the plan's soundness check
runs (``analyzer.plan.check.breaks``: one definition of broken), against what the manifest
recorded of the original tree.

``python_baseline(sources, edited, ...)`` runs at scan time on the original tree, for the
files the plan edits: each file's :class:`~analyzer.plan.check.lint.FileLint` (pyflakes'
undefined names, module-level names, class attributes, module-level ``raise`` statements, the
bindings each function runs), stored in the manifest (``verify_baseline_python``), so
``depgraph verify --before`` needs no copy of the original tree. The breaks the original
already had (``verify_baseline_breaks``: an optional package's import, a string naming
nothing) and the methods each class defined (``verify_baseline_members``) are recorded beside.

``check_python(result, manifest)`` runs on the re-scan of the pruned tree: it reads each edited
file back from disk, builds the view of the tree (``pruned_view``) and lists every break the
original did not have -- an import or dotted string of any remaining file naming what is
gone, a chain through a lost name or enum member, a new undefined name, a module that now
raises at import, a function reading a name that lost a binding, a method read but gone.
Nothing is imported or run: files are parsed with ``ast`` and read with pyflakes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from analyzer.core.store import Query
from analyzer.discover.walk import file_module_name
from analyzer.plan.check.breaks import Break, defined_methods, python_breaks
from analyzer.plan.check.conflicts import new_breaks
from analyzer.plan.check.lint import FileLint, lint_tree, parse
from analyzer.plan.check.view import pruned_view
from analyzer.util.parallel import parallel_map
from analyzer.verify.edited import EditedFile, read_now
from analyzer.verify.problem import VerifyProblem, problem_of

if TYPE_CHECKING:
    from analyzer.result import ScanResult

_CACHE_KIND = "verify-python"  # facts-cache entries of _file_facts
VERIFY_PYTHON = Query("verify-python", code=("analyzer.verify.python",), dists=("pyflakes",))


def _file_facts(source: bytes, path: str, dead: list[tuple[int, int]],
                undefined: dict[str, int] | None) -> dict[str, Any] | None:
    tree = parse(source, path)
    if tree is None:
        return None
    known = Counter(undefined) if undefined is not None else None
    return lint_tree(tree, path, dead, known).to_json()


def python_baseline(sources: Mapping[str, bytes], edited: set[str],
                    dead: dict[str, list[tuple[int, int]]] | None = None,
                    linted: dict[str, dict[str, int]] | None = None,
                    jobs: int = 1) -> dict[str, Any]:
    """Facts of the original files the plan edits (see the module docstring). ``dead``:
    per file, the line ranges of folded branches (code that never runs on the target);
    ``linted``: pyflakes' undefined names of originals the plan check already linted.
    Each file's facts are stored under its bytes and folded ranges (a pure function of
    both), so a re-analysis parses only what changed. Files not stored are parsed and
    linted in ``jobs`` worker processes."""
    from analyzer.extract.cache import stored_facts

    cache = stored_facts()
    out: dict[str, Any] = {}
    todo: list[tuple[bytes, str, list[tuple[int, int]], dict[str, int] | None]] = []
    keys: list[str] = []
    for path in sorted(edited):
        data = sources.get(path)
        if data is None or not path.endswith((".py", ".pyi")):
            continue
        ranges = sorted((dead or {}).get(path, []))
        key = hashlib.sha256(data + repr(ranges).encode()).hexdigest()
        cached = cache.get(path, key, _CACHE_KIND, VERIFY_PYTHON) if cache is not None else None
        if cached is not None:
            if cached:  # {} stands for "does not parse"
                out[path] = cached
        else:
            todo.append((data, path, ranges, (linted or {}).get(path)))
            keys.append(key)
    done = parallel_map(_file_facts_job, todo, jobs, size=lambda job: len(job[0]))
    for (_, path, _, _), key, facts in zip(todo, keys, done, strict=True):
        if cache is not None:
            cache.put(path, key, _CACHE_KIND, facts or {}, VERIFY_PYTHON)
        if facts is not None:
            out[path] = facts
    return dict(sorted(out.items()))


def _file_facts_job(job: tuple[bytes, str, list[tuple[int, int]], dict[str, int] | None]
                    ) -> dict[str, Any] | None:
    return _file_facts(*job)


def check_python(result: ScanResult, manifest: dict[str, Any], jobs: int = 1,
                 edited: Mapping[str, EditedFile] | None = None) -> list[VerifyProblem]:
    """The Python breaks of the pruned tree ``result`` that the original (as ``manifest``
    recorded it) did not have. ``edited``: the edited files as they are now
    (:class:`~analyzer.verify.edited.EditedFiles`, read beside the scan); without it they
    are linted again here, in ``jobs`` worker processes."""
    baseline = manifest.get("verify_baseline_python") or {}
    before = {path: FileLint.from_json(data) for path, data in baseline.items()}
    if edited is None:
        edited = read_now([(result.root, path) for path in sorted(before)], jobs)
    # (a deleted file is not there: the import checks cover it; an unparsed one has no lint:
    # the compile check reports it)
    after = {path: lint for path in sorted(before)
             if (now := edited.get(path)) is not None and (lint := now.lint) is not None}
    siblings = {(importer, written): absolute for importer, written, absolute
                in manifest.get("verify_baseline_siblings", ())}
    view = pruned_view(result.index, before, after,
                       frozenset(manifest.get("verify_baseline_extensions", ())), siblings)
    members = manifest.get("verify_baseline_members")
    methods_before = {name: [c for c in where if ":" in c]
                      for name, where in (members or {}).items()}
    found = python_breaks(view, None, methods_before if members is not None else None,
                          defined_methods(result.index))
    original = Counter(tuple(k) for k in manifest.get("verify_baseline_breaks", ()))
    breaks = new_breaks(found, original)
    unparsed = set(manifest.get("verify_baseline_unparsed", ()))
    if unparsed:
        touched = _touched_modules(result, manifest)
        breaks = [b for b in breaks if b.path not in unparsed or _may_follow(b, touched)]
    return [problem_of(b) for b in breaks]


def _touched_modules(result: ScanResult, manifest: dict[str, Any]) -> set[str]:
    """The modules of the files the applied entries of ``manifest`` delete or edit (every
    entry unless an apply state says which features were applied)."""
    from analyzer.codemod.apply import selected
    from analyzer.codemod.apply_state import load

    state = load(result.root, strict=False)
    applied = state.applied_features if state.features else None
    roots = result.discovery.python_roots
    return {name for e in manifest.get("deletions", []) if selected(e, applied)
            if (name := file_module_name(str(e.get("path", "")), roots)) is not None}


def _may_follow(b: Break, touched: set[str]) -> bool:
    """A break of a file the scan of the original never parsed (so its own breaks were not
    recorded) follows from the pruning only if what it names is, holds or lies in a module
    the pruning touched; anything else it already had."""
    m = b.module
    return not m or any(t == m or t.startswith(m + ".") or m.startswith(t + ".")
                        for t in touched)
