"""A build whose gated method names differ from the last one (a plan under other drops: a
dropped feature's identifiers gate the methods they name in open-ended classes) replays the
edges of every module whose reads of method names give the same edges under both, and
resolves the others again (``analyzer.graph.python.GatedNames``)."""

from __future__ import annotations

from analyzer.decide.options import GraphOptions
from analyzer.graph.python import EdgeMemo, GatedNames, build_python_graph
from tests.helpers import module_index, same_python_graph

TREE = {
    "pkg/__init__.py": "",
    # M's base is outside the tree: its methods are gated only when a droppable name
    # matches them (fa3_kernel under ``fa3_*``); forward never is
    "pkg/m.py": ("import torch\n\n\nclass M(torch.nn.Module):\n"
                 "    def forward(self):\n        return 2\n\n"
                 "    def fa3_kernel(self):\n        return 3\n"),
    # K is a class of the tree: ping is gated whatever is droppable
    "pkg/k.py": "class K:\n    def ping(self):\n        return 1\n",
    # reads fa3_kernel by name: an attribute_read edge only while it is gated
    "pkg/use_fa3.py": "def go(m):\n    return m.fa3_kernel()\n",
    # reads ping by name: gated under both option sets
    "pkg/use_ping.py": "def go(k):\n    return k.ping()\n",
    # reads a pattern (``fa3_*``): which gated names match it may change
    "pkg/pattern.py": "def go(m, kind):\n    return getattr(m, f\"fa3_{kind}\")()\n",
    # reads no method name at all
    "pkg/plain.py": "from pkg.k import K\n\n\ndef make():\n    return K()\n",
}

DROPPING_FA3 = GraphOptions(droppable=("fa3_*",))


def test_gated_names_tell_which_records_hold(tmp_path):
    index = module_index(tmp_path, TREE)
    before = frozenset({"ping"})
    now = GatedNames(frozenset({"ping", "fa3_kernel"}))
    mods = index.modules
    # the very names: every record holds
    assert GatedNames(before).same_reads(mods["pkg.use_fa3"], before)
    # fa3_kernel's gating changed: the module reading it does not hold, nor the pattern's
    assert not now.same_reads(mods["pkg.use_fa3"], before)
    assert not now.same_reads(mods["pkg.pattern"], before)
    # the others read no changed name
    assert now.same_reads(mods["pkg.use_ping"], before)
    assert now.same_reads(mods["pkg.plain"], before)
    # equal names in another object: nothing changed, the pattern's record holds too
    assert now.same_reads(mods["pkg.pattern"], frozenset({"fa3_kernel", "ping"}))


def test_a_build_under_other_gated_names_resolves_only_the_modules_reading_them(tmp_path):
    index = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    first = build_python_graph(index, GraphOptions(), memo)
    assert memo.computed == len(index.modules) == 7
    assert not first.graph.has_edge("py:pkg.use_fa3:go", "attr:fa3_kernel")
    assert first.graph.has_edge("py:pkg.use_ping:go", "attr:ping")

    again = build_python_graph(index, DROPPING_FA3, memo)
    # pkg.use_fa3 (reads fa3_kernel) and pkg.pattern (reads fa3_*) are resolved again; the
    # five others replay the first build's records
    assert (memo.computed, memo.replayed) == (2, 5)
    fresh = build_python_graph(index, DROPPING_FA3)
    same_python_graph(again, fresh)
    assert again.graph.has_edge("py:pkg.use_fa3:go", "attr:fa3_kernel")
    assert again.graph.has_edge("py:pkg.pattern:go", "attr:fa3_kernel")

    # back to the first options: every module's first record still holds
    back = build_python_graph(index, GraphOptions(), memo)
    assert (memo.computed, memo.replayed) == (0, 7)
    same_python_graph(back, build_python_graph(index, GraphOptions()))
    assert not back.graph.has_edge("py:pkg.use_fa3:go", "attr:fa3_kernel")


def test_records_hold_one_object_per_set_of_gated_names(tmp_path):
    # a worker's records and the stored memo come back unpickled: each set of gated names
    # is then the one object the process already holds (~0.5 MB each on the largest trees)
    import pickle

    index = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    build_python_graph(index, GraphOptions(), memo)
    record = memo.records["pkg.plain"][1]
    assert record.gated == frozenset({"ping"})
    assert record.gated is memo.records["pkg.use_fa3"][1].gated
    back = pickle.loads(pickle.dumps(record))
    assert back.ops == record.ops and back.gated is record.gated


def test_a_module_reading_no_gated_name_and_no_pattern_leaves_its_uses_packed(
        tmp_path, monkeypatch):
    # its method-name uses give no edge: they are not unpacked (the names alone, loaded
    # beside them, tell); a reader of a gated name or of a pattern unpacks them
    from analyzer.extract.fact import Packed

    index = module_index(tmp_path, TREE)
    uses = {name: mod.facts.member_uses for name, mod in index.modules.items()}
    assert all(isinstance(u, Packed) for u in uses.values())
    unpacked: list[int] = []
    real = Packed.unpack

    def unpack(self):
        unpacked.append(id(self))
        return real(self)

    monkeypatch.setattr(Packed, "unpack", unpack)
    graph = build_python_graph(index, GraphOptions()).graph
    read = {name for name, u in uses.items() if id(u) in unpacked}
    # fa3_kernel is not gated without fa3_* droppable: pkg.use_fa3 reads no gated name
    assert {"pkg.use_ping", "pkg.pattern"} <= read
    assert not read & {"pkg.use_fa3", "pkg.plain", "pkg.k", "pkg.m"}
    assert graph.has_edge("py:pkg.use_ping:go", "attr:ping")
    assert not graph.has_edge("py:pkg.use_fa3:go", "attr:fa3_kernel")


def test_the_names_whose_gating_changed_are_held_in_a_set_of_their_own_size(tmp_path):
    # the symmetric difference of two large name sets keeps the larger one's hash table, and
    # a module's test against it would walk every slot of it: built apart, it is as small as
    # any set of two names
    import sys

    index = module_index(tmp_path, TREE)
    many = frozenset(f"method_{i}" for i in range(9000))
    made_under = frozenset((many - {"method_7"}) | {"fa3_kernel"})
    gated = GatedNames(many)
    # the module reading fa3_kernel does not hold (its gating changed); the plain one does
    assert not gated.same_reads(index.modules["pkg.use_fa3"], made_under)
    assert gated.same_reads(index.modules["pkg.plain"], made_under)
    changed = gated._changed[id(made_under)][1]
    assert changed == {"method_7", "fa3_kernel"}
    assert sys.getsizeof(changed) <= sys.getsizeof(frozenset({"a", "b"}))
