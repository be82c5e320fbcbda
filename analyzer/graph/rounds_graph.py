"""Graph stage, across rounds: the one graph of a scan's soundness rounds, patched from round
to round instead of built again.

A round changes few of the decisions the graph is built from (a fold cancelled, an import
kept, a registry entry restored): most modules' edges are those of the last round
(:class:`analyzer.graph.python.EdgeMemo` says which). :class:`RoundGraph` keeps the last
round's graph and, for the next, takes off the layers added on top of the Python graph (the
native build, the profile's edges: built again each round, they are cheap), swaps the edges
of the modules whose record changed (:func:`analyzer.graph.python.module_layer`) and updates
the method gates. The result is the graph a fresh build gives -- the same nodes, edges and
attributes, in the same order: each node's successors come back in order by themselves, the
predecessors and the nodes edges make are put back (``graph/python._fresh_order``).

Whatever the whole graph depends on (the options every module reads, the gated method names,
the subclasses, the modules themselves) changing means a fresh build; so does a module whose
edges leave from another module's nodes (none does today: each record says so, ``owned``).
``graph.graph["version"]`` counts the patches: what is cached per graph (liveness's gates,
the rounds' memos) is keyed by it as well as by the graph. :func:`python_layer_mark` says
where the Python layer ends in the graph's dicts and which modules' edges each patch swapped:
what a later stage reads of one module's part of the graph holds until a patch swaps that
module (the layers above only add nodes, and edges no layer below made).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from weakref import WeakKeyDictionary

from analyzer.decide.options import GraphOptions
from analyzer.graph.python import (
    EdgeMemo,
    Layer,
    build_layer,
    layer_key,
    memo_key,
    module_layer,
)
from analyzer.graph.python_nodes import PythonGraph, method_graph
from analyzer.nodes import Graph, node_dicts, pred_dicts, succ_dicts
from analyzer.resolve.python import ModuleIndex


@dataclass(frozen=True)
class PythonLayerMark:
    """The Python layer of a rounds' graph as its last build left it: the layers above
    (native build, profile edges) add nodes after its ``nodes`` and edges after each node's
    ``successors`` (never one it has: they add only edges missing), so a node's first
    ``successors[node]`` successors are the Python layer's; a module's nodes' successors
    there change only when a patch swaps the module's edges (each module's edges leave from
    its own nodes): ``swapped_at`` (module -> the version of that patch; absent: the build
    that made the graph, version 0)."""

    version: int
    nodes: int
    successors: Mapping[str, int]
    swapped_at: Mapping[str, int]


# graph -> its mark, as its last build left it (:func:`python_layer_mark`)
_MARKS: WeakKeyDictionary[Graph, PythonLayerMark] = WeakKeyDictionary()


def python_layer_mark(graph: Graph) -> PythonLayerMark | None:
    """The mark of ``graph`` (a rounds' graph whose last build made it), else None."""
    mark = _MARKS.get(graph)
    return mark if mark is not None and mark.version == graph.graph.get("version") else None


class RoundGraph:
    """The graph of one scan's rounds (one per :class:`analyzer.pipeline.rounds.Rounds`)."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs  # worker processes a fresh build may resolve modules' edges in
        self._layer: Layer | None = None
        self._index: ModuleIndex | None = None  # the index of the modules the layer holds
        # after the Python layer was built: the node count and each node's successor count
        # (what the layers above added comes after them)
        self._nodes = 0
        self._successors: dict[str, int] = {}
        # module -> the version of the patch that last swapped its edges (the marks')
        self._swapped_at: dict[str, int] = {}
        self.patched = 0  # builds answered by a patch (for the tests and the timings)

    def build(self, index: ModuleIndex, options: GraphOptions, memo: EdgeMemo) -> PythonGraph:
        """The Python graph of ``index`` under ``options``: the last one patched when only
        some modules' edges changed, else a fresh one."""
        layer = self._patchable(index, options, memo)
        if layer is None:
            if self._layer is not None:  # a fresh build: the old graph's memory goes now
                self._layer.python.graph.clear()
            layer = build_layer(index, options, memo, self.jobs)
            version = layer.python.graph.graph["version"] = 0
            self._swapped_at = {}
        else:
            layer = module_layer(layer, index, options, memo)
            graph = layer.python.graph
            version = graph.graph["version"] = int(graph.graph.get("version", 0)) + 1
            self._swapped_at.update(dict.fromkeys(layer.swapped, version))
            self.patched += 1
        self._layer, self._index = layer, index
        graph = layer.python.graph
        self._nodes = graph.number_of_nodes()
        self._successors = {u: len(s) for u, s in succ_dicts(graph).items()}
        _MARKS[graph] = PythonLayerMark(version, self._nodes, self._successors,
                                        self._swapped_at)
        return layer.python

    def _patchable(self, index: ModuleIndex, options: GraphOptions, memo: EdgeMemo
                   ) -> Layer | None:
        """The last layer, its upper layers taken off and its method gates those of
        ``options``, when patching it gives the graph of ``index``; else None."""
        layer, last = self._layer, self._index
        if layer is None or last is None or index.modules is not last.modules \
                or index.extensions is not last.extensions \
                or index.installed_packages is not last.installed_packages:
            return None
        if not all(record.owned for record in layer.records.values()):
            return None  # a module's edges out of another's nodes: not taken out alone
        graph = layer.python.graph
        self._take_off_layers(graph)
        methods, _members = method_graph(index, graph, options)
        key = layer_key(index, options, methods)
        if key != layer.global_key or memo.global_key != memo_key(key):
            return None
        if methods is layer.methods:  # (the method graph of the last build: the same gates)
            return layer
        if [n for n, _ in methods] != [n for n, _ in layer.methods]:
            return None
        nodes = node_dicts(graph)
        for (node, attrs), (_, was) in zip(methods, layer.methods, strict=True):
            if attrs is not was and attrs != was:  # (node attribute dicts are shared, never
                known = nodes[node]                # changed: the method's pair, or a merge)
                nodes[node] = attrs if known is was else {**known, **attrs}
        layer.methods = methods
        return layer

    def _take_off_layers(self, graph: Graph) -> None:
        """Remove what was added after the Python layer: nodes (the native build's files,
        targets, ops), and edges out of the Python layer's nodes (a profile's hints, an
        extension's ``built_by``): each node's successors past its count then."""
        added = list(islice(node_dicts(graph), self._nodes, None))
        graph.remove_nodes_from(added)
        succ, pred = succ_dicts(graph), pred_dicts(graph)
        for u, count in self._successors.items():
            out = succ[u]
            if len(out) > count:
                for v in list(islice(out, count, None)):
                    del out[v]
                    del pred[v][u]

