"""Output stage: the live tree a "why" answer reads, in a compact form -- written into the
report (its why-search) and into the manifest (``depgraph why --manifest`` answers from it in
well under a second, without scanning again), and read back here.

The tree is the liveness BFS tree (``Liveness.parents``) cut to the nodes a person asks about
-- modules, classes and functions, methods, build targets, native and CMake files, ops, and a
dropped feature's blocked items -- and the nodes on their chains. Each row is one string
(a JSON array of strings stays one line per row in an indented manifest), its fields
separated by tabs::

    id  path  line  parent  edge-kind  edge-file  edge-line  searchable  reason

``id`` is the graph's node id; ``path``/``edge file`` index ``files`` (``-1``: none; an edge
with no file comes from the build); ``parent`` indexes ``rows`` (``-1``: a root, whose
``reason`` indexes ``reasons``: why it is a root). A chain rebuilt from the rows reads exactly
as ``analyzer.analysis.why.chain_steps`` prints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analyzer.result import ScanResult

SEARCH_KINDS = ("module", "symbol", "method", "target", "native_file", "cmake_file", "op")
_ROOT_VIRTUAL = "<roots>"  # analyzer.nodes.SUPER_ROOT (outputs read the graph's values only)


# the last scan's tree: the manifest and the report of one scan both write it
_LAST: list[tuple[tuple[object, ...], dict[str, Any]]] = []


def live_tree(result: ScanResult) -> dict[str, Any]:
    """The compact live tree of a scan (see the module docstring); a scan's outputs read it
    once (a new dict each call: the manifest adds to it)."""
    key = (result, result.graph, result.liveness, result.root_reasons)
    if not _LAST or any(a is not b for a, b in zip(_LAST[0][0], key, strict=True)):
        _LAST[:] = [(key, _live_tree(result))]
    return dict(_LAST[0][1])


def _live_tree(result: ScanResult) -> dict[str, Any]:
    graph, live = result.graph, result.liveness
    blocked = {i.node for f in result.features for i in f.blocked}
    wanted = sorted(n for n in live.live if n in graph
                    and (graph.nodes[n].get("kind") in SEARCH_KINDS or n in blocked))
    files: dict[str, int] = {}
    reasons: dict[str, int] = {}
    index: dict[str, int] = {}
    rows: list[list[str]] = []

    def file_id(path: str) -> str:
        if not path:
            return "-1"
        return str(files.setdefault(path, len(files)))

    def add(node: str) -> int:
        """The row of ``node``, added after those of its chain up to a root (iteratively: a
        recursive nested function would be a reference cycle, never freed while a scan
        keeps the collector paused, ``analyzer.util.gc_pause``)."""
        chain: list[tuple[str, str | None]] = []  # (node, its parent) not yet added, leaf first
        at: str | None = node
        while at is not None and at not in index:
            up = live.parents.get(at)
            up = up if up is not None and up != _ROOT_VIRTUAL and up in live.live else None
            chain.append((at, up))
            at = up
        for one, up in reversed(chain):
            data = graph.nodes[one]
            kind = efile = eline = reason = ""
            if up is not None:
                e = graph.edges[up, one]
                kind, efile, eline = str(e["kind"]), file_id(str(e.get("file") or "")), \
                    str(e.get("line") or 0)
                parent = index[up]
            else:
                why = result.root_reasons.get(one, "a root of this scan")
                reason = str(reasons.setdefault(why, len(reasons)))
                parent = -1
            index[one] = len(rows)
            rows.append([one, file_id(str(data.get("path", ""))),
                         str(data.get("start_line") or 0), str(parent), kind, efile or "-1",
                         eline or "0", "0", reason])
        return index[node]

    for node in wanted:
        rows[add(node)][7] = "1"
    return {"files": list(files), "reasons": list(reasons),
            "rows": ["\t".join(r) for r in rows], "searchable": len(wanted),
            "kinds": list(SEARCH_KINDS)}


# -- reading it back (depgraph why --manifest; the report's script does the same in JS) ------
class LiveTree:
    """A live tree as :func:`live_tree` wrote it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.files: list[str] = list(data.get("files", []))
        self.reasons: list[str] = list(data.get("reasons", []))
        self.rows = [str(r).split("\t") for r in data.get("rows", [])]
        self.by_id = {r[0]: i for i, r in enumerate(self.rows)}

    def path(self, i: int) -> str:
        n = int(self.rows[i][1])
        return self.files[n] if n >= 0 else ""

    def describe(self, i: int) -> str:
        """``name (path:line)``, as ``analyzer.nodes.describe`` prints a node."""
        node = self.rows[i][0]
        where = self.path(i)
        if where and self.rows[i][2] != "0":
            where += f":{self.rows[i][2]}"
        name = node[3:] if node.startswith(("py:", "op:")) else node
        return name + (f" ({where})" if where and where not in name else "")

    def root_reason(self, i: int) -> str:
        r = self.rows[i][8]
        return self.reasons[int(r)] if r else ""

    def chain(self, i: int) -> list[int]:
        out = [i]
        while int(self.rows[out[-1]][3]) >= 0:
            out.append(int(self.rows[out[-1]][3]))
        return out[::-1]

    def steps(self, i: int) -> list[str]:
        """The chain root -> ... -> row ``i``, as ``analysis.why.chain_steps`` prints it."""
        out: list[str] = []
        for k, j in enumerate(self.chain(i)):
            row = self.rows[j]
            if k == 0:
                why = self.root_reason(j)
                out.append(f"root {self.describe(j)}" + (f"  [{why}]" if why else ""))
                continue
            f = int(row[5])
            origin = f"{self.files[f]}:{row[6]}" if f >= 0 else "the build"
            out.append(f"  -> {self.describe(j)}  [{row[4]} at {origin}]")
        return out

    def search_key(self, i: int) -> str:
        """What a person types: the dotted name (``pkg.mod:Name``), a file's path, a target's
        name, an op's ``ns::name``."""
        node = self.rows[i][0]
        if node.startswith(("file:", "cmake:")):
            return node.split(":", 1)[1]
        return node.split(":", 1)[1] if ":" in node else node
