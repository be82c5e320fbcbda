"""Deletion-plan stage: from liveness to a list of deletions (files, ranges, import names).

Input: the graph, the liveness result, the module index and per-file info (hash, lines).
Output: a ``Plan`` the manifest writer and the reporters render; nothing here reads files.

What is planned, for files in the analysis scope (``ScanScope``):
- ``delete_file``: a module no root reaches.
- ``delete_range``: a top-level function or class (from its first decorator) in a live module
  that no live code references; an import statement of a live module or live definition
  whose every name is dead (its target is dead) or unused (read nowhere in its scope, not in
  ``__all__``, not re-exported through this module to another one).
- ``remove_import_names``: the same when only some names of a ``from m import a, b`` are dead.

Never planned: definitions nested in top-level ``if``/``try`` blocks (deleting them can leave an
empty block; they are listed as ``kept`` with that reason), imports under
``try/except ImportError`` (availability probes), unused imports in ``__init__.py`` (the package's
re-export surface), and ``import pkg.mod`` / ``from pkg import submodule`` of
in-tree modules whose name is unused (importing runs the module: a possible side effect).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from analyzer.analysis.liveness import Liveness
from analyzer.extract.python import TRY_IMPORT_ERROR, ImportFact
from analyzer.resolve import ModuleIndex, PyModule, Target, module_node, symbol_node


@dataclass(frozen=True)
class FileInfo:
    path: str
    sha256: str
    lines: int
    language: str


@dataclass(frozen=True)
class Deletion:
    kind: str  # "delete_file" | "delete_range" | "remove_import_names"
    path: str
    sha256: str
    lines: int
    reason: str
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    names: tuple[str, ...] = ()
    # python-file | python-symbol | python-import | native-file | cmake-file | cmake-block |
    # op-registration | python-branch | test-file
    category: str = ""
    feature: str = ""  # the dropped feature this deletion belongs to, if any
    rewrite: str = ""  # folded branches: how the codemod keeps the code valid
    statement: tuple[int, int] | None = None  # folded branches: the whole statement
    keep: tuple[int, int] | None = None  # folded branches: the surviving body


@dataclass(frozen=True)
class Kept:
    """Something dead that the plan deliberately does not delete, and why."""

    path: str
    line: int
    what: str
    reason: str


@dataclass
class Plan:
    deletions: list[Deletion] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)

    def removed_lines(self) -> int:
        return sum(d.lines for d in self.deletions)


def build_plan(graph: nx.DiGraph, live: Liveness, index: ModuleIndex,
               files: dict[str, FileInfo], in_scope: set[str]) -> Plan:
    plan = Plan()
    reexported = frozenset(index.reexports_used)  # as the graph stage left it
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in in_scope:
            continue
        info = files[mod.path]
        if not live.is_live(module_node(name)):
            plan.deletions.append(Deletion("delete_file", mod.path, info.sha256, info.lines,
                                           "unreachable from roots", category="python-file"))
            continue
        ranges = _dead_symbols(graph, live, mod, info, plan)
        _dead_imports(live, index, mod, info, plan, ranges, reexported)
    plan.deletions.sort(key=lambda d: (d.path, d.start_line or 0, d.kind))
    return plan


def plan_tests(graph: nx.DiGraph, live: Liveness, index: ModuleIndex,
               files: dict[str, FileInfo], tests: set[str], plan: Plan) -> None:
    """A test whose in-tree imports reach only dead code goes with it; a test mixing live and
    dead imports is reported for editing. Other test files are left alone."""
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path not in tests:
            continue
        me = module_node(name)
        sources = [me, *(symbol_node(name, d.name) for d in mod.facts.definitions)]
        targets: set[str] = set()
        for src in sources:
            if src not in graph:
                continue
            for dst in graph.successors(src):
                data = graph.nodes[dst]
                if data.get("kind") in ("module", "symbol") and data.get("path") not in tests \
                        and graph.edges[src, dst]["kind"] not in ("defined_in", "parent_package"):
                    targets.add(dst)
        dead = sorted(t for t in targets if not live.is_live(t))
        if not dead:
            continue
        if len(dead) == len(targets):
            info = files[mod.path]
            plan.deletions.append(Deletion(
                "delete_file", mod.path, info.sha256, info.lines,
                "test of dead code only: " + ", ".join(d[3:] for d in dead[:3])
                + (" ..." if len(dead) > 3 else ""), category="test-file"))
        else:
            plan.kept.append(Kept(mod.path, 0, name, "test mixes live and dead imports; edit "
                                  "it: " + ", ".join(d[3:] for d in dead[:5])))


def plan_folded(live: Liveness, index: ModuleIndex, files: dict[str, FileInfo],
                regions: dict[str, list], extra: list[Deletion], plan: Plan,
                in_scope: set[str]) -> None:
    """Folded guard branches and dropped registry entries of live code in the deletion scope
    (in dead files or dead definitions they go with the whole)."""
    dead_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    dead_ranges: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for d in plan.deletions:
        if d.kind == "delete_range" and d.start_line and d.end_line:
            dead_ranges[d.path].append((d.start_line, d.end_line))

    def covered(path: str, start: int, end: int) -> bool:
        return path in dead_files or any(s <= start and end <= e for s, e in dead_ranges[path])

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
        if d.path in in_scope and not covered(d.path, d.start_line or 0, d.end_line or 0):
            plan.deletions.append(d)
    folds: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for d in plan.deletions:
        if d.kind == "fold_branch" and d.start_line and d.end_line:
            folds[d.path].append((d.start_line, d.end_line))
    plan.deletions[:] = [  # what a folded region removes is not listed twice
        d for d in plan.deletions
        if d.kind in ("fold_branch", "delete_file") or not d.start_line or not any(
            s <= d.start_line and (d.end_line or d.start_line) <= e for s, e in folds[d.path])]


def _dead_symbols(graph: nx.DiGraph, live: Liveness, mod: PyModule, info: FileInfo,
                  plan: Plan) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    seen: set[str] = set()
    for d in mod.facts.definitions:
        node = symbol_node(mod.name, d.name)
        if d.kind not in ("function", "class") or node not in graph or node in seen:
            continue
        seen.add(node)
        if live.is_live(node):
            continue
        starts = [x.start_line for x in mod.facts.definitions if x.name == d.name
                  and x.kind in ("function", "class")]
        if d.nested or len(starts) > 1:
            plan.kept.append(Kept(mod.path, d.start_line, f"{mod.name}:{d.name}",
                                  "dead, but defined inside a top-level if/try block or more "
                                  "than once; left for a later rewrite"))
            continue
        ranges.append((d.start_line, d.end_line))
        plan.deletions.append(Deletion(
            "delete_range", mod.path, info.sha256, d.end_line - d.start_line + 1,
            f"{d.kind} {d.name} is not referenced by live code", d.start_line, d.end_line,
            symbol=f"{mod.name}:{d.name}", category="python-symbol"))
    return ranges


def _dead_imports(live: Liveness, index: ModuleIndex, mod: PyModule, info: FileInfo,
                  plan: Plan, dead_ranges: list[tuple[int, int]],
                  reexported: frozenset[tuple[str, str]]) -> None:
    used_heads: dict[str, set[str]] = defaultdict(set)
    for ref in mod.facts.references:  # reads in dead definitions do not count
        if not ref.scope or live.is_live(symbol_node(mod.name, ref.scope)):
            used_heads[ref.scope].add(ref.chain.split(".")[0])
    all_used = set().union(*used_heads.values()) if used_heads else set()
    exported = set(mod.facts.all_names or ())
    surface = mod.path.endswith("__init__.py")
    statements: dict[tuple[int, int], list[ImportFact]] = defaultdict(list)
    for fact in mod.facts.imports:
        statements[(fact.start_line, fact.end_line)].append(fact)
    for (start, end), facts in sorted(statements.items()):
        if any(s <= start and end <= e for s, e in dead_ranges):
            continue  # inside a definition that is deleted whole
        scope = facts[0].scope
        if scope and not live.is_live(symbol_node(mod.name, scope)):
            continue
        if any(TRY_IMPORT_ERROR in f.context for f in facts):
            continue
        bound: list[tuple[str, str | None]] = []  # (bound name, why removable or None)
        for fact in facts:
            for bound_name, target, side_effect in _bindings_of(index, mod, fact):
                why = None
                if target is not None and target.kind in ("module", "symbol"):
                    node = target.node
                    if node is not None and not live.is_live(node):
                        why = f"{bound_name}: target {node[3:]} is dead"
                if why is None and not side_effect and not surface:
                    heads = used_heads.get(scope, set()) if scope else all_used
                    is_reexport = (mod.name, bound_name) in reexported
                    if bound_name not in heads and bound_name not in exported and not is_reexport:
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
