"""Analysis stage: explain why a node is live (its shortest chain from a root) or dead.

Dead nodes say which of the reasons applies: the node belongs to a dropped feature, a
profile decision removed the edge that would have kept it (a dropped registry key, a folded
guard, a plugin family restricted to the roots), or nothing live reaches it at all.
"""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis.liveness import Liveness
from analyzer.nodes import Graph, describe

_PREFIXES = ("py:", "ext:", "file:", "cmake:", "target:", "fetch:", "op:")




def chain_steps(graph: Graph, live: Liveness, node: str) -> list[str]:
    chain = live.chain(node)
    steps: list[str] = []
    for i, n in enumerate(chain):
        if i == 0:
            steps.append(f"root {describe(graph, n)}")
            continue
        e = graph.edges[chain[i - 1], n]
        origin = f"{e['file']}:{e['line']}" if e.get("file") else "the build"
        steps.append(f"  -> {describe(graph, n)}  [{e['kind']} at {origin}]")
    return steps


def find_node(graph: Graph, text: str, scan_root: Path) -> str | None:
    """A node by id (``target:flash_ops``, ``op:ns::name``), target name, or file path."""
    if text.startswith(_PREFIXES) and text in graph:
        return text
    for prefix in ("target:", "op:", "fetch:"):
        if prefix + text in graph:
            return prefix + text
    rel = text
    path = Path(text)
    if path.is_absolute():
        try:
            rel = path.resolve().relative_to(scan_root).as_posix()
        except ValueError:
            return None
    for prefix in ("file:", "cmake:"):
        if prefix + rel in graph:
            return prefix + rel
    return None


def explain(graph: Graph, live: Liveness, node: str, feature: str | None = None,
            edits: list[str] | None = None) -> str:
    """``edits``: for a blocked item, the edits of the blockers that keep it (most freeing
    first): the answer ends with them."""
    if live.is_live(node):
        lines = [f"{describe(graph, node)} is live:", *chain_steps(graph, live, node)]
        if feature:
            lines.append(f"(blocked: it belongs to dropped feature {feature})")
            if edits:
                lines.append("to free it: " + edits[0])
                lines += [f"   and: {e}" for e in edits[1:]]
        return "\n".join(lines)
    lines = [f"{describe(graph, node)} is dead."]
    if feature:
        lines.append(f"It belongs to dropped feature {feature}.")
    label = node.split(":", 1)[1] if ":" in node else node
    decisions = [d for d in graph.graph.get("decisions", [])
                 if d["what"] == label or label.startswith(d["what"] + ".")]
    for d in decisions[:5]:
        lines.append(f"Profile decision at {d['path']}:{d['line']}: {d['reason']}")
    preds = sorted(graph.predecessors(node))
    if preds:
        lines.append("Only dead code leads to it:")
        for p in preds[:10]:
            e = graph.edges[p, node]
            lines.append(f"  <- {describe(graph, p)}  [{e['kind']} at {e['file']}:{e['line']}]")
    elif not decisions:
        lines.append("Nothing in the scanned tree leads to it.")
    return "\n".join(lines)
