"""Analysis stage: what keeps a dropped feature's blocked items live, as edits a person makes.

A *blocker* is an edge where live code outside the feature enters it: ``src -> dst`` with
``src`` live and not an item of the feature, ``dst`` a blocked item. It keeps live every
blocked item ``dst`` reaches inside the feature (``blocks``); it alone keeps those no other
blocker reaches (``frees``: what the edit would free by itself). A method entered through
its class is kept by the code that reads its name (an ``attribute_read`` of ``attr:<name>``),
so that read is the blocker. Blockers are sorted by items freed, then blocked.

The edit is named by the edge: delete the import, remove the use, remove the registration,
remove the read of ``.name``, remove the ``torch.ops`` call, remove the CMake reference.

How they are presented (``present``), most useful first, in every output:

1. ``default``: a dropped registry key live code still produces as a value
   (``profile.blocked_keys``: ``server_args.py:1749: self.dsa_decode_backend = 'fa3'``) keeps
   the key's registrations live, and through them what they register: the true edit is
   "change the default at file:line", not removing the registration (which would break the
   runs that select the key). Its ``blocks`` are the blocked items whose chain passes a line
   that spells the key as a string (a registration, a dict entry); the code blockers reached
   only through such a line are ``behind`` the key: changing the default frees them too;
2. ``code``: the places in live code, most freeing first; those that free nothing alone come
   last (the outputs fold them);
3. ``test``: tests (and the profile's ``test_paths``) that import the feature, grouped apart
   ("N tests import it"): such a test goes with the feature once nothing else keeps it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from analyzer.analysis.features import FeatureReport
from analyzer.analysis.liveness import Liveness
from analyzer.config.types import Feature
from analyzer.graph.python_nodes import NOT_FOLLOWED
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
    group: str = "code"  # "default" | "code" | "test" (see the module docstring)
    behind: str = ""  # a code blocker live only through a blocked key: that key


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


def present(graph: Graph, live: Liveness, feature: FeatureReport, code: list[Blocker],
            keys: dict[str, str], sources: Mapping[str, bytes], tests: frozenset[str]
            ) -> list[Blocker]:
    """A feature's blockers (``feature_blockers``) as every output shows them: one
    ``default`` per key of ``keys`` (the feature's dropped keys live code still produces,
    key -> ``"path:line: what"``) and the places in live code (those live only through a key
    marked ``behind`` it), ordered by what changing each alone frees -- most first, a default
    before a place freeing as much, those freeing nothing alone last -- then the tests
    (``tests``: their paths), which go with the feature once nothing else keeps it: they are
    not counted as keeping anything when ``frees`` is computed."""
    split: dict[str, list[bytes]] = {}

    def spells(file: str, line: int, key: str) -> bool:
        if file not in split:
            split[file] = sources.get(file, b"").split(b"\n")
        rows = split[file]
        text = rows[line - 1] if 0 < line <= len(rows) else b""
        return f'"{key}"'.encode() in text or f"'{key}'".encode() in text

    def through(node: str, key: str) -> bool:
        """Whether the chain to ``node`` passes a line spelling ``key`` as a string (the
        registration the key keeps live)."""
        chain = live.chain(node)
        for a, b in itertools.pairwise(chain):
            e = graph.edges[a, b]
            if e.get("file") and spells(str(e["file"]), int(e.get("line") or 0), key):
                return True
        return False

    in_tests = [dataclasses.replace(b, group="test") for b in code if b.file in tests]
    rest = [b for b in code if b.file not in tests]
    behind: dict[int, str] = {}
    for key in sorted(keys):
        for i, b in enumerate(rest):
            if i not in behind and through(b.src, key):
                behind[i] = key
    rest = [dataclasses.replace(b, behind=behind[i]) if i in behind else b
            for i, b in enumerate(rest)]
    rest = [dataclasses.replace(b, frees=_alone(b, rest)) for b in rest]
    defaults: list[Blocker] = []
    for key, where in sorted(keys.items()):
        path, _, after = where.partition(":")
        number, _, what = after.partition(":")
        line = int(number) if number.isdigit() else 0
        mine = {n for b in rest if b.behind == key for n in b.blocks}
        mine |= {i.node for i in feature.blocked if through(i.node, key)}
        others = {n for b in rest if b.behind != key for n in b.blocks}
        defaults.append(Blocker(
            feature.name, "", "", "default", path, line, tuple(sorted(mine)),
            tuple(sorted(mine - others)),
            f"change the default at {path}:{line}:{what} (it selects the dropped key "
            f"{key!r}; removing the registration instead would break the runs that select "
            "it)", group="default", behind=key))
    ordered = sorted([*defaults, *rest], key=lambda b: (
        not b.frees, -len(b.frees), b.group != "default", -len(b.blocks), b.file, b.line))
    return [*ordered, *sorted(in_tests, key=lambda b: (b.file, b.line))]


def _alone(b: Blocker, among: list[Blocker]) -> tuple[str, ...]:
    """What ``b`` alone keeps among ``among`` (its ``blocks`` no other one has)."""
    others = {n for o in among if o is not b for n in o.blocks}
    return tuple(n for n in b.blocks if n not in others)


def feature_keys(features: list[Feature], feature: str, blocked_keys: dict[str, str]
                 ) -> dict[str, str]:
    """The dropped keys of ``feature`` live code still produces (key -> producing line)."""
    own = next((f for f in features if f.name == feature), None)
    if own is None:
        return {}
    mine = {k for keys in own.registry_keys.values() for k in keys}
    mine |= {str(k) for keys in own.registry_int_keys.values() for k in keys}
    return {k: v for k, v in blocked_keys.items() if k in mine}
