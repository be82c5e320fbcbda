"""Analysis stage: explain why a node is live (its shortest chain from a root) or dead."""

from __future__ import annotations

import networkx as nx

from analyzer.analysis.liveness import Liveness


def describe(graph: nx.DiGraph, node: str) -> str:
    data = graph.nodes[node]
    where = data.get("path", "")
    if data.get("start_line"):
        where += f":{data['start_line']}"
    return f"{node[3:] if node[:3] in ('py:', 'ext') else node}" + (f" ({where})" if where else "")


def chain_steps(graph: nx.DiGraph, live: Liveness, node: str) -> list[str]:
    chain = live.chain(node)
    steps: list[str] = []
    for i, n in enumerate(chain):
        if i == 0:
            steps.append(f"root {describe(graph, n)}")
            continue
        e = graph.edges[chain[i - 1], n]
        steps.append(f"  -> {describe(graph, n)}  [{e['kind']} at {e['file']}:{e['line']}]")
    return steps


def explain(graph: nx.DiGraph, live: Liveness, node: str) -> str:
    if live.is_live(node):
        return "\n".join([f"{describe(graph, node)} is live:", *chain_steps(graph, live, node)])
    preds = [p for p in graph.predecessors(node)]
    lines = [f"{describe(graph, node)} is dead: no root reaches it."]
    if preds:
        lines.append("Referenced only by dead code:")
        for p in sorted(preds)[:10]:
            e = graph.edges[p, node]
            lines.append(f"  <- {describe(graph, p)}  [{e['kind']} at {e['file']}:{e['line']}]")
    return "\n".join(lines)
