"""Pipeline, the soundness rounds' values: the state they settle on (:class:`Retained`: what
they keep so far, a value each rule returns with more kept) and a round's outcome
(:class:`Planned`), with the functions of them the rounds and the gate share -- a deletion as
the state names it, what a plan's build leaves unbuilt, the plan less what conflicts convict.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analyzer.analysis.liveness import Liveness
from analyzer.decide.guards import DeadRegion
from analyzer.decide.profile_facts import ProfileUse
from analyzer.graph.native import NativeIndex
from analyzer.model import Deletion, Plan
from analyzer.nodes import Graph, module_node, symbol_node, target_node
from analyzer.plan.check import (
    Conflict,
    Unbuilt,
)
from analyzer.plan.native import NativeSummary
from analyzer.resolve.cmake_cond import condition_options, forced_values, is_false
from analyzer.resolve.python import ModuleIndex


@dataclass
class Planned:
    """The last round: what the rest of the pipeline reports on."""

    index: ModuleIndex
    graph: Graph
    unresolved: list[dict[str, object]]
    native: NativeIndex
    roots: list[str]
    default_roots: list[str]
    keep_targets: tuple[str, ...]
    liveness: Liveness
    plan: Plan
    use: ProfileUse
    conflicts: list[Conflict]
    # path -> pyflakes' undefined names of the original file (per name), for every file the
    # check simulated: the verify baseline reuses them instead of linting again
    lint_before: dict[str, dict[str, int]] = field(default_factory=dict)
    # the breaks of the tree before any pruning (analyzer.plan.check.original_breaks), and
    # what its build holds (analyzer.plan.check.native.native_baseline)
    breaks_before: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    native_before: dict[str, Any] = field(default_factory=dict)
    native_summary: NativeSummary = field(default_factory=NativeSummary)


@dataclass(frozen=True)
class Retained:
    """The state of the soundness rounds, a value: what they keep so far -- folded regions
    and registry entries not deleted after all, import statements kept, nodes made roots,
    keys blocked and clauses folded for them, options left unforced, CMake commands kept --
    and the import statements the plans deleted (their edges are left out). A round is a
    function of it (:meth:`Rounds._round`); each rule returns it with more kept, or itself.
    Its mappings are never changed in place: a rule builds new ones."""

    regions: frozenset[tuple[str, int, int]] = frozenset()
    entries: frozenset[tuple[str, int]] = frozenset()
    imports: frozenset[tuple[str, int]] = frozenset()
    roots: frozenset[str] = frozenset()
    # dropped keys live code still produces: blocked (key -> why), added to the profile's
    blocked: Mapping[str, str] = field(default_factory=dict)
    arms: Mapping[str, tuple[DeadRegion, ...]] = field(default_factory=dict)  # producer arms
    # (module, clause line) -> (key, why): clauses that only select dropped keys, folded
    forced: Mapping[tuple[str, int], tuple[str, str]] = field(default_factory=dict)
    # peripheral files (tests, examples) that select a dropped key: they go with it
    selectors: Mapping[str, str] = field(default_factory=dict)
    # CMake options a dropped feature forces that stay as the tree sets them: an extension
    # they would turn off is imported by code that stays, where the import may not fail
    unforced: frozenset[str] = frozenset()
    # CMake commands (path, start line; 0: the whole file) the native plan must keep
    cmake_lines: frozenset[tuple[str, int]] = frozenset()
    # (path, first, last line) of import statements the plans delete: code that goes needs
    # nothing, so their edges are left out of the next round
    freed: frozenset[tuple[str, int, int]] = frozenset()
    # deletions (path, kind, first, last line) the plan leaves out although nothing above
    # keeps what they remove: what the gate convicted that no other rule can keep (the next
    # rounds compute the plan without them, and the gate checks it again)
    cancelled: frozenset[tuple[str, str, int, int]] = frozenset()
    # the conflicts that asked for what is kept, in the order met (not part of the state's
    # value: a conflict no round can settle is logged and keeps nothing)
    log: tuple[Conflict, ...] = field(default=(), compare=False)

    def absorbing(self, conflicts: list[Conflict], index: ModuleIndex) -> Retained:
        """The state with what ``conflicts`` ask kept (and them logged)."""
        regions, entries, imports = set(self.regions), set(self.entries), set(self.imports)
        roots, unforced, cmake_lines = set(self.roots), set(self.unforced), set(self.cmake_lines)
        for c in conflicts:
            d = c.deletion
            if c.option is not None:
                unforced.add(c.option)
            elif c.keep_line is not None:
                cmake_lines.add(c.keep_line)
            elif c.root is not None:
                roots.add(c.root)
            elif d is None:
                continue
            elif d.category == "python-branch":
                regions.add((d.path, d.start_line or 0, d.end_line or 0))
            elif d.category == "registry-entry":
                entries.add((d.path, d.start_line or 0))
            elif d.category == "python-symbol" and d.symbol:
                roots.add(symbol_node(*d.symbol.split(":", 1)))
            elif d.category == "python-import":
                module = index.by_path.get(d.path)
                facts = index.modules[module].facts.imports if module else ()
                imports.update((d.path, f.start_line) for f in facts
                               if (d.start_line or 0) <= f.start_line <= (d.end_line or 0))
            elif d.kind == "delete_file" and d.path in index.by_path:
                roots.add(module_node(index.by_path[d.path]))
        return dataclasses.replace(
            self, regions=frozenset(regions), entries=frozenset(entries),
            imports=frozenset(imports), roots=frozenset(roots), unforced=frozenset(unforced),
            cmake_lines=frozenset(cmake_lines), log=(*self.log, *conflicts))

    def keeping(self, conflicts: list[Conflict], index: ModuleIndex) -> Retained:
        """The state with what ``conflicts`` ask kept (:meth:`absorbing`); when that keeps
        nothing new, with their deletions cancelled instead: the next plan is made without
        them, and what they removed is checked again. The same state (the conflicts logged)
        when both are done already."""
        after = self.absorbing(conflicts, index)
        if after != self:
            return after
        more = {deletion_key(c.deletion) for c in conflicts
                if c.deletion is not None} - self.cancelled
        return dataclasses.replace(after, cancelled=self.cancelled | more) if more else after


def unbuilt(last: Planned) -> dict[str, Unbuilt]:
    """Extension modules the plan's build no longer makes: their target is not built with
    the forced options (with the options that decide so), or nothing live loads it (the
    native plan deletes it)."""
    native = last.native
    forced = forced_values(dict(native.project.forced))
    out: dict[str, Unbuilt] = {}
    for ext, target in sorted(last.index.extensions.items()):
        if target in native.off_targets:
            options = {o for t in native.project.targets if t.name == target and t.off
                       for o in condition_options(is_false(t.conditions, forced) or "",
                                                  forced)}
            out[ext] = Unbuilt(target, tuple(sorted(options)))
        elif not last.liveness.is_live(target_node(target)):
            out[ext] = Unbuilt(target)
    return out


def exists(module: str, last: Planned) -> bool:
    """``module`` (or the package or extension it is in) is live: importing it works."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        node = module_node(".".join(parts[:i]))
        if node in last.graph:
            return last.liveness.is_live(node) and (
                i == len(parts) or last.graph.nodes[node].get("kind") != "module"
                or ".".join(parts[:i + 1]) not in last.index.modules)
    return False


def deletion_key(d: Deletion) -> tuple[str, str, int, int]:
    """A deletion as the rounds' state names it (its file, kind and lines): the same in
    every round's plan."""
    return (d.path, d.kind, d.start_line or 0, d.end_line or 0)


def freed_imports(plan: Plan) -> set[tuple[str, int, int]]:
    return {(d.path, d.start_line or 0, d.end_line or 0) for d in plan.deletions
            if d.kind == "delete_range" and d.category == "python-import" and d.start_line}


def acquitted(last: Planned, conflicts: list[Conflict]) -> Planned:
    """``last`` with a plan without the deletions ``conflicts`` convict (and the files of
    the modules they make roots): the last resort for conflicts no round settles."""
    index = last.index
    convicted = {c.deletion for c in conflicts if c.deletion is not None}
    rooted = {index.modules[c.root[3:]].path for c in conflicts
              if c.root and c.root[3:] in index.modules}
    if not convicted and not rooted:
        return last
    plan = dataclasses.replace(last.plan, deletions=[
        d for d in last.plan.deletions if d not in convicted
        and not (d.kind == "delete_file" and d.path in rooted)])
    return dataclasses.replace(last, plan=plan)
