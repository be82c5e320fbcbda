"""Pipeline, the roots of the soundness rounds that are functions of the tree and the profile:
the entry points packaging metadata declares, the tree's default roots (``__main__`` modules,
scripts, ``setup.py``), the test infrastructure, the files ``never_delete`` names whole, the
modules depgraph could not read, the public methods of root classes, the targets a dropped
feature names.
"""

from __future__ import annotations

from analyzer.analysis.profile_roots import (
    without_dropped,
)
from analyzer.config.globs import path_matches
from analyzer.decide.profile_facts import ProfileUse
from analyzer.discover import entry_points
from analyzer.discover.test_files import is_test_module, is_test_path
from analyzer.model import ParseProblem
from analyzer.nodes import Graph, module_node, symbol_node
from analyzer.resolve.python import ModuleIndex
from analyzer.resolve.tree import Tree


def test_infrastructure(index: ModuleIndex, peripheral: frozenset[str],
                        own: frozenset[str]) -> tuple[str, ...]:
    """The files that run tests rather than being one: ``conftest.py`` (pytest loads it for
    every test below it) and the peripheral files naming a test of the tree by its path
    (runners, suite lists, CI scripts), less the dropped features' own. Their nodes: roots
    whatever the tests do (what they import stays); a test they name that goes costs them the
    entry naming it, not themselves (``analyzer.plan.python.plan_test_entries``)."""
    out: list[str] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in peripheral or name in own or is_test_module(mod.path):
            continue
        if mod.path.rpartition("/")[2] == "conftest.py" or any(
                s.kind == "path" and is_test_module(s.value)
                and index.module_at(s.value) is not None for s in mod.facts.strings):
            out.append(module_node(name))
    return tuple(out)


def never_edited(use: ProfileUse, tree: Tree) -> frozenset[str]:
    """Paths of the files ``never_delete`` entries name whole: a path glob, or a module
    (``symbol = "pkg.mod"``)."""
    if use.profile is None:
        return frozenset()
    globs = tuple(e.path for e in use.profile.never_delete if e.path)
    modules = {e.symbol for e in use.profile.never_delete if e.symbol and ":" not in e.symbol}
    out = {p for p in tree.files if globs and path_matches(p, globs)}
    out.update(m.path for m in tree.modules if m.name in modules)
    return frozenset(out)


def unparsed_roots(index: ModuleIndex, unparsed: frozenset[str]) -> list[str]:
    """Modules depgraph could not read whole stay, and so does what they import."""
    return [module_node(index.by_path[p]) for p in sorted(unparsed) if p in index.by_path]


def declared_entry_points(entry_files: dict[str, bytes | str],
                           problems: list[ParseProblem]) -> list[tuple[str, str]]:
    """(module, attribute) of every entry point packaging metadata declares; files that
    cannot be read or parsed are added to ``problems`` (once per scan)."""
    out: list[tuple[str, str]] = []
    for rel, data in entry_files.items():
        if isinstance(data, str):
            problems.append(ParseProblem(rel, 0, "unreadable", data))
            continue
        eps, errs = entry_points.extract(rel, data)
        problems.extend(errs)
        for ep in eps:
            mod, _, attr = ep.value.partition(":")
            out.append((mod.strip(), attr.split(".")[0].strip()))
    return out


def public_methods(graph: Graph, roots: list[str]) -> list[str]:
    """The public methods of the classes among ``roots`` (an entry point ``vllm.engine:LLM``
    is an API: its users call ``LLM.generate``, which nothing in the tree need name)."""
    return [m for r in roots if graph.nodes[r].get("symbol_kind") == "class"
            for m in graph.successors(r)
            if graph.nodes[m].get("kind") == "method"
            and not str(graph.nodes[m].get("method", "_")).startswith("_")]


def named_targets_dropped(kept: list[str], graph: Graph, use: ProfileUse) -> list[str]:
    """The build's kept roots, but a target a dropped feature names in its ``targets``: the
    profile says what it is, so only a live use keeps it (a target nothing is shown to load
    is otherwise kept whole)."""
    named = {t for f in use.features for t in f.targets}

    def dropped(node: str) -> bool:
        data = graph.nodes[node]
        return data.get("kind") == "target" and data.get("name") in named \
            and not without_dropped([node], graph, use)

    return [n for n in kept if not dropped(n)]


def tree_default_roots(declared: list[tuple[str, str]], graph: Graph,
                   test_globs: tuple[str, ...] = ()) -> list[str]:
    """Entry points declared by packaging metadata, ``__main__`` modules, modules of regular
    packages that run as scripts (``if __name__ == "__main__":``) and ``setup.py`` build
    scripts, tests excepted."""
    roots: list[str] = []
    for mod, attr in declared:
        node = symbol_node(mod, attr) if attr else module_node(mod)
        if node not in graph:
            node = module_node(mod)
        if node in graph:
            roots.append(node)
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "module" or is_test_path(data["path"], test_globs):
            continue
        if data["module"].endswith(".__main__") or data.get("main_guard") \
                or data["path"].rpartition("/")[2] == "setup.py":  # the setuptools build
            roots.append(node)
    return sorted(set(roots))
