"""Plan stage, soundness, native half: the build a plan would leave, simulated from the
original -- its CMake files with the planned lines removed and parsed again, the project
evaluated again over what remains, op registrations the plan removes gone -- as a
:class:`~analyzer.plan.check.native.NativeState` the shared native checks read; and, for a
native break, what to keep so that it goes away.

Nothing is written: the CMake text a plan leaves is what ``depgraph apply`` writes (whole
lines removed), so the simulation is exact.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

from analyzer.extract import cmake as cmake_extract
from analyzer.extract.cmake import CmakeFacts
from analyzer.extract.cuda import CudaFacts
from analyzer.graph.native import NativeIndex, add_native_graph
from analyzer.model import Deletion, Plan, Ranges
from analyzer.nodes import fetch_node, file_node, op_node, target_node
from analyzer.plan.check.breaks import Break
from analyzer.plan.check.conflicts import new_breaks
from analyzer.plan.check.native import NativeState, native_breaks, op_reads
from analyzer.plan.check.view import PythonView, planned_view
from analyzer.plan.cmake_vars import defined_var
from analyzer.resolve.python import ModuleIndex
from analyzer.resolve.tree import evaluate_cached


@dataclass(frozen=True)
class Build:
    """The original build, as a plan's simulation starts from it."""

    cmake: Mapping[str, CmakeFacts]
    native: Mapping[str, CudaFacts]  # op namespaces resolved
    files: frozenset[str]
    lines: Mapping[str, int]
    sources: Mapping[str, bytes]
    forced: Mapping[str, bool | str]
    system_libraries: tuple[str, ...] = ()
    # (path, sha256 of its pruned bytes) -> facts: CMake files parsed again, kept per scan
    parsed: dict[tuple[str, str], CmakeFacts] = field(default_factory=dict, compare=False)
    # the native deletions of a plan -> the build they leave: rounds that change only the
    # Python half of the plan evaluate the build once
    built: dict[frozenset[Deletion], NativeIndex] = field(default_factory=dict, compare=False)
    # the sha256 of each CMake file's bytes: the project a plan leaves is evaluated once for
    # all scans, stored (as the original's is: ``resolve.tree.evaluate_cmake``)
    digests: Mapping[str, str] = field(default_factory=dict, compare=False)


def planned_native(plan: Plan, build: Build, index: ModuleIndex, view: PythonView
                   ) -> NativeState:
    """The build ``plan`` leaves, with the ``torch.ops`` reads of the Python it leaves."""
    native_half = frozenset(d for d in plan.deletions if d.path not in view.index.by_path)
    index_now = build.built.get(native_half)
    if index_now is None:
        index_now = build.built[native_half] = _planned_build(plan, build, index, view)
    remaining = [m for m in index.modules if m not in view.deleted]
    deleted = {d.path for d in plan.deletions if d.kind == "delete_file"}
    return NativeState(index_now, build.files - deleted,
                       op_reads(index, remaining, view.gone), build.system_libraries)


def _planned_build(plan: Plan, build: Build, index: ModuleIndex, view: PythonView
                   ) -> NativeIndex:
    deleted = {d.path for d in plan.deletions if d.kind == "delete_file"}
    ranges: dict[str, Ranges] = {}
    lines: dict[str, list[tuple[int, int]]] = {}
    for d in plan.deletions:
        if d.kind == "delete_range" and d.start_line and d.path not in view.index.by_path:
            end = d.end_line or d.start_line
            ranges.setdefault(d.path, Ranges()).add(d.start_line, end)
            lines.setdefault(d.path, []).append((d.start_line, end))
    cmake: dict[str, CmakeFacts] = {}
    digests: dict[str, str] = {}  # (of the bytes the plan leaves)
    for path, facts in build.cmake.items():
        if path in deleted:
            continue
        if path in lines:
            data = drop_lines(build.sources.get(path, b""), lines[path])
            key = (path, hashlib.sha256(data).hexdigest())
            facts = build.parsed.get(key) or build.parsed.setdefault(
                key, cmake_extract.extract(path, data))
            digests[path] = key[1]
        elif path in build.digests:
            digests[path] = build.digests[path]
        cmake[path] = facts
    files = build.files - deleted
    project = evaluate_cached(cmake, digests, files, build.forced,
                              stored=len(digests) == len(cmake))
    native = {p: (replace(f, ops=tuple(op for op in f.ops
                                       if not ranges[p].covers(op.line, op.end_line or op.line)))
                  if p in ranges else f)
              for p, f in build.native.items() if p not in deleted}
    return add_native_graph(nx.DiGraph(), index, native, project, cmake, dict(build.lines),
                            build.system_libraries)


def drop_lines(data: bytes, ranges: list[tuple[int, int]]) -> bytes:
    """``data`` without the 1-based inclusive line ranges (what the codemod's text edits do)."""
    kept = [line for i, line in enumerate(data.splitlines(keepends=True), 1)
            if not any(s <= i <= e for s, e in ranges)]
    return b"".join(kept)


def native_plan_breaks(plan: Plan, build: Build, index: ModuleIndex,
                       baseline: dict[str, Any], before: Counter[tuple[str, str, str]]
                       ) -> list[tuple[Break, list[Keep]]]:
    """The native breaks of the build ``plan`` leaves that the original (``baseline``, and
    its own breaks ``before``) did not have, each with what to keep."""
    state = planned_native(plan, build, index, planned_view(plan, index, {}))
    return [(b, native_blame(b, build))
            for b in new_breaks(native_breaks(baseline, state), before)]


@dataclass(frozen=True)
class Keep:
    """What a native break asks to keep: a graph node (a target, a fetched repository, an op,
    a native file) or a CMake command by (path, line) -- line 0: the whole file."""

    node: str | None = None
    line: tuple[str, int] | None = None


def native_blame(b: Break, build: Build) -> list[Keep]:
    """What to keep so that native break ``b`` goes away (``b.module``: what it needs, by
    kind; ``b.name``: which)."""
    kind, name = b.module, b.name
    if kind == "target":
        return [Keep(node=target_node(name))]
    if kind == "fetch":
        return [Keep(node=fetch_node(name))]
    if kind == "op":
        ns, _, op = name.partition("::")
        return [Keep(node=op_node(ns, op))]
    if kind == "file":
        return [Keep(node=file_node(name)) if name in build.native else Keep(line=(name, 0))]
    if kind == "include":
        return [Keep(line=(path, 0)) for path in build.cmake if path.endswith(
            name.strip('"').rsplit("}", 1)[-1].lstrip("/"))]
    if kind == "variable":  # every command of the original that set it
        return [Keep(line=(path, c.start_line)) for path, facts in build.cmake.items()
                for c in facts.commands if defined_var(c) == name
                or (c.name == "option" and c.args and c.args[0].value == name)]
    if kind == "line":
        path, _, line = name.rpartition(":")
        return [Keep(line=(path, int(line)))]
    return []
