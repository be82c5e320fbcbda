"""Analysis stage: dropped features — what of each is removable, what is blocked, and why.

A feature (from the profile) names files by path globs, definitions by identifier patterns,
CMake targets, fetched repositories and extension modules. After liveness (with the feature's
registry keys and guards already folded away), each of its items is:

- ``removable``: nothing live reaches it; the plan's deletions of it carry the feature's name;
- ``blocked``: live code still reaches it through an unguarded path. It is never deleted and
  comes with the exact chain ``root -> file:line -> ... -> item``: the edit that unblocks it
  is at the last step that is not part of the feature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analyzer.analysis.liveness import Liveness, node_data
from analyzer.analysis.why import chain_steps
from analyzer.config.globs import (
    any_regex,
    identifier_matches,
    identifier_regex,
    path_matches,
    paths_regex,
)
from analyzer.config.types import Feature
from analyzer.model import Plan
from analyzer.nodes import Graph, NodeKind


@dataclass
class FeatureItem:
    feature: str
    node: str
    kind: NodeKind
    label: str
    status: str  # "removable" | "blocked"
    chain: list[str] = field(default_factory=list)


@dataclass
class FeatureReport:
    name: str
    description: str
    items: list[FeatureItem] = field(default_factory=list)
    files_removable: int = 0
    lines_removable: int = 0

    @property
    def blocked(self) -> list[FeatureItem]:
        return [i for i in self.items if i.status == "blocked"]

    @property
    def removable(self) -> list[FeatureItem]:
        return [i for i in self.items if i.status == "removable"]


def feature_of_node(data: dict[str, Any], features: list[Feature],
                    kept: list[Feature] | tuple[Feature, ...] = ()) -> str | None:
    """The first dropped feature an item belongs to, or None. An item a kept feature also
    claims (a file shared by fa3 and fa4 when only fa3 goes) belongs to no dropped one."""
    if kept and _claimed_by(data, kept):
        return None
    return _claimed_by(data, features)


def _claimed_by(data: dict[str, Any], features: list[Feature] | tuple[Feature, ...]) -> str | None:
    kind = data.get("kind")
    if kind == "target":
        name = data.get("name")
        return next((f.name for f in features if name in f.targets), None)
    if kind == "fetch":
        name = data.get("name")
        return next((f.name for f in features if name in f.fetches), None)
    if kind == "extension":
        module = data.get("module")
        return next((f.name for f in features if module in f.extension_modules), None)
    if kind in _PATH_KINDS:
        path = data.get("path", "")
        return next((f.name for f in features if path_matches(path, f.paths)), None)
    if kind == "symbol" or kind == "method":
        path = data.get("path", "")
        name = data.get("name" if kind == "symbol" else "method", "")
        return next((f.name for f in features if path_matches(path, f.paths)
                     or identifier_matches(name, f.identifiers)), None)
    return None


_PATH_KINDS = frozenset({"module", "native_file", "cmake_file", "op"})


class _Claims:
    """:func:`_claimed_by` of many items against one list of features: each path's and each
    name's first claiming feature is found once (a file's hundreds of symbols share its
    path; a name such as ``forward`` recurs in thousands of classes)."""

    def __init__(self, features: list[Feature] | tuple[Feature, ...]) -> None:
        self.features = features
        self._paths: dict[str, int] = {}  # path -> index of the first feature matching it
        self._names: dict[str, int] = {}  # (len(features): none)
        # what any of the features matches: most paths and names match none (one call each)
        self._any_path = any_regex(paths_regex(f.paths) for f in features)
        self._any_name = any_regex(identifier_regex(f.identifiers) for f in features)

    def _first_path(self, path: str) -> int:
        first = self._paths.get(path)
        if first is None:
            first = self._paths[path] = len(self.features) if self._any_path is None \
                or not self._any_path.match(path) else next(
                (i for i, f in enumerate(self.features) if path_matches(path, f.paths)),
                len(self.features))
        return first

    def _first_name(self, name: str) -> int:
        first = self._names.get(name)
        if first is None:
            first = self._names[name] = len(self.features) if self._any_name is None \
                or not self._any_name.match(name) else next(
                (i for i, f in enumerate(self.features)
                 if identifier_matches(name, f.identifiers)), len(self.features))
        return first

    def of(self, data: dict[str, Any]) -> str | None:
        kind = data.get("kind")
        if kind in _PATH_KINDS:
            first = self._first_path(data.get("path", ""))
        elif kind == "symbol" or kind == "method":  # the first matching by path or by name
            first = min(self._first_path(data.get("path", "")), self._first_name(
                data.get("name" if kind == "symbol" else "method", "")))
        else:
            return _claimed_by(data, self.features)
        return self.features[first].name if first < len(self.features) else None


def feature_nodes(graph: Graph, features: list[Feature],
                  kept: list[Feature] | tuple[Feature, ...] = ()) -> dict[str, str]:
    """node -> feature name, for every node belonging to a dropped feature (what
    :func:`feature_of_node` answers for each)."""
    dropped, keeping = _Claims(features), _Claims(kept)
    out: dict[str, str] = {}
    for node, data in node_data(graph).items():
        if kept and keeping.of(data):
            continue
        name = dropped.of(data)
        if name:
            out[node] = name
    return out


def analyze_features(graph: Graph, live: Liveness, features: list[Feature],
                     members: dict[str, str], plan: Plan) -> list[FeatureReport]:
    """Each feature's items (:func:`feature_items`) with its share's figures in ``plan``
    (:func:`count_shares`)."""
    reports = feature_items(graph, live, features, members)
    count_shares(reports, plan)
    return reports


def feature_items(graph: Graph, live: Liveness, features: list[Feature],
                  members: dict[str, str]) -> list[FeatureReport]:
    """Each feature's items, removable or blocked (with the chain that keeps it): functions
    of the graph and its liveness only, known before the plan's deletions are labelled."""
    reports = {f.name: FeatureReport(f.name, f.description) for f in features}
    for node in sorted(members):
        data = graph.nodes[node]
        label = node.split(":", 1)[1] if ":" in node else node
        status = "blocked" if live.is_live(node) else "removable"
        item = FeatureItem(members[node], node, data.get("kind", ""), label, status)
        if status == "blocked":
            item.chain = chain_steps(graph, live, node)
        reports[members[node]].items.append(item)
    return [reports[f.name] for f in features]


def count_shares(features: list[FeatureReport], plan: Plan) -> None:
    """Add to each feature's report the lines and whole files of its share of ``plan`` (the
    deletions labelled with it)."""
    reports = {f.name: f for f in features}
    for d in plan.deletions:  # a feature's share: what goes once it is applied (an item in
        #                          several shares counts in each)
        for name in d.features or ((d.feature,) if d.feature and not d.with_features
                                      and not d.after else ()):
            if name in reports:
                reports[name].lines_removable += d.lines
                if d.kind == "delete_file":
                    reports[name].files_removable += 1
