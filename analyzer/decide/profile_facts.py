"""Analysis stage: turn a profile's declarations into graph options, roots and keep-nodes.

The profile (config stage) says what the code cannot: entry points, registries and which of
their keys belong to dropped features, plugin families, never-delete entries. This module
maps those names onto the module index and the graph, and reports declarations that match
nothing (stale), so an allow-list cannot rot silently.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

import networkx as nx

from analyzer.analysis.features import path_matches
from analyzer.config.profile import Feature, Profile, effective_constants
from analyzer.decide.guards import GuardContext
from analyzer.graph.python import GraphOptions
from analyzer.resolve.python import ModuleIndex, module_node, symbol_node


@dataclass
class ProfileUse:
    profile: Profile | None
    drops: tuple[str, ...]
    features: list[Feature] = field(default_factory=list)  # the dropped ones
    kept_features: list[Feature] = field(default_factory=list)  # the profile's others
    stale: list[str] = field(default_factory=list)  # declarations that match nothing
    # registry keys of dropped features that live code still produces as a value
    # (``self.attention_backend = "fa3"``): key -> "path:line: what"; they stay selectable
    blocked_keys: dict[str, str] = field(default_factory=dict)

    def dropped_keys(self, registry: str) -> frozenset[str]:
        return frozenset(k for f in self.features for k in f.registry_keys.get(registry, ())
                         if k not in self.blocked_keys)

    def all_dropped_keys(self) -> frozenset[str]:
        return frozenset(k for f in self.features for keys in f.registry_keys.values()
                         for k in keys if k not in self.blocked_keys)


def profile_use(profile: Profile | None, drops: tuple[str, ...]) -> ProfileUse:
    features = [profile.features[d] for d in drops] if profile else []
    kept = [f for n, f in profile.features.items() if n not in drops] if profile else []
    return ProfileUse(profile, drops, features, kept)


def graph_options(use: ProfileUse, index: ModuleIndex,
                  dead_lines: dict[str, tuple[tuple[int, int], ...]] | None = None,
                  frozen_imports: frozenset[str] = frozenset()) -> GraphOptions:
    profile = use.profile
    if profile is None:
        return GraphOptions(dead_lines=dead_lines or {}, frozen_imports=frozen_imports)
    registries = {r.target: (r.key_arg, use.dropped_keys(r.name))
                  for r in profile.registries if r.kind == "decorator"}
    families = frozenset(f.package for f in profile.plugin_families
                         if f.select in ("roots", "companion"))
    for fam in profile.plugin_families:
        if not index.is_module(fam.package):
            use.stale.append(f"{profile.source}:{fam.line}: plugin family {fam.package} "
                             "matches no package")
    for reg in profile.registries:
        if index.resolve_dotted(reg.target).kind in ("unresolved", "external"):
            use.stale.append(f"{profile.source}:{reg.line}: registry {reg.name} target "
                             f"{reg.target} matches no definition")
    return GraphOptions(dead_lines=dead_lines or {}, registries=registries,
                        restricted_families=families, frozen_imports=frozen_imports)


def add_profile_edges(use: ProfileUse, graph: nx.DiGraph, index: ModuleIndex) -> None:
    """Edges only the profile knows: companion families and dynamic-import hints."""
    profile = use.profile
    if profile is None:
        return
    for fam in profile.plugin_families:
        if fam.select != "companion":
            continue
        # a module of the family is live when a live module of `companion_of` is: encode it
        # as an edge from each companion module it imports to it
        for name in index.submodules(fam.package, fam.recursive):
            me = module_node(name)
            if me not in graph:
                continue
            for dst in list(graph.successors(me)):
                mod = graph.nodes[dst].get("module", "")
                if mod == fam.companion_of or mod.startswith(fam.companion_of + "."):
                    owner = module_node(mod)
                    if owner in graph and not graph.has_edge(owner, me):
                        graph.add_edge(owner, me, kind="companion", file=profile.source,
                                       line=fam.line)
    for hint in profile.dynamic_imports:
        mod, _, func = hint.source.partition(":")
        src = symbol_node(mod, func) if func else module_node(mod)
        targets = [t for pattern in hint.targets for t in _hint_targets(pattern, index, graph)]
        if src not in graph or not targets:
            use.stale.append(f"{profile.source}:{hint.line}: dynamic import hint "
                             f"{hint.source} -> {', '.join(hint.targets)} matches nothing")
            continue
        for dst in targets:
            if dst != src and not graph.has_edge(src, dst):
                graph.add_edge(src, dst, kind="hint", file=profile.source, line=hint.line)


def _hint_targets(pattern: str, index: ModuleIndex, graph: nx.DiGraph) -> list[str]:
    mod, _, sym = pattern.partition(":")
    if "*" in mod:
        regex = re.compile("^" + re.escape(mod).replace(r"\*\*", ".+").replace(r"\*", "[^.]+")
                           + "$")
        modules = [m for m in sorted(index.modules) if regex.match(m)]
    else:
        modules = [mod] if module_node(mod) in graph else []
    out: list[str] = []
    for m in modules:
        if sym:
            out.extend(n for n in _symbols(graph, index, m, sym))
        else:
            out.append(module_node(m))
            out.extend(_symbols(graph, index, m, "[!_]*"))  # its public API, as for import_module
    return out


def _symbols(graph: nx.DiGraph, index: ModuleIndex, module: str, pattern: str) -> list[str]:
    mod = index.modules.get(module)
    if mod is None:
        return []
    return [symbol_node(module, name) for name in sorted(mod.defs)
            if fnmatch.fnmatchcase(name, pattern) and symbol_node(module, name) in graph]


def guard_context(use: ProfileUse, keep: tuple[str, ...]) -> GuardContext | None:
    """What guard folding may assume: the profile's constants (those of dropped features
    win), string domains over dropped registry keys, and extension modules that will not be
    built."""
    profile = use.profile
    if profile is None:
        return None
    constants = {c.name: c.value for c in effective_constants(profile, use.drops, keep)}
    domains = tuple((d.pattern, use.dropped_keys(d.registry)) for d in profile.domains)
    dead = frozenset(m for f in use.features for m in f.extension_modules)
    return GuardContext(constants, tuple(d for d in domains if d[1]), dead)


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
            if sym:
                hits = _symbols_in_graph(graph, mod, sym)
            else:
                hits = [module_node(mod)] if module_node(mod) in graph else []
        elif entry.path:
            hits = [n for n, d in graph.nodes(data=True)
                    if d.get("kind") in ("module", "native_file", "cmake_file")
                    and path_matches(d.get("path", ""), (entry.path,))]
        if not hits:
            use.stale.append(f"{use.profile.source}:{entry.line}: never_delete entry "
                             f"{entry.symbol or entry.path} matches nothing (stale)")
        nodes.extend(hits)
    return nodes


def _symbols_in_graph(graph: nx.DiGraph, module: str, pattern: str) -> list[str]:
    prefix = symbol_node(module, "")
    return [n for n in graph.nodes if n.startswith(prefix)
            and fnmatch.fnmatchcase(n[len(prefix):], pattern)]


def without_dropped(roots: list[str], graph: nx.DiGraph, use: ProfileUse) -> list[str]:
    """Default roots inside a dropped feature (a backend's self-test `__main__`) are no
    roots: they would keep the feature alive by themselves."""
    from analyzer.analysis.features import feature_of_node

    return [r for r in roots if feature_of_node(graph.nodes[r], use.features,
                                                use.kept_features) is None]


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
