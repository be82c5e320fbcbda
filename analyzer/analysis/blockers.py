"""Analysis stage: what keeps a dropped feature's blocked items live, as edits a person makes.

A *blocker* is an edge where live code outside the feature enters it: ``src -> dst`` with
``src`` live and not an item of the feature, ``dst`` a blocked item. It keeps live every
blocked item ``dst`` reaches inside the feature (``blocks``); it alone keeps those no other
blocker reaches (``frees``: what the edit would free by itself). A method entered through
its class is kept by the code that reads its name (an ``attribute_read`` of ``attr:<name>``),
so that read is the blocker. Blockers are sorted by items freed, then blocked.

The edit is named by the edge: delete the import, remove the use, remove the registration,
remove the read of ``.name``, remove the ``torch.ops`` call, remove the CMake reference.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.analysis.features import FeatureReport
from analyzer.analysis.liveness import Liveness
from analyzer.graph.python import NOT_FOLLOWED
from analyzer.nodes import Graph

_EDITS = {
    "import": "delete the import",
    "optional_import": "delete the import (and its try/except)",
    "reference": "remove the use",
    "registered": "remove the registration",
    "string_ref": "remove the dotted-path string",
    "dynamic_import": "remove the dynamic import",
    "plugin_family": "remove the package walk",
    "star_import": "replace the star import",
    "exported": "remove the name from __all__",
    "attribute_read": "remove the read",
    "module_value": "stop using the module as a value",
    "subclasses": "stop enumerating the subclasses",
    "torch_op": "remove the torch.ops call",
    "hint": "remove the profile's dynamic-import hint",
    "companion": "remove the import of the companion module",
}


@dataclass(frozen=True)
class Blocker:
    feature: str
    src: str  # live node outside the feature
    dst: str  # the item it enters
    kind: str  # edge kind
    file: str
    line: int
    blocks: tuple[str, ...]  # blocked items reachable from dst inside the feature
    frees: tuple[str, ...]  # those no other blocker reaches
    edit: str


def feature_blockers(graph: Graph, live: Liveness, feature: FeatureReport) -> list[Blocker]:
    items = {i.node for i in feature.items}
    blocked = {i.node for i in feature.blocked}
    entries: list[tuple[str, str, str, str, int, str]] = []
    for dst in sorted(blocked):
        for src in sorted(graph.predecessors(dst)):
            data = graph.edges[src, dst]
            if src in items or not live.is_live(src) or data["kind"] in NOT_FOLLOWED:
                continue
            kind, file, line = data["kind"], data.get("file", ""), data.get("line", 0)
            label = dst
            if kind == "member" and graph.nodes[dst].get("gate"):
                reader = _live_reader(graph, live, str(graph.nodes[dst]["gate"]))
                if reader is not None:
                    src, (kind, file, line) = reader[0], reader[1:]
                    label = f".{graph.nodes[dst].get('method', '')}"
            entries.append((src, dst, kind, file, line, label))
    reach: dict[tuple[str, str, int], set[str]] = {}
    for src, dst, _kind, file, line, _label in entries:
        reach.setdefault((src, file, line), set()).update(_inside(graph, dst, blocked))
    out: list[Blocker] = []
    seen: set[tuple[str, str, int]] = set()
    for src, dst, kind, file, line, label in entries:
        key = (src, file, line)
        if key in seen:
            continue
        seen.add(key)
        others = set().union(*(r for k, r in reach.items() if k != key)) if len(reach) > 1 \
            else set()
        mine = reach[key]
        edit = _EDITS.get(kind, "remove the reference")
        shown = label if label.startswith(".") else _short(dst)
        where = f"{file}:{line}" if file else "the build"
        out.append(Blocker(feature.name, src, dst, kind, file, line,
                           tuple(sorted(mine)), tuple(sorted(mine - others)),
                           f"{edit} of {shown} at {where}"))
    out.sort(key=lambda b: (-len(b.frees), -len(b.blocks), b.file, b.line))
    return out


def _live_reader(graph: Graph, live: Liveness, gate: str) -> tuple[str, str, str, int] | None:
    if gate not in graph:
        return None
    for src in sorted(graph.predecessors(gate)):
        if live.is_live(src):
            data = graph.edges[src, gate]
            return src, data["kind"], data.get("file", ""), data.get("line", 0)
    return None


def _inside(graph: Graph, start: str, blocked: set[str]) -> set[str]:
    """Blocked items reachable from ``start`` without leaving them."""
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        for nxt in graph.successors(node):
            if nxt in blocked and nxt not in seen \
                    and graph.edges[node, nxt]["kind"] not in NOT_FOLLOWED:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _short(node: str) -> str:
    return node.split(":", 1)[1] if ":" in node else node
