"""Deletion-plan stage: from liveness to a list of deletions (files, ranges, import names).

Input: the graph, the liveness result, the module index and per-file info (hash, lines).
Output: a ``Plan`` the manifest writer and the reporters render; nothing here reads files.

What is planned, for files in the analysis scope (``ScanScope``):
- ``delete_file``: a module no root reaches.
- ``delete_range``: a top-level function or class (from its first decorator) in a live module
  that no live code references; a method of a live class that no live code names; an import
  statement of a live module or live definition
  whose every name is dead (its target is dead) or unused (read nowhere in its scope, not in
  ``__all__``, not re-exported through this module to another one that remains: live, outside the
  deletion scope or not understood).
- ``remove_import_names``: the same when only some names of a ``from m import a, b`` are dead.

Never planned: definitions nested in top-level ``if``/``try`` blocks (deleting them can leave an
empty block; they are listed as ``kept`` with that reason), imports under
``try/except ImportError`` (availability probes), unused imports in ``__init__.py`` (the package's
re-export surface), and ``import pkg.mod`` / ``from pkg import submodule`` of
in-tree modules whose name is unused (importing runs the module: a possible side effect).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from sys import intern
from weakref import WeakKeyDictionary

from analyzer.analysis.liveness import Liveness, node_data, successors
from analyzer.decide.guards import DeadRegion
from analyzer.discover.test_files import is_test_module
from analyzer.extract.python_facts import TRY_IMPORT_ERROR, ImportFact
from analyzer.graph.rounds_graph import python_layer_mark
from analyzer.model import Deletion, FileInfo, Kept, Plan, Ranges
from analyzer.nodes import Graph, module_node, symbol_node
from analyzer.resolve.python import ModuleIndex, PyModule, Target
from analyzer.resolve.tree import Scope


def build_plan(graph: Graph, live: Liveness, index: ModuleIndex,
               files: dict[str, FileInfo], in_scope: set[str],
               keep_imports: frozenset[tuple[str, int]] = frozenset(),
               unparsed: frozenset[str] = frozenset(),
               reexported: frozenset[tuple[str, str]] = frozenset(),
               memo: PlanMemo | None = None) -> Plan:
    """Dead modules and definitions of the deletion scope, and imports nothing remaining
    reads. ``reexported``: (module, name) import bindings other modules resolve through (the
    graph stage returns them). ``keep_imports`` holds (path, line) of import statements a
    soundness
    check found still needed; files in ``unparsed`` (read or parse problems) are never
    planned: what depgraph could not read, it cannot prove dead. ``memo``: the live modules'
    shares of the last plans (:class:`PlanMemo`): a module asking the same questions with the
    same answers gets its share again."""
    memo = memo if memo is not None else PlanMemo()
    memo.reused = memo.computed = 0
    reexported_by: dict[str, set[str]] = defaultdict(set)
    for module, name in reexported:
        reexported_by[module].add(name)
    keep_by: dict[str, set[int]] = defaultdict(set)
    for path, line in keep_imports:
        keep_by[path].add(line)
    plan = Plan()
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in in_scope:
            continue
        info = files[mod.path]
        if mod.path in unparsed:
            if not live.is_live(module_node(name)):
                plan.kept.append(Kept(mod.path, 0, name, "unreachable, but the file could not "
                                      "be read or parsed whole: kept unresolved"))
            continue
        if not live.is_live(module_node(name)):
            plan.deletions.append(Deletion("delete_file", mod.path, info.sha256, info.lines,
                                           "unreachable from roots", category="python-file"))
            continue
        share = memo.share(graph, live, index, mod, info, frozenset(reexported_by.get(name, ())),
                           frozenset(keep_by.get(mod.path, ())))
        plan.deletions.extend(share.deletions)
        plan.kept.extend(share.kept)
    plan.deletions.sort(key=lambda d: (d.path, d.start_line or 0, d.kind))
    return plan


class _Asked:
    """The liveness and graph questions one module's share of the plan asks, with the
    answers (what :class:`PlanMemo` checks before giving the share again)."""

    def __init__(self, graph: Graph, live: Liveness) -> None:
        self._live = live.live
        self._nodes = node_data(graph)
        self.live: set[str] = set()
        self.dead: set[str] = set()
        self.present: set[str] = set()
        self.absent: set[str] = set()
        self.method_lines: dict[str, object] = {}

    def is_live(self, node: str) -> bool:
        if node in self._live:
            self.live.add(node)
            return True
        self.dead.add(node)
        return False

    def has(self, node: str) -> bool:
        """``node`` is a node of the graph."""
        if node in self._nodes:
            self.present.add(node)
            return True
        self.absent.add(node)
        return False

    def method_line(self, node: str) -> object:
        """The first line of ``node`` when it is a method's node, else None."""
        data = self._nodes.get(node)
        line = data.get("start_line") if data is not None and data.get("kind") == "method" \
            else None
        self.method_lines[node] = line
        return line


@dataclass(frozen=True)
class _Share:
    """One live module's deletions and kept items, and what they were computed from."""

    mod: PyModule
    info: FileInfo
    # the module's folded lines and folded arms' reads in the index, the re-exported names
    # it binds and the lines of its imports a soundness check keeps
    local: tuple[object, ...]
    orders: Mapping[tuple[str, str, str], tuple[bool, ...]]  # folds its resolution read
    live: frozenset[str]
    dead: frozenset[str]
    present: frozenset[str]
    absent: frozenset[str]
    method_lines: tuple[tuple[str, object], ...]
    deletions: tuple[Deletion, ...]
    kept: tuple[Kept, ...]

    def holds(self, graph: Graph, live: Liveness, index: ModuleIndex, mod: PyModule,
              info: FileInfo, local: tuple[object, ...]) -> bool:
        """Every question the share asked has the same answer."""
        if mod is not self.mod or info != self.info or local != self.local:
            return False
        now, nodes = live.live, node_data(graph)
        return (now.issuperset(self.live) and now.isdisjoint(self.dead)
                and all(n in nodes for n in self.present)
                and not any(n in nodes for n in self.absent)
                and all(_method_line(nodes, n) == line for n, line in self.method_lines)
                and index.same_orders(self.orders))


def _method_line(nodes: Mapping[str, dict[str, object]], node: str) -> object:
    data = nodes.get(node)
    return data.get("start_line") if data is not None and data.get("kind") == "method" \
        else None


@dataclass
class PlanMemo:
    """Each live module's share of the plans built before (the soundness rounds build one
    per round, and most modules' answers do not change): its dead definitions, methods, type
    tests and imports are a function of its facts, its folded lines, the liveness and graph
    membership of the nodes it asks about, the folds its resolution read, and the
    re-exported names and kept import lines of the module. The share is recomputed only when
    one of those changed."""

    shares: dict[str, _Share] = field(default_factory=dict)
    reused: int = 0  # live modules whose share the last plan took from the memo
    computed: int = 0  # live modules whose share the last plan computed

    def share(self, graph: Graph, live: Liveness, index: ModuleIndex, mod: PyModule,
              info: FileInfo, reexported: frozenset[str], keep_lines: frozenset[int]) -> _Share:
        local = (tuple(index.dead_lines.get(mod.name, ())),
                 tuple(index.dead_reads.get(mod.name, ())), reexported, keep_lines)
        known = self.shares.get(mod.name)
        if known is not None and known.holds(graph, live, index, mod, info, local):
            self.reused += 1
            return known
        self.computed += 1
        ask = _Asked(graph, live)
        part = Plan()
        with index.recording() as used:
            ranges = _dead_symbols(ask, mod, info, part)
            ranges.extend(_dead_type_tests(ask, index, mod, info, part, ranges))
            _dead_imports(ask, index, mod, info, part, ranges,
                          frozenset((mod.name, n) for n in reexported),
                          frozenset((mod.path, line) for line in keep_lines))
        share = self.shares[mod.name] = _Share(
            mod, info, local, index.orders_of(used), frozenset(ask.live), frozenset(ask.dead),
            frozenset(ask.present), frozenset(ask.absent), tuple(ask.method_lines.items()),
            tuple(part.deletions), tuple(part.kept))
        return share


def plan_peripheral(graph: Graph, live: Liveness, index: ModuleIndex,
                    files: dict[str, FileInfo], peripheral: set[str], plan: Plan,
                    unparsed: frozenset[str] = frozenset(),
                    selectors: dict[str, str] | None = None) -> list[str]:
    """Files outside the deletion scope (tests, scripts, benchmarks, examples) go whole or
    stay whole. One that nothing live imports and that uses code the plan deletes, or selects
    a dropped registry key (``selectors``: path -> why), goes with it (a test or script of
    dead code or of a dropped feature), and so does one that uses such a file (a test naming
    a plugin folder of tests that go); every other one stays, so it is returned as a root:
    what remaining code uses must remain. A file that stays and names a test that goes by
    its path (a runner's suite list: ``TestFile("cpu/test_x.py")``) loses that entry of its
    collection literal (:func:`plan_test_entries`): the one edit of a file out of scope."""
    selectors = selectors or {}
    roots: list[str] = []
    # not live, nothing they use goes (yet); with what they use, and the files of it
    waiting: list[tuple[PyModule, list[tuple[str, object]], frozenset[object]]] = []
    gone: set[str] = set()
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in peripheral:
            continue
        me = module_node(name)
        if live.is_live(me) or mod.path in unparsed:
            roots.append(me)
            continue
        used = _used(graph, mod)
        dead = sorted(dst for dst, path in used if path not in peripheral
                      and not live.is_live(dst))
        if not dead and mod.path not in selectors:
            waiting.append((mod, used, frozenset(path for _dst, path in used)))
            continue
        reason = ("uses code the plan deletes: " + ", ".join(d[3:] for d in dead[:3])
                  + (" ..." if len(dead) > 3 else "")) if dead else selectors[mod.path]
        _delete_peripheral(plan, files[mod.path], mod.path, reason)
        gone.add(mod.path)
    grew = True
    while grew:
        grew = False
        still: list[tuple[PyModule, list[tuple[str, object]], frozenset[object]]] = []
        for mod, used, paths in waiting:
            if gone.isdisjoint(paths):  # (most of them, every pass)
                still.append((mod, used, paths))
                continue
            dead = sorted(dst for dst, path in used if path in gone)
            _delete_peripheral(plan, files[mod.path], mod.path, "uses files the plan "
                               "deletes: " + ", ".join(d[3:] for d in dead[:3])
                               + (" ..." if len(dead) > 3 else ""))
            gone.add(mod.path)
            grew = True
        waiting = still
    roots.extend(module_node(mod.name) for mod, _used, _paths in waiting)
    roots.extend(plan_test_entries(index, files, peripheral, gone, plan))
    return sorted(roots)


def plan_test_entries(index: ModuleIndex, files: dict[str, FileInfo], peripheral: set[str],
                      gone: set[str], plan: Plan) -> list[str]:
    """Entries naming a test that goes, in the collection literals of the peripheral files
    that stay (runners, suite lists, CI scripts): each removed (``remove_list_element``). A
    test named where no entry can go (a plain assignment, an argument) stays after all: its
    deletion is taken back, and its module is returned as a root."""
    kept: list[str] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in peripheral or mod.path in gone:
            continue
        entries: dict[tuple[int, str], str] = {}
        for s in mod.facts.strings:
            if s.kind != "path" or not is_test_module(s.value):
                continue
            named = index.module_at(s.value)
            test = index.modules[named].path if named is not None else None
            if test is None or test not in gone or test == mod.path:
                continue
            if s.element is None:
                kept.append(test)
                continue
            entries.setdefault(s.element, test)
        for (line, element), test in sorted(entries.items()):
            plan.deletions.append(Deletion(
                "remove_list_element", mod.path, files[mod.path].sha256, 0,
                f"names test {test}, which goes", start_line=line, end_line=line,
                names=(element,), category="test-entry"))
    if not kept:
        return []
    plan.deletions[:] = [d for d in plan.deletions
                         if not (d.kind == "delete_file" and d.path in kept)]
    return [module_node(index.by_path[p]) for p in sorted(set(kept))]


def _delete_peripheral(plan: Plan, info: FileInfo, path: str, reason: str) -> None:
    plan.deletions.append(Deletion("delete_file", path, info.sha256, info.lines, reason,
                                   category="test-file"))


# graph -> module -> (the graph's version, what the module's nodes use in its Python layer):
# the rounds' graph is the same object from round to round, patched in place, and a patch
# changes the Python layer's successors of the swapped modules' nodes only
# (``analyzer.graph.rounds_graph.python_layer_mark``)
_USES: WeakKeyDictionary[Graph, dict[str, tuple[int, list[tuple[str, object]]]]] = \
    WeakKeyDictionary()


def _used(graph: Graph, mod: PyModule) -> list[tuple[str, object]]:
    """In-tree modules and definitions that ``mod`` uses (imports, references, from any of
    its scopes), each with its path, in no particular order: in a rounds' graph, what its
    Python layer says (kept until a patch swaps the module) and what the layers above add."""
    sources = _own_nodes(mod)
    mark = python_layer_mark(graph)
    if mark is None:
        return _uses_in(graph, sources)
    known = _USES.setdefault(graph, {})
    last = known.get(mod.name)
    if last is None or last[0] < mark.swapped_at.get(mod.name, 0):
        last = known[mod.name] = (mark.version, _uses_in(graph, sources, mark.successors))
    adj, counts = successors(graph), mark.successors
    above = [src for src in sources if src in adj and len(adj[src]) > counts.get(src, 0)]
    if not above:  # (nearly every module: the layers above add edges out of few)
        return last[1]
    out = list(last[1])
    seen = {dst for dst, _path in out}
    for src in above:
        _add_uses(islice(adj[src].items(), counts.get(src, 0), None), node_data(graph), seen,
                  out)
    return out


def _own_nodes(mod: PyModule) -> list[str]:
    """The nodes of ``mod``: its module, definitions and methods (a function of its facts:
    found once per scan)."""
    sources: list[str] | None = mod.own.get("own_nodes")
    if sources is None:
        sources = mod.own["own_nodes"] = list(dict.fromkeys([
            module_node(mod.name), *(symbol_node(mod.name, d.name)
                                     for d in mod.facts.definitions),
            *(symbol_node(mod.name, f"{m.cls}.{m.name}") for m in mod.facts.method_defs)]))
    return sources


def _uses_in(graph: Graph, sources: list[str], counts: Mapping[str, int] | None = None
             ) -> list[tuple[str, object]]:
    """What the successors of ``sources`` use (each once, with its path); ``counts``: only
    each source's first ``counts[source]`` successors (a rounds' graph's Python layer)."""
    out: list[tuple[str, object]] = []
    seen: set[str] = set()
    adj, nodes = successors(graph), node_data(graph)
    for src in sources:
        if src not in adj:
            continue
        edges = adj[src].items()
        _add_uses(edges if counts is None else islice(edges, counts.get(src, 0)), nodes,
                  seen, out)
    return out


def _add_uses(edges: Iterable[tuple[str, Mapping[str, object]]],
              nodes: Mapping[str, Mapping[str, object]], seen: set[str],
              out: list[tuple[str, object]]) -> None:
    """The uses among ``edges`` (successor, edge attributes) not ``seen`` yet, onto ``out``."""
    for dst, edge in edges:
        if dst in seen:
            continue
        data = nodes[dst]
        if data.get("kind") not in _USED_KINDS:
            continue
        if edge["kind"] in _NOT_USES:
            continue  # (a module used as a value may use any definition: not this one)
        seen.add(dst)
        out.append((dst, data.get("path")))


_USED_KINDS = frozenset({"module", "symbol", "method"})
_USED_HEADS_KEPT = 4  # variants of a module's read names kept (the rounds' dead ranges)
# edges that are no use of their target by the file: a definition's own module, the packages
# a module is in, typing-only imports, a class's methods, a module used as a value, a test
# a runner names (the runner loses the entry when the test goes)
_NOT_USES = frozenset({"defined_in", "parent_package", "type_checking", "member",
                       "module_value", "names_test"})


def plan_folded(live: Liveness, index: ModuleIndex, files: dict[str, FileInfo],
                regions: dict[str, list[DeadRegion]], extra: list[Deletion], plan: Plan,
                in_scope: set[str], scripts: set[str] | frozenset[str] = frozenset()) -> None:
    """Folded guard branches and dropped registry entries of live code in the deletion scope
    (in dead files or dead definitions they go with the whole). ``scripts``: files outside
    the scope that are not tests (``setup.py``): the entries of a profile's registries there
    go too (the extension list of a build script), nothing else of them is edited."""
    dead_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    dead_ranges: dict[str, Ranges] = defaultdict(Ranges)
    for d in plan.deletions:
        if d.kind == "delete_range" and d.start_line and d.end_line:
            dead_ranges[d.path].add(d.start_line, d.end_line)

    def covered(path: str, start: int, end: int) -> bool:
        return path in dead_files or dead_ranges[path].covers(start, end)

    for name, module_regions in sorted(regions.items()):
        mod = index.modules[name]
        if mod.path not in in_scope:
            continue
        info = files[mod.path]
        for r in module_regions:
            if r.scope and not live.is_live(symbol_node(name, r.scope)):
                continue
            if covered(mod.path, r.start_line, r.end_line):
                continue
            lines = 0 if r.partial else r.end_line - r.start_line + 1
            plan.deletions.append(Deletion(
                "fold_branch", mod.path, info.sha256, lines, r.reason, r.start_line, r.end_line,
                category="python-branch", rewrite=r.rewrite, statement=r.statement, keep=r.keep))
    for d in extra:
        editable = d.path in in_scope or (d.path in scripts and d.category == "registry-entry")
        if editable and not covered(d.path, d.start_line or 0, d.end_line or 0):
            plan.deletions.append(d)
    folds: dict[str, Ranges] = defaultdict(Ranges)
    for d in plan.deletions:
        if d.kind == "fold_branch" and d.start_line and d.end_line:
            folds[d.path].add(d.start_line, d.end_line)
    plan.deletions[:] = [  # what a folded region removes is not listed twice
        d for d in plan.deletions
        if d.kind in ("fold_branch", "delete_file") or not d.start_line
        or not folds[d.path].covers(d.start_line, d.end_line or d.start_line)]


def _dead_symbols(ask: _Asked, mod: PyModule, info: FileInfo,
                  plan: Plan) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    seen: set[str] = set()
    defined = Counter(x.name for x in mod.facts.definitions if x.kind in ("function", "class"))
    for d in mod.facts.definitions:
        node = symbol_node(mod.name, d.name)
        if d.kind not in ("function", "class") or node in seen or not ask.has(node):
            continue
        seen.add(node)
        if ask.is_live(node):
            continue
        if d.nested or defined[d.name] > 1:
            plan.kept.append(Kept(mod.path, d.start_line, f"{mod.name}:{d.name}",
                                  "dead, but defined inside a top-level if/try block or more "
                                  "than once; left for a later rewrite"))
            continue
        ranges.append((d.start_line, d.end_line))
        plan.deletions.append(Deletion(
            "delete_range", mod.path, info.sha256, d.end_line - d.start_line + 1,
            f"{d.kind} {d.name} is not referenced by live code", d.start_line, d.end_line,
            symbol=f"{mod.name}:{d.name}", category="python-symbol"))
    ranges.extend(_dead_methods(ask, mod, info, plan))
    return ranges


def _dead_methods(ask: _Asked, mod: PyModule, info: FileInfo,
                  plan: Plan) -> list[tuple[int, int]]:
    """Methods of live classes that nothing live names. A class keeps at least one statement
    of its body (its last dead method stays, listed as kept, when nothing else would)."""
    body_size = {d.name: d.body_size for d in mod.facts.definitions if d.kind == "class"}
    dead: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for m in mod.facts.method_defs:
        node = symbol_node(mod.name, f"{m.cls}.{m.name}")
        if ask.method_line(node) != m.start_line \
                or ask.is_live(node) or not ask.is_live(symbol_node(mod.name, m.cls)):
            continue
        dead[m.cls].append((m.start_line, m.end_line, m.name))
    ranges: list[tuple[int, int]] = []
    for cls, methods in sorted(dead.items()):
        if len(methods) >= body_size.get(cls, 0):
            start, _end, name = methods.pop()
            plan.kept.append(Kept(mod.path, start, f"{mod.name}:{cls}.{name}",
                                  "dead, but the last statement of its class body"))
        for start, end, name in methods:
            ranges.append((start, end))
            plan.deletions.append(Deletion(
                "delete_range", mod.path, info.sha256, end - start + 1,
                f"method {cls}.{name} is not named by live code", start, end,
                symbol=f"{mod.name}:{cls}.{name}", category="python-symbol"))
    return ranges


def _dead_type_tests(ask: _Asked, index: ModuleIndex, mod: PyModule,
                     info: FileInfo, plan: Plan, dead: list[tuple[int, int]]
                     ) -> list[tuple[int, int]]:
    """``types.append(C)`` statements (a list only ``isinstance`` reads) of live code whose
    class ``C`` is dead: nothing live constructs it, so no object is one (the type test can
    never hold) -- the statement goes, and with it the import only it read."""
    out: list[tuple[int, int]] = []
    for a in mod.facts.type_test_appends:
        if any(s <= a.line and a.end_line <= e for s, e in dead):
            continue
        if a.scope and not ask.is_live(symbol_node(mod.name, a.scope)):
            continue  # the whole definition goes
        targets = [t for t, _type_only, _line in index.resolve_chain_all(mod.name, a.scope,
                                                                          a.chain)]
        nodes = [n for t in targets if t.kind == "symbol" and (n := t.node) is not None
                 and ask.has(n)]
        if not nodes or len(nodes) != len(targets) or any(ask.is_live(n) for n in nodes):
            continue
        out.append((a.line, a.end_line))
        plan.deletions.append(Deletion(
            "delete_range", mod.path, info.sha256, a.end_line - a.line + 1,
            f"adds {a.chain} to {a.list_name}, which only isinstance() reads, and nothing live "
            f"constructs {a.chain}: no object is one", a.line, a.end_line,
            category="python-type-test"))
    return out


def kept_roots(plan: Plan, graph: Graph) -> list[str]:
    """Symbols the plan keeps although nothing live uses them: their code remains, so what it
    uses must remain too."""
    return [n for k in plan.kept if ":" in k.what
            and (n := symbol_node(*k.what.split(":", 1))) in graph]


def _dead_imports(ask: _Asked, index: ModuleIndex, mod: PyModule,
                  info: FileInfo, plan: Plan, dead_ranges: list[tuple[int, int]],
                  reexported: frozenset[tuple[str, str]],
                  keep_imports: frozenset[tuple[str, int]]) -> None:
    """An import statement goes when no name it binds is read by code that remains (its
    scope, or for module-level imports the whole module outside deleted definitions), none
    is exported or re-exported, and it runs no in-tree module for its side effects, unless
    that module is deleted, in which case the import must go."""
    deleted = Ranges()
    for s, e in dead_ranges:
        deleted.add(s, e)
    folded = Ranges()  # folded branches, dropped registry entries: the plan removes them
    for s, e in index.dead_lines.get(mod.name, ()):
        folded.add(s, e)
    # scope -> names read there by code that remains: a function of the module's facts and
    # of what is deleted and folded in it, the same in most rounds (kept per module: the
    # last few variants)
    key = (tuple(dead_ranges), tuple(index.dead_lines.get(mod.name, ())),
           tuple(index.dead_reads.get(mod.name, ())))
    known: dict[object, dict[str, set[str]]] = mod.derived.setdefault("used_heads", {})
    used_heads = known.get(key)
    if used_heads is None:
        if len(known) >= _USED_HEADS_KEPT:
            del known[next(iter(known))]
        used_heads = known[key] = defaultdict(set)
        every_read_counts = not any(key)
        for ref in mod.facts.references:  # reads in deleted definitions do not count
            if every_read_counts or any(
                    not deleted.covers(ln, ln) and not folded.covers(ln, ln)
                    and not index.dead_read(mod.name, ref.chain, ln)
                    for ln in (ref.line, *ref.also)):
                used_heads[ref.scope].add(intern(ref.chain.split(".")[0]))
    all_used = set().union(*used_heads.values()) if used_heads else set()
    exported = set(mod.facts.all_names or ())
    surface = mod.path.endswith("__init__.py")
    statements: dict[tuple[int, int], list[ImportFact]] = defaultdict(list)
    for fact in mod.facts.imports:
        statements[(fact.start_line, fact.end_line)].append(fact)
    for (start, end), facts in sorted(statements.items()):
        if deleted.covers(start, end):
            continue  # inside a definition that is deleted whole
        scope = facts[0].scope
        if scope and not ask.is_live(symbol_node(mod.name, scope)):
            continue
        if any(TRY_IMPORT_ERROR in f.context for f in facts):
            continue
        bound: list[tuple[str, str | None]] = []  # (bound name, why removable or None)
        for fact in facts:
            for bound_name, target, side_effect in _import_bindings(index, mod, fact):
                node = target.node if target is not None and target.kind in (
                    "module", "symbol") else None
                gone = node is not None and ask.has(node) and not ask.is_live(node)
                heads = used_heads.get(scope, set()) if scope else all_used
                used = (bound_name in heads or bound_name in exported
                        or (mod.name, bound_name) in reexported
                        or (mod.path, start) in keep_imports)
                why = None
                if not used and gone:
                    why = f"{bound_name}: target {node[3:]} is deleted"  # type: ignore[index]
                elif not used and not side_effect and not surface:
                    why = f"{bound_name}: imported but never used"
                bound.append((bound_name, why))
        if not bound or any(why is None for _, why in bound):
            dead_names = tuple(n for n, why in bound if why is not None)
            if dead_names and len(facts) == 1 and facts[0].is_from:
                plan.deletions.append(Deletion(
                    "remove_import_names", mod.path, info.sha256, 0,
                    "; ".join(why for _, why in bound if why), start, end,
                    names=dead_names, category="python-import"))
            continue
        reason = "dead import: " + "; ".join(why for _, why in bound if why)
        if facts[0].sole_in_if:  # the import is the whole body of an `if`: the `if` goes too
            start, end = facts[0].sole_in_if
            reason += " (the enclosing `if` holds nothing else)"
        plan.deletions.append(Deletion("delete_range", mod.path, info.sha256, end - start + 1,
                                       reason, start, end, category="python-import"))


def _import_bindings(index: ModuleIndex, mod: PyModule,
                     fact: ImportFact) -> list[tuple[str, Target | None, bool]]:
    """:func:`_bindings_of`, kept per import of the module (``mod.derived``) for the rounds
    whose index folds every name bound twice or more that it read alike (the rounds' index
    copies differ in their folds only)."""
    # (keyed by the fact's id: the module's facts hold the fact, so its id stays its own)
    return index.resolved_once(id(fact), lambda: _bindings_of(index, mod, fact),
                               mod.derived.setdefault("import_bindings", {}))


def _bindings_of(index: ModuleIndex, mod: PyModule,
                 fact: ImportFact) -> list[tuple[str, Target | None, bool]]:
    """(bound name, resolved target, importing it may run in-tree code for its side effects)."""
    absolute = index.absolute(mod.name, fact)
    if absolute is None:
        return []
    internal = index.is_internal(absolute)
    if not fact.is_from:
        bound = fact.alias or fact.module.split(".")[0]
        target = index.resolve_dotted(absolute) if internal else Target("external", absolute)
        return [(bound, target, internal)]
    out: list[tuple[str, Target | None, bool]] = []
    for imported in fact.names:
        if imported.name == "*":
            return []  # star imports are never planned
        bound = imported.alias or imported.name
        if not internal:
            out.append((bound, Target("external", absolute), False))
            continue
        target = index.resolve_attr(absolute, imported.name) if index.is_module(absolute) \
            else Target("unresolved", absolute, imported.name)
        out.append((bound, target, target.kind == "module"))
    return out


def needed_reexports(reexported: frozenset[tuple[str, str]],
                     reexported_by: Mapping[tuple[str, str], Iterable[str]],
                     modules: Mapping[str, PyModule], liveness: Liveness, scope: Scope,
                     peripheral_gone: set[str]) -> frozenset[tuple[str, str]]:
    """The import bindings the plan keeps as re-exports: those resolved through outside any
    module's edges (``reexported``), and those a module resolved through that remains
    (``reexported_by``: binding -> the modules that did) -- live, outside the deletion scope
    and not among the files of it the round deletes (``peripheral_gone``: tests and scripts
    that go whole), or not understood. A module the plan deletes whole needs nothing (nor
    does one no parsed file can name)."""

    def remains(name: str) -> bool:
        path = modules[name].path
        return (liveness.is_live(module_node(name)) or path in scope.unparsed
                or (path not in scope.in_scope and path not in peripheral_gone))

    return reexported | frozenset(
        pair for pair, by in reexported_by.items() if any(remains(m) for m in by))
