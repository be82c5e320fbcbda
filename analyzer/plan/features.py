"""Plan stage: name the dropped feature each deletion belongs to (its file, symbol, the CMake
target/fetch whose block it removes, the feature whose ``cmake_options`` turn off the
``if()`` block it removes or every place the build lists the file it deletes, or -- for a
test or script that goes with the feature -- the feature it selects or uses)."""

from __future__ import annotations

import dataclasses
import re

from analyzer.analysis.features import feature_of_node
from analyzer.config.globs import identifier_matches, path_matches
from analyzer.config.types import Feature
from analyzer.model import Deletion, Plan
from analyzer.nodes import Graph
from analyzer.resolve.cmake_cond import condition_options, forced_values, is_false
from analyzer.resolve.cmake_model import CMakeProject


def attribute_deletions(plan: Plan, graph: Graph, features: list[Feature],
                        project: CMakeProject | None = None) -> None:
    """Name the feature of every deletion whose file or symbol belongs to a dropped one. With
    the CMake ``project``: a CMake range inside an ``if()`` block the forced options turn off,
    and a native file every target lists only under false conditions, belong to the first
    dropped feature forcing one of the options that decide them."""
    if not features:
        return
    anchors = [(data["path"], data.get("start_line", 0), name)  # targets and fetches
               for node, data in graph.nodes(data=True)
               if data.get("kind") in ("target", "fetch")
               and (name := feature_of_node(data, features))]
    by_path: dict[str, list[str]] = {}  # a Python file's module, symbol and method nodes
    for node, data in graph.nodes(data=True):
        if data.get("kind") in ("module", "symbol", "method") and data.get("path"):
            by_path.setdefault(data["path"], []).append(node)
    off_blocks = project.off_blocks if project is not None else ()
    off_files = _off_file_options(project) if project is not None else {}
    out: list[Deletion] = []
    for d in plan.deletions:
        name = None
        defined = d.symbol.rsplit(":", 1)[-1] if d.symbol else ""
        for f in features:
            if path_matches(d.path, f.paths) or (d.symbol and (
                    path_matches(d.symbol, f.paths)
                    or identifier_matches(defined, f.identifiers)  # a function, Class.method
                    or identifier_matches(defined.rpartition(".")[2], f.identifiers))):
                name = f.name
                break
        if name is None and d.category == "cmake-block":
            name = next((n for p, line, n in anchors if p == d.path
                         and (d.start_line or 0) <= line <= (d.end_line or 0)), None)
        if name is None and d.category == "cmake-block":
            name = next((f.name for b in off_blocks if b.file == d.path
                         and b.start_line <= (d.start_line or 0) <= b.end_line
                         for f in features if any(o in f.cmake_options for o in b.options)),
                        None)
        if name is None and d.category == "native-file" and d.path in off_files:
            name = next((f.name for f in features
                         if any(o in f.cmake_options for o in off_files[d.path])), None)
        if name is None and d.category == "test-file":
            name = _tested_feature(graph, d, features, by_path)
        own: tuple[str, ...] = ()
        if name is None and d.category == "python-branch" and not d.feature:
            own = _fold_features(d.reason, features)  # a fold relying on several: all
            name = own[0] if own else None
        out.append(dataclasses.replace(d, feature=name or d.feature,
                                       features=own if len(own) > 1 else d.features))
    plan.deletions[:] = out


def _tested_feature(graph: Graph, d: Deletion, features: list[Feature],
                    by_path: dict[str, list[str]]) -> str | None:
    """A test or script deleted with a dropped feature: the first feature owning a key it
    selects, or owning something its code uses (``tests/test_flashmla.py`` imports
    ``sgl_kernel.flash_mla``)."""
    for f in features:
        if any(f"selects dropped key {k!r}" in d.reason
               for keys in f.registry_keys.values() for k in keys):
            return f.name
    for node in by_path.get(d.path, ()):
        for dst in graph.successors(node):
            data = graph.nodes[dst]
            if data.get("path") != d.path and (name := feature_of_node(data, features)):
                return name
    return None


_DROPPED_KEYS = re.compile(r": ([^():;]+) dropped \(")
_DROPPED_MEMBER = re.compile(r"([A-Za-z_][\w.]*): a dropped enum member")
_SELECTED_KEY = re.compile(r"selects dropped key '([^']+)'")


def _fold_features(reason: str, features: list[Feature]) -> tuple[str, ...]:
    """The dropped features a guard fold relied on, read from the facts its reason lists
    (guards_eval's notes): one of the feature's constants (``pkg.utils.is_npu = False``), its
    registry keys (``x.attention_backend: fa3 dropped (...)``, ``self.fa_version: 3 dropped
    (...)``, an arm that ``selects dropped key 'fa3'``) or its enum members
    (``AttentionBackendEnum.FLASHMLA: a dropped enum member``).
    A fold on the profile's platform constants alone belongs to no feature."""
    keys = {k.strip() for m in _DROPPED_KEYS.finditer(reason) for k in m.group(1).split(",")}
    keys |= {m.group(1) for m in _SELECTED_KEY.finditer(reason)}
    members = {m.group(1).rpartition(".")[2] for m in _DROPPED_MEMBER.finditer(reason)}
    out: list[str] = []
    for f in features:
        own = {str(k) for ks in f.registry_keys.values() for k in ks}
        own |= {str(k) for ks in f.registry_int_keys.values() for k in ks}
        if own & (keys | members) or any(
                re.search(rf"(?:^|[(; ]){re.escape(c)} = ", reason) for c in f.constants):
            out.append(f.name)
    return tuple(out)


def _off_file_options(project: CMakeProject) -> dict[str, tuple[str, ...]]:
    """Files every target lists only under a false condition (or only in targets not built)
    -> the forced options deciding those conditions."""
    forced = forced_values(dict(project.forced))
    if not forced:
        return {}
    out: dict[str, list[str]] = {}
    live: set[str] = set()
    for t in project.targets:
        for s in t.sources:
            if s.path is None:
                continue
            cond = (is_false(t.conditions, forced) if t.off else None) or (
                is_false(s.conditions, forced) if s.off else None)
            if cond is None:
                live.add(s.path)
            else:
                out.setdefault(s.path, []).extend(condition_options(cond, forced))
    return {p: tuple(dict.fromkeys(o)) for p, o in out.items() if p not in live}
