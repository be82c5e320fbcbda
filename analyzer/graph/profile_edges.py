"""Graph stage: edges only the profile knows -- companion plugin families and dynamic-import
hints -- added to the built graph; hints that match nothing are stale."""

from __future__ import annotations

import fnmatch
import re

from analyzer.decide.profile_facts import ProfileUse
from analyzer.nodes import Graph, add_edge, module_node, symbol_node
from analyzer.resolve.python import ModuleIndex


def add_profile_edges(use: ProfileUse, graph: Graph, index: ModuleIndex) -> list[str]:
    """Edges only the profile knows: companion families and dynamic-import hints; returns
    the hints that match nothing (stale)."""
    profile = use.profile
    stale: list[str] = []
    if profile is None:
        return stale
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
                        add_edge(graph, owner, me, "companion", profile.source, fam.line)
    for hint in profile.dynamic_imports:
        mod, _, func = hint.source.partition(":")
        src = symbol_node(mod, func) if func else module_node(mod)
        targets = [t for pattern in hint.targets for t in _hint_targets(pattern, index, graph)]
        if src not in graph or not targets:
            stale.append(f"{profile.source}:{hint.line}: dynamic import hint "
                             f"{hint.source} -> {', '.join(hint.targets)} matches nothing")
            continue
        for dst in targets:
            if dst != src and not graph.has_edge(src, dst):
                add_edge(graph, src, dst, "hint", profile.source, hint.line)
    return stale


def _hint_targets(pattern: str, index: ModuleIndex, graph: Graph) -> list[str]:
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


def _symbols(graph: Graph, index: ModuleIndex, module: str, pattern: str) -> list[str]:
    mod = index.modules.get(module)
    if mod is None:
        return []
    return [symbol_node(module, name) for name in sorted(mod.defs)
            if fnmatch.fnmatchcase(name, pattern) and symbol_node(module, name) in graph]
