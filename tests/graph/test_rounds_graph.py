"""The rounds' graph is patched from round to round (``analyzer.graph.rounds_graph``): the
patched graph must be the one a fresh build makes -- nodes, edges, attributes, and the order
of the nodes and of each node's successors and predecessors -- with what was added on top of
the last one (native nodes, profile edges) gone."""

from __future__ import annotations

from analyzer.decide.options import GraphOptions
from analyzer.graph.python import EdgeMemo, build_python_graph, op_triples
from analyzer.graph.rounds_graph import RoundGraph
from tests.graph.test_edge_memo import TREE, _built
from tests.helpers import module_index, same_python_graph


def _same_order(a, b) -> None:
    """The same nodes in the same order, and each one's successors and predecessors too."""
    assert list(a) == list(b)
    assert [list(a.succ[u].items()) for u in a] == [list(b.succ[u].items()) for u in b]
    assert [list(a.pred[u]) for u in a] == [list(b.pred[u]) for u in b]


def test_a_patched_round_is_the_fresh_graph(tmp_path):
    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo)
    assert graphs.patched == 0
    graph = first.graph
    # what the native and profile layers add on top of the Python graph
    graph.add_node("target:_C", kind="target", name="_C")
    graph.add_edge("py:pkg.user", "target:_C", kind="hint")
    graph.add_edge("py:pkg.user", "py:pkg.b", kind="hint")

    dead = {"pkg.sel": [(5, 5)]}  # the else arm folded: pkg.sel and pkg.user change
    again = graphs.build(*_built(base, dead), memo)
    assert graphs.patched == 1
    assert again.graph is graph  # the same graph, patched
    assert graph.graph["version"] == 1
    fresh = build_python_graph(*_built(base, dead))
    same_python_graph(again, fresh)
    _same_order(again.graph, fresh.graph)
    assert "target:_C" not in graph
    assert not graph.has_edge("py:pkg.user", "py:pkg.b")
    assert graph.has_edge("py:pkg.user:run", "py:pkg.a:fa")
    assert not graph.has_edge("py:pkg.user:run", "py:pkg.b:fb")
    assert memo.computed == 2  # pkg.sel (its own lines) and pkg.user (resolves through it)

    back = graphs.build(*_built(base, {}), memo)  # and back: the first records, replayed
    fresh = build_python_graph(*_built(base, {}))
    same_python_graph(back, fresh)
    _same_order(back.graph, fresh.graph)
    assert memo.computed == 0 and graphs.patched == 2


def test_a_node_only_a_changed_module_needed_goes(tmp_path):
    # pkg.zz (after pkg.sel) makes the node of another package: a node made again must come
    # before it, where a fresh build makes it
    base = module_index(tmp_path, {**TREE, "pkg/zz.py": "import json\n"})
    graphs, memo = RoundGraph(), EdgeMemo()
    assert "ext:os" in graphs.build(*_built(base, {}), memo).graph  # pkg.sel: `import os`
    dead = {"pkg.sel": [(1, 1)]}  # ... folded away: nothing else imports os
    again = graphs.build(*_built(base, dead), memo)
    assert graphs.patched == 1
    assert "ext:os" not in again.graph
    fresh = build_python_graph(*_built(base, dead))
    same_python_graph(again, fresh)
    _same_order(again.graph, fresh.graph)
    # and back: the node comes again, where a fresh build puts it (after the tree's nodes,
    # in the order the modules' edges first need theirs)
    back = graphs.build(*_built(base, {}), memo)
    fresh = build_python_graph(*_built(base, {}))
    assert "ext:os" in back.graph
    _same_order(back.graph, fresh.graph)


def test_a_node_another_module_makes_first_stays_in_its_place(tmp_path):
    # pkg.aa (before pkg.sel) imports os too: folding pkg.sel's import changes which nodes
    # pkg.sel's edges make, but not the order the made nodes come in (ext:os is pkg.aa's
    # first), so nothing moves -- and the graph is still the fresh one, and back again
    base = module_index(tmp_path, {**TREE, "pkg/aa.py": "import os\n"})
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo).graph
    made = list(first)[list(first).index("ext:os"):]
    dead = {"pkg.sel": [(1, 1)]}
    again = graphs.build(*_built(base, dead), memo)
    assert graphs.patched == 1 and "ext:os" in again.graph
    assert list(again.graph)[-len(made):] == made
    _same_order(again.graph, build_python_graph(*_built(base, dead)).graph)
    back = graphs.build(*_built(base, {}), memo)
    _same_order(back.graph, build_python_graph(*_built(base, {})).graph)


def test_other_options_build_a_fresh_graph(tmp_path):
    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo).graph
    index, _ = _built(base, {})
    options = GraphOptions(frozen_imports=frozenset({"pkg.user"}))
    again = graphs.build(index, options, memo)
    assert graphs.patched == 0
    assert again.graph is not first and first.number_of_nodes() == 0  # emptied
    same_python_graph(again, build_python_graph(index, options))


def test_every_record_owns_its_edges_else_no_patch(tmp_path):
    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    graphs.build(*_built(base, {}), memo)
    # each module's edges leave from its own nodes (what makes a swap of them safe)
    assert all(record.owned for _local, record in memo.records.values())
    memo.records["pkg.other"][1].owned = False  # as if one left from another's node
    dead = {"pkg.sel": [(5, 5)]}
    again = graphs.build(*_built(base, dead), memo)
    assert graphs.patched == 0  # built afresh instead
    same_python_graph(again, build_python_graph(*_built(base, dead)))


def test_edges_added_again_come_back_in_their_place(tmp_path):
    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo).graph
    # pkg.a:fa is used by pkg.other, pkg.reexp and pkg.user, in module order
    users = [u for u in first.pred["py:pkg.a:fa"] if u.startswith("py:pkg.other")]
    assert users and next(iter(first.pred["py:pkg.a:fa"])).startswith("py:pkg.other")
    graphs.build(*_built(base, {"pkg.other": [(1, 1)]}), memo)  # its import folded away
    back = graphs.build(*_built(base, {}), memo).graph  # and back: pkg.other's edges again
    assert graphs.patched == 2
    assert list(back.pred["py:pkg.a:fa"]) == list(first.pred["py:pkg.a:fa"])
    _same_order(back, build_python_graph(*_built(base, {})).graph)


def test_records_and_graph_share_edge_dicts_and_interned_node_ids(tmp_path):
    import sys

    # two more modules needing the node of `os`: its attributes, one dict for all three
    base = module_index(tmp_path, {**TREE, "pkg/os1.py": "import os\n",
                                   "pkg/os2.py": "import os.path\n"})
    memo = EdgeMemo()
    graph = build_python_graph(*_built(base, {}), memo).graph
    ops = [op for variants in memo.variants.values() for _local, record in variants
           for op in op_triples(record.ops)]
    edges = [(src, dst, attrs) for src, dst, attrs in ops if dst is not None]
    assert edges
    one: dict[str, str] = {}  # node id -> the string object every op names it by
    for src, dst, attrs in edges:
        assert one.setdefault(src, src) is src and one.setdefault(dst, dst) is dst
        assert src is sys.intern(src)
        # the graph's edge holds the record's own dict (one dict per edge, not a copy each)
        assert graph.succ[src][dst] is attrs or graph.succ[src][dst] == {**attrs}
    assert any(graph.succ[src][dst] is attrs for src, dst, attrs in edges)
    made = [attrs for src, dst, attrs in ops if dst is None and src == "ext:os"]
    assert len(made) >= 3 and all(attrs is made[0] for attrs in made)
    assert made[0] == {"kind": "external", "module": "os"}


def test_gated_names_are_found_once_per_method_graph(tmp_path):
    from analyzer.graph.python import gated_names

    base = module_index(tmp_path, TREE)
    methods = [("py:pkg.k:K.ping", {"method": "ping", "gate": "attr:ping"}),
               ("py:pkg.k:K.__init__", {"method": "__init__", "gate": None})]
    first = gated_names(base, methods)
    assert first == frozenset({"ping"})
    assert gated_names(base.with_dead_lines({}), methods) is first  # (copies share it)
    alike = [(n, dict(a)) for n, a in methods]  # another list: its names found again
    assert gated_names(base, alike) == first and gated_names(base, alike) is not first


def test_a_method_graph_made_again_alike_still_patches(tmp_path):
    # other droppable names that gate no other method: the method graph is made again (a new
    # list, equal), the gates are the same, so the graph is patched -- and again with the same
    # options (the method graph of the last build: nothing of it compared again)
    base = module_index(tmp_path, {
        **TREE, "pkg/k.py": "class K:\n    def ping(self):\n        return 1\n",
        "pkg/call.py": "from pkg.k import K\n\n\ndef go():\n    return K().ping()\n"})
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo).graph
    assert first.nodes["py:pkg.k:K.ping"]["gate"] == "attr:ping"
    dead = {"pkg.sel": [(5, 5)]}
    index = base.with_dead_lines(dead)
    options = GraphOptions(dead_lines={"pkg.sel": ((5, 5),)}, droppable=("nothing_*",))
    again = graphs.build(index, options, memo)
    assert graphs.patched == 1 and again.graph is first
    fresh = build_python_graph(index, options)
    same_python_graph(again, fresh)
    _same_order(again.graph, fresh.graph)
    assert again.graph.has_edge("py:pkg.call:go", "attr:ping")
    back = graphs.build(*_built(base, {}), memo)  # the first options: their method graph
    assert graphs.patched == 2
    fresh = build_python_graph(*_built(base, {}))
    same_python_graph(back, fresh)
    _same_order(back.graph, fresh.graph)
    # the same options once more: the method graph is the last build's own list
    made = base.tree_memo["method_graph"][2][0]
    dead = {"pkg.sel": [(5, 5)]}
    last = graphs.build(*_built(base, dead), memo)
    assert graphs.patched == 3 and base.tree_memo["method_graph"][2][0] is made
    fresh = build_python_graph(*_built(base, dead))
    same_python_graph(last, fresh)
    _same_order(last.graph, fresh.graph)


def test_the_mark_says_where_the_python_layer_ends_and_what_each_patch_swapped(tmp_path):
    from analyzer.graph.rounds_graph import python_layer_mark

    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    graph = graphs.build(*_built(base, {}), memo).graph
    mark = python_layer_mark(graph)
    assert mark is not None and mark.version == 0 and dict(mark.swapped_at) == {}
    assert mark.nodes == graph.number_of_nodes()
    assert mark.successors["py:pkg.user"] == len(graph.succ["py:pkg.user"]) > 0
    graph.add_node("target:_C", kind="target", name="_C")  # what a layer above adds
    graph.add_edge("py:pkg.user", "target:_C", kind="hint")
    assert python_layer_mark(graph) is mark  # (past its ends: the mark holds)
    assert mark.successors["py:pkg.user"] == len(graph.succ["py:pkg.user"]) - 1
    # the else arm of pkg.sel folded: pkg.sel (its own lines) and pkg.user (resolves `impl`
    # through it) get other edges, swapped by the patch of version 1
    assert graphs.build(*_built(base, {"pkg.sel": [(5, 5)]}), memo).graph is graph
    mark = python_layer_mark(graph)
    assert mark is not None and mark.version == 1
    assert dict(mark.swapped_at) == {"pkg.sel": 1, "pkg.user": 1}
    graphs.build(*_built(base, {}), memo)  # and back: the same two, swapped again
    mark = python_layer_mark(graph)
    assert mark is not None and dict(mark.swapped_at) == {"pkg.sel": 2, "pkg.user": 2}
    graph.graph["version"] = 7  # a graph patched by anything else: no mark
    assert python_layer_mark(graph) is None
    assert python_layer_mark(build_python_graph(*_built(base, {})).graph) is None  # not a round's


SWAP_TREE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def fa():\n    return 1\n",
    # (before pkg.m: its edge into fa comes first)
    "pkg/early.py": "from pkg.a import fa\n\n\ndef e():\n    return fa()\n",
    "pkg/m.py": ("from pkg.a import fa\nimport json\n\n\ndef f():\n    return fa()\n\n\n"
                 "def g():\n    return fa(), json\n"),
    "pkg/z.py": "from pkg.a import fa\n\n\ndef z():\n    return fa()\n",  # (after pkg.m)
}


def test_a_swap_keeps_the_edges_both_records_have_in_place(tmp_path, monkeypatch):
    import analyzer.graph.python as graph_python

    swaps: list[bool] = []
    swap = graph_python._swap_edges

    def spy(*args):
        swaps.append(swap(*args))
        return swaps[-1]

    monkeypatch.setattr(graph_python, "_swap_edges", spy)
    base = module_index(tmp_path, SWAP_TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    first = graphs.build(*_built(base, {}), memo).graph
    fa = "py:pkg.a:fa"
    assert list(first.pred[fa]) == ["py:pkg.early:e", "py:pkg.m:f", "py:pkg.m:g",
                                    "py:pkg.z:z"]
    alike = {"pkg.m": [(2, 2)]}  # `import json` folded: pkg.m's edges into fa alike
    fewer = {"pkg.m": [(5, 6)]}  # f folded: pkg.m's sources into fa change
    # (and back: the first records; then each again, its record from the memo)
    for dead in (alike, fewer, {}, alike, fewer, {}):
        again = graphs.build(*_built(base, dead), memo)
        assert again.graph is first
        fresh = build_python_graph(*_built(base, dead))
        same_python_graph(again, fresh)
        _same_order(again.graph, fresh.graph)
        for u, out in again.graph.succ.items():  # (one attributes object per edge)
            assert all(again.graph.pred[v][u] is attrs for v, attrs in out.items())
    assert graphs.patched == 6
    assert list(first.pred[fa]) == ["py:pkg.early:e", "py:pkg.m:f", "py:pkg.m:g",
                                    "py:pkg.z:z"]
    assert swaps.count(True) >= 4  # (the records found in the memo: swapped in place)


def test_a_method_graph_under_other_droppable_names_shares_each_unchanged_method(tmp_path):
    # K is a class of the tree (its plain methods are gated whatever is droppable); M's base
    # is outside the tree, so its methods are gated only when a droppable name matches them
    from analyzer.graph.python_nodes import method_graph

    files = {
        "pkg/__init__.py": "",
        "pkg/k.py": "class K:\n    def ping(self):\n        return 1\n",
        "pkg/m.py": ("import torch\n\n\nclass M(torch.nn.Module):\n"
                     "    def forward(self):\n        return 2\n\n"
                     "    def fa3_kernel(self):\n        return 3\n"),
    }
    index = module_index(tmp_path, files)
    graph = build_python_graph(index, GraphOptions()).graph
    plain, plain_members = method_graph(index, graph, GraphOptions())
    fa3, fa3_members = method_graph(index, graph, GraphOptions(droppable=("fa3_*",)))
    first, second = dict(plain), dict(fa3)
    assert list(first) == list(second) == ["py:pkg.k:K.ping", "py:pkg.m:M.forward",
                                           "py:pkg.m:M.fa3_kernel"]
    assert first["py:pkg.m:M.fa3_kernel"] == {
        "kind": "method", "module": "pkg.m", "name": "M.fa3_kernel", "method": "fa3_kernel",
        "cls": "M", "path": "pkg/m.py", "start_line": 8, "end_line": 9, "gate": None}
    assert second["py:pkg.m:M.fa3_kernel"] == {
        **first["py:pkg.m:M.fa3_kernel"], "gate": "attr:fa3_kernel"}
    assert list(second["py:pkg.m:M.fa3_kernel"]) == list(first["py:pkg.m:M.fa3_kernel"])
    assert first["py:pkg.k:K.ping"]["gate"] == "attr:ping"
    assert first["py:pkg.m:M.forward"]["gate"] is None
    # the methods whose gate did not change: the very same attributes, and the same members
    assert second["py:pkg.k:K.ping"] is first["py:pkg.k:K.ping"]
    assert second["py:pkg.m:M.forward"] is first["py:pkg.m:M.forward"]
    assert all(a is b for a, b in zip(plain_members, fa3_members, strict=True))
    assert [(u, v, dict(d)) for u, v, d in plain_members] == [
        ("py:pkg.k:K", "py:pkg.k:K.ping",
         {"kind": "member", "file": "pkg/k.py", "line": 2}),
        ("py:pkg.m:M", "py:pkg.m:M.forward", {"kind": "member", "file": "pkg/m.py", "line": 5}),
        ("py:pkg.m:M", "py:pkg.m:M.fa3_kernel",
         {"kind": "member", "file": "pkg/m.py", "line": 8})]
    # back to the first names: each method's pair under that gate, made once
    again, _ = method_graph(index, graph, GraphOptions(droppable=("nothing_*",)))
    assert all(a is b for a, b in zip(again, plain, strict=True))
    # and a graph patched from one gate to the other is the fresh graph of the other
    graphs, memo = RoundGraph(), EdgeMemo()
    graphs.build(index, GraphOptions(), memo)
    patched = graphs.build(index, GraphOptions(droppable=("fa3_*",)), memo)
    fresh = build_python_graph(index, GraphOptions(droppable=("fa3_*",)))
    same_python_graph(patched, fresh)
    _same_order(patched.graph, fresh.graph)
    assert patched.graph.nodes["py:pkg.m:M.fa3_kernel"] is second["py:pkg.m:M.fa3_kernel"]
