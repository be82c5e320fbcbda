"""Analysis stage: explain why a node is live (its shortest chain from a root) or dead.

Dead nodes say which of the reasons applies: the node belongs to a dropped feature, a
profile decision removed the edge that would have kept it (a dropped registry key, a folded
guard, a plugin family restricted to the roots), or nothing live reaches it at all. Every
chain starts at a root, and a root says why it is one (``root_reasons``): named by
``--roots``, an entry point the profile or the repository declares, a test or script that
stays, a ``never_delete`` entry, a kept target, a module a plugin family loads whole, a file
depgraph could not parse, or code the plan's soundness check found still needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from analyzer.analysis.liveness import Liveness, node_data
from analyzer.analysis.roots import resolve_roots
from analyzer.analysis.why_answer import WhyAnswer
from analyzer.config.types import Profile
from analyzer.discover.test_files import is_test_module
from analyzer.errors import RootError
from analyzer.model import Deletion, Kept
from analyzer.nodes import Graph, describe, module_node, symbol_node

_PREFIXES = ("py:", "ext:", "file:", "cmake:", "target:", "fetch:", "op:")


def root_reasons(graph: Graph, roots: list[str], named: list[str], scan_root: Path,
                 declared: list[str], profile: Profile | None, tests: frozenset[str],
                 in_scope: frozenset[str], unparsed: frozenset[str], kept: list[Kept]
                 ) -> dict[str, str]:
    """Why each of ``roots`` is one (see the module docstring). ``named``: the ``--roots``
    names; ``declared``: the entry points among the roots (the profile's and the tree's);
    ``tests``, ``in_scope``, ``unparsed``: the deletion scope's paths; ``kept``: the plan's
    kept entries (``never_delete``)."""
    out: dict[str, str] = {}
    for name in named:
        try:
            nodes = resolve_roots([name], graph, scan_root)
        except RootError:
            continue
        out.setdefault(nodes[0], f"named by --roots {name}")
        for n in nodes[1:]:
            out.setdefault(n, f"a public definition of a root module (--roots {name})")
    entries: dict[str, str] = {}
    families: list[tuple[str, str]] = []
    if profile is not None:
        for ep in profile.entry_points:
            mod, _, sym = ep.partition(":")
            entries[symbol_node(mod, sym) if sym else module_node(mod)] = ep
        families = [(f.package, f.name) for f in profile.plugin_families if f.select == "all"]
    never = {k.what: k.reason for k in kept if k.reason.startswith("never_delete")}
    for node in roots:
        if node in out or node not in graph:
            continue
        data = graph.nodes[node]
        path, kind = str(data.get("path", "")), data.get("kind")
        label = node.split(":", 1)[1] if ":" in node else node
        module = str(data.get("module", ""))
        if node in entries:
            where = profile.source if profile is not None else "the profile"
            out[node] = f"an entry point of the profile ({entries[node]}, entry_points in " \
                        f"{where})"
        elif node in declared:
            out[node] = ("an entry point the repository declares ([project.scripts], "
                         "[project.entry-points], console_scripts or a __main__ module)")
        elif kind == "method" and symbol_node(module,
                                              str(data.get("name", "")).split(".")[0]) in out:
            out[node] = "a public method of a root class (an API its users call)"
        elif label in never:
            out[node] = never[label]
        elif kind in ("target", "native_file", "cmake_file", "op", "fetch"):
            out[node] = ("kept by the build whatever the roots: a kept target "
                         "(--keep-target, keep_targets) or one nothing shows how Python loads, "
                         "and what it compiles and registers")
        elif path in unparsed:
            out[node] = "a file depgraph could not parse: it stays, and what it imports too"
        elif path and path in tests and (path.rpartition("/")[2] == "conftest.py"
                                         or not is_test_module(path)):
            out[node] = ("test infrastructure (a conftest.py, or a runner or suite list "
                         "naming tests by path): it stays while tests do, so what it uses "
                         "must remain; an entry naming a test that goes goes with the test")
        elif path and path in tests:
            out[node] = "a test that stays (it uses live code), so what it uses must remain"
        elif kind in ("module", "symbol", "method") and path and path not in in_scope:
            out[node] = ("a file outside the deletion scope (a script, example or "
                         "benchmark) that stays whole, so what it uses must remain")
        elif kind == "module" and any(module.startswith(p + ".") for p, _ in families):
            fam = next(n for p, n in families if module.startswith(p + "."))
            out[node] = f"a module of plugin family {fam} (select = \"all\")"
        else:
            out[node] = ("kept by the plan's soundness check: code that stays needs it, or "
                         "it stays and nothing live uses it")
    return out


def chain_steps(graph: Graph, live: Liveness, node: str,
                reasons: dict[str, str] | None = None) -> list[str]:
    """The chain root -> ... -> node, a line per step; ``reasons``: why each root is one
    (named after the root)."""
    chain = live.chain(node)
    steps: list[str] = []
    for i, n in enumerate(chain):
        if i == 0:
            why = (reasons or {}).get(n)
            steps.append(f"root {describe(graph, n)}" + (f"  [{why}]" if why else ""))
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


def planned_lines(data: Mapping[str, object], deletions: Sequence[Deletion]) -> list[str]:
    """What the plan does with a dead node's code (the node's ``path`` and lines): the
    deletion that removes it, its reason, and whose share it is -- a dropped feature's (the
    plan keeping that feature keeps it), taken along by one, or other dead code."""
    path, start = data.get("path"), data.get("start_line")
    end = data.get("end_line") or start
    whole = not isinstance(start, int) or data.get("kind") in ("module", "native_file",
                                                                 "cmake_file")
    for d in deletions:
        if d.path != path:
            continue
        if not (d.kind == "delete_file" or (not whole and d.start_line is not None
                                            and isinstance(start, int)
                                            and isinstance(end, int)
                                            and d.start_line <= start
                                            and end <= (d.end_line or d.start_line))):
            continue
        where = f"{d.path}:{d.start_line}" if d.start_line else d.path
        line = f"The plan deletes it ({d.kind} {where}): {d.reason}."
        if d.features:
            share = (f"{', '.join(d.features)}'s share: with {' or '.join(d.features)} "
                     "kept, it would stay")
            line += f" It goes with {' and '.join(d.features)} ({share})."
        if d.after:
            line += (f" It waits for {' and '.join(d.after)} too: what it needs goes with "
                     f"{'them' if len(d.after) > 1 else 'it'}.")
        if not d.features and d.with_features:
            line += (f" Other dead code, taken along by {' or '.join(d.with_features)} "
                     "(it uses what their share removes).")
        elif not d.features and not d.after:
            line += " Other dead code: it goes with the whole plan, whatever is dropped."
        return [line]
    return []


def kept_by_tests(graph: Graph, live: Liveness, tests: frozenset[str]) -> dict[str, str]:
    """Module path -> the test keeping it live: the modules no root but a test that stays
    reaches (a model a test of live code imports). Chains start at the most preferred root
    that reaches a node (the named roots and entry points before the tests), so a chain that
    starts at a test means only tests reach it."""
    out: dict[str, str] = {}
    nodes = node_data(graph)
    for node, data in nodes.items():
        path = data.get("path")
        if data.get("kind") != "module" or not isinstance(path, str) or path in tests \
                or not live.is_live(node):
            continue
        root = live.chain(node)[0]
        test = nodes[root].get("path") if root in nodes else None
        if isinstance(test, str) and test in tests:
            out[path] = test
    return dict(sorted(out.items()))


def explain(graph: Graph, live: Liveness, node: str, feature: str | None = None,
            edits: list[str] | None = None, reasons: dict[str, str] | None = None,
            shown: int | None = 5, deletions: Sequence[Deletion] = ()) -> str:
    """The answer of :func:`answer_of` as printed."""
    return answer_of(graph, live, node, feature, edits, reasons, shown, deletions).text()


def answer_of(graph: Graph, live: Liveness, node: str, feature: str | None = None,
              edits: list[str] | None = None, reasons: dict[str, str] | None = None,
              shown: int | None = 5, deletions: Sequence[Deletion] = ()) -> WhyAnswer:
    """``edits``: for a blocked item, the edits of the blockers that keep it (a default that
    selects a dropped key first, then most freeing first): the answer ends with them.
    ``reasons``: why each root is one (a root says so; a chain names its root's reason).
    ``shown``: how many profile decisions (twice as many dead predecessors) a dead node
    lists; None: all. ``deletions``: the plan's: a dead node says which of them removes it
    and whose share that is."""
    item = describe(graph, node)
    if live.is_live(node) and len(live.chain(node)) == 1:
        why = (reasons or {}).get(node, "a root of this scan")
        lines = [f"{item} is live: it is a root: {why}."]
        if feature:
            lines.append(f"(blocked: it belongs to dropped feature {feature})")
        return WhyAnswer(item, "root", feature, lines, chain=[item])
    if live.is_live(node):
        root = live.chain(node)[0]
        kept = (reasons or {}).get(root, "").startswith(("a test that stays",
                                                          "test infrastructure"))
        head = (f"{item} is live: kept by {graph.nodes[root].get('path')}, "
                "a test of live code or its infrastructure (only tests reach it):" if kept
                else f"{item} is live:")
        steps = chain_steps(graph, live, node, reasons)
        lines = [head, *steps]
        to_free: list[str] = []
        if feature:
            lines.append(f"(blocked: it belongs to dropped feature {feature})")
            if edits:
                to_free = list(edits)
                lines.append("to free it: " + edits[0])
                lines += [f"   and: {e}" for e in edits[1:]]
        return WhyAnswer(item, "live", feature, lines, [s.strip() for s in steps], to_free)
    lines = [f"{item} is dead."]
    if feature:
        lines.append(f"It belongs to dropped feature {feature}.")
    planned = planned_lines(graph.nodes[node], deletions)
    lines += planned
    label = node.split(":", 1)[1] if ":" in node else node
    decisions = [d for d in graph.graph.get("decisions", [])
                 if d["what"] == label or label.startswith(d["what"] + ".")]
    for d in decisions[:shown]:
        lines.append(f"Profile decision at {d['path']}:{d['line']}: {d['reason']}")
    preds = sorted(graph.predecessors(node))
    if preds:
        lines.append("Only dead code leads to it:")
        for p in preds[:None if shown is None else 2 * shown]:
            e = graph.edges[p, node]
            lines.append(f"  <- {describe(graph, p)}  [{e['kind']} at {e['file']}:{e['line']}]")
    elif not decisions:
        lines.append("Nothing in the scanned tree leads to it.")
    return WhyAnswer(item, "dead", feature, lines, deletions=planned)
