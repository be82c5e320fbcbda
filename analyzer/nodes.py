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
stage from graph on hands over: node ids are strings, attributes plain dicts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

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
    "member", "attribute_read", "module_value", "subclasses", "type_test",
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


def add_edge(graph: Graph, u: str, v: str, kind: EdgeKind, file: str, line: int) -> None:
    """An edge of ``kind`` from ``u`` to ``v``, with the ``file:line`` it comes from."""
    put_edge(graph, u, v, {"kind": kind, "file": file, "line": line})


def put_edge(graph: Graph, u: str, v: str, attrs: dict[str, object]) -> None:
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
def succ_dicts(graph: Graph) -> dict[str, dict[str, dict[str, object]]]:
    """Node -> {successor: edge attributes}: what ``graph.succ`` reads through a view."""
    return graph._succ  # type: ignore[attr-defined,no-any-return]


def pred_dicts(graph: Graph) -> dict[str, dict[str, dict[str, object]]]:
    """Node -> {predecessor: edge attributes}: what ``graph.pred`` reads through a view."""
    return graph._pred  # type: ignore[attr-defined,no-any-return]


def node_dicts(graph: Graph) -> dict[str, dict[str, object]]:
    """Node -> its attributes: what ``graph.nodes[n]`` reads through a view."""
    return graph._node  # type: ignore[attr-defined,no-any-return]


def add_edges(graph: Graph, edges: list[tuple[str, str, dict[str, object]]]) -> None:
    """``graph.add_edges_from(edges)`` for (u, v, attributes) triples, with the same graph as
    a result (nodes made bare in the order met, a repeated edge's attributes updated), written
    against the DiGraph's own dicts: replaying the recorded edges is the graph stage's hot
    loop (~430,000 edges a build on the largest trees), and networkx's general method spends
    most of it on the cases it must accept (2-tuples, None nodes, default attributes).

    An edge's attribute dict is never changed in place: the given dicts become the edges' own,
    and a repeated edge gets a merged copy. Edge attribute dicts are shared -- the dicts of a
    module's recorded edges are those of every graph that replays them
    (``analyzer.graph.python``): one dict per recorded edge, not one per graph -- so no graph
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
