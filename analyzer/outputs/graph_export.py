"""Output stage, graph export: the dependency graph as DOT, GraphML, node-link JSON or Mermaid.

Formatting only: ``export_graph(graph, fmt)`` writes the nodes and edges of the graph the scan
built (with their attributes) in one format; choosing what to export (e.g. only live nodes,
``live_subgraph``) is the caller's business. GraphML and JSON use networkx's writers; DOT and
Mermaid are written here (pydot/pygraphviz are not dependencies).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from analyzer.nodes import Graph

FORMATS = ("dot", "graphml", "json", "mermaid")


def export_graph(graph: Graph, fmt: str) -> str:
    if fmt == "dot":
        return to_dot(graph)
    if fmt == "graphml":
        return to_graphml(graph)
    if fmt == "json":
        return to_json(graph)
    if fmt == "mermaid":
        return to_mermaid(graph)
    raise ValueError(f"unknown graph format {fmt!r}; one of {', '.join(FORMATS)}")


def live_subgraph(graph: Graph, live: Iterable[str]) -> Graph:
    """The graph restricted to the given (live) nodes, as a copy."""
    return graph.subgraph(n for n in live if n in graph).copy()


def focus_subgraph(graph: Graph, centre: str, depth: int) -> Graph:
    """The nodes within ``depth`` edges of ``centre``, either direction, as a copy."""
    seen = {centre}
    frontier = {centre}
    for _ in range(depth):
        nxt: set[str] = set()
        for node in frontier:
            nxt.update(graph.successors(node))
            nxt.update(graph.predecessors(node))
        frontier = nxt - seen
        seen |= frontier
    return graph.subgraph(seen).copy()


def _scalar(value: Any) -> str | int | float | bool | None:
    """An attribute value GraphML (and DOT) can carry: tuples/lists joined, None dropped."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (tuple, list, set, frozenset)):
        return "; ".join(str(v) for v in value)
    return str(value)


def _attrs(data: dict[str, Any]) -> dict[str, str | int | float | bool]:
    return {k: v for k, raw in sorted(data.items()) if (v := _scalar(raw)) is not None}


# -- DOT ---------------------------------------------------------------------------------------
def _dot_quote(value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _dot_attr_list(attrs: dict[str, Any]) -> str:
    if not attrs:
        return ""
    body = ", ".join(f"{_dot_quote(k)}={_dot_quote(str(v).lower() if isinstance(v, bool) else v)}"
                     for k, v in attrs.items())
    return f" [{body}]"


def to_dot(graph: Graph) -> str:
    lines = ["digraph depgraph {", "  rankdir=LR;"]
    for node, data in graph.nodes(data=True):
        lines.append(f"  {_dot_quote(node)}{_dot_attr_list(_attrs(data))};")
    for u, v, data in graph.edges(data=True):
        lines.append(f"  {_dot_quote(u)} -> {_dot_quote(v)}{_dot_attr_list(_attrs(data))};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- GraphML / JSON ----------------------------------------------------------------------------
def _clean_copy(graph: Graph) -> Graph:
    """Same nodes and edges, attributes reduced to scalars, no graph-level attributes.
    A key whose values mix types (across nodes or edges) is written as text throughout."""
    import networkx as nx

    out: Graph = nx.DiGraph()
    node_attrs = {n: _attrs(d) for n, d in graph.nodes(data=True)}
    edge_attrs = {(u, v): _attrs(d) for u, v, d in graph.edges(data=True)}
    _unify_types(node_attrs.values())
    _unify_types(edge_attrs.values())
    out.add_nodes_from(node_attrs.items())
    out.add_edges_from((u, v, d) for (u, v), d in edge_attrs.items())
    return out


def _unify_types(records: Iterable[dict[str, Any]]) -> None:
    records = list(records)
    types: dict[str, set[type]] = {}
    for r in records:
        for k, v in r.items():
            types.setdefault(k, set()).add(type(v))
    mixed = {k for k, ts in types.items() if len(ts) > 1}
    for r in records:
        for k in mixed & r.keys():
            r[k] = str(r[k])


def to_graphml(graph: Graph) -> str:
    import networkx as nx

    return "\n".join(nx.generate_graphml(_clean_copy(graph))) + "\n"


def to_json(graph: Graph) -> str:
    import networkx as nx

    data = nx.node_link_data(_clean_copy(graph), edges="edges")
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


# -- Mermaid -----------------------------------------------------------------------------------
_MERMAID_UNSAFE = re.compile(r'["<>\[\]{}()|#`]')


def _mermaid_text(text: object) -> str:
    return _MERMAID_UNSAFE.sub(lambda m: f"#{ord(m.group(0))};", str(text))


def _mermaid_class(kind: object) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", str(kind or "node"))


def to_mermaid(graph: Graph) -> str:
    """``graph LR``: one ``nK["id (kind)"]`` line per node, one ``-->`` line per edge labelled
    with the edge kind and its file:line, and a class per node kind."""
    ids = {node: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = ["graph LR"]
    by_class: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        kind = data.get("kind", "")
        lines.append(f'  {ids[node]}["{_mermaid_text(node)} ({_mermaid_text(kind)})"]')
        by_class.setdefault(_mermaid_class(kind), []).append(ids[node])
    for u, v, data in graph.edges(data=True):
        label = str(data.get("kind", ""))
        if data.get("file"):
            label += f" {data['file']}:{data.get('line', '')}"
        lines.append(f'  {ids[u]} -->|"{_mermaid_text(label)}"| {ids[v]}')
    for cls, members in sorted(by_class.items()):
        lines.append(f"  classDef k_{cls} stroke-width:1px")
        lines.append(f"  class {','.join(members)} k_{cls}")
    return "\n".join(lines) + "\n"
