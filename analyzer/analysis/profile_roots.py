"""Analysis stage: the roots a profile declares -- entry points, every module of a
``select = "all"`` plugin family, ``never_delete`` entries, kept targets -- mapped onto the graph;
declarations that match nothing are stale."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from functools import lru_cache
from itertools import islice
from weakref import WeakKeyDictionary

from analyzer.config.globs import any_identifier_matches, any_path_matches, path_matches
from analyzer.config.types import KeepEntry, Profile
from analyzer.decide.profile_facts import ProfileUse
from analyzer.graph.rounds_graph import python_layer_mark
from analyzer.nodes import Graph, module_node, node_dicts, symbol_node
from analyzer.resolve.python import ModuleIndex


def entry_point_nodes(use: ProfileUse, graph: Graph) -> tuple[list[str], list[str]]:
    """The profile's entry points as nodes, and those that match nothing (stale)."""
    stale: list[str] = []
    if use.profile is None:
        return [], stale
    nodes: list[str] = []
    for ep in use.profile.entry_points:
        mod, _, sym = ep.partition(":")
        node = symbol_node(mod, sym) if sym else module_node(mod)
        if node in graph:
            nodes.append(node)
        else:
            stale.append(f"{use.profile.source}: entry point {ep} matches nothing")
    return nodes, stale


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


def never_delete_nodes(use: ProfileUse, graph: Graph,
                       found: list[tuple[KeepEntry, list[str]]] | None = None
                       ) -> tuple[list[str], list[str]]:
    """The ``never_delete`` entries as nodes, and those that match nothing (stale);
    ``found``: :func:`never_delete_hits` of the graph, when the caller has them."""
    stale: list[str] = []
    nodes: list[str] = []
    for entry, hits in found if found is not None else never_delete_hits(use, graph):
        if not hits and use.profile is not None:
            stale.append(f"{use.profile.source}:{entry.line}: never_delete entry "
                         f"{entry.symbol or entry.path} matches nothing (stale)")
        nodes.extend(hits)
    return nodes, stale


def never_delete_hits(use: ProfileUse, graph: Graph) -> list[tuple[KeepEntry, list[str]]]:
    """Each ``never_delete`` entry of the profile with the nodes it names (the files of
    the path globs found in one pass over the graph)."""
    if use.profile is None:
        return []
    entries = use.profile.never_delete
    globs = tuple(dict.fromkeys(e.path for e in entries if not e.symbol and e.path))
    prefixes = tuple(dict.fromkeys(symbol_node(e.symbol.partition(":")[0], "")
                                   for e in entries
                                   if e.symbol and e.symbol.partition(":")[2]))
    by_glob, by_prefix = _node_hits(graph, globs, prefixes)
    out: list[tuple[KeepEntry, list[str]]] = []
    for entry in entries:
        hits: list[str] = []
        if entry.symbol:
            mod, _, sym = entry.symbol.partition(":")
            if sym:
                prefix = symbol_node(mod, "")
                hits = [n for n in by_prefix[prefix]
                        if fnmatch.fnmatchcase(n[len(prefix):], sym)]
            else:
                hits = [module_node(mod)] if module_node(mod) in graph else []
        elif entry.path:
            hits = list(by_glob[entry.path])
        out.append((entry, hits))
    return out


_FILE_KINDS = frozenset({"module", "native_file", "cmake_file"})

# a rounds' graph -> (globs, prefixes, the hits among its Python layer's nodes): that layer's
# module, symbol and method nodes are those of every patch of the graph (a patch changes
# edges, and the nodes edges make: ``ext:``, ``attr:``, no file and no ``py:`` node)
_PYTHON_HITS: WeakKeyDictionary[
    Graph, tuple[tuple[str, ...], tuple[str, ...], dict[str, list[str]], dict[str, list[str]]]
] = WeakKeyDictionary()


def _node_hits(graph: Graph, globs: tuple[str, ...], prefixes: tuple[str, ...]
               ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The file nodes each glob matches and the ``py:`` nodes under each ``py:module:``
    prefix, in the graph's node order: one pass over its nodes (every round asks), or over
    the nodes past its Python layer when the graph's earlier patches were read."""
    if not globs and not prefixes:
        return {}, {}
    nodes = node_dicts(graph)
    mark = python_layer_mark(graph)
    known = _PYTHON_HITS.get(graph) if mark is not None else None
    if known is not None and known[0] == globs and known[1] == prefixes:
        by_glob = {g: list(hits) for g, hits in known[2].items()}
        by_prefix = {p: list(hits) for p, hits in known[3].items()}
        _add_hits(islice(nodes.items(), mark.nodes if mark is not None else 0, None), globs,
                  by_glob, by_prefix)
        return by_glob, by_prefix
    by_glob, by_prefix = {g: [] for g in globs}, {p: [] for p in prefixes}
    if mark is None:
        _add_hits(iter(nodes.items()), globs, by_glob, by_prefix)
        return by_glob, by_prefix
    items = iter(nodes.items())
    _add_hits(islice(items, mark.nodes), globs, by_glob, by_prefix)
    _PYTHON_HITS[graph] = (globs, prefixes, {g: list(h) for g, h in by_glob.items()},
                           {p: list(h) for p, h in by_prefix.items()})
    _add_hits(items, globs, by_glob, by_prefix)  # (the rest: the layers above)
    return by_glob, by_prefix


def _add_hits(items: Iterator[tuple[str, dict[str, object]]], globs: tuple[str, ...],
              by_glob: dict[str, list[str]], by_prefix: dict[str, list[str]]) -> None:
    get = by_prefix.get
    for n, d in items:
        if by_prefix and n.startswith("py:") and (colon := n.find(":", 3)) >= 0:
            hit = get(n[:colon + 1])  # ("py:module:", the symbol's prefix)
            if hit is not None:
                hit.append(n)
        elif globs and d.get("kind") in _FILE_KINDS:
            for g in _globs_matching(d.get("path", ""), globs):
                by_glob[g].append(n)


@lru_cache(maxsize=1 << 16)
def _globs_matching(path: str, globs: tuple[str, ...]) -> tuple[str, ...]:
    """The ``globs`` matching ``path`` (every round asks again of every file)."""
    return tuple(g for g in globs if path_matches(path, (g,)))


def without_dropped(roots: list[str], graph: Graph, use: ProfileUse) -> list[str]:
    """Default roots inside a dropped feature (a backend's self-test `__main__`, the modules
    of a plugin family the feature holds) are no roots: they would keep the feature alive by
    themselves."""
    from analyzer.analysis.features import feature_of_node

    return [r for r in roots if feature_of_node(graph.nodes[r], use.features,
                                                use.kept_features) is None]


def keep_target_names(use: ProfileUse, cli: tuple[str, ...], all_targets: list[str]
                      ) -> tuple[tuple[str, ...], list[str]]:
    """The targets to keep (command line and profile), and profile patterns that match no
    target (stale)."""
    stale: list[str] = []
    names = list(cli)
    if use.profile is not None:
        for pattern in use.profile.keep_targets:
            if any(fnmatch.fnmatchcase(t, pattern) for t in all_targets):
                names.append(pattern)
            elif all_targets:
                stale.append(f"{use.profile.source}: keep_targets {pattern} matches no "
                             "target")
    return tuple(dict.fromkeys(names)), stale


def stale_feature_patterns(use: ProfileUse, index: ModuleIndex, files: list[str]) -> list[str]:
    """Path globs and identifier patterns of the profile's features that match nothing in
    the tree (a file; a function, class, method or module-level name): like a stale
    ``never_delete`` entry, an allow-list entry that rotted."""
    if use.profile is None:
        return []
    # (a function of the profile and the tree, which every plan under other drops shares:
    # found once per scan)
    known = index.tree_memo.get("stale_feature_patterns")
    if known is not None and known[0] is use.profile and known[1] == files:
        return list(known[2])
    out = _stale_feature_patterns(use.profile, index, files)
    index.tree_memo["stale_feature_patterns"] = (use.profile, list(files), tuple(out))
    return out


def _stale_feature_patterns(profile: Profile, index: ModuleIndex, files: list[str]
                            ) -> list[str]:
    names: set[str] = set()
    for mod in index.modules.values():
        names.update(d.name for d in mod.facts.definitions)
        names.update(mod.facts.methods)
        names.update(mod.bindings)
    out: list[str] = []
    for feature in profile.features.values():
        # an item listing several spellings (a file that moved) is stale when none matches
        for group in feature.anchors_of("paths"):
            if not any_path_matches(files, tuple(group)):
                out.append(f"{profile.source}:{feature.line}: feature {feature.name}: "
                           f"path {' | '.join(group)} matches no file (stale)")
        for group in feature.anchors_of("identifiers"):
            if not any_identifier_matches(names, tuple(group)):
                out.append(f"{profile.source}:{feature.line}: feature {feature.name}: "
                           f"identifier {' | '.join(group)} matches no definition (stale)")
    return out
