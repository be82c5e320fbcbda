"""Graph stage, Python: the vocabulary of the Python graph (the edge kinds liveness does not
follow, the decorators and bases that say how a method is called), the nodes of a module
(its own, its definitions', its methods') and what only the whole index tells (the subclasses
a module enumerates, the classes whose methods a framework may call). The edges are
``analyzer.graph.python_edges``'; how a graph is built from them, ``analyzer.graph.python``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias, cast

from analyzer.config.globs import identifier_matches
from analyzer.decide.options import GraphOptions
from analyzer.nodes import (
    EdgeData,
    Graph,
    attribute_node,
    module_node,
    node_dicts,
    pred_dicts,
    succ_dicts,
    symbol_node,
)
from analyzer.resolve.python import ModuleIndex, PyModule
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
MADE_NODES = frozenset({"external", "attribute"})


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


def add_nodes(graph: Graph, nodes: Sequence[tuple[str, dict[str, object]]]) -> None:
    """``graph.add_nodes_from(nodes)`` for (node, attributes) pairs, with the same result (a
    node already there has its attributes updated), on the DiGraph's own dicts (see
    :func:`add_edges`).

    A node's attribute dict is never changed in place: a new node's is the dict given, and a
    node already there gets a merged copy. Node attribute dicts are shared -- a module's nodes
    are made once per command (``PyModule.own``) and are those of every graph built from
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
    known = mod.own.get("reads_subclasses")
    if known is None:
        known = mod.own["reads_subclasses"] = any(
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
    known = mod.own.get("enumerates")
    if known is None:
        known = mod.own["enumerates"] = "*" in mod.facts.member_names
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
        for method in method_nodes(index.modules[name], graph):
            nodes.append(method.pair(not method.always and (
                method.cls not in open_ended
                or identifier_matches(method.method, options.droppable))))
            edges.append(method.member)
    index.tree_memo["method_graph"] = (open_ended, options.droppable, (nodes, edges))
    return nodes, edges


def module_nodes(mod: PyModule) -> list[tuple[str, dict[str, object]]]:
    """(node, attributes) of a module and of its top-level functions and classes (the first
    definition of a name): a function of its facts, computed once per scan."""
    known = mod.own.get("module_nodes")
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
    mod.own["module_nodes"] = out
    return out


class MethodNode:
    """One method's node, made once per scan (:func:`method_nodes`): its class node, its
    name, whether it is live whatever its class (a dunder, a decorator that calls it), its
    class's ``member`` edge, and its (node, attributes) pair under each gate, the second made
    when first asked for. Every method graph that gives the method the same gate shares the
    pair, and so do the graphs built from them (node attribute dicts are never changed in
    place): a plan under other drops, whose droppable names gate other methods, makes new
    attributes only for the methods whose gate changed."""

    __slots__ = ("_pairs", "always", "cls", "member", "method", "node")

    def __init__(self, node: str, cls: str, attrs: dict[str, object], always: bool) -> None:
        self.node = node
        self.cls = cls
        self.method = str(attrs["method"])
        self.always = always
        self.member = (cls, node, EdgeData("member", cast(str, attrs["path"]),
                                           cast(int, attrs["start_line"])))
        gated = not always  # (the gate of a class that is not open-ended: asked for first)
        self._pairs: list[tuple[str, dict[str, object]] | None] = [None, None]
        self._pairs[gated] = (node, {**attrs, "gate": self._gate(gated)})

    def _gate(self, gated: bool) -> str | None:
        return attribute_node(self.method) if gated else None

    def pair(self, gated: bool) -> tuple[str, dict[str, object]]:
        """(node, attributes) with the gate ``gated`` says (None when not gated)."""
        made = self._pairs[gated]
        if made is None:
            other = self._pairs[not gated]
            assert other is not None
            made = self._pairs[gated] = (self.node, {**other[1], "gate": self._gate(gated)})
        return made


def method_nodes(mod: PyModule, graph: Graph) -> list[MethodNode]:
    """The :class:`MethodNode` of each method of one module: a function of its facts (and
    its class nodes, made from them), computed once per scan."""
    known = mod.own.get("method_nodes")
    if known is not None:
        return known  # type: ignore[no-any-return]
    name = mod.name
    counts: dict[tuple[str, str], int] = {}
    for m in mod.facts.method_defs:
        counts[(m.cls, m.name)] = counts.get((m.cls, m.name), 0) + 1
    out: list[MethodNode] = []
    for m in mod.facts.method_defs:
        cls = symbol_node(name, m.cls)
        if counts[(m.cls, m.name)] > 1 or graph.nodes.get(cls, {}).get("symbol_kind") \
                != "class" or graph.nodes[cls]["start_line"] > m.start_line \
                or graph.nodes[cls]["end_line"] < m.end_line:
            continue  # defined twice (a property and its setter), or a shadowed class
        always = (m.name.startswith("_") and m.name.endswith("_")) \
            or any(d not in PLAIN_DECORATORS and not d.endswith(
                (".setter", ".getter", ".deleter")) for d in m.decorators)
        out.append(MethodNode(share(symbol_node(name, f"{m.cls}.{m.name}")), cls, {
            "kind": "method", "module": name, "name": f"{m.cls}.{m.name}", "method": m.name,
            "cls": m.cls, "path": mod.path, "start_line": m.start_line,
            "end_line": m.end_line}, always))
    mod.own["method_nodes"] = out
    return out


def _open_ended_classes(index: ModuleIndex) -> set[str]:
    """Classes whose methods code outside the tree may call by name (a base class outside
    the tree, a base or keyword depgraph cannot read) or that code may enumerate (their module
    or an in-tree base's module uses ``dir``/``vars``/``__dict__``/``getmembers``)."""
    ends = _OpenEnded(index, {name for name, mod in index.modules.items() if _enumerates(mod)})
    # each class once, in the order first met (the depth cut-off depends on where a chain
    # is entered)
    classes = dict.fromkeys((name, m.cls) for name, mod in index.modules.items()
                            for m in mod.facts.method_defs)
    return {symbol_node(name, cls) for name, cls in classes if ends.open_ended(name, cls)}


class _OpenEnded:
    """Whether a class is open-ended (:func:`_open_ended_classes`), each class's answer kept.
    (A class rather than a recursive nested function: that is a reference cycle, never freed
    while a scan keeps the collector paused, ``analyzer.util.gc_pause``.)"""

    def __init__(self, index: ModuleIndex, enumerating: set[str]) -> None:
        self.index, self.enumerating = index, enumerating
        self.memo: dict[str, bool] = {}

    def open_ended(self, module: str, cls: str, depth: int = 0) -> bool:
        memo, index = self.memo, self.index
        key = f"{module}:{cls}"
        if key in memo:
            return memo[key]
        memo[key] = True  # cycles and deep chains: open-ended
        mod = index.modules[module]
        d = next((x for x in mod.facts.definitions if x.name == cls and x.kind == "class"), None)
        result = d is None or d.other_bases or module in self.enumerating or depth > 20
        for base in d.bases if d is not None and not result else ():
            if base in PLAIN_BASES:
                continue
            resolved = index.resolve_chain(module, "", base)
            target = resolved[0] if resolved else None
            if target is None or target.kind != "symbol" or target.module not in index.modules \
                    or not target.name or self.open_ended(target.module, target.name, depth + 1):
                result = True
                break
        memo[key] = result
        return result


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
