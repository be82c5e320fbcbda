"""Analysis stage: turn a profile's declarations into graph options, roots and keep-nodes.

The profile (config stage) says what the code cannot: entry points, registries and which of
their keys belong to dropped features, plugin families, never-delete entries. This module
maps those names onto the module index and the graph, and reports declarations that match
nothing (stale), so an allow-list cannot rot silently.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

import networkx as nx

from analyzer.analysis.features import path_matches
from analyzer.graph import GraphOptions
from analyzer.profile import Feature, Profile
from analyzer.resolve import ModuleIndex, module_node, symbol_node


@dataclass
class ProfileUse:
    profile: Profile | None
    drops: tuple[str, ...]
    features: list[Feature] = field(default_factory=list)  # the dropped ones
    stale: list[str] = field(default_factory=list)  # declarations that match nothing

    def dropped_keys(self, registry: str) -> frozenset[str]:
        return frozenset(k for f in self.features for k in f.registry_keys.get(registry, ()))


def profile_use(profile: Profile | None, drops: tuple[str, ...]) -> ProfileUse:
    features = [profile.features[d] for d in drops] if profile else []
    return ProfileUse(profile, drops, features)


def graph_options(use: ProfileUse, index: ModuleIndex,
                  dead_lines: dict[str, tuple[tuple[int, int], ...]] | None = None
                  ) -> GraphOptions:
    profile = use.profile
    if profile is None:
        return GraphOptions(dead_lines=dead_lines or {})
    registries = {r.target: (r.key_arg, use.dropped_keys(r.name))
                  for r in profile.registries if r.kind == "decorator"}
    families = frozenset(f.package for f in profile.plugin_families if f.select == "roots")
    for fam in profile.plugin_families:
        if not index.is_module(fam.package):
            use.stale.append(f"{profile.source}:{fam.line}: plugin family {fam.package} "
                             "matches no package")
    for reg in profile.registries:
        module, _, name = reg.target.rpartition(".")
        if not (index.is_module(module) and (name in index.modules[module].defs
                                             if module in index.modules else False)):
            use.stale.append(f"{profile.source}:{reg.line}: registry {reg.name} target "
                             f"{reg.target} matches no definition")
    return GraphOptions(dead_lines=dead_lines or {}, registries=registries,
                        restricted_families=families)


def entry_point_nodes(use: ProfileUse, graph: nx.DiGraph) -> list[str]:
    if use.profile is None:
        return []
    nodes: list[str] = []
    for ep in use.profile.entry_points:
        mod, _, sym = ep.partition(":")
        node = symbol_node(mod, sym) if sym else module_node(mod)
        if node in graph:
            nodes.append(node)
        else:
            use.stale.append(f"{use.profile.source}: entry point {ep} matches nothing")
    return nodes


def all_family_modules(use: ProfileUse, index: ModuleIndex) -> list[str]:
    """Every module of a ``select = "all"`` plugin family is a root."""
    if use.profile is None:
        return []
    out: list[str] = []
    for fam in use.profile.plugin_families:
        if fam.select == "all":
            out.extend(module_node(m) for m in index.submodules(fam.package, fam.recursive)
                       if m in index.modules)
    return out


def never_delete_nodes(use: ProfileUse, graph: nx.DiGraph) -> list[str]:
    if use.profile is None:
        return []
    nodes: list[str] = []
    for entry in use.profile.never_delete:
        hits: list[str] = []
        if entry.symbol:
            mod, _, sym = entry.symbol.partition(":")
            node = symbol_node(mod, sym) if sym else module_node(mod)
            hits = [node] if node in graph else []
        elif entry.path:
            hits = [n for n, d in graph.nodes(data=True)
                    if d.get("kind") in ("module", "native_file", "cmake_file")
                    and path_matches(d.get("path", ""), (entry.path,))]
        if not hits:
            use.stale.append(f"{use.profile.source}:{entry.line}: never_delete entry "
                             f"{entry.symbol or entry.path} matches nothing (stale)")
        nodes.extend(hits)
    return nodes


def without_dropped(roots: list[str], graph: nx.DiGraph, use: ProfileUse) -> list[str]:
    """Default roots inside a dropped feature (a backend's self-test `__main__`) are no
    roots: they would keep the feature alive by themselves."""
    from analyzer.analysis.features import feature_of_node

    return [r for r in roots if feature_of_node(graph.nodes[r], use.features) is None]


def keep_target_names(use: ProfileUse, cli: tuple[str, ...], all_targets: list[str]) -> tuple[
        str, ...]:
    names = list(cli)
    if use.profile is not None:
        for pattern in use.profile.keep_targets:
            if any(fnmatch.fnmatchcase(t, pattern) for t in all_targets):
                names.append(pattern)
            elif all_targets:
                use.stale.append(f"{use.profile.source}: keep_targets {pattern} matches no "
                                 "target")
    return tuple(dict.fromkeys(names))
