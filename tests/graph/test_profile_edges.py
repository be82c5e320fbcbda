"""Graph stage, edges only the profile knows (``analyzer/graph/profile_edges.py``): a companion
plugin family's module hangs off the module of ``companion_of`` it imports; a dynamic-import
hint links its source to each target (a module with its public functions and classes, a
``module:Name`` symbol, ``*``/``**`` module patterns); a hint that matches nothing is stale.

The graph is built by hand from the module index of a small tree: one node per module and per
top-level function or class, as the module docstring of analyzer/nodes.py describes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import networkx as nx

from analyzer.config.profile import load_profile_text
from analyzer.decide.profile_facts import profile_use
from analyzer.graph.profile_edges import add_profile_edges
from analyzer.nodes import module_node, symbol_node
from analyzer.resolve.python import ModuleIndex
from tests.helpers import module_index

TREE = {
    "pkg/__init__.py": "",
    "pkg/factory.py": "def load(name):\n    return name\n",
    "pkg/models/__init__.py": "",
    "pkg/models/llama.py": "class Llama:\n    pass\n",
    "pkg/models/mixtral.py": "class Mixtral:\n    pass\n",
    "pkg/procs/__init__.py": "",
    "pkg/procs/llama_proc.py": "from pkg.models.llama import Llama\n",
    "pkg/procs/plain.py": "import os\n",
    "pkg/plugins/__init__.py": "",
    "pkg/plugins/a.py": "class A:\n    pass\n\n\ndef make_a():\n    return A()\n",
    "pkg/plugins/b.py": "def make_b():\n    return 2\n",
    "pkg/plugins/deep/__init__.py": "",
    "pkg/plugins/deep/c.py": "def make_c():\n    return 3\n",
}


def graph_of(index: ModuleIndex) -> nx.DiGraph:
    graph = nx.DiGraph()
    for name, mod in index.modules.items():
        graph.add_node(module_node(name), kind="module", module=name, path=mod.path)
        for sym, kind in mod.defs.items():
            if kind in ("function", "class"):
                graph.add_node(symbol_node(name, sym), kind="symbol", module=name, name=sym,
                               path=mod.path)
    # llama_proc.py line 1 imports Llama
    graph.add_edge(module_node("pkg.procs.llama_proc"), symbol_node("pkg.models.llama", "Llama"),
                   kind="import", file="pkg/procs/llama_proc.py", line=1)
    return graph


Added = dict[tuple[str, str], tuple[str, str, int]]  # edge -> (kind, file, line)


def add_edges(tmp_path: Path, toml: str) -> tuple[list[str], Added]:
    """Add the profile's edges to the tree's graph: (stale hints, the edges added)."""
    index = module_index(tmp_path, TREE)
    graph = graph_of(index)
    use = profile_use(load_profile_text(textwrap.dedent(toml).lstrip("\n"), "t.toml"), ())
    before = set(graph.edges)
    stale = add_profile_edges(use, graph, index)
    added = {(u, v): (d["kind"], d["file"], d["line"]) for u, v, d in graph.edges(data=True)
             if (u, v) not in before}
    return stale, added


def test_companion_module_hangs_off_the_module_it_imports(tmp_path: Path) -> None:
    stale, added = add_edges(tmp_path, """
        [[plugin_families]]
        name = "processors"
        package = "pkg.procs"
        select = "companion"
        companion_of = "pkg.models"
        """)
    # plain.py imports nothing of pkg.models: no edge for it
    assert added == {("py:pkg.models.llama", "py:pkg.procs.llama_proc"): ("companion", "t.toml", 1)}
    assert stale == []


def test_a_roots_family_adds_no_edge(tmp_path: Path) -> None:
    stale, added = add_edges(tmp_path, """
        [[plugin_families]]
        name = "processors"
        package = "pkg.procs"
        """)
    assert (stale, added) == ([], {})


def test_hint_to_a_module_reaches_it_and_its_public_definitions(tmp_path: Path) -> None:
    stale, added = add_edges(tmp_path, """
        [[dynamic_imports]]
        source = "pkg.factory:load"
        targets = ["pkg.plugins.a"]
        """)
    src = "py:pkg.factory:load"
    assert added == {(src, "py:pkg.plugins.a"): ("hint", "t.toml", 1),
                     (src, "py:pkg.plugins.a:A"): ("hint", "t.toml", 1),
                     (src, "py:pkg.plugins.a:make_a"): ("hint", "t.toml", 1)}
    assert stale == []


def test_hint_to_a_symbol_reaches_only_it(tmp_path: Path) -> None:
    _, added = add_edges(tmp_path, """
        [[dynamic_imports]]
        source = "pkg.factory"
        targets = ["pkg.plugins.a:make_a"]
        """)
    assert set(added) == {("py:pkg.factory", "py:pkg.plugins.a:make_a")}


def test_one_star_is_one_module_name_component(tmp_path: Path) -> None:
    _, added = add_edges(tmp_path, """
        [[dynamic_imports]]
        source = "pkg.factory"
        targets = ["pkg.plugins.*:make_*"]
        """)
    # pkg.plugins.deep.c is two components below pkg.plugins; pkg.plugins.deep defines nothing
    assert {v for _, v in added} == {"py:pkg.plugins.a:make_a", "py:pkg.plugins.b:make_b"}


def test_two_stars_cross_components(tmp_path: Path) -> None:
    _, added = add_edges(tmp_path, """
        [[dynamic_imports]]
        source = "pkg.factory"
        targets = ["pkg.plugins.**:make_*"]
        """)
    assert {v for _, v in added} == {"py:pkg.plugins.a:make_a", "py:pkg.plugins.b:make_b",
                                     "py:pkg.plugins.deep.c:make_c"}


def test_hints_that_match_nothing_are_stale(tmp_path: Path) -> None:
    stale, added = add_edges(tmp_path, """
        [[dynamic_imports]]
        source = "pkg.factory"
        targets = ["pkg.nowhere"]

        [[dynamic_imports]]
        source = "pkg.gone:load"
        targets = ["pkg.plugins.a"]
        """)
    assert added == {}
    assert stale == [
        "t.toml:1: dynamic import hint pkg.factory -> pkg.nowhere matches nothing",
        "t.toml:5: dynamic import hint pkg.gone:load -> pkg.plugins.a matches nothing"]


def test_no_profile_adds_nothing(tmp_path: Path) -> None:
    index = module_index(tmp_path, TREE)
    graph = graph_of(index)
    edges = set(graph.edges)
    assert add_profile_edges(profile_use(None, ()), graph, index) == []
    assert set(graph.edges) == edges
