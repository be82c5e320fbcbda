"""Shared by every stage from resolve on: the one owner of graph node ids and their kinds.

A node id says what it is by its prefix: ``py:<module>`` (kind ``module``, or ``extension`` /
``installed_package`` for modules the build creates), ``py:<module>:<name>`` (``symbol``: a
top-level function or class), ``py:<module>:<Class>.<method>`` (``method``: a function of a
top-level class body), ``attr:<name>`` (``attribute``: an attribute name some code reads),
``ext:<package>`` (``external``), ``file:<path>``
(``native_file``), ``cmake:<path>`` (``cmake_file``), ``target:<name>``, ``fetch:<name>``,
``op:<namespace>::<name>``. ``SUPER_ROOT`` is the virtual node liveness starts from.

The vocabularies of the graph are typed here: ``NodeKind`` (a node's ``kind`` attribute) and
``EdgeKind`` (an edge's ``kind``; what each means for liveness is told in
``analyzer/graph/python.py`` and ``analyzer/graph/native.py``). ``Graph`` is the graph every
stage from graph on hands over: node ids are strings, node attributes plain dicts, an edge's
attributes an :class:`EdgeData` (its kind and the ``file:line`` it comes from; a plain dict
where two edges merged or networkx made one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    import networkx as nx

Graph: TypeAlias = "nx.DiGraph[str]"

NodeKind: TypeAlias = Literal[
    # Python (graph/python.py)
    "module", "symbol", "method", "attribute", "external", "extension", "installed_package",
    # native (graph/native.py)
    "native_file", "cmake_file", "target", "fetch", "op",
]
PyEdgeKind: TypeAlias = Literal[
    "import", "optional_import", "reference", "parent_package", "defined_in", "registered",
    "string_ref", "dynamic_import", "plugin_family", "star_import", "exported", "type_checking",
    "member", "attribute_read", "module_value", "subclasses", "type_test", "names_test",
]
NativeEdgeKind: TypeAlias = Literal[
    "torch_op", "built_by", "registered_in", "implemented_in", "compiled_by", "compiles",
    "includes", "defined_in", "uses_fetch", "cmake_include", "installed_by", "links",
    "links_fetched", "same_call",
]
# edges a profile adds (graph/profile_edges.py): a companion module, a declared hint
ProfileEdgeKind: TypeAlias = Literal["companion", "hint"]
# ``root``: SUPER_ROOT -> each root, added by liveness
EdgeKind: TypeAlias = PyEdgeKind | NativeEdgeKind | ProfileEdgeKind | Literal["root"]

SUPER_ROOT = "<roots>"
PREFIXES = ("py:", "ext:", "file:", "cmake:", "target:", "fetch:", "op:", "attr:")


def module_node(module: str) -> str:
    return f"py:{module}"


def symbol_node(module: str, name: str) -> str:
    return f"py:{module}:{name}"


def attribute_node(name: str) -> str:
    return f"attr:{name}"


def external_node(module: str) -> str:
    return f"ext:{module.split('.')[0]}"


def file_node(path: str) -> str:
    return f"file:{path}"


def cmake_node(path: str) -> str:
    return f"cmake:{path}"


def target_node(name: str) -> str:
    return f"target:{name}"


def fetch_node(name: str) -> str:
    return f"fetch:{name}"


def op_node(namespace: str, name: str) -> str:
    return f"op:{namespace}::{name.split('.')[0]}"


_EDGE_KEYS = ("kind", "file", "line")
_EDGE_KEY_SET = frozenset(_EDGE_KEYS)


class EdgeData(Mapping[str, Any]):
    """An edge's attributes ``kind``, ``file`` and ``line``: a read-only mapping, as networkx
    hands out edge data, in a third of a dict's memory (56 bytes, not 184). A scan holds one
    per recorded edge (~440,000 on the largest trees), shared by the edge memo and every graph
    that replays it, so no code writes into one (:func:`add_edges` merges into a new dict)."""

    __slots__ = _EDGE_KEYS

    def __init__(self, kind: str, file: str, line: int | None) -> None:
        self.kind = kind
        self.file = file
        self.line = line

    def __getitem__(self, key: str) -> Any:
        if key in _EDGE_KEY_SET:
            return object.__getattribute__(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        return object.__getattribute__(self, key) if key in _EDGE_KEY_SET else default

    def __contains__(self, key: object) -> bool:
        return key in _EDGE_KEY_SET

    def __iter__(self) -> Iterator[str]:
        return iter(_EDGE_KEYS)

    def __len__(self) -> int:
        return 3

    def copy(self) -> dict[str, Any]:
        """A plain dict of the attributes (what ``DiGraph.copy`` asks of edge data)."""
        return {"kind": self.kind, "file": self.file, "line": self.line}

    def __repr__(self) -> str:
        return repr(self.copy())

    def __reduce__(self) -> tuple[type[EdgeData], tuple[str, str, int | None]]:
        return EdgeData, (self.kind, self.file, self.line)


def add_edge(graph: Graph, u: str, v: str, kind: EdgeKind, file: str, line: int) -> None:
    """An edge of ``kind`` from ``u`` to ``v``, with the ``file:line`` it comes from."""
    put_edge(graph, u, v, EdgeData(kind, file, line))


def put_edge(graph: Graph, u: str, v: str, attrs: Mapping[str, object]) -> None:
    """``graph.add_edge(u, v, **attrs)``, with the same graph as a result, except that an
    edge's attribute dict is never changed in place (:func:`add_edges` of one edge)."""
    add_edges(graph, [(u, v, attrs)])


def describe(graph: Graph, node: str) -> str:
    """``name (path:line)`` of a node, for chains and reports."""
    data = graph.nodes[node]
    where = data.get("path", "")
    if where and data.get("start_line"):
        where += f":{data['start_line']}"
    name = node[3:] if node.startswith(("py:", "op:")) else node
    return name + (f" ({where})" if where and where not in name else "")


# -- the DiGraph's own dicts, for the graph stage's hot loops (not in types-networkx) ----------
def succ_dicts(graph: Graph) -> dict[str, dict[str, Mapping[str, object]]]:
    """Node -> {successor: edge attributes}: what ``graph.succ`` reads through a view."""
    return graph._succ  # type: ignore[attr-defined,no-any-return]


def pred_dicts(graph: Graph) -> dict[str, dict[str, Mapping[str, object]]]:
    """Node -> {predecessor: edge attributes}: what ``graph.pred`` reads through a view."""
    return graph._pred  # type: ignore[attr-defined,no-any-return]


def node_dicts(graph: Graph) -> dict[str, dict[str, object]]:
    """Node -> its attributes: what ``graph.nodes[n]`` reads through a view."""
    return graph._node  # type: ignore[attr-defined,no-any-return]


def add_edges(graph: Graph, edges: list[tuple[str, str, Mapping[str, object]]]) -> None:
    """``graph.add_edges_from(edges)`` for (u, v, attributes) triples, with the same graph as
    a result (nodes made bare in the order met, a repeated edge's attributes updated), written
    against the DiGraph's own dicts: replaying the recorded edges is the graph stage's hot
    loop (~430,000 edges a build on the largest trees), and networkx's general method spends
    most of it on the cases it must accept (2-tuples, None nodes, default attributes).

    An edge's attributes are never changed in place: the given mappings become the edges' own,
    and a repeated edge gets a merged dict. Edge attributes are shared -- the
    :class:`EdgeData` of a module's recorded edges are those of every graph that replays them
    (``analyzer.graph.python``): one per recorded edge, not one per graph -- so no graph
    may write into one."""
    succ = succ_dicts(graph)
    pred = pred_dicts(graph)
    nodes = node_dicts(graph)
    for u, v, attrs in edges:
        out = succ.get(u)
        if out is None:
            out = succ[u] = {}
            pred[u] = {}
            nodes[u] = {}
        if v not in succ:
            succ[v] = {}
            pred[v] = {}
            nodes[v] = {}
        data = out.get(v)
        out[v] = pred[v][u] = attrs if data is None else {**data, **attrs}
