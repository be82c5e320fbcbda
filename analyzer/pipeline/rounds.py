"""Pipeline: decide -> graph -> liveness -> plan, in rounds until the plan breaks nothing.

The rounds are a fixpoint over one value, :class:`Retained`: what they keep so far. A round is
a function of it (:meth:`Rounds._round`): it folds what the profile decides (guards,
registries) with the state's blocked keys, builds the graph without the edges the state's
folds and freed imports take, computes liveness from the roots and the state's, and plans
the deletions. Then the rules, each ``(round, state) -> state``, ask in order what the plan's
outcome keeps more: code that stays but nothing live uses becomes a root; a fold that
assumed a module gone, which stays, is kept; a dropped key live code still produces is
blocked (or its producing arm folded); a deletion that would break remaining code
(``analyzer.plan.check``) is cancelled; the plan's own import deletions free their edges.
The first rule that keeps anything new gives the next state; when none does, the plan is
the answer. Each rule only keeps more, so the rounds end; out of rounds, whatever the last
check convicts is dropped. What a round recomputes is memoised by what it read (the
graph patched, liveness continued, each module's plan and breaks kept), never carried as
state.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analyzer.analysis.features import feature_of_node
from analyzer.analysis.liveness import Liveness, compute_liveness, extend_liveness
from analyzer.analysis.profile_roots import (
    all_family_modules,
    entry_point_nodes,
    keep_target_names,
    never_delete_hits,
    never_delete_nodes,
    stale_feature_patterns,
    without_dropped,
)
from analyzer.analysis.roots import resolve_roots, resolve_targets
from analyzer.config.options import ScanOptions
from analyzer.config.types import KeepEntry
from analyzer.decide.fold_reuse import FoldMemory, TreeVersion
from analyzer.decide.guards import DeadRegion, fold_all, fold_contexts
from analyzer.decide.guards_eval import GuardContext
from analyzer.decide.profile_facts import ProfileUse, graph_options, guard_context, profile_use
from analyzer.decide.registries import RegistryOutcome, decide_registries, module_entries
from analyzer.extract.cmake import CmakeFacts
from analyzer.graph.native import NativeIndex, add_native_graph
from analyzer.graph.profile_edges import add_profile_edges
from analyzer.graph.python import EdgeMemo, build_python_graph
from analyzer.graph.rounds_graph import RoundGraph
from analyzer.model import Deletion, FileInfo, Kept, Plan, fold_lines
from analyzer.nodes import Graph, succ_dicts, target_node
from analyzer.pipeline.inputs import ScanInputs
from analyzer.pipeline.rounds_roots import (
    declared_entry_points,
    named_targets_dropped,
    never_edited,
    public_methods,
    test_infrastructure,
    tree_default_roots,
    unparsed_roots,
)
from analyzer.pipeline.rounds_state import (
    Planned,
    Retained,
    acquitted,
    deletion_key,
    exists,
    freed_imports,
    unbuilt,
)
from analyzer.pipeline.settled import keep_start, settling_key, stored_start
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.check import (
    Conflict,
    Unbuilt,
    check_plan,
    edits_by_path,
    original_breaks,
    produced_keys,
)
from analyzer.plan.check.module_memo import ModuleBreaks
from analyzer.plan.check.native import NativeState, native_baseline, native_breaks, op_reads
from analyzer.plan.check.native_view import Build, native_plan_breaks, planned_native
from analyzer.plan.check.view import planned_view
from analyzer.plan.check_cache import CheckCache
from analyzer.plan.native import plan_native
from analyzer.plan.python import (
    PlanMemo,
    build_plan,
    kept_roots,
    needed_reexports,
    plan_folded,
    plan_peripheral,
)
from analyzer.resolve.python import ModuleIndex
from analyzer.resolve.tree import Scope, Tree, evaluated

MAX_ROUNDS = 60


@dataclass(frozen=True)
class _GraphStage:
    """One round's decide -> graph output: what liveness and the plan read."""

    index: ModuleIndex
    graph: Graph
    reexported: frozenset[tuple[str, str]]
    reexported_by: dict[tuple[str, str], frozenset[str]]
    native: NativeIndex
    regions: dict[str, list[DeadRegion]]  # folded regions still folded
    registry_deletions: list[Deletion]
    stale: tuple[str, ...]
    unresolved: list[dict[str, object]]


class Rounds:
    """The rounds of one scan over one tree."""

    def __init__(self, inputs: ScanInputs, options: ScanOptions, use: ProfileUse, tree: Tree,
                 scope: Scope, sources: Mapping[str, bytes], timer: StageTimer,
                 sims: CheckCache | None = None, edges: EdgeMemo | None = None,
                 tree_key: str = "",
                 open_graph: bool = False, tree_version: TreeVersion | None = None,
                 jobs: int = 1,
                 baseline: Counter[tuple[str, str, str]] | None = None,
                 inherit: Rounds | None = None, counted: frozenset[str] | None = None,
                 fold_slots: tuple[str, tuple[str, ...]] = ("", ())) -> None:
        """``open_graph``: :meth:`open_graph` will be asked for (its folds are made beside
        the rounds' first ones, in the same pass over the modules); ``jobs``: worker
        processes a fresh graph may resolve the modules' edges in; ``baseline``: the
        tree's breaks before any pruning, when known already (another use of the profile
        on the same tree); ``inherit``: the rounds of another use of the profile on the
        same tree whose memos these continue -- its graph, patched into this one's first
        (``RoundGraph``), each module's plan share, breaks and folds -- for a caller that
        never reads those rounds' graph again (a forked worker's copy of them); ``counted``:
        the files the scan did not parse (None: where the rounds settle is neither looked up
        nor kept, :mod:`analyzer.pipeline.settled`); ``fold_slots``: the tree's slot in the
        store and those whose last folds a first fold of this tree may start from
        (:class:`~analyzer.decide.fold_reuse.FoldMemory`)."""
        self.jobs, self.counted = jobs, counted
        self.inputs, self.options, self.scope = inputs, options, scope
        self.sources, self.timer = sources, timer
        # the profile's use and the tree as the scan made them; a state's own (keys blocked,
        # options unforced) are derived from them, once per state that changes them
        self.use, self.tree = use, tree
        self._uses: tuple[Mapping[str, str], ProfileUse] = ({}, use)
        self._trees: tuple[frozenset[str], Tree] = (frozenset(), tree)
        # a digest of what the tree's module index is a function of (the folds' key)
        self.tree_key = tree_key
        # the tree's shape and each module's bytes: the folds of the last scan of a tree of
        # this shape serve the modules that did not change (analyzer.decide.fold_reuse)
        self.tree_version = tree_version
        self.test_globs = tuple(use.profile.test_paths) if use.profile is not None else ()
        # the state the rounds settled on (:meth:`run`; what the scan's later checks read)
        self.settled = Retained()
        self.sims = sims if sims is not None else CheckCache()
        self._built: tuple[tuple[object, ...], _GraphStage] | None = None
        # each module's edges, replayed while their inputs hold (from the last scan of the
        # same tree too: analyzer.graph.edge_store)
        self._edges = edges if edges is not None else EdgeMemo()
        self.declared = declared_entry_points(inputs.entry_point_files, tree.problems)
        # feature patterns matching nothing: a question of the tree, asked once per scan
        self.stale_patterns = stale_feature_patterns(use, tree.index, list(tree.files))
        # modules of dropped features: a `try: import` of one takes its `except` path, unless
        # the module turns out live after all (then the fold is cancelled: it exists)
        self.feature_modules = frozenset(
            m.name for m in tree.modules
            if feature_of_node({"kind": "module", "path": m.path}, use.features,
                               use.kept_features) is not None)
        # files a never_delete entry names whole (a path glob, or a module): never edited
        self.never_edited = never_edited(use, tree)
        # modules any dropped feature claims, kept features' claims aside: code there is the
        # feature's own (the NPU platform naming its device selects nothing on CUDA)
        self.own_modules = frozenset(
            m.name for m in tree.modules
            if feature_of_node({"kind": "module", "path": m.path}, use.features) is not None)
        # the test infrastructure (conftests, runners): roots, whatever the tests do
        self.infrastructure = test_infrastructure(tree.index, scope.peripheral,
                                                  self.own_modules)
        # the open graph's folds, made with the first ones (a module's branches are
        # unpacked once for both)
        self._open_regions: dict[str, list[DeadRegion]] | None = None
        # each context's folds module by module, and what they read of it: a later context
        # folds again only the modules whose reads it answers otherwise
        self._fold_memory: FoldMemory = (inherit._fold_memory if inherit is not None
                                         else FoldMemory(slot=fold_slots[0],
                                                         starts=fold_slots[1]))
        with timer("fold"):
            self._folds: tuple[tuple[object, ...], dict[str, list[DeadRegion]]] = (
                self._folds_key(self.settled), self._fold(self.settled, with_open=open_graph))
        # each module's breaks, kept between the plans' checks (what a check asks of most
        # modules does not change from one plan to the next; the unpruned tree's answers
        # are few plans' answers: not kept)
        self.module_breaks: ModuleBreaks = (inherit.module_breaks if inherit is not None
                                            else ModuleBreaks())
        # what the tree breaks before any pruning (optional packages, strings naming
        # nothing): no break of a plan
        if baseline is None:
            with timer("check"):
                baseline = original_breaks(tree.index)
        self.baseline = baseline
        # the original build: its baseline and breaks (made by the first native check)
        self._native_original: tuple[dict[str, Any], Counter[tuple[str, str, str]]] | None \
            = None
        self._system_libraries = (use.profile.system_libraries if use.profile is not None
                                  else ())
        self._parsed: dict[tuple[str, str], CmakeFacts] = {}  # CMake files parsed again
        self._builds: dict[frozenset[Deletion], NativeIndex] = {}  # builds a plan leaves
        # the last round's liveness before its retained tests: (graph, roots and tiers, later
        # roots, liveness), continued when the next round only adds later roots
        self._live: tuple[Graph, tuple[object, ...], frozenset[str], Liveness] | None = None
        self._never_hits: tuple[Graph, object, list[tuple[KeepEntry, list[str]]]] | None \
            = None
        # the rounds' graph, patched from round to round (the open graph is built apart)
        self._graphs: RoundGraph = inherit._graphs if inherit is not None else RoundGraph(jobs)
        self._graphs.jobs = jobs
        # the roots named on the command line and the tree's default roots: functions of the
        # graph's module and symbol nodes, which every round's graph has alike (they are
        # made from the modules' facts before any edge), so they are found once
        self._named: list[str] | None = None
        self._declared_roots: list[str] | None = None
        # each live module's share of the plans built so far: a round recomputes only the
        # modules whose questions got other answers (analyzer.plan.python.PlanMemo)
        self._plans: PlanMemo = inherit._plans if inherit is not None else PlanMemo()
        self._registry_memo: tuple[ProfileUse, ModuleIndex, dict[str, FileInfo],
                                   frozenset[tuple[str, int]], RegistryOutcome] | None = None

    def run(self, state: Retained | None = None) -> Planned:
        """The rounds to their fixpoint, from ``state`` (default: nothing kept yet; the
        gate continues from what it adds to the last settled state). A round plans from the
        state; the rules then ask, in order, what the plan's outcome keeps more, and the
        first that keeps anything new gives the next state. A plan no rule keeps more of is
        the answer. Each rule only keeps more, so the rounds end. From nothing, they start
        where the rounds of the same inputs settled, if stored (and store where they do)."""
        key = settling_key(self.inputs, self.options, self.counted, self.use, self.tree.index) \
            if state is None else None
        stored = stored_start(key, self.tree.index)
        state = stored if stored is not None else state if state is not None else Retained()
        last: Planned | None = None
        for _round in range(MAX_ROUNDS):
            start = state
            last, after = self._rules(self._round(state), state)
            settled = after == state  # (compared without the log)
            state = after
            if settled:  # (the rounds of the same inputs started there settle in one round)
                if key is not None and stored is None:
                    keep_start(key, start, self.tree.index)
                break
        else:  # out of rounds: the plan is checked once more, and whatever breaks is dropped
            #    (and kept in the state the rounds settle on: the gate continues from it)
            assert last is not None
            conflicts = check_plan(last.plan, last.index, self.sources, self.baseline,
                                   self.sims.simulation, unbuilt(last), self.module_breaks)
            last = acquitted(last, conflicts)
            state = state.absorbing(conflicts, last.index)
        assert last is not None
        self.settled = state
        before = {path: dict(lint.undefined) for path, lint in self.sims.originals().items()
                  if lint is not None}
        native_before, native_breaks_before = self._original_build(last)
        return dataclasses.replace(last, conflicts=list(state.log), lint_before=before,
                                   breaks_before=self.baseline + native_breaks_before,
                                   native_before=native_before)

    def finished(self) -> None:
        """No round runs in this process again -- the plan passed its gate and the plans
        under other drops are made in forked workers, which hold their own copies -- so the
        memos only a further round reads go: the folds' memory (its records of each module's
        reads, tens of MB on the largest trees) and each module's plan share. What the
        process does next (the labels' open graph beside the result's graph, its lint
        workers forked from it) is its peak. A round asked for after all still runs, from
        empty memos."""
        held = self._fold_memory
        self._fold_memory = FoldMemory(slot=held.slot, starts=held.starts, pointed=held.pointed)
        self._plans = PlanMemo()

    @property
    def edge_memo(self) -> EdgeMemo:
        """Each module's edges, replayed while their inputs hold (shared with the rounds of
        another use of the profile on the same tree)."""
        return self._edges

    def _rules(self, last: Planned, state: Retained) -> tuple[Planned, Retained]:
        """The rules, in order, on one round's outcome: the state the first rule that keeps
        more gives, or ``state`` (with the conflicts no round can settle logged, and ``last``
        without their deletions: dropped as a last resort)."""
        for rule in (self._unused_roots, self._present, self._selected):
            after = rule(last, state)
            if after != state:
                return last, after
        after = self._conflicts(last, state)
        if after != state:
            return last, after
        # conflicts neither kept nor cancelled in the state (kept or cancelled already):
        # their deletions are dropped from this plan, and the rounds go on
        last = acquitted(last, list(after.log[len(state.log):]))
        return last, self._freed(last, after)

    def _unused_roots(self, last: Planned, state: Retained) -> Retained:
        """Code the plan keeps that nothing live uses becomes a root: what it uses stays."""
        new = {r for r in kept_roots(last.plan, last.graph)
               if not last.liveness.is_live(r)} - state.roots
        return dataclasses.replace(state, roots=state.roots | new) if new else state

    def _present(self, last: Planned, state: Retained) -> Retained:
        """Regions of ``try: import X`` folds whose X is live are kept: the import succeeds.
        An extension module a dropped feature declares is never built: never present."""
        unbuilt = {m for f in self.use.features for m in f.extension_modules}
        new: set[tuple[str, int, int]] = set()
        for module, regions in self._regions(state).items():
            path = self.tree.index.modules[module].path
            for r in regions:
                key = (path, r.start_line, r.end_line)
                if r.needs and r.needs not in unbuilt and key not in state.regions \
                        and exists(r.needs, last):
                    new.add(key)
        return dataclasses.replace(state, regions=state.regions | new) if new else state

    def _selected(self, last: Planned, state: Retained) -> Retained:
        """Dropped keys live code still produces are blocked (or the producing arm folded);
        peripheral files selecting one go with it."""
        with self.timer("check"):
            use = self._use(state)
            selected, arms, clauses, selectors = produced_keys(
                last.plan, last.index, last.liveness, use.all_dropped_keys(),
                frozenset(state.forced), own=self.own_modules, graph=last.graph,
                own_names=tuple(p for f in use.features for p in f.identifiers),
                peripheral=self.scope.peripheral, int_domains=use.int_domains(),
                key_selectors=use.key_selectors())
        new_selectors = {p: why for p, why in selectors.items() if p not in state.selectors}
        if not selected and not arms and not clauses:
            return dataclasses.replace(state, selectors={**state.selectors, **new_selectors}) \
                if new_selectors else state
        blocked = {**state.blocked, **selected}
        # an arm folded already that its producer still reports (a file the plan does not
        # edit: a test) is not folded again: the state must settle
        more_arms = {m: (*had, *new) for m, rs in arms.items()
                     for had in (state.arms.get(m, ()),)
                     if (new := tuple(r for r in rs if r not in had))}
        if not selected and not more_arms and not clauses:
            return dataclasses.replace(state, selectors={**state.selectors, **new_selectors}) \
                if new_selectors else state
        # clauses of keys blocked now are not folded after all (their key stays selectable)
        return dataclasses.replace(
            state, blocked=blocked, arms={**state.arms, **more_arms},
            selectors={**state.selectors, **new_selectors},
            forced={k: v for k, v in {**state.forced, **clauses}.items()
                    if v[0] not in blocked and v[0] not in self.use.blocked_keys})

    def _conflicts(self, last: Planned, state: Retained) -> Retained:
        """What the plan breaks in the code it leaves -- Python first, then the build --
        asks kept."""
        with self.timer("check"):
            self.sims.prefetch(edits_by_path(last.plan), self.sources)
            conflicts = check_plan(last.plan, last.index, self.sources, self.baseline,
                                   self.sims.simulation, unbuilt(last), self.module_breaks)
        if not conflicts:
            with self.timer("check"):
                conflicts = self._native_conflicts(last, state)
        return state.keeping(conflicts, last.index)

    @staticmethod
    def _freed(last: Planned, state: Retained) -> Retained:
        """The plan's own import deletions: without their edges, more may be dead (the
        fixpoint: a re-scan of the applied tree finds nothing more)."""
        new = freed_imports(last.plan) - state.freed
        return dataclasses.replace(state, freed=state.freed | new) if new else state

    def _native_conflicts(self, last: Planned, state: Retained) -> list[Conflict]:
        """The native breaks of the build ``last``'s plan leaves (the checks verify runs),
        each with what to keep."""
        baseline, before = self._original_build(last)
        build = self._build(state)
        return [Conflict(b.path, b.line, b.what, root=keep.node, keep_line=keep.line)
                for b, keeps in native_plan_breaks(last.plan, build, last.index, baseline, before)
                for keep in keeps]

    def _build(self, state: Retained) -> Build:
        """The tree's build as the native plan checks read it (memo of the builds a plan's
        native half leaves shared)."""
        tree = self._tree(state)
        return Build(tree.cmake_facts, tree.native_facts, frozenset(tree.files),
                     {p: f.lines for p, f in tree.files.items()}, self.sources,
                     dict(tree.project.forced), self._system_libraries, self._parsed,
                     self._builds, {p: tree.files[p].sha256 for p in tree.cmake_facts})

    def native_build(self) -> Build:
        """The build of the settled state, as the native checks and their blame read it."""
        return self._build(self.settled)

    def share_unbuilt(self, last: Planned, share: list[Deletion]) -> dict[str, Unbuilt]:
        """Extension modules whose target the CMake edits of ``share`` alone remove: what
        ``depgraph verify`` finds gone once only the share is applied (it compares the
        targets the pruned build defines with the original's)."""
        plan = Plan(share)
        state = planned_native(plan, self._build(self.settled), last.index,
                               planned_view(plan, last.index, {}))
        defined = {t.name for t in state.native.project.targets}
        return {ext: Unbuilt(target) for ext, target in sorted(last.index.extensions.items())
                if target not in defined}

    def native_share_breaks(self, last: Planned, share: list[Deletion]
                            ) -> list[tuple[str, int, Deletion | None, str | None]]:
        """The native breaks of the build a share of ``last``'s plan leaves (one feature's
        deletions, applied alone), as (path, line, the deletion to blame or None, the node it
        removes or None): what ``plan.feature_sets`` learns a deletion needs from."""
        baseline, before = self._original_build(last)
        build = self._build(self.settled)
        out: list[tuple[str, int, Deletion | None, str | None]] = []
        for b, keeps in native_plan_breaks(Plan(share), build, last.index, baseline, before):
            for keep in keeps:
                if keep.node is not None:
                    out.append((b.path, b.line, None, keep.node))
                elif keep.line is not None:
                    path, line = keep.line
                    out.extend((b.path, b.line, d, None) for d in share if d.path == path and (
                        d.kind == "delete_file" if line == 0 else
                        d.start_line is not None
                        and d.start_line <= line <= (d.end_line or d.start_line)))
        return out

    def _original_build(self, last: Planned
                        ) -> tuple[dict[str, Any], Counter[tuple[str, str, str]]]:
        """What the original build holds, and the native breaks it already has (computed
        from the first round asking)."""
        if self._native_original is None:
            state = NativeState(last.native, frozenset(self.tree.files),
                                op_reads(last.index, list(last.index.modules)),
                                self._system_libraries)
            self._native_original = (native_baseline(state), Counter(
                b.key for b in native_breaks(None, state)))
        return self._native_original

    # -- what a state derives: the profile's use, the tree's build, the folds ----------------
    def _use(self, state: Retained) -> ProfileUse:
        """The profile's use with the keys the state blocks (one object per blocked set:
        the memos of the graph stage compare it by identity first)."""
        blocked, use = self._uses
        if state.blocked != blocked:
            use = dataclasses.replace(self.use,
                                      blocked_keys={**self.use.blocked_keys, **state.blocked})
            self._uses = (state.blocked, use)
        return use

    def _tree(self, state: Retained) -> Tree:
        """The tree with the CMake project evaluated again with the options the state
        leaves unforced (as the tree sets them), and op namespaces resolved against it.
        Options are only ever unforced more: each evaluation starts from the last one."""
        unforced, tree = self._trees
        if state.unforced != unforced:
            tree = evaluated(tree, {k: v for k, v in tree.project.forced
                                     if k not in state.unforced})
            self._trees = (state.unforced, tree)
        return tree

    def _regions(self, state: Retained) -> dict[str, list[DeadRegion]]:
        """The state's folds: the profile's context with its blocked keys and forced
        clauses, and the producer arms it folds."""
        key = self._folds_key(state)
        if key != self._folds[0]:
            with self.timer("fold"):
                self._folds = (key, self._fold(state))
        return self._folds[1]

    @staticmethod
    def _folds_key(state: Retained) -> tuple[object, ...]:
        return (state.blocked, state.forced, state.arms)  # (never changed in place)

    def _fold(self, state: Retained, with_open: bool = False) -> dict[str, list[DeadRegion]]:
        """The folds of ``state``; ``with_open``: the open graph's too (kept for it)."""
        ctx = guard_context(self._use(state), self.options.keep, self.feature_modules,
                            {k: why for k, (_key, why) in state.forced.items()},
                            self.tree.index)
        contexts = [c for c in (ctx, self._open_context() if with_open else None)
                    if c is not None]
        folded = iter(fold_contexts(self.tree.index, contexts, self.tree_key,
                                    self._fold_memory, self.tree_version))
        regions = next(folded) if ctx is not None else {}
        if with_open:
            self._open_regions = next(folded, {})
        for m, rs in state.arms.items():
            regions[m] = sorted([*regions.get(m, []), *rs],
                                key=lambda r: (r.start_line, r.end_line))
        return regions

    # -- one round --------------------------------------------------------------------------
    def _graph_stage(self, state: Retained) -> _GraphStage:
        """Decide -> graph for ``state``; the last round's when nothing it was built from
        changed since (a round that only added roots needs no new graph)."""
        use, tree, regions = self._use(state), self._tree(state), self._regions(state)
        key = (use, regions, state.regions, state.entries, state.imports, state.freed,
               state.unforced)
        if self._built is not None:
            last_key, last = self._built
            if key == last_key:  # element by element, identity first
                return last
        with self.timer("graph"):  # (the last round's graph, patched: RoundGraph)
            stage = self._build_graph(use, tree, regions, state, self._graphs)
        self._built = (key, stage)
        return stage

    def open_graph(self) -> Graph:
        """The graph of the tree with no feature dropped: every edge the dropped features'
        decisions (folds, registry entries, forced CMake options) take away is there. What
        a deletion of the plan needs to go with it is read from it
        (``analyzer.plan.feature_sets``)."""
        use = profile_use(self.use.profile, ())
        regions = self._open_regions
        if regions is None:
            ctx = self._open_context()
            regions = fold_all(self.tree.index, ctx, self.tree_key) \
                if ctx is not None else {}
        tree = evaluated(self._tree(self.settled), {})
        with self.timer("graph"):
            return self._build_graph(use, tree, regions, Retained()).graph

    def _open_context(self) -> GuardContext | None:
        """The guard context with no feature dropped (the open graph's)."""
        return guard_context(profile_use(self.use.profile, ()), self.options.keep,
                             frozenset(), {}, self.tree.index)

    def _build_graph(self, use: ProfileUse, tree: Tree, folded: dict[str, list[DeadRegion]],
                     kept: Retained, graphs: RoundGraph | None = None) -> _GraphStage:
        """Decide -> graph: ``folded`` regions (less those ``kept``), registry entries of the
        dropped keys (less those kept) and the import statements ``kept`` has freed make no
        edges. ``graphs``: the rounds' graph, patched into this one (None: a graph of its
        own)."""
        scope = self.scope
        freed = kept.freed
        regions = {m: live for m, rs in folded.items()
                   if (live := [r for r in rs if (tree.index.modules[m].path, r.start_line,
                                                   r.end_line) not in kept.regions])}
        registry = self._registries(use, tree, frozenset(kept.entries))
        dead: dict[str, list[tuple[int, int]]] = {
            m: [span for r in rs if not r.partial
                for span in fold_lines(r.rewrite, r.start_line, r.end_line, r.statement, r.keep)]
            for m, rs in regions.items()}
        for m, ranges in registry.dead_lines.items():
            dead.setdefault(m, []).extend(ranges)
        for path, start, end in freed:
            if (path, start) not in kept.imports and path in tree.index.by_path:
                dead.setdefault(tree.index.by_path[path], []).append((start, end))
        reads = {m: [(r.statement[0], r.statement[1], frozenset(r.reads)) for r in rs
                     if r.rewrite == "ifexp" and r.reads] for m, rs in regions.items()}
        index = tree.index.with_dead_lines(dead, {m: r for m, r in reads.items() if r})
        options, stale = graph_options(use, index, {m: tuple(sorted(r))
                                                    for m, r in dead.items()},
                                       scope.frozen, self.options.keep)
        built = (graphs.build(index, options, self._edges) if graphs is not None
                 else build_python_graph(index, options, self._edges, self.jobs))
        graph = built.graph
        graph.graph["decisions"].extend(registry.decisions)
        graph.graph["decisions"].extend(  # (in module order: the folds' regions come in the
            {"path": index.modules[m].path, "line": r.start_line,  # order their memo has)
             "what": f"{m}:{r.start_line}", "reason": r.reason}
            for m in sorted(regions) for r in regions[m])
        native = add_native_graph(
            graph, index, tree.native_facts, tree.project, tree.cmake_facts,
            {p: f.lines for p, f in tree.files.items()},
            use.profile.system_libraries if use.profile is not None else ())
        native.kept_roots = named_targets_dropped(native.kept_roots, graph, use)
        for gone in set(native.kept_targets) - {graph.nodes[n].get("name")
                                                for n in native.kept_roots}:
            if named_targets_dropped([target_node(gone)], graph, use) == []:
                del native.kept_targets[gone]
        stale += add_profile_edges(use, graph, index)
        unresolved = [*built.unresolved, *native.unresolved, *(
            {"path": u.file, "line": u.line, "kind": "cmake", "name": u.what,
             "reason": u.reason} for u in tree.project.unresolved)]
        return _GraphStage(index, graph, built.reexported, built.reexported_by, native, regions,
                           registry.deletions, tuple(stale), unresolved)

    def _registries(self, use: ProfileUse, tree: Tree, kept: frozenset[tuple[str, int]]
                    ) -> RegistryOutcome:
        """:func:`decide_registries` of the profile use, the tree and the entries kept: the
        last round's answer while none of them changed (most rounds change none)."""
        memo = self._registry_memo
        if memo is not None and memo[0] is use and memo[1] is tree.index \
                and memo[2] is tree.files and memo[3] == kept:
            return memo[4]
        out = decide_registries(use, tree.index, tree.files, kept)
        self._registry_memo = (use, tree.index, tree.files, kept, out)
        return out

    def _round(self, state: Retained) -> Planned:
        """Decide -> graph -> liveness -> plan, from ``state``."""
        scope, timer = self.scope, self.timer
        tree, use = self._tree(state), self._use(state)
        stage = self._graph_stage(state)
        index, graph, native, regions = stage.index, stage.graph, stage.native, stage.regions
        stale, unresolved = list(stage.stale), stage.unresolved
        with timer("liveness"):
            roots, default_roots, kept, more_stale, tiers = self._roots(graph, index, native,
                                                                        use, tree)
            later = sorted(r for r in state.roots if r in graph and r not in roots)
            liveness = self._liveness(graph, roots, later, tiers)
            # files outside the deletion scope go whole or stay whole, decided afresh each
            # round against the liveness without them (a test that only keeps alive what it
            # tests does not keep itself); those that stay are roots of this round
            peripheral = Plan()
            retained = plan_peripheral(graph, liveness, index, tree.files,
                                       set(scope.peripheral), peripheral, scope.unparsed,
                                       dict(state.selectors))
            extra = [r for r in retained if not liveness.is_live(r) and r not in later]
            if extra:
                liveness = extend_liveness(graph, liveness, extra)
            roots = liveness.roots
        with timer("plan"):
            plan = build_plan(graph, liveness, index, tree.files, set(scope.in_scope),
                              state.imports, scope.unparsed,
                              needed_reexports(stage.reexported, stage.reexported_by,
                                               index.modules, liveness, scope, {
                                                   d.path for d in peripheral.deletions
                                                   if d.kind == "delete_file"}), self._plans)
            plan.deletions.extend(peripheral.deletions)
            plan_folded(liveness, index, tree.files, regions, stage.registry_deletions, plan,
                        set(scope.in_scope), scope.peripheral - scope.tests)
            plan.deletions.extend(module_entries(
                use, index, tree.files, {d.path for d in plan.deletions
                                         if d.kind == "delete_file"},
                {(d.path, d.start_line, d.end_line or d.start_line) for d in plan.deletions
                 if d.kind in ("delete_range", "fold_branch") and d.start_line}))
            plan.deletions[:] = [d for d in plan.deletions if d.path not in scope.unparsed
                                 and d.path not in self.never_edited
                                 and deletion_key(d) not in state.cancelled]
            plan.kept.extend(self._never_kept(graph))
            native_summary = plan_native(graph, liveness, native, tree.cmake_facts, tree.files,
                                         plan, state.cmake_lines)
        final_use = dataclasses.replace(use, stale=[*stale, *more_stale])
        return Planned(index, graph, unresolved, native, roots, default_roots, kept, liveness,
                       plan, final_use, [], native_summary=native_summary)

    def _liveness(self, graph: Graph, roots: list[str], later: list[str],
                  tiers: list[list[str]]) -> Liveness:
        """Liveness from the roots, then the ``later`` ones. A round on the last round's graph
        with the same roots and more later ones (code the check kept) continues the last
        traversal from the new ones: rounds only ever keep more."""
        key = (tuple(roots), tuple(tuple(t) for t in tiers), graph.number_of_nodes(),
               sum(map(len, succ_dicts(graph).values())),  # (number_of_edges, faster)
               graph.graph.get("version"))
        memo = self._live
        if memo is not None and memo[0] is graph and memo[1] == key and memo[2] <= set(later):
            live = extend_liveness(graph, memo[3], [r for r in later if r not in memo[2]])
            live = dataclasses.replace(live, roots=[*roots, *later])
        else:
            live = compute_liveness(graph, roots, later, tiers)
        self._live = (graph, key, frozenset(later), live)
        return live

    def _never_kept(self, graph: Graph) -> list[Kept]:
        """What ``never_delete`` keeps, with the profile's reason, for the report."""
        out: list[Kept] = []
        for entry, nodes in self._never_delete_hits(graph):
            for node in nodes:
                data = graph.nodes[node]
                out.append(Kept(data.get("path", ""), data.get("start_line", 0),
                                node.split(":", 1)[1], f"never_delete: {entry.reason}"))
        return out

    def _never_delete_hits(self, graph: Graph) -> list[tuple[KeepEntry, list[str]]]:
        """:func:`never_delete_hits` of ``graph``, once per graph (the roots and the report
        read them)."""
        memo = self._never_hits
        key = (graph.number_of_nodes(), graph.graph.get("version"))
        if memo is None or memo[0] is not graph or memo[1] != key:
            memo = self._never_hits = (graph, key, never_delete_hits(self.use, graph))
        return memo[2]

    def _roots(self, graph: Graph, index: ModuleIndex, native: NativeIndex, use: ProfileUse,
               tree: Tree
               ) -> tuple[list[str], list[str], tuple[str, ...], list[str], list[list[str]]]:
        """(roots, the declared entry points among them, kept targets, stale declarations,
        the roots in tiers of preference for chains: named by the user, the profile's entry
        points, declared by the tree, the rest)."""
        options = self.options
        found = self.inputs.discovery
        if self._declared_roots is None:
            self._declared_roots = (tree_default_roots(self.declared, graph, self.test_globs)
                                    if options.use_default_roots else [])
        declared = list(self._declared_roots)
        profile_entries, stale = entry_point_nodes(use, graph)
        default_roots = without_dropped(declared + profile_entries, graph, use)
        kept, kept_stale = keep_target_names(use, options.keep_targets,
                                             [t.name for t in tree.project.targets])
        never, never_stale = never_delete_nodes(use, graph, self._never_delete_hits(graph))
        if self._named is None:
            self._named = resolve_roots(list(options.roots), graph, found.root)
        named = list(self._named)
        rest = (resolve_targets(kept, graph, native) + list(self.infrastructure)
                + without_dropped(all_family_modules(use, index), graph, use)
                + never + unparsed_roots(index, self.scope.unparsed) + native.kept_roots)
        rest = public_methods(graph, named + default_roots) + rest
        roots = list(dict.fromkeys(named + default_roots + rest))
        tiers = [named, [r for r in default_roots if r in set(profile_entries)],
                 [r for r in default_roots if r not in set(profile_entries)], rest]
        return roots, default_roots, kept, [*stale, *kept_stale, *never_stale,
                                             *self.stale_patterns], tiers

