"""Analysis stage, liveness and ``why`` (``analyzer/analysis/liveness.py``, ``why.py``) on a
graph built by hand: live is what the roots reach over followed edges (``type_checking`` edges
keep nothing alive); a chain is a shortest path from a root; ``explain`` says why a node is live
or dead."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from analyzer.analysis.liveness import compute_liveness
from analyzer.analysis.why import chain_steps, explain, find_node
from analyzer.nodes import SUPER_ROOT


def graph() -> nx.DiGraph:
    """main -> api -> core -> kernel (file); main -> core too; api -(type_checking)-> hints;
    dead -> core; nothing reaches dead."""
    g = nx.DiGraph()
    for m in ("main", "api", "core", "hints", "dead"):
        g.add_node(f"py:app.{m}", kind="module", module=f"app.{m}", path=f"app/{m}.py")
    g.add_node("file:csrc/k.cu", kind="native_file", path="csrc/k.cu")
    g.add_node("target:ops", kind="target", name="ops", path="CMakeLists.txt", start_line=3)
    edges = [("main", "api", "import", 1), ("api", "core", "import", 2),
             ("main", "core", "import", 4), ("api", "hints", "type_checking", 5),
             ("dead", "core", "import", 1)]
    for u, v, kind, line in edges:
        g.add_edge(f"py:app.{u}", f"py:app.{v}", kind=kind, file=f"app/{u}.py", line=line)
    g.add_edge("py:app.core", "target:ops", kind="reference", file="app/core.py", line=7)
    g.add_edge("target:ops", "file:csrc/k.cu", kind="compiles", file="", line=0)
    return g


def test_live_is_what_the_roots_reach_over_followed_edges() -> None:
    g = graph()
    live = compute_liveness(g, ["py:app.main"])
    assert live.live == {"py:app.main", "py:app.api", "py:app.core", "target:ops",
                         "file:csrc/k.cu"}
    assert live.is_live("py:app.core") and not live.is_live("py:app.hints")
    assert not live.is_live("py:app.dead")  # it reaches live code; nothing live reaches it
    assert live.roots == ["py:app.main"]


def test_the_graph_is_left_as_it_was() -> None:
    g = graph()
    nodes, edges = set(g.nodes), set(g.edges)
    compute_liveness(g, ["py:app.main"])
    assert SUPER_ROOT not in g
    assert (set(g.nodes), set(g.edges)) == (nodes, edges)


@pytest.mark.parametrize(("roots", "node", "chain"), [
    pytest.param(["py:app.main"], "py:app.main", ["py:app.main"], id="a-root-is-its-own-chain"),
    # main -> core directly is shorter than main -> api -> core
    pytest.param(["py:app.main"], "file:csrc/k.cu",
                 ["py:app.main", "py:app.core", "target:ops", "file:csrc/k.cu"], id="shortest"),
    pytest.param(["py:app.main", "target:ops"], "file:csrc/k.cu", ["target:ops", "file:csrc/k.cu"],
                 id="from-the-nearest-root"),
    pytest.param(["py:app.main"], "py:app.hints", [], id="dead-node-has-no-chain"),
])
def test_chain(roots: list[str], node: str, chain: list[str]) -> None:
    assert compute_liveness(graph(), roots).chain(node) == chain


def test_chain_steps_name_each_edge_and_where_it_comes_from() -> None:
    g = graph()
    live = compute_liveness(g, ["py:app.main"])
    assert chain_steps(g, live, "file:csrc/k.cu") == [
        "root app.main (app/main.py)",
        "  -> app.core (app/core.py)  [import at app/main.py:4]",
        "  -> target:ops (CMakeLists.txt:3)  [reference at app/core.py:7]",
        "  -> file:csrc/k.cu  [compiles at the build]",
    ]


def test_explain_live_and_dead() -> None:
    g = graph()
    live = compute_liveness(g, ["py:app.main"])
    assert explain(g, live, "py:app.api") == (
        "app.api (app/api.py) is live:\n"
        "root app.main (app/main.py)\n"
        "  -> app.api (app/api.py)  [import at app/main.py:1]")
    assert explain(g, live, "py:app.hints", feature="typing") == (
        "app.hints (app/hints.py) is dead.\n"
        "It belongs to dropped feature typing.\n"
        "Only dead code leads to it:\n"
        "  <- app.api (app/api.py)  [type_checking at app/api.py:5]")
    assert explain(g, live, "py:app.dead") == (
        "app.dead (app/dead.py) is dead.\nNothing in the scanned tree leads to it.")


def test_explain_names_the_profile_decision() -> None:
    g = graph()
    g.graph["decisions"] = [{"what": "app.dead", "path": "depgraph.toml", "line": 9,
                             "reason": "registry key 'x' dropped"}]
    live = compute_liveness(g, ["py:app.main"])
    assert explain(g, live, "py:app.dead") == (
        "app.dead (app/dead.py) is dead.\n"
        "Profile decision at depgraph.toml:9: registry key 'x' dropped")


@pytest.mark.parametrize(("text", "node"), [
    pytest.param("py:app.core", "py:app.core", id="node-id"),
    pytest.param("ops", "target:ops", id="target-name"),
    pytest.param("csrc/k.cu", "file:csrc/k.cu", id="relative-path"),
    pytest.param("/repo/csrc/k.cu", "file:csrc/k.cu", id="absolute-path-inside"),
    pytest.param("/elsewhere/k.cu", None, id="absolute-path-outside"),
    pytest.param("nothing", None, id="unknown"),
])
def test_find_node(text: str, node: str | None) -> None:
    assert find_node(graph(), text, Path("/repo")) == node
