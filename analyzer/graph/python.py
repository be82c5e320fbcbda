"""Graph stage: one networkx DiGraph of modules, symbols and (later stages) native targets.

Nodes (``kind`` attribute): ``module`` (a Python file), ``symbol`` (a top-level function or
class), ``external`` (a third-party top-level package). Ids: ``py:<module>``,
``py:<module>:<name>``, ``ext:<package>``.

Edges carry ``kind`` and the ``file``/``line`` they come from. Edge kinds and their meaning
for liveness (an edge u -> v means "if u is live, v is live"):

- ``import``            module or definition executes an import of v (module-level or lazy)
- ``optional_import``   the same inside ``try/except ImportError``
- ``reference``         u reads name v (resolved through imports and re-exports)
- ``parent_package``    importing a module runs its packages' ``__init__.py`` first
- ``defined_in``        a live symbol's module is loaded
- ``registered``        a decorator with a registry shape (string key, or an in-tree
                        decorator) runs at import time and keeps the definition reachable
- ``string_ref``        a string literal spells v's dotted path; when v is a module, its
                        public definitions are live too (the string is there to be loaded)
- ``dynamic_import``    ``importlib.import_module("v")``; v's public definitions are live
                        too (a dynamically loaded module is used through getattr)
- ``plugin_family``     a package named by a string in a module that walks packages with
                        ``pkgutil``, or passed to a function that does, has every submodule
                        loaded (and, as above, their public definitions live); so does the
                        own package of a module that lists its ``__file__`` folder and walks
                        it with pkgutil or imports computed names; and every module whose
                        name a computed ``import_module`` argument may be
                        (``f"pkg.backends.{name}"``: the modules under ``pkg.backends``);
                        and a string naming a folder of modules without ``__init__.py``
                        (a plugin folder: there to have its modules found) reaches them
- ``star_import``       ``from m import *`` brings in m's public definitions
- ``exported``          a name listed in a live module's ``__all__`` (public API) is live
- ``type_checking``     typing-only (``if TYPE_CHECKING:``); never followed by liveness
- ``names_test``        a runner, suite list or CI script names a test by its path
                        (``TestFile("cpu/test_x.py")``): never followed -- the test goes or
                        stays on its own terms, and the entry naming it goes with it
- ``type_test``         a class appended to a list only ``isinstance`` reads: it keeps nothing
                        live (no object is an instance of a class nothing constructs); the
                        plan deletes the append when the class is dead
- ``member``            a class to one of its methods. A method whose name only code can
                        call (not a dunder, not registered by a decorator, not possibly called
                        by a framework base class outside the tree, in no class whose module
                        enumerates attributes) has a ``gate``: the ``attr:<name>`` node. It is
                        live only when its class is live *and* live code reads that name
                        (``x.name``, ``getattr(x, "name")``, ``f"forward_{p}"`` skeletons)
- ``attribute_read``    u reads attribute name v (``attr:<name>``, only names of gated methods)
- ``module_value``      u uses a module object as a value (a bare ``pkg.mod`` in a list, an
                        argument, an assignment): v, each public definition of it, is live

Facts inside a method's lines come from the method's node, so what only a dead method uses
(a lazy import in ``_create_flashmla_decode_backend``) is dead with it.

The first edge between two nodes wins (facts are visited in a deterministic order), so each
edge names one concrete origin.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, cast

import networkx as nx

from analyzer.decide.options import GraphOptions
from analyzer.graph.python_edges import ModuleEdges, member_read_names
from analyzer.graph.python_nodes import (
    NOT_FOLLOWED,
    Op,
    Ops,
    PythonGraph,
    add_nodes,
    enumerated_class,
    method_graph,
    module_import_edges,
    module_nodes,
    op_triples,
    subclass_index,
)
from analyzer.nodes import (
    EdgeData,
    Graph,
    add_edges,
    module_node,
    node_dicts,
    pred_dicts,
    succ_dicts,
)
from analyzer.resolve.python import SHAPE_READS, ModuleIndex, PyModule, shape_read
from analyzer.util.parallel import forked_map
from analyzer.util.pickling import shared as share

__all__ = ["NOT_FOLLOWED", "EdgeMemo", "GatedNames", "Layer", "Op", "Ops", "PythonGraph",
           "add_nodes", "build_layer", "build_python_graph", "enumerated_class", "gated_names",
           "layer_key", "memo_key", "module_import_edges", "module_layer",
           "op_triples", "subclass_index"]


@dataclass
class ModuleRecord:
    """What one module's edges added to the graph, to add again unchanged."""

    ops: Ops
    unresolved: list[dict[str, object]]
    decisions: list[dict[str, object]]
    reexports: frozenset[tuple[str, str]]
    # what else the edges depended on: the folded flags of names bound twice or more that
    # resolution went through, and the registries' (key argument, dropped keys) it read
    orders: dict[tuple[str, str, str], tuple[bool, ...]]
    registries: dict[str, tuple[int, frozenset[str]] | None]
    # the other modules whose facts resolution read: an edit of one of them may change the
    # edges (analyzer.graph.edge_store forgets the record when one changed between scans)
    consulted: frozenset[str] = frozenset()
    # every edge goes out of one of the module's own nodes (its module, definitions and
    # methods): taking the module's edges out of a graph takes no other module's
    # (``analyzer.graph.rounds_graph`` patches only graphs whose records all are)
    owned: bool = True
    # the gated method names the edges were made under (one object shared by the records of
    # a build): they decide only the module's ``attribute_read`` edges (:class:`GatedNames`)
    gated: frozenset[str] = frozenset()
    # what resolution read of the tree's shape, as ``kind:name`` lines (kinds
    # ``analyzer.resolve.python.SHAPE_READS``; :meth:`shape_reads`): a tree of another shape
    # answers each the same way or the record does not hold there (``analyzer.graph.
    # edge_store``). One bytes object: tens of thousands of distinct names on the largest
    # trees would otherwise each be an object of the process's shared table
    shape: bytes = b""
    # the classes whose subclasses the edges enumerate, with the subclasses they had
    subclasses: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # the module's from-imports were frozen (``GraphOptions.frozen_imports``: they keep the
    # names they import live)
    frozen: bool = False
    # the nodes its edges make, in the order made (:meth:`made`; computed when first asked)
    _made: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def made(self) -> tuple[str, ...]:
        """The nodes the module's edges make (``node, None, attrs`` additions), in order."""
        if self._made is None:
            self._made = tuple(n for n, dst, _ in op_triples(self.ops) if dst is None)
        return self._made

    def shape_reads(self) -> list[str]:
        """What resolution read of the tree's shape, ``kind:name`` each."""
        return self.shape.decode().split("\n") if self.shape else []

    def still_valid(self, index: ModuleIndex, options: GraphOptions, mod: PyModule,
                    gated: GatedNames, subclasses: Mapping[str, list[tuple[str, str]]]
                    ) -> bool:
        return gated.same_reads(mod, self.gated) and index.same_orders(self.orders) \
            and all(options.registries.get(q) == v for q, v in self.registries.items()) \
            and all(tuple(subclasses.get(base, ())) == found
                    for base, found in self.subclasses) \
            and (mod.name in options.frozen_imports) == self.frozen

    def __reduce__(self) -> tuple[Callable[..., ModuleRecord], tuple[object, ...]]:
        """Pickled (the persisted memo, :mod:`analyzer.graph.edge_store`) with each edge's
        attributes as three plain values in the flat additions: pickle remembers every
        object it writes (an ``EdgeData`` and its argument tuple: two entries each, a memo
        table of ~64 MiB beside the largest trees' edge memo), never a string twice or an
        integer at all."""
        flat: list[object] = []
        for node, dst, attrs in op_triples(self.ops):
            if dst is None:
                flat.extend((node, None, attrs))
            else:
                assert isinstance(attrs, EdgeData)  # (every recorded edge's: _add_edge)
                flat.extend((node, dst, attrs.kind, attrs.file, attrs.line))
        return _unpickled_record, (tuple(flat), self.unresolved, self.decisions,
                                   self.reexports, self.orders, self.registries,
                                   self.consulted, self.owned, self.gated, self.shape,
                                   self.subclasses, self.frozen)


def _unpickled_record(flat: tuple[object, ...], *fields: Any) -> ModuleRecord:
    """A :class:`ModuleRecord` from its pickled form (:meth:`ModuleRecord.__reduce__`)."""
    ops: list[object] = []
    items = iter(flat)
    for node in items:
        dst = next(items)
        if dst is None:
            ops.extend((node, None, next(items)))
        else:
            kind, file, line = next(items), next(items), next(items)
            ops.extend((node, dst, EdgeData(cast(str, kind), cast(str, file),
                                            cast("int | None", line))))
    record = ModuleRecord(tuple(ops), *fields)
    # (a worker's records, or the stored memo's: equal sets of ~9,000 names, 0.5 MB each on
    # the largest trees, are the process's one object, and a build whose names are a
    # record's knows so by identity)
    record.gated = share(record.gated)
    return record


class GatedNames:
    """The gated method names of one build, and whether a record made under other names has
    the edges this build's would: a module's edges read the gated names only where its code
    reads a method name (``attribute_read`` edges, ``ModuleEdges._member_reads``: a plain
    name read is one edge when the name is gated, none when not; a pattern read, ``getattr(x,
    f"_make_{kind}")``, the gated names it matches). So a record made under other gated names
    holds when no name whose gating changed is one the module reads, and the module reads no
    pattern. The plans under other drops gate other names (a dropped feature's identifiers
    gate the methods they name in open-ended classes): a name or two of thousands."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        # id of a record's names -> (those names, the names whose gating differs from this
        # build's); the names are kept so that the id is not reused while the entry lives
        self._changed: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    def same_reads(self, mod: PyModule, made_under: frozenset[str]) -> bool:
        """The module's reads of gated names give the same edges under ``made_under``."""
        if made_under is self.names:
            return True
        known = self._changed.get(id(made_under))
        if known is None or known[0] is not made_under:
            known = self._changed[id(made_under)] = (made_under, _compact(made_under
                                                                          ^ self.names))
        changed = known[1]
        if not changed:
            return True
        plain, patterns = member_read_names(mod)
        return not patterns and plain.isdisjoint(changed)


def _compact(names: frozenset[str]) -> frozenset[str]:
    """``names`` in a set of its own size. The symmetric difference of two sets of ~9,000
    names keeps the hash table of the larger (a set never shrinks its table), and a test
    against it walks every slot of that table even for one name: ``isdisjoint`` iterates
    the smaller set, so each module a build asks about scanned ~16,000 empty slots (7.4 s
    of a ``--drop multimodal_gen`` scan's plans under other drops, under cProfile)."""
    return frozenset(list(names))


# variants of one module's edges kept (its folded lines differ between rounds and profiles)
_VARIANTS = 4


@dataclass
class EdgeMemo:
    """Each module's edges from the graphs built before, handed to the next build (the next
    soundness round, or -- persisted by :mod:`analyzer.graph.edge_store` -- the next scan of
    the same tree): a module whose own folded lines are those of a recorded build, and none of
    what its resolution went through (:meth:`ModuleIndex.recording`) nor the registries it
    read changed, and whose reads of gated method names give the same edges under the
    build's (:class:`GatedNames`), gets the same edges, so they are replayed instead of
    resolved again. ``global_key`` is what every module's edges depend on (:func:`memo_key`:
    options, subclasses): when it changes, nothing recorded holds."""

    global_key: tuple[object, ...] | None = None
    # module -> the record its edges came from in the last build: (own folded lines, record)
    records: dict[str, tuple[object, ModuleRecord]] = field(default_factory=dict)
    # module -> every record kept for it (the latest last, at most _VARIANTS)
    variants: dict[str, list[tuple[object, ModuleRecord]]] = field(default_factory=dict)
    replayed: int = 0  # modules replayed by the last build
    computed: int = 0  # modules whose edges the last build resolved
    added: int = 0  # records kept since this memo was made or loaded
    # the modules whose records changed since the stored memo (analyzer.graph.edge_store)
    # it was loaded from was written in whole; None: every module's (a memo made afresh)
    touched: set[str] | None = None
    # the attributes of each node edges make (``ext:torch``), one dict for every record that
    # needs the node (hundreds of thousands of records' node ops; read only, never written)
    made_attrs: dict[tuple[object, ...], dict[str, object]] = field(default_factory=dict)
    # the records kept since :meth:`logging` began (a worker's, handed back to the memo it
    # was forked from: :meth:`absorb`); None: not logged
    log: list[tuple[str, object, ModuleRecord]] | None = None

    def reset(self, global_key: tuple[object, ...]) -> None:
        """Forget every record: they were made under another ``global_key``."""
        self.global_key = global_key
        self.records.clear()
        self.variants.clear()
        self.touched = None

    def find(self, module: str, local: object, index: ModuleIndex, options: GraphOptions,
             gated: GatedNames, subclasses: Mapping[str, list[tuple[str, str]]]
             ) -> ModuleRecord | None:
        """A record of ``module`` made with these folded lines that still holds under the
        build's gated method names ``gated`` and the tree's ``subclasses``, or None."""
        for known_local, record in reversed(self.variants.get(module, ())):
            if known_local == local and record.still_valid(
                    index, options, index.modules[module], gated, subclasses):
                return record
        return None

    def keep(self, module: str, local: object, record: ModuleRecord) -> None:
        kept = self.variants.setdefault(module, [])
        kept.append((local, record))
        del kept[:-_VARIANTS]
        self.added += 1
        if self.touched is not None:
            self.touched.add(module)
        if self.log is not None:
            self.log.append((module, local, record))

    def logging(self) -> None:
        """Log the records kept from now on (:attr:`log`)."""
        self.log = []

    def absorb(self, global_key: tuple[object, ...] | None,
               log: list[tuple[str, object, ModuleRecord]]) -> None:
        """Keep the records another process's copy of this memo logged, when they were made
        under this memo's ``global_key`` (a copy that was reset made them for another)."""
        if global_key == self.global_key:
            for module, local, record in log:
                self.keep(module, local, record)


def build_python_graph(index: ModuleIndex, options: GraphOptions | None = None,
                       memo: EdgeMemo | None = None, jobs: int = 1) -> PythonGraph:
    """The Python graph of ``index``. Decisions the options caused are kept in
    ``graph.graph["decisions"]`` as evidence. With ``memo``, modules whose inputs are those
    of the last build replay its edges (:class:`EdgeMemo`). ``jobs``: worker processes that
    may resolve the modules' edges (:func:`module_layer`)."""
    return build_layer(index, options or GraphOptions(), memo or EdgeMemo(), jobs).python


@dataclass
class Layer:
    """A built Python graph with what a later build patches it from: each module's record
    (the edges it holds), how many modules need each node edges make, the method nodes and
    the key every record was made under (``analyzer.graph.rounds_graph`` patches it)."""

    python: PythonGraph
    records: dict[str, ModuleRecord]
    made: dict[str, int]  # node an edge needs (``MADE_NODES``) -> modules whose ops add it
    methods: list[tuple[str, dict[str, object]]]
    members: dict[tuple[str, str], Mapping[str, object]]  # class -> method edges, as made
    global_key: tuple[object, ...]
    # the modules whose edges the last build took out and added again (a fresh one: every)
    swapped: frozenset[str] = frozenset()


def build_layer(index: ModuleIndex, options: GraphOptions, memo: EdgeMemo, jobs: int = 1
                ) -> Layer:
    """:func:`build_python_graph`, with what a later build needs to patch it
    (:func:`module_layer`)."""
    graph: Graph = nx.DiGraph(decisions=[])
    for name in sorted(index.modules):
        add_nodes(graph, module_nodes(index.modules[name]))
    methods, members = method_graph(index, graph, options)
    add_nodes(graph, methods)
    add_edges(graph, members)
    add_nodes(graph, [(module_node(ext), {"kind": "extension", "module": ext, "target": target})
                      for ext, target in sorted(index.extensions.items())])
    add_nodes(graph, [(module_node(package), {"kind": "installed_package", "module": package})
                      for package in sorted(index.installed_packages)])
    global_key = layer_key(index, options, methods)
    if memo.global_key != memo_key(global_key):
        memo.reset(memo_key(global_key))
    layer = Layer(PythonGraph(graph, [], frozenset(), {}), {}, {}, methods,
                  {(u, v): attrs for u, v, attrs in members}, global_key)
    return module_layer(layer, index, options, memo, jobs)


def layer_key(index: ModuleIndex, options: GraphOptions,
              methods: list[tuple[str, dict[str, object]]]) -> tuple[object, ...]:
    """What the module's edges of a build depend on beyond each module's own record: the
    options the whole tree reads, the gated method names (the dropped features' names decide
    them) and the subclasses of each class (both checked per record: :class:`GatedNames`,
    :attr:`ModuleRecord.subclasses`)."""
    return (options.restricted_families, options.frozen_imports, gated_names(index, methods),
            index.resolved_once("subclass_index", lambda: subclass_index(index)))


def memo_key(key: tuple[object, ...]) -> tuple[object, ...]:
    """What every record of the edge memo depends on (:attr:`EdgeMemo.global_key`): the
    layer's ``key`` (:func:`layer_key`) less the modules whose imports are frozen, the gated
    method names and the subclasses, which each record checks for itself (a tree of another
    shape has other test modules, say)."""
    return key[:1]


def gated_names(index: ModuleIndex, methods: list[tuple[str, dict[str, object]]]
                ) -> frozenset[str]:
    """The names of the gated methods among ``methods`` (:func:`method_graph`'s nodes): a
    function of that list, which the rounds' builds get again unchanged (the same object)
    until the open-ended classes or the droppable names change -- found once per list."""
    known = index.tree_memo.get("gated_names")
    if known is not None and known[0] is methods:
        return known[1]  # type: ignore[no-any-return]
    gated = frozenset(str(attrs["method"]) for _, attrs in methods if attrs.get("gate"))
    index.tree_memo["gated_names"] = (methods, gated)
    return gated


def module_layer(layer: Layer, index: ModuleIndex, options: GraphOptions, memo: EdgeMemo,
                 jobs: int = 1) -> Layer:
    """Every module's edges in ``layer``'s graph: a module whose record there is the one the
    memo answers keeps its edges; any other has them removed, then its record replayed (or
    its edges resolved and recorded). Nodes only removed edges needed go too.

    A fresh graph's modules without a record are resolved in ``jobs`` forked workers when
    they are many (a cold scan, or verify's tree of another shape): each module's record is
    a function of the index, the graph's nodes and the ``member`` edges every build adds
    first -- its edges leave from its own nodes, and a node its edges make is recorded
    whether another module made it first -- which is what lets the memo replay it in any
    build. The records then replay in module
    order, as every record from the memo does."""
    graph = layer.python.graph
    gated = layer.global_key[2]
    subclasses = layer.global_key[3]
    assert isinstance(gated, frozenset) and isinstance(subclasses, dict)
    gated = share(gated)
    memo.replayed = memo.computed = 0
    unresolved: list[dict[str, object]] = []
    reexported: dict[tuple[str, str], set[str]] = {}
    made = layer.made
    patch = bool(layer.records)  # a graph of the last build: modules' edges are swapped
    # node -> how many of its predecessors a swap added again (last, in module order)
    readded: dict[str, int] = {}
    remade = False  # a swapped module's edges make other nodes (or in another order)
    swapped: set[str] = set()  # modules whose edges were taken out and added again
    names = sorted(index.modules)
    locals_ = {name: _local(name, index, options) for name in names}
    reads = GatedNames(gated)
    found = {name: memo.find(name, locals_[name], index, options, reads, subclasses)
             for name in names}
    resolved: dict[str, ModuleRecord] = {}  # records the workers made
    todo = [name for name in names if found[name] is None]
    if not patch and jobs > 1 and len(todo) >= _FORK_MIN:
        def resolve(name: str) -> ModuleRecord:  # (in a forked worker: its own graph)
            return _module_edges(index, graph, index.modules[name], options, gated,
                                 subclasses, memo.made_attrs)
        resolved = dict(zip(todo, forked_map(resolve, todo, jobs), strict=True))
    for name in names:
        local = locals_[name]
        record = found[name]
        old = layer.records.get(name)
        if record is None or record is not old:
            swapped.add(name)
            computed = record is None
            if record is None:
                record = resolved.get(name)
            # (a swap leaves the edges both records have where they are; else the old edges
            # go and the new ones are added last)
            if not (patch and old is not None and record is not None and _swap_edges(
                    graph, old.ops, record.ops, made, layer.members, readded)):
                if old is not None:
                    _remove_ops(graph, old.ops, made, layer.members)
                if record is not None:
                    _replay(graph, record.ops)
                else:
                    record = _module_edges(index, graph, index.modules[name], options, gated,
                                           subclasses, memo.made_attrs)
                if patch:
                    _count_added(record.ops, layer.members, readded)
            if computed:
                memo.keep(name, local, record)
                memo.computed += 1
            for node, dst, _ in op_triples(record.ops):
                if dst is None:
                    made[node] = made.get(node, 0) + 1
            if patch and (old is None or old.made() != record.made()):
                remade = True  # the nodes its edges make, or their order, changed
            layer.records[name] = record
        memo.records[name] = (local, record)
        unresolved.extend(record.unresolved)
        for pair in record.reexports:
            reexported.setdefault(pair, set()).add(name)
    memo.replayed = len(index.modules) - memo.computed
    unused = [node for node, n in made.items() if n == 0]
    for node in unused:
        del made[node]
    graph.remove_nodes_from(unused)
    if patch:
        _fresh_order(graph, layer, sorted(index.modules), readded, remade or bool(unused))
    graph.graph["decisions"] = [d for name in sorted(index.modules)
                                for d in layer.records[name].decisions]
    layer.swapped = frozenset(swapped)
    layer.python = PythonGraph(graph, unresolved, frozenset(index.reexports_used),
                               {pair: frozenset(by) for pair, by in reexported.items()})
    return layer


# modules without a record below which a fresh graph resolves them in this process (a pool
# costs more than it saves for a few)
_FORK_MIN = 256


def _local(name: str, index: ModuleIndex, options: GraphOptions) -> tuple[object, ...]:
    """What a module's record is made for: its own folded lines and folded arms' reads."""
    return (options.dead_lines.get(name, ()), tuple(index.dead_reads.get(name, ())))


def _fresh_order(graph: Graph, layer: Layer, modules: list[str], readded: dict[str, int],
                 remade: bool) -> None:
    """Put a patched graph's dicts in the order a fresh build gives them.

    - The nodes edges make come after every node of the tree, in the order the modules'
      records (in module order) first add them: put back when a swap changed which nodes a
      module's edges make (``remade``); else they are in that order still.
    - A node's predecessors: its ``member`` edge's class first, then the sources of the
      modules' edges in module order, each module's in the order its record adds them. The
      last ``readded[node]`` of them a swap added again (a module's edges into the node, of
      a module none of whose other edges into it are left: :func:`_swap_edges`), in module
      order: each is put back among the others (which kept their order) where its module
      ranks.
    - Successors need nothing: a swap leaves each of the module's nodes with its ``member``
      edges first, then the record's edges in their order, as in a fresh build."""
    nodes = node_dicts(graph)
    succ = succ_dicts(graph)
    pred = pred_dicts(graph)
    if remade:
        records = layer.records
        made_order = dict.fromkeys(chain.from_iterable(records[name].made()
                                                       for name in modules))
        # (already last, in that order: nothing moves -- the common case of a swap that
        # makes a node another module made first)
        if list(islice(nodes, len(nodes) - len(made_order), None)) != list(made_order):
            for node in made_order:
                if node in nodes:  # (always: a record's nodes are added with its edges)
                    nodes[node] = nodes.pop(node)
                    succ[node] = succ.pop(node)
                    pred[node] = pred.pop(node)
    rank = {name: i for i, name in enumerate(modules)}
    members = layer.members
    ranks: dict[str, int] = {}  # node -> the rank of its module (asked of many nodes' preds)

    def rank_of(u: str) -> int:
        r = ranks.get(u)
        if r is None:
            r = ranks[u] = rank.get(str(nodes[u].get("module")), -2)
        return r

    for v, count in readded.items():
        was = pred.get(v)
        if not was or count >= len(was):
            continue  # (nothing before the ones added again: in order already)

        def key(item: tuple[str, Mapping[str, object]], v: str = v) -> int:
            u = item[0]
            return -1 if (u, v) in members else rank_of(u)

        # the edges added again: the last ones (read from the end, so a node thousands of
        # modules use costs its swapped edges, not all of them)
        ends = reversed(was.items())
        tail = list(islice(ends, count))
        last_head = next(ends)
        tail.reverse()
        if key(last_head) <= key(tail[0]):
            continue  # in order already
        head = list(islice(was.items(), len(was) - count))
        merged: list[tuple[str, Mapping[str, object]]] = []
        at = 0
        for item in tail:  # (in module order: each goes at or after the last one's place)
            to = bisect_right(head, key(item), lo=at, key=key)
            merged.extend(head[at:to])
            merged.append(item)
            at = to
        merged.extend(head[at:])
        pred[v] = dict(merged)


def _swap_edges(graph: Graph, old: Ops, new: Ops, made: dict[str, int],
                members: dict[tuple[str, str], Mapping[str, object]],
                readded: dict[str, int]) -> bool:
    """A module's edges from record ``old`` to record ``new`` (both of its own nodes), the
    edges both have left where they are: what taking ``old`` out and replaying ``new`` makes,
    but for the order of predecessors :func:`_fresh_order` puts back -- of each node the
    module's edges go into, those of the module stay in place when they come from the same
    sources in the same order, else they go and come again last (counted in ``readded``).
    Each of the module's nodes gets its ``member`` edges first, then the new record's edges
    in their order. False (the graph untouched) when some edge of ``new`` goes to a node the
    graph does not have, and that ``new`` does not make."""
    nodes, succ, pred = node_dicts(graph), succ_dicts(graph), pred_dicts(graph)
    final: dict[tuple[str, str], Mapping[str, object]] = {}  # pair -> attributes, as replayed
    into: dict[str, list[str]] = {}  # node -> the sources of the new edges into it, in order
    makes: list[tuple[str, Mapping[str, object]]] = []
    for src, dst, attrs in op_triples(new):
        if dst is None:
            makes.append((src, attrs))
            continue
        pair = (src, dst)
        was = final.get(pair)
        if was is not None:
            final[pair] = {**was, **attrs}  # (a repeated edge: merged, as a replay merges)
            continue
        member = members.get(pair)
        final[pair] = attrs if member is None else {**member, **attrs}
        if member is None:
            into.setdefault(dst, []).append(src)
    making = {node for node, _ in makes}
    if any(dst not in nodes and dst not in making for dst in into):
        return False
    old_into: dict[str, list[str]] = {}
    old_pairs: set[tuple[str, str]] = set()
    for src, dst, _ in op_triples(old):
        if dst is None:
            made[src] -= 1
            continue
        pair = (src, dst)
        if pair not in old_pairs:
            old_pairs.add(pair)
            if pair not in members:
                old_into.setdefault(dst, []).append(src)
    for node, attrs in makes:
        if node not in nodes:  # (as a replay adds them: once, when absent)
            add_nodes(graph, [(node, cast(dict[str, object], attrs))])
    for v in dict.fromkeys([*old_into, *into]):
        before, after = old_into.get(v, []), into.get(v, [])
        preds = pred[v]
        if before != after:
            for src in before:
                del preds[src]
            if after:
                readded[v] = readded.get(v, 0) + len(after)
        for src in after:
            preds[src] = final[src, v]
    for pair in old_pairs | final.keys():
        member = members.get(pair)
        if member is not None:
            src, v = pair
            pred[v][src] = final.get(pair, member)
    by_source: dict[str, list[str]] = {src: [] for src, _ in old_pairs}
    for src, dst in final:  # (in the order first added)
        by_source.setdefault(src, []).append(dst)
    for src, dsts in by_source.items():
        out = succ[src]
        again = [dst for dst in out if (src, dst) in members]
        again.extend(dst for dst in dsts if (src, dst) not in members)
        out.clear()
        out.update((dst, pred[dst][src]) for dst in again)  # (one attributes object per edge)
    return True


def _count_added(ops: Ops, members: dict[tuple[str, str], Mapping[str, object]],
                 readded: dict[str, int]) -> None:
    """Count the edges a replay of ``ops`` (or their resolution) added last into each node:
    each pair once, ``member`` edges not (those stay in their place)."""
    seen: set[tuple[str, str]] = set()
    for src, dst, _ in op_triples(ops):
        if dst is not None and (src, dst) not in seen and (src, dst) not in members:
            seen.add((src, dst))
            readded[dst] = readded.get(dst, 0) + 1


def _remove_ops(graph: Graph, ops: Ops, made: dict[str, int],
                members: dict[tuple[str, str], Mapping[str, object]]) -> None:
    """Take a module's recorded edges out of the graph (each edge's source is one of the
    module's own nodes, so no other module's edge goes with them; a ``member`` edge the
    module's edges updated gets its own attributes back), counting the nodes they needed one
    module less."""
    succ = succ_dicts(graph)
    pred = pred_dicts(graph)
    for src, dst, _ in op_triples(ops):
        if dst is None:
            made[src] -= 1
            continue
        data = succ[src].get(dst)
        if data is None:
            continue
        member = members.get((src, dst))
        if member is not None:  # (edge attributes are never changed in place: shared)
            succ[src][dst] = pred[dst][src] = member
        else:
            del succ[src][dst]
            del pred[dst][src]


def _module_edges(index: ModuleIndex, graph: Graph, mod: PyModule, options: GraphOptions,
                  gated: frozenset[str], subclasses: dict[str, list[tuple[str, str]]],
                  made_attrs: dict[tuple[object, ...], dict[str, object]]) -> ModuleRecord:
    """Add one module's edges, and record them (``made_attrs``: :attr:`EdgeMemo.made_attrs`)."""
    decisions: list[dict[str, object]] = graph.graph["decisions"]
    first_decision = len(decisions)
    edges = ModuleEdges(index, graph, mod, [], options, gated, subclasses, made_attrs)
    with index.recording(shape=True) as used:
        edges.add_all()
    ops = tuple(edges.ops)
    return ModuleRecord(
        ops, edges.unresolved, decisions[first_decision:],
        frozenset((d[1], d[2]) for d in used if d[0] == "reexport"),
        index.orders_of(used),
        edges.registries_read,
        frozenset(d[1] for d in used if d[0] == "module" and d[1] != mod.name),
        all(src == edges.me or src.startswith(edges.me + ":")
            for src, dst, _ in op_triples(ops) if dst is not None), gated,
        "\n".join(sorted({shape_read(d) for d in used if d[0] in SHAPE_READS})).encode(),
        tuple(sorted(edges.subclasses_read.items())), mod.name in options.frozen_imports)


def _replay(graph: Graph, ops: Ops) -> None:
    """Add a module's recorded nodes (when absent) and edges again, in their order (a run of
    edges in one ``add_edges_from``: the same graph, fewer calls)."""
    edges: list[tuple[str, str, Mapping[str, object]]] = []
    for src, dst, attrs in op_triples(ops):
        if dst is not None:
            edges.append((src, dst, attrs))
        elif src not in graph:
            add_edges(graph, edges)
            edges.clear()
            add_nodes(graph, [(src, cast(dict[str, object], attrs))])
    add_edges(graph, edges)
