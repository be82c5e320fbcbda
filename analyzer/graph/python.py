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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from itertools import islice
from typing import Any, TypeAlias, cast

import networkx as nx

from analyzer.config.globs import identifier_matches
from analyzer.decide.options import GraphOptions
from analyzer.discover.test_files import is_test_module
from analyzer.extract.python_facts import TRY_IMPORT_ERROR, TYPE_CHECKING, Definition, ImportFact
from analyzer.nodes import (
    EdgeData,
    Graph,
    add_edges,
    attribute_node,
    module_node,
    node_dicts,
    pred_dicts,
    put_edge,
    succ_dicts,
    symbol_node,
)
from analyzer.resolve.call_args import resolved_member_names
from analyzer.resolve.python import ModuleIndex, PyModule, Target
from analyzer.util.parallel import forked_map
from analyzer.util.pickling import shared as share

NOT_FOLLOWED = frozenset({"type_checking", "type_test", "names_test"})
# module-level functions the interpreter calls by name (PEP 562): live with their module
MODULE_HOOKS = frozenset({"__getattr__", "__dir__"})
# decorators that change how a method is called, not whether it is: the method stays gated
PLAIN_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "cached_property", "functools.cached_property",
    "abstractmethod", "abc.abstractmethod", "override", "typing.override",
    "typing_extensions.override"})
# bases that call no method by a name of the subclass's choosing (dunders and sunders such
# as Enum's `_missing_` are always live anyway)
PLAIN_BASES = frozenset({
    "object", "ABC", "abc.ABC", "Protocol", "typing.Protocol", "Generic", "typing.Generic",
    "Exception", "BaseException", "RuntimeError", "ValueError",
    "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "enum.Enum", "enum.IntEnum",
    "enum.StrEnum", "enum.Flag", "enum.IntFlag",
    "str", "int", "float", "dict", "list", "tuple", "set", "NamedTuple", "typing.NamedTuple"})


@dataclass(frozen=True)
class PythonGraph:
    """What the graph stage hands on: the graph, the in-tree names that resolved to nothing
    (for the report) and the import bindings other modules resolved through (module, name):
    re-exports the plan must keep."""

    graph: Graph
    unresolved: list[dict[str, object]]
    reexported: frozenset[tuple[str, str]]  # resolved through outside any module's edges
    # (module, name) -> the modules whose edges resolved through that import binding: it is
    # needed while one of them remains
    reexported_by: dict[tuple[str, str], frozenset[str]]


# kinds of nodes the edges of a module create when they first need them
_MADE_NODES = frozenset({"external", "attribute"})


# A module's recorded additions to the graph, flat: three items per addition, ``node, None,
# attrs`` for a node its edges need, ``src, dst, data`` for an edge, in the order made (one
# tuple: a third of the memory of a list of triples, ~730,000 additions on the largest trees)
Ops: TypeAlias = tuple[object, ...]
Op: TypeAlias = tuple[str, str | None, Mapping[str, object]]


def op_triples(ops: Ops) -> Iterator[Op]:
    """The additions of a record's ``ops``, as (node or source, None or destination,
    attributes) triples."""
    items = iter(ops)
    return cast(Iterator[Op], zip(items, items, items, strict=True))


@dataclass
class _ModuleRecord:
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
    # the nodes its edges make, in the order made (:meth:`made`; computed when first asked)
    _made: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def made(self) -> tuple[str, ...]:
        """The nodes the module's edges make (``node, None, attrs`` additions), in order."""
        if self._made is None:
            self._made = tuple(n for n, dst, _ in op_triples(self.ops) if dst is None)
        return self._made

    def still_valid(self, index: ModuleIndex, options: GraphOptions) -> bool:
        return index.same_orders(self.orders) \
            and all(options.registries.get(q) == v for q, v in self.registries.items())

    def __reduce__(self) -> tuple[Callable[..., _ModuleRecord], tuple[object, ...]]:
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
                                   self.consulted, self.owned)


def _unpickled_record(flat: tuple[object, ...], *fields: Any) -> _ModuleRecord:
    """A :class:`_ModuleRecord` from its pickled form (:meth:`_ModuleRecord.__reduce__`)."""
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
    return _ModuleRecord(tuple(ops), *fields)


# variants of one module's edges kept (its folded lines differ between rounds and profiles)
_VARIANTS = 4


@dataclass
class EdgeMemo:
    """Each module's edges from the graphs built before, handed to the next build (the next
    soundness round, or -- persisted by :mod:`analyzer.graph.edge_store` -- the next scan of
    the same tree): a module whose own folded lines are those of a recorded build, and none of
    what its resolution went through (:meth:`ModuleIndex.recording`) nor the registries it
    read changed, gets the same edges, so they are replayed instead of resolved again.
    ``global_key`` is what every module's edges depend on (options, gated method names,
    subclasses): when it changes, nothing recorded holds."""

    global_key: tuple[object, ...] | None = None
    # module -> the record its edges came from in the last build: (own folded lines, record)
    records: dict[str, tuple[object, _ModuleRecord]] = field(default_factory=dict)
    # module -> every record kept for it (the latest last, at most _VARIANTS)
    variants: dict[str, list[tuple[object, _ModuleRecord]]] = field(default_factory=dict)
    replayed: int = 0  # modules replayed by the last build
    computed: int = 0  # modules whose edges the last build resolved
    added: int = 0  # records kept since this memo was made or loaded
    # the modules whose records changed since the stored memo (analyzer.graph.edge_store)
    # it was loaded from was written in whole; None: every module's (a memo made afresh)
    touched: set[str] | None = None
    # the attributes of each node edges make (``ext:torch``), one dict for every record that
    # needs the node (hundreds of thousands of records' node ops; read only, never written)
    made_attrs: dict[tuple[object, ...], dict[str, object]] = field(default_factory=dict)

    def reset(self, global_key: tuple[object, ...]) -> None:
        """Forget every record: they were made under another ``global_key``."""
        self.global_key = global_key
        self.records.clear()
        self.variants.clear()
        self.touched = None

    def find(self, module: str, local: object, index: ModuleIndex, options: GraphOptions
             ) -> _ModuleRecord | None:
        """A record of ``module`` made with these folded lines that still holds, or None."""
        for known_local, record in reversed(self.variants.get(module, ())):
            if known_local == local and record.still_valid(index, options):
                return record
        return None

    def keep(self, module: str, local: object, record: _ModuleRecord) -> None:
        kept = self.variants.setdefault(module, [])
        kept.append((local, record))
        del kept[:-_VARIANTS]
        self.added += 1
        if self.touched is not None:
            self.touched.add(module)


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
    records: dict[str, _ModuleRecord]
    made: dict[str, int]  # node an edge needs (``_MADE_NODES``) -> modules whose ops add it
    methods: list[tuple[str, dict[str, object]]]
    members: dict[tuple[str, str], Mapping[str, object]]  # class -> method edges, as made
    global_key: tuple[object, ...]


def build_layer(index: ModuleIndex, options: GraphOptions, memo: EdgeMemo, jobs: int = 1
                ) -> Layer:
    """:func:`build_python_graph`, with what a later build needs to patch it
    (:func:`module_layer`)."""
    graph: Graph = nx.DiGraph(decisions=[])
    for name in sorted(index.modules):
        add_nodes(graph, _module_nodes(index.modules[name]))
    methods, members = method_graph(index, graph, options)
    add_nodes(graph, methods)
    add_edges(graph, members)
    add_nodes(graph, [(module_node(ext), {"kind": "extension", "module": ext, "target": target})
                      for ext, target in sorted(index.extensions.items())])
    add_nodes(graph, [(module_node(package), {"kind": "installed_package", "module": package})
                      for package in sorted(index.installed_packages)])
    global_key = layer_key(index, options, methods)
    if memo.global_key != global_key:
        memo.reset(global_key)
    layer = Layer(PythonGraph(graph, [], frozenset(), {}), {}, {}, methods,
                  {(u, v): attrs for u, v, attrs in members}, global_key)
    return module_layer(layer, index, options, memo, jobs)


def layer_key(index: ModuleIndex, options: GraphOptions,
              methods: list[tuple[str, dict[str, object]]]) -> tuple[object, ...]:
    """What every module's edges depend on (:attr:`EdgeMemo.global_key`): the options the
    whole tree reads, the gated method names (the dropped features' names decide them) and
    the subclasses of each class."""
    gated = frozenset(str(attrs["method"]) for _, attrs in methods if attrs.get("gate"))
    return (options.restricted_families, options.frozen_imports, gated,
            index.resolved_once("subclass_index", lambda: subclass_index(index)))


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
    memo.replayed = memo.computed = 0
    unresolved: list[dict[str, object]] = []
    reexported: dict[tuple[str, str], set[str]] = {}
    made = layer.made
    patch = bool(layer.records)  # a graph of the last build: modules' edges are swapped
    touched: set[str] = set()  # nodes whose incoming edges a swap changed
    remade = False  # a swapped module's edges make other nodes (or in another order)
    swapped: set[str] = set()  # modules whose edges were taken out and added again
    old_made: tuple[str, ...] = ()
    names = sorted(index.modules)
    locals_ = {name: _local(name, index, options) for name in names}
    found = {name: memo.find(name, locals_[name], index, options) for name in names}
    resolved: dict[str, _ModuleRecord] = {}  # records the workers made
    todo = [name for name in names if found[name] is None]
    if not patch and jobs > 1 and len(todo) >= _FORK_MIN:
        def resolve(name: str) -> _ModuleRecord:  # (in a forked worker: its own graph)
            return _module_edges(index, graph, index.modules[name], options, gated,
                                 subclasses, memo.made_attrs)
        resolved = dict(zip(todo, forked_map(resolve, todo, jobs), strict=True))
    for name in names:
        local = locals_[name]
        record = found[name]
        old = layer.records.get(name)
        if record is None or record is not old:
            swapped.add(name)
            if old is not None:
                _remove_ops(graph, old.ops, made, layer.members)
                touched.update(dst for _src, dst, _ in op_triples(old.ops) if dst is not None)
                old_made = old.made()
            if record is not None:
                _replay(graph, record.ops)
            else:
                record = resolved.get(name)
                if record is not None:
                    _replay(graph, record.ops)
                else:
                    record = _module_edges(index, graph, index.modules[name], options, gated,
                                           subclasses, memo.made_attrs)
                memo.keep(name, local, record)
                memo.computed += 1
            for node, dst, _ in op_triples(record.ops):
                if dst is None:
                    made[node] = made.get(node, 0) + 1
                elif patch:
                    touched.add(dst)
            if patch and (old is None or old_made != record.made()):
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
        _fresh_order(graph, layer, sorted(index.modules), touched, swapped,
                     remade or bool(unused))
    graph.graph["decisions"] = [d for name in sorted(index.modules)
                                for d in layer.records[name].decisions]
    layer.python = PythonGraph(graph, unresolved, frozenset(index.reexports_used),
                               {pair: frozenset(by) for pair, by in reexported.items()})
    return layer


# modules without a record below which a fresh graph resolves them in this process (a pool
# costs more than it saves for a few)
_FORK_MIN = 256


def _local(name: str, index: ModuleIndex, options: GraphOptions) -> tuple[object, ...]:
    """What a module's record is made for: its own folded lines and folded arms' reads."""
    return (options.dead_lines.get(name, ()), tuple(index.dead_reads.get(name, ())))


def _fresh_order(graph: Graph, layer: Layer, modules: list[str], touched: set[str],
                 swapped: set[str], remade: bool) -> None:
    """Put a patched graph's dicts in the order a fresh build gives them.

    - The nodes edges make come after every node of the tree, in the order the modules'
      records (in module order) first add them: put back when a swap changed which nodes a
      module's edges make (``remade``); else they are in that order still.
    - A node's predecessors: its ``member`` edge's class first, then the sources of the
      modules' edges in module order, each module's in the order its record adds them. The
      ``swapped`` modules' edges were taken out and added again last, in that order: each
      is put back among the others' (which kept their order) where its module ranks.
    - Successors need nothing: a module's edges leave from its own nodes, and are added again
      in their order after the ``member`` edges, as in a fresh build."""
    nodes = node_dicts(graph)
    succ = succ_dicts(graph)
    pred = pred_dicts(graph)
    if remade:
        made_order: dict[str, None] = {}
        for name in modules:
            for src in layer.records[name].made():
                made_order.setdefault(src)
        for node in made_order:
            if node in nodes:  # (always: a record's nodes are added with its edges)
                nodes[node] = nodes.pop(node)
                succ[node] = succ.pop(node)
                pred[node] = pred.pop(node)
    rank = {name: i for i, name in enumerate(modules)}
    members = layer.members
    for v in touched:
        was = pred.get(v)
        if not was:
            continue

        def key(item: tuple[str, Mapping[str, object]], v: str = v) -> int:
            u = item[0]
            return -1 if (u, v) in members else rank.get(str(nodes[u].get("module")), -2)

        # the swapped modules' edges added again: the last ones (read from the end, so a
        # node thousands of modules use costs its swapped edges, not all of them)
        tail: list[tuple[str, Mapping[str, object]]] = []
        last_head = None
        for item in reversed(was.items()):
            if nodes[item[0]].get("module") in swapped and (item[0], v) not in members:
                tail.append(item)
            else:
                last_head = item
                break
        if last_head is None or not tail:
            continue  # in order already
        tail.reverse()
        if key(last_head) <= key(tail[0]):
            continue  # in order already
        head = list(islice(was.items(), len(was) - len(tail)))
        merged: list[tuple[str, Mapping[str, object]]] = []
        at = 0
        for item in tail:  # (in module order: each goes at or after the last one's place)
            to = bisect_right(head, key(item), lo=at, key=key)
            merged.extend(head[at:to])
            merged.append(item)
            at = to
        merged.extend(head[at:])
        pred[v] = dict(merged)


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
                  made_attrs: dict[tuple[object, ...], dict[str, object]]) -> _ModuleRecord:
    """Add one module's edges, and record them (``made_attrs``: :attr:`EdgeMemo.made_attrs`)."""
    decisions: list[dict[str, object]] = graph.graph["decisions"]
    first_decision = len(decisions)
    edges = _ModuleEdges(index, graph, mod, [], options, gated, subclasses, made_attrs)
    with index.recording() as used:
        edges.add_all()
    ops = tuple(edges.ops)
    return _ModuleRecord(
        ops, edges.unresolved, decisions[first_decision:],
        frozenset((d[1], d[2]) for d in used if d[0] == "reexport"),
        index.orders_of(used),
        edges.registries_read,
        frozenset(d[1] for d in used if d[0] == "module" and d[1] != mod.name),
        all(src == edges.me or src.startswith(edges.me + ":")
            for src, dst, _ in op_triples(ops) if dst is not None))


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


def add_nodes(graph: Graph, nodes: Sequence[tuple[str, dict[str, object]]]) -> None:
    """``graph.add_nodes_from(nodes)`` for (node, attributes) pairs, with the same result (a
    node already there has its attributes updated), on the DiGraph's own dicts (see
    :func:`add_edges`).

    A node's attribute dict is never changed in place: a new node's is the dict given, and a
    node already there gets a merged copy. Node attribute dicts are shared -- a module's nodes
    are made once per scan (``PyModule.derived``) and are those of every graph built from
    them, the nodes a record's edges make are the record's -- so no graph may write into
    one."""
    succ = succ_dicts(graph)
    pred = pred_dicts(graph)
    data = node_dicts(graph)
    for node, attrs in nodes:
        known = data.get(node)
        if known is None:
            succ[node] = {}
            pred[node] = {}
            data[node] = attrs
        else:
            data[node] = {**known, **attrs}


def subclass_index(index: ModuleIndex) -> dict[str, list[tuple[str, str]]]:
    """Class node -> (module, name) of each module-level class naming it as a base, for
    ``Base.__subclasses__()``. Built only when some module calls ``__subclasses__``."""
    if not any(_reads_subclasses(mod) for mod in index.modules.values()):
        return {}
    out: dict[str, list[tuple[str, str]]] = {}
    for name in sorted(index.modules):
        for d in index.modules[name].facts.definitions:
            if d.kind != "class":
                continue
            for base in d.bases:
                resolved = index.resolve_chain(name, "", base)
                target = resolved[0] if resolved else None
                if target is not None and target.kind == "symbol" and target.name:
                    out.setdefault(symbol_node(target.module, target.name), []).append(
                        (name, d.name))
    return out


def _reads_subclasses(mod: PyModule) -> bool:
    """The module reads some ``X.__subclasses__`` (a fact of its own: computed once)."""
    known = mod.derived.get("reads_subclasses")
    if known is None:
        known = mod.derived["reads_subclasses"] = any(
            r.chain.endswith(".__subclasses__") for r in mod.facts.references)
    return bool(known)


def enumerated_class(index: ModuleIndex, module: str, scope: str, chain: str) -> str | None:
    """The class node of ``Base`` in a ``Base.__subclasses__`` chain read in ``scope`` of
    ``module``, or None (not such a chain, or Base is no class of the tree)."""
    if not chain.endswith(".__subclasses__"):
        return None
    resolved = index.resolve_chain(module, scope, chain.rpartition(".")[0])
    base = resolved[0] if resolved else None
    if base is None or base.kind != "symbol" or not base.name:
        return None
    return symbol_node(base.module, base.name)


def _enumerates(mod: PyModule) -> bool:
    """The module enumerates attributes (``dir``, ``vars``, ``__dict__``, ``getmembers``: a
    member use ``*``; a fact of its own, computed once)."""
    known = mod.derived.get("enumerates")
    if known is None:
        known = mod.derived["enumerates"] = "*" in mod.facts.member_names
    return bool(known)


def method_graph(index: ModuleIndex, graph: Graph, options: GraphOptions
                  ) -> tuple[list[tuple[str, dict[str, object]]],
                             list[tuple[str, str, Mapping[str, object]]]]:
    """Method nodes of top-level classes, each with its class's ``member`` edge and, when
    only code that names it can call it, its gate (see the module docstring)."""
    open_ended = index.resolved_once("open_ended_classes", lambda: _open_ended_classes(index))
    # a function of the open-ended classes and the droppable names (each module's method
    # nodes are made once per scan): the rounds' builds ask again with the same ones
    known = index.tree_memo.get("method_graph")
    if known is not None and known[0] is open_ended and known[1] == options.droppable:
        return known[2]  # type: ignore[no-any-return]
    nodes: list[tuple[str, dict[str, object]]] = []
    edges: list[tuple[str, str, Mapping[str, object]]] = []
    for name in sorted(index.modules):
        for node, cls, attrs, always in _method_nodes(index.modules[name], graph):
            method = str(attrs["method"])
            if not always and cls in open_ended:
                always = not identifier_matches(method, options.droppable)
            nodes.append((node, {**attrs, "gate": None if always else attribute_node(method)}))
            edges.append((cls, node, EdgeData("member", cast(str, attrs["path"]),
                                              cast(int, attrs["start_line"]))))
    index.tree_memo["method_graph"] = (open_ended, options.droppable, (nodes, edges))
    return nodes, edges


def _module_nodes(mod: PyModule) -> list[tuple[str, dict[str, object]]]:
    """(node, attributes) of a module and of its top-level functions and classes (the first
    definition of a name): a function of its facts, computed once per scan."""
    known = mod.derived.get("module_nodes")
    if known is not None:
        return known  # type: ignore[no-any-return]
    name = mod.name
    out: list[tuple[str, dict[str, object]]] = [(share(module_node(name)), {
        "kind": "module", "module": name, "path": mod.path, "is_package": mod.is_package,
        "lines": mod.facts.line_count, "main_guard": mod.facts.main_guard_line is not None})]
    seen: set[str] = set()
    for d in mod.facts.definitions:
        if d.kind in ("function", "class") and mod.defs.get(d.name) in ("function", "class"):
            node = share(symbol_node(name, d.name))
            if node not in seen:
                seen.add(node)
                out.append((node, {"kind": "symbol", "module": name, "name": d.name,
                                   "symbol_kind": d.kind, "path": mod.path,
                                   "start_line": d.start_line, "end_line": d.end_line,
                                   "nested": d.nested}))
    mod.derived["module_nodes"] = out
    return out


def _method_nodes(mod: PyModule, graph: Graph
                  ) -> list[tuple[str, str, dict[str, object], bool]]:
    """(node, class node, attributes but the gate, always live whatever the class) of each
    method of one module: a function of its facts (and its class nodes, made from them),
    computed once per scan."""
    known = mod.derived.get("method_nodes")
    if known is not None:
        return known  # type: ignore[no-any-return]
    name = mod.name
    counts: dict[tuple[str, str], int] = {}
    for m in mod.facts.method_defs:
        counts[(m.cls, m.name)] = counts.get((m.cls, m.name), 0) + 1
    out: list[tuple[str, str, dict[str, object], bool]] = []
    for m in mod.facts.method_defs:
        cls = symbol_node(name, m.cls)
        if counts[(m.cls, m.name)] > 1 or graph.nodes.get(cls, {}).get("symbol_kind") \
                != "class" or graph.nodes[cls]["start_line"] > m.start_line \
                or graph.nodes[cls]["end_line"] < m.end_line:
            continue  # defined twice (a property and its setter), or a shadowed class
        always = (m.name.startswith("_") and m.name.endswith("_")) \
            or any(d not in PLAIN_DECORATORS and not d.endswith(
                (".setter", ".getter", ".deleter")) for d in m.decorators)
        out.append((share(symbol_node(name, f"{m.cls}.{m.name}")), cls, {
            "kind": "method", "module": name, "name": f"{m.cls}.{m.name}", "method": m.name,
            "cls": m.cls, "path": mod.path, "start_line": m.start_line,
            "end_line": m.end_line}, always))
    mod.derived["method_nodes"] = out
    return out


def _open_ended_classes(index: ModuleIndex) -> set[str]:
    """Classes whose methods code outside the tree may call by name (a base class outside
    the tree, a base or keyword depgraph cannot read) or that code may enumerate (their module
    or an in-tree base's module uses ``dir``/``vars``/``__dict__``/``getmembers``)."""
    memo: dict[str, bool] = {}
    enumerating = {name for name, mod in index.modules.items() if _enumerates(mod)}

    def open_ended(module: str, cls: str, depth: int = 0) -> bool:
        key = f"{module}:{cls}"
        if key in memo:
            return memo[key]
        memo[key] = True  # cycles and deep chains: open-ended
        mod = index.modules[module]
        d = next((x for x in mod.facts.definitions if x.name == cls and x.kind == "class"), None)
        result = d is None or d.other_bases or module in enumerating or depth > 20
        for base in d.bases if d is not None and not result else ():
            if base in PLAIN_BASES:
                continue
            resolved = index.resolve_chain(module, "", base)
            target = resolved[0] if resolved else None
            if target is None or target.kind != "symbol" or target.module not in index.modules \
                    or not target.name or open_ended(target.module, target.name, depth + 1):
                result = True
                break
        memo[key] = result
        return result

    # each class once, in the order first met (the depth cut-off depends on where a chain
    # is entered)
    classes = dict.fromkeys((name, m.cls) for name, mod in index.modules.items()
                            for m in mod.facts.method_defs)
    return {symbol_node(name, cls) for name, cls in classes if open_ended(name, cls)}


class _ModuleEdges:
    def __init__(self, index: ModuleIndex, graph: Graph, mod: PyModule,
                 unresolved: list[dict[str, object]], options: GraphOptions,
                 gated: frozenset[str] = frozenset(),
                 subclasses: dict[str, list[tuple[str, str]]] | None = None,
                 made_attrs: dict[tuple[object, ...], dict[str, object]] | None = None):
        self.index = index
        self.made_attrs = made_attrs if made_attrs is not None else {}
        self.subclasses = subclasses or {}
        self.gated = gated
        # class -> its methods' (start line, end line, node), by start line
        self._methods: dict[str, list[tuple[int, int, str]]] = {}
        for m in mod.facts.method_defs:
            node = symbol_node(mod.name, f"{m.cls}.{m.name}")
            if node in graph and graph.nodes[node]["start_line"] == m.start_line:
                self._methods.setdefault(m.cls, []).append((m.start_line, m.end_line, node))
        for spans in self._methods.values():
            spans.sort()
        self._method_nodes = {n for spans in self._methods.values() for _, _, n in spans}
        self.graph = graph
        self.mod = mod
        self.unresolved = unresolved
        self.options = options
        self.me = module_node(mod.name)
        ranges = options.dead_lines.get(mod.name, ())
        self._dead_starts = [s for s, _ in ranges]
        self._dead_ranges = ranges
        self._scope_nodes: dict[str, str] = {}  # symbol nodes exist before edges are added
        # every node and edge added, in order, flat (:data:`Ops`)
        self.ops: list[object] = []
        # registry targets looked up in the options, with what they held
        self.registries_read: dict[str, tuple[int, frozenset[str]] | None] = {}

    def dead(self, line: int) -> bool:
        """The line lies in a folded-away region: its facts make no edges."""
        i = bisect_right(self._dead_starts, line) - 1
        return i >= 0 and self._dead_ranges[i][0] <= line <= self._dead_ranges[i][1]

    def _ensure_node(self, node: str) -> None:
        """Record that this module's edges need ``node`` (one that edges create, not one every
        graph has): a replay adds it when no module before did."""
        attrs = self.graph.nodes[node]  # (strings only: the kind and the name)
        key: tuple[object, ...] = (node, *attrs.items())
        shared = self.made_attrs.get(key)
        if shared is None:
            shared = self.made_attrs[key] = dict(attrs)
        self.ops.extend((share(node), None, shared))

    def _add_edge(self, src: str, dst: str, kind: str, file: str, line: int) -> None:
        # node ids shared: a record names each node with one string object, which the
        # persisted memo (analyzer.graph.edge_store) then stores once, and the graphs
        # replaying it share (~580,000 strings of ~77,000 values on the largest trees) --
        # the same object as the node's own id (_module_nodes) and a loaded memo's
        src, dst = share(src), share(dst)
        attrs = EdgeData(kind, file, line)
        put_edge(self.graph, src, dst, attrs)  # (the record and the graph share ``attrs``)
        self.ops.extend((src, dst, attrs))

    def decide(self, line: int, what: str, reason: str) -> None:
        self.graph.graph["decisions"].append(
            {"path": self.mod.path, "line": line, "what": what, "reason": reason})

    def first_live(self, line: int, also: tuple[int, ...] = (), read: str = ""
                   ) -> int | None:
        """The first of a fact's lines outside folded-away code (for ``read``, a chain or
        ``.attribute``, also outside a folded arm that alone reads it there), or None."""
        for candidate in (line, *also):
            if not self.dead(candidate) and not (
                    read and self.index.dead_read(self.mod.name, read, candidate)):
                return candidate
        return None

    def owner(self, scope: str, line: int) -> str:
        """The node a fact at ``line`` of top-level ``scope`` comes from: its method's node
        when it lies in one, else the scope's."""
        spans = self._methods.get(scope) if scope else None
        if spans:
            i = bisect_right(spans, (line, 1 << 30, "")) - 1
            if i >= 0 and spans[i][0] <= line <= spans[i][1]:
                return spans[i][2]
        return self.scope_node(scope)

    def scope_node(self, scope: str) -> str:
        node = self._scope_nodes.get(scope)
        if node is None:
            node = self.me
            if scope:
                symbol = symbol_node(self.mod.name, scope)
                if symbol in self.graph:
                    node = symbol
            self._scope_nodes[scope] = node
        return node

    def edge(self, src: str, target: Target | None, kind: str, line: int) -> None:
        if target is None:
            return
        if target.kind == "unresolved":
            self.unresolved.append({"path": self.mod.path, "line": line, "kind": kind,
                                    "name": ".".join(p for p in (target.module, target.name) if p)})
            return
        dst = target.node
        if dst is None or dst == src:
            return
        if dst not in self.graph and target.kind == "module":
            # a module inside a package only the build creates (`import deep_gemm.utils`):
            # the package's node stands for it, so what installs the package stays
            dst = self._installed_owner(target.module) or dst
        if dst not in self.graph:
            if target.kind != "external":
                return
            self.graph.add_node(dst, kind="external", module=target.module.split(".")[0])
        if self.graph.nodes[dst].get("kind") in _MADE_NODES:  # present now: also on replay
            self._ensure_node(dst)
        if not self.graph.has_edge(src, dst):
            self._add_edge(src, dst, kind=kind, file=self.mod.path, line=line)
        # Re-exports pass through modules: importing through them runs them.
        for via in target.via:
            via_node = module_node(via)
            if via_node in self.graph and via_node != src \
                    and not self.graph.has_edge(src, via_node):
                self._add_edge(src, via_node, kind=kind, file=self.mod.path, line=line)

    def _installed_owner(self, module: str) -> str | None:
        parts = module.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:i])
            if prefix in self.index.installed_packages or prefix in self.index.extensions:
                return module_node(prefix)
        return None

    def add_all(self) -> None:
        mod, index = self.mod, self.index
        for ancestor in index.ancestors_with_files(mod.name):
            self._add_edge(self.me, module_node(ancestor), kind="parent_package",
                                file=mod.path, line=1)
        for d in mod.facts.definitions:
            node = symbol_node(mod.name, d.name)
            if self.dead(d.start_line):
                continue
            if node in self.graph and self.graph.nodes[node].get("start_line") == d.start_line:
                self._add_edge(node, self.me, kind="defined_in", file=mod.path,
                                    line=d.start_line)
                if d.name in MODULE_HOOKS or self._registered(d):
                    self._add_edge(self.me, node, kind="registered", file=mod.path,
                                        line=d.decorators[0].line if d.decorators else d.start_line)
        for name in mod.facts.all_names or ():
            # `__all__` is public API the codemod cannot edit yet: what it names stays live
            self.edge(self.me, index.resolve_attr(mod.name, name), "exported", 1)
        for fact in mod.facts.imports:
            if self.dead(fact.start_line):
                continue
            kind = ("type_checking" if TYPE_CHECKING in fact.context else
                    "optional_import" if TRY_IMPORT_ERROR in fact.context else "import")
            src = self.owner(fact.scope, fact.start_line)
            for target in index.import_targets(mod.name, fact):
                self.edge(src, target, kind, fact.start_line)
            if fact.is_from and mod.name in self.options.frozen_imports:
                absolute = index.absolute(mod.name, fact)
                for imported in fact.names:
                    if absolute and imported.name != "*" and index.is_internal(absolute) \
                            and index.is_module(absolute):
                        self.edge(src, index.resolve_attr(absolute, imported.name), kind,
                                  fact.start_line)
            if fact.is_from and any(n.name == "*" for n in fact.names):
                self._star_edges(src, fact, kind)
        type_tests = {(a.line, a.chain) for a in mod.facts.type_test_appends}
        for ref in mod.facts.references:
            lines = [ln for ln in (ref.line, *ref.also) if (ln, ref.chain) not in type_tests]
            line = self.first_live(lines[0], tuple(lines[1:]), ref.chain) if lines else None
            if line is None:
                tested = [ln for ln in (ref.line, *ref.also) if not self.dead(ln)]
                if tested:  # only type tests read it: an edge that keeps nothing live
                    src = self.owner(ref.scope, tested[0])
                    for target, _t, _b in index.resolve_chain_all(mod.name, ref.scope,
                                                                 ref.chain):
                        self.edge(src, target, "type_test", tested[0])
                continue
            # every binding the name may have at run time, except those in folded-away code
            src = self.owner(ref.scope, line)
            # inside a method, its own imports (not another method's) bind the name
            scope = self.graph.nodes[src]["name"] if src in self._method_nodes else ref.scope
            for target, type_only, bound_at in index.resolve_chain_all(mod.name, scope,
                                                                      ref.chain):
                if bound_at and self.dead(bound_at):
                    continue
                self.edge(src, target, "type_checking" if type_only else "reference", line)
                if target.kind == "module" and not type_only and ref.value_lines \
                        and not ref.chain.rpartition(".")[2].startswith("__") \
                        and self.first_live(ref.value_lines[0], ref.value_lines[1:],
                                            ref.chain) is not None:
                    # the module object itself is a value (`CMD_MODULES = [cli.serve, ...]`,
                    # then `m.cmd_init()`): any of its public definitions may be read from it
                    self._public_definitions(src, target.module, "module_value", line)
            if ref.chain.endswith(".__subclasses__"):
                self._subclasses(src, scope, ref.chain, line)
        if self.gated:
            self._member_reads()
        walked = any(w.kind in ("iter_modules", "walk_packages")
                     for w in mod.facts.package_walks)
        self._self_loading_package()
        for s in mod.facts.strings:
            if s.kind == "path":  # a relative path to a Python file: loaded by its path
                named = index.module_at(s.value)
                if named is not None and not self.dead(s.line):
                    src = self.owner(s.scope, s.line)
                    path = index.modules[named].path
                    if is_test_module(path) and path != mod.path \
                            and not is_test_module(mod.path):
                        # a test a runner or suite list names: it runs the test, and loses
                        # the entry when the test goes (plan.python.plan_peripheral)
                        self.edge(src, Target("module", named), "names_test", s.line)
                        continue
                    self.edge(src, Target("module", named), "string_ref", s.line)
                    self._public_definitions(src, named, "string_ref", s.line)
                continue
            if not index.is_internal(s.value) or self.dead(s.line):
                continue
            target = index.resolve_dotted(s.value)
            src = self.owner(s.scope, s.line)
            kind = "dynamic_import" if s.kind == "import_module" else "string_ref"
            if target.kind == "unresolved" and s.kind == "dotted":
                continue  # a dotted-looking string that names nothing: prose, not a path
            self.edge(src, target, kind, s.line)
            if target.kind == "module":
                # a literal import_module argument, or a dotted string naming a module: it is
                # there to be loaded (`M = "pkg.mod"; import_module(M).fn()`), and what is
                # loaded is used through getattr, so its public API is live either way
                self._public_definitions(src, target.module, kind, s.line)
            if target.kind == "module" and target.module in index.packages and (
                    walked or self._calls_package_walker(s.scope, s.call)
                    or self._plugin_folder(target.module)):
                # a folder of modules without __init__.py named as a value is there to have
                # its modules found and loaded (`EXTERNAL_MODEL_PACKAGE = "pkg.ext"`)
                self._plugin_family(src, target.module, s.line,
                                    None if target.module in index.modules else False)
        for walk in mod.facts.package_walks:
            # import_module(f"pkg.backends.{name}"): any module under pkg.backends whose name
            # starts so may be the one loaded (and used through getattr)
            package = walk.prefix_package
            if package in index.packages and index.is_internal(package) \
                    and not self.dead(walk.line):
                self._plugin_family(self.owner(walk.scope, walk.line), package, walk.line,
                                    recursive=True, prefix=walk.prefix or "")
        if walked:
            for ref in mod.facts.references:
                if ref.chain.endswith(".__path__"):
                    resolved = index.resolve_chain(mod.name, ref.scope, ref.chain[: -9])
                    if resolved and resolved[0].kind == "module":
                        self._plugin_family(self.owner(ref.scope, ref.line),
                                            resolved[0].module, ref.line)

    def _subclasses(self, src: str, scope: str, chain: str, line: int) -> None:
        """``Base.__subclasses__()`` hands every direct subclass of Base to live code (vLLM's
        CLI finds its subcommands so): each is used, as if named here."""
        base = enumerated_class(self.index, self.mod.name, scope, chain)
        for module, name in self.subclasses.get(base, ()) if base else ():
            self.edge(src, self.index.resolve_attr(module, name), "subclasses", line)

    def _member_reads(self) -> None:
        """``attribute_read`` edges to the names of gated methods this module reads."""
        matches: dict[str, list[str]] = {}
        for use in self.mod.facts.member_uses:
            name = use.name
            if name == "*":
                continue  # an enumeration: its module's classes are open-ended instead
            if "*" in name:
                resolved = resolved_member_names(self.mod, use.scope, use.lines, name)
                if resolved is not None:  # a parameter's template: what the callers pass
                    names = [n for n in resolved if n in self.gated]
                else:
                    if name not in matches:
                        matches[name] = sorted(n for n in self.gated if fnmatchcase(n, name))
                    names = matches[name]
            else:
                names = [name] if name in self.gated else []
            if not names:
                continue
            line = self.first_live(use.lines[0], use.lines[1:], "." + use.name)
            if line is None:
                continue
            src = self.owner(use.scope, line)
            for n in names:
                dst = attribute_node(n)
                if dst not in self.graph:
                    self.graph.add_node(dst, kind="attribute", name=n)
                self._ensure_node(dst)
                if not self.graph.has_edge(src, dst):
                    self._add_edge(src, dst, kind="attribute_read", file=self.mod.path,
                                        line=line)

    def _self_loading_package(self) -> None:
        """A module that lists its own folder (``__file__``) and walks it with pkgutil, or
        imports computed names, loads its own package: every module of it is live."""
        facts = self.mod.facts
        kinds = {w.kind for w in facts.package_walks}
        if not (kinds & {"iter_modules", "walk_packages"}
                or {"listdir", "dynamic_import"} <= kinds):
            return
        if not any(r.chain.split(".")[0] == "__file__" for r in facts.references):
            return
        package = self.mod.name if self.mod.is_package else self.mod.name.rpartition(".")[0]
        if package:
            line = min(w.line for w in facts.package_walks)
            self._plugin_family(self.me, package, line, recursive="iter_modules" not in kinds)

    def _calls_package_walker(self, scope: str, call: str | None) -> bool:
        """``load_plugins("pkg.plugins")`` where ``load_plugins`` walks its argument."""
        if not call:
            return False
        resolved = self.index.resolve_chain(self.mod.name, scope, call)
        if resolved is None or resolved[0].kind != "symbol":
            return False
        target = resolved[0]
        walker = self.index.module(target.module)
        return walker is not None and any(w.scope == target.name
                                          for w in walker.facts.package_walks)

    def _registered(self, d: Definition) -> bool:
        registered = False
        for dec in d.decorators:
            resolved = self.index.resolve_chain(self.mod.name, d.name, dec.name)
            target = resolved[0] if resolved else None
            if target is not None and target.kind == "symbol":
                qualified = f"{target.module}.{target.name}"
                self.registries_read[qualified] = self.options.registries.get(qualified)
                if qualified in self.options.registries:
                    key_arg, dropped = self.options.registries[qualified]
                    key = dec.string_args[key_arg] if len(dec.string_args) > key_arg else None
                    if key in dropped:
                        self.decide(dec.line, f"{self.mod.name}:{d.name}",
                                    f"registered under dropped key {key!r} of {qualified}")
                        return False
            if dec.string_args or (target is not None
                                   and target.kind in ("symbol", "attribute", "module")):
                registered = True
        return registered

    def _star_edges(self, src: str, fact: ImportFact, kind: str) -> None:
        source = self.index.absolute(self.mod.name, fact)
        target_mod = self.index.module(source) if source else None
        if target_mod is None:
            return
        names = target_mod.facts.all_names
        for name, def_kind in sorted(target_mod.defs.items()):
            public = name in names if names is not None else not name.startswith("_")
            if public and def_kind in ("function", "class"):
                self.edge(src, Target("symbol", target_mod.name, name), "star_import",
                          fact.start_line)

    def _plugin_family(self, src: str, package: str, line: int,
                       recursive: bool | None = None, prefix: str = "") -> None:
        """Every submodule of ``package`` (whose dotted name starts with ``prefix``) is
        loaded, its public definitions live -- unless the profile restricts the family."""
        if package in self.options.restricted_families:
            family = self.options.restricted_families[package]
            self.decide(line, package, f"plugin family {family}: only modules the roots name "
                        "(or live code imports) stay live")
            return
        if recursive is None:
            recursive = any(w.kind == "walk_packages" for w in self.mod.facts.package_walks)
        for sub in self.index.submodules(package, recursive):
            if sub in self.index.modules and sub.startswith(prefix):
                self.edge(src, Target("module", sub), "plugin_family", line)
                self._public_definitions(src, sub, "plugin_family", line)

    def _plugin_folder(self, package: str) -> bool:
        """A namespace package (no ``__init__.py``) holding modules and no package: a folder
        of plugins (``sglang.test.external_models``), not a level of the source tree
        (``sglang.srt`` in a test that stubs it)."""
        index = self.index
        kids = index.children.get(package, [])
        return package not in index.modules and bool(kids) and all(
            k in index.modules and not index.modules[k].is_package
            and not index.children.get(k) for k in kids)

    def _public_definitions(self, src: str, module: str, kind: str, line: int) -> None:
        """A dynamically loaded module is used through getattr: its public API is live."""
        mod = self.index.module(module)
        if mod is None:
            return
        for name, def_kind in sorted(mod.defs.items()):
            if def_kind in ("function", "class") and not name.startswith("_"):
                self.edge(src, Target("symbol", module, name), kind, line)


def module_import_edges(index: ModuleIndex) -> set[tuple[str, str]]:
    """The plain module import graph (every import, any context), grimp's definition:
    ``from a import b`` is an edge to ``a.b`` when that is a module, else to ``a``."""
    edges: set[tuple[str, str]] = set()
    for name, mod in index.modules.items():
        for fact in mod.facts.imports:
            absolute = index.absolute(name, fact)
            if absolute is None or not index.is_internal(absolute):
                continue
            targets: list[str] = []
            if fact.is_from:
                for imported in fact.names:
                    sub = f"{absolute}.{imported.name}"
                    targets.append(sub if imported.name != "*" and index.is_module(sub)
                                   else absolute)
            else:
                targets.append(absolute)
            edges.update((name, t) for t in targets if t != name and t in index.modules)
    return edges
