"""Pipeline, the analysis: inputs (discover, profile, digests) -> extract -> resolve ->
rounds of decide -> graph -> liveness -> plan (``analyzer.pipeline.rounds``) -> native plan,
feature attribution and reports of the dropped features; then, when a gate is given
(``analyzer.pipeline.gate``), the plan verified on its applied copy, the rounds continuing
until it passes.

``analyze_inputs`` returns a ``ScanResult`` holding every stage's output, so the outputs only
format, never compute. The commands and tests call ``analyzer.pipeline.scan`` (the gated
scan); ``depgraph verify`` scans a pruned tree with :func:`scan_tree` (no gate: no manifest
is made of it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from analyzer.analysis.anchors import feature_anchors
from analyzer.analysis.blockers import Blocker, feature_blockers, feature_keys, present
from analyzer.analysis.feature_columns import feature_columns
from analyzer.analysis.features import FeatureReport, count_shares, feature_items, feature_nodes
from analyzer.analysis.liveness import Liveness
from analyzer.analysis.why import kept_by_tests, root_reasons
from analyzer.config.options import ScanOptions
from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.core.session import session
from analyzer.decide.fold_reuse import TreeVersion, fold_slots
from analyzer.decide.profile_facts import ProfileUse, profile_use
from analyzer.extract.demand import Demand, extract_on_demand
from analyzer.extract.runner import ExtractedFile, Progress, ReadFile, extract_all
from analyzer.extract.seeds import demand_for, may_answer_pattern
from analyzer.extract.source_bytes import SourceBytes
from analyzer.graph.edge_store import EdgeStore, IndexKey, index_key
from analyzer.graph.python import EdgeMemo
from analyzer.model import Deletion, Plan
from analyzer.nodes import Graph, module_node, target_node
from analyzer.pipeline.frees import PendingFrees
from analyzer.pipeline.gate_blame import Gate, gate_conflicts, unsettled
from analyzer.pipeline.gate_verdicts import analysed_tree
from analyzer.pipeline.inputs import (
    ChosenProfile,
    ScanError,
    ScanInputs,
    gather_inputs,
)
from analyzer.pipeline.plans_under import PlansUnder
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.rounds_state import Planned, Retained
from analyzer.pipeline.scope import scope_to_features
from analyzer.pipeline.shares import PendingShares
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.check import check_plan, edits_by_path
from analyzer.plan.check_cache import CheckCache
from analyzer.plan.feature_sets import Breaks, assign_features
from analyzer.plan.features import attribute_deletions
from analyzer.resolve.tree import Scope, Tree, build_tree, deletion_scope
from analyzer.result import ScanResult
from analyzer.util.gc_pause import gc_paused

__all__ = ["RunSettings", "ScanError", "ScanInputs", "ScanResult", "analyze_inputs",
           "gather_inputs", "scan_tree"]


@dataclass(frozen=True)
class RunSettings:
    """How a scan runs (not what it computes): worker processes, cache folder, progress."""

    jobs: int = 1
    cache_dir: Path | None = None
    progress: Callable[[Progress], None] | None = None
    stage: Callable[[str], None] | None = None  # each stage entered (the progress line)
    # the name the store keeps the tree's per-tree entries under (None: the root's path): a
    # tree scanned in a new folder each time (the gate's copy) still finds its last scan's
    slot: str | None = None
    # the slot of the tree this one was pruned from (the gate's copy, a pruned tree verified
    # against its manifest: the original's root): where the per-tree entries of its modules'
    # edges and lints start from while its own slot holds none
    origin: str | None = None


def scan_tree(path: Path, options: ScanOptions, settings: RunSettings = RunSettings(),
              chosen: ChosenProfile | None = None) -> ScanResult:
    """The analysis of the tree at ``path`` without the outputs' parts and without a gate:
    what ``depgraph verify`` reads of a pruned tree (``chosen``: its profile, chosen
    already)."""
    if settings.stage is not None:
        settings.stage("discover")
    return analyze_inputs(gather_inputs(path, options, cache_dir=settings.cache_dir,
                                        pruned=True, chosen=chosen, slot=settings.slot),
                          options, settings, report=False)


def analyze_inputs(inputs: ScanInputs, options: ScanOptions,
                   settings: RunSettings = RunSettings(), *, report: bool = True,
                   gate: Gate | None = None) -> ScanResult:
    """Extract -> resolve -> decide -> graph -> liveness -> plan over inputs already read,
    then ``gate`` (a plan it rejects is planned again with what it blames kept).
    ``report=False``: what only the outputs read is not computed -- the features each
    deletion goes with (unless ``--scope features`` plans by them), the features' report,
    blockers, anchors and why each root is one (what ``depgraph verify`` needs is the
    rest)."""
    # (the gate's scan of the applied copy: the same session)
    with gc_paused(), session(settings.cache_dir):
        return _analyze(inputs, options, settings, report, gate)


def _analyze(inputs: ScanInputs, options: ScanOptions, settings: RunSettings,
             report: bool, gate: Gate | None) -> ScanResult:
    timer = StageTimer(inputs.timings, settings.stage)
    use = profile_use(inputs.profile, merge_drops(inputs.profile, options.drop, options.keep))
    found = inputs.discovery
    with timer("extract"):
        reads = inputs.reads()
        demand = None if options.parse_all else demand_for(
            found, reads, options.roots, use.profile, inputs.entry_point_files)
    # the files' bytes go to the first pass's extraction and are dropped after it (the
    # stages after read the few files they need again: SourceBytes); a later pass reads anew
    handed = [reads]
    del reads
    reparsed: set[str] = set()
    extracted: dict[int, ExtractedFile] = {}  # what a pass parsed, for the next one
    while True:
        result = _analyze_extracted(inputs, options, settings, use, handed, demand,
                                    timer, extracted, report, gate, frozenset(reparsed))
        if demand is None:
            return result
        touched = _counted_reached(result)
        if not touched:
            return result
        # a counted file the analysis turned out to depend on (the closure cannot see it):
        # parse it, and analyse again
        reparsed.update(found.files[i].path for i in touched)
        demand = dataclasses.replace(demand, seeds=demand.seeds | touched)


def _analyze_extracted(inputs: ScanInputs, options: ScanOptions, settings: RunSettings,
                       use: ProfileUse, handed: list[list[ReadFile]],
                       demand: Demand | None, timer: StageTimer,
                       extracted: dict[int, ExtractedFile], report: bool,
                       gate: Gate | None, reparsed: frozenset[str]) -> ScanResult:
    found = inputs.discovery
    with timer("extract"):
        reads = handed.pop() if handed else inputs.reads()
        if demand is None:
            files = extract_all(found.root, list(found.files), jobs=settings.jobs,
                                progress=settings.progress, read=reads)
            counted: frozenset[str] = frozenset()
        else:
            got = extract_on_demand(found.root, list(found.files), reads, found.python_roots,
                                    demand, jobs=settings.jobs,
                                    progress=settings.progress, extracted=extracted)
            files = got.files
            counted = frozenset(found.files[i].path for i in got.counted)
        sources = SourceBytes(found.root, {f.path: r.digest for f, r in zip(
            found.files, reads, strict=True) if r.data is not None})
        del reads
    with timer("resolve"):
        tree = build_tree(found, files, effective_cmake_options(use.profile, use.drops),
                          sources)
        scope = deletion_scope(tree, use.profile.test_paths if use.profile else ())
    sims = CheckCache(settings.cache_dir, inputs.slot, settings.jobs, settings.origin)
    edge_store = EdgeStore(settings.cache_dir, inputs.slot, settings.origin)
    with timer("graph"):
        edge_key = index_key(tree.index, tree.files, counted)
        edges = edge_store.load(edge_key)
    # the open graph is asked for after the rounds (what each deletion goes with)
    wants_open = bool(use.features) and (report or options.scope == "features")
    rounds = Rounds(inputs, options, use, tree, scope, sources, timer, sims, edges,
                    edge_key.digest(), open_graph=wants_open,
                    tree_version=TreeVersion(edge_key.shape, edge_key.modules,
                                             edge_key.files, edge_key.extensions),
                    jobs=settings.jobs, counted=counted,
                    fold_slots=fold_slots(inputs.slot, settings.origin))
    state: Retained | None = None  # (from nothing: where the same inputs settled, if kept)
    while True:  # the rounds, then the gate: until the plan's applied tree verifies
        last = rounds.run(state)
        result = _planned_result(inputs, options, rounds, last, tree, timer, counted)
        result.reparsed = reparsed
        if options.scope == "features":
            # (the plan is cut to the shares' deletions: they come before the gate)
            cut = PendingShares(rounds, last)
            PlansUnder(rounds, [cut])  # (started: it tells the shares)
            _attribute(result, rounds, last, sims, sources, timer, counted, cut)
        if demand is not None and _counted_reached(result):
            # the analysis runs again with more files parsed (and is gated then): this
            # result is not the answer, so neither labelled nor reported
            return _saved(result, rounds, sims, edge_store, edge_key, edges, timer)
        # the plans under other drops the outputs ask for -- each feature's share of the
        # plan (the plans keeping each: they label its deletions) and what would free a
        # blocked feature (from the features' items and blockers, functions of the graph
        # and its liveness) -- started together, made in workers while the gate verifies
        # the plan
        shares = PendingShares(rounds, last) \
            if wants_open and options.scope != "features" else None
        items = _feature_items(result, last, scope, sources, timer) if report else None
        frees = PendingFrees(rounds, last, items[1]) if items is not None else None
        plans = PlansUnder(rounds, [a for a in (shares, frees) if a is not None and a.tasks])
        if gate is None:
            break
        with timer("gate"):
            # what the scan keeps for the next one, kept before the gate too: the copy's
            # scan starts from this tree's edges and lints (``RunSettings.origin``)
            sims.save()
            edge_store.save(edge_key, edges)
            problems, baseline = gate(result, analysed_tree(inputs, options, counted,
                                                            tree.index))
        if not problems:
            result.verified = baseline
            break
        plans.cancel()
        state = rounds.settled.keeping(gate_conflicts(rounds, last, problems), last.index)
        if state == rounds.settled:
            raise unsettled(problems)
    if plans.forked:  # (the rounds are over here: their plans under other drops are not)
        rounds.finished()
    if shares is not None:
        _attribute(result, rounds, last, sims, sources, timer, counted, shares)
    if items is not None:
        _report(result, last, tree, scope, timer, items)
    if frees is not None and frees.wanted:
        with timer("frees"):  # the last pass: what a further drop would free
            result.freeing = frees.result(result.shares)
    return _saved(result, rounds, sims, edge_store, edge_key, edges, timer)


def _saved(result: ScanResult, rounds: Rounds, sims: CheckCache, edge_store: EdgeStore,
           edge_key: IndexKey, edges: EdgeMemo, timer: StageTimer) -> ScanResult:
    """``result``, once what the scan keeps for the next one is stored (the lints, each
    module's edges)."""
    rounds.module_breaks.clear()  # (the last check ran: each module's breaks go)
    sims.save()
    with timer("graph"):
        edge_store.save(edge_key, edges)
    return result


def _planned_result(inputs: ScanInputs, options: ScanOptions, rounds: Rounds, last: Planned,
                    tree: Tree, timer: StageTimer, counted: frozenset[str]) -> ScanResult:
    """The scan's result from the rounds' last plan, before the features' shares label its
    deletions (:func:`_attribute`) and the outputs' parts are made (:func:`_report`)."""
    found = inputs.discovery
    with timer("plan"):
        graph, live, plan, use = last.graph, last.liveness, last.plan, last.use
        attribute_deletions(plan, graph, use.features, last.native.project)
        plan.deletions.sort(key=lambda d: (d.path, d.start_line or 0, d.kind))
    return ScanResult(found.root, found, tree.files, last.index, graph, last.roots,
                      list(options.roots), last.default_roots, live, plan, last.native,
                      last.native_summary, list(last.keep_targets), use, [],
                      set(rounds.scope.in_scope), tree.problems, last.unresolved,
                      timer.seconds, rounds.sources, options=options,
                      conflicts=last.conflicts, lint_before=last.lint_before,
                      breaks_before=last.breaks_before, native_before=last.native_before,
                      counted=counted)


def _attribute(result: ScanResult, rounds: Rounds, last: Planned, sims: CheckCache,
               sources: SourceBytes, timer: StageTimer, counted: frozenset[str],
               pending: PendingShares | None) -> None:
    """What each deletion goes with (``apply --feature``): the features whose shares hold
    it, and what else it waits for (the open graph's uses; None: no shares are made); with
    ``--scope features`` the plan is then cut to what the dropped features take
    (``pipeline/scope``)."""
    plan, use = result.plan, result.profile
    if pending is not None:
        _assign(result, rounds, last, sims, sources, timer, counted, pending.result())
    if result.options.scope == "features":  # only what the dropped features take (the
        #                                          order _planned_result sorted them in)
        result.native_summary = scope_to_features(plan, result.native_summary, result.graph,
                                                  frozenset(f.name for f in use.features))


def _assign(result: ScanResult, rounds: Rounds, last: Planned, sims: CheckCache,
            sources: SourceBytes, timer: StageTimer, counted: frozenset[str],
            shares: dict[str, frozenset[Deletion]]) -> None:
    """The features of each deletion from ``shares`` (``plan.feature_sets``)."""
    plan, use = result.plan, result.profile
    open_graph = rounds.open_graph()

    def check_one(share: list[Deletion]) -> Breaks:
        return [(c.path, c.line, c.deletion, c.root) for c in check_plan(
            Plan(share), last.index, sources, rounds.baseline, sims.simulation,
            rounds.share_unbuilt(last, share), rounds.module_breaks)
        ] + rounds.native_share_breaks(last, share)

    def check(shares: list[list[Deletion]]) -> list[Breaks]:
        # the files' simulations of every share first, in worker processes (one pool)
        sims.prefetch_all([edits_by_path(Plan(share)) for share in shares], sources)
        return [check_one(share) for share in shares]

    with timer("plan"):
        assign_features(plan, open_graph, [f.name for f in use.features], check,
                        last.liveness.roots,
                        sources.only(counted),  # (read only where asked)
                        {m.path: m.name for m in last.index.modules.values()}, shares)
    open_graph.clear()
    result.shares = shares


def _feature_items(result: ScanResult, last: Planned, scope: Scope, sources: SourceBytes,
                   timer: StageTimer) -> tuple[list[FeatureReport], dict[str, list[Blocker]]]:
    """Each feature's items and blockers in ``result``'s plan (functions of its graph and
    liveness: known before its deletions are labelled)."""
    graph, live, use = result.graph, result.liveness, result.profile
    with timer("plan"):
        features = feature_items(graph, live, use.features, feature_nodes(
            graph, use.features, use.kept_features))
        return features, {f.name: _blockers(graph, live, f, use, sources, scope.tests)
                          for f in features}


def _report(result: ScanResult, last: Planned, tree: Tree, scope: Scope, timer: StageTimer,
            items: tuple[list[FeatureReport], dict[str, list[Blocker]]]) -> None:
    """The outputs' parts of ``result``: the features' report (``items``: their items and
    blockers, :func:`_feature_items`; their shares' figures counted now, from the labels),
    columns and anchors, what the tests keep and why each root is one."""
    graph, live, plan, use = result.graph, result.liveness, result.plan, result.profile
    with timer("plan"):
        result.features, result.blockers = items
        count_shares(result.features, plan)
        result.feature_columns = {f.name: feature_columns(graph, live, f)
                                  for f in result.features}
        result.anchors = feature_anchors(use.profile, use.features, tree.index,
                                         list(tree.files), last.native.project)
        result.kept_by_tests = kept_by_tests(graph, live, scope.tests)
        result.root_reasons = root_reasons(graph, live.roots, list(result.options.roots),
                                           result.discovery.root, last.default_roots,
                                           use.profile, scope.tests, scope.in_scope,
                                           scope.unparsed, plan.kept)


def _blockers(graph: Graph, live: Liveness, feature: FeatureReport, use: ProfileUse,
              sources: Mapping[str, bytes], tests: frozenset[str]) -> list[Blocker]:
    """A feature's blockers as the outputs show them (analysis/blockers.py): the defaults
    that select its dropped keys first, then live code, then tests."""
    return present(graph, live, feature, feature_blockers(graph, live, feature),
                   feature_keys(use.features, feature.name, use.blocked_keys), sources, tests)


def _counted_reached(result: ScanResult) -> frozenset[int]:
    """Files counted without a parse that the analysis resolved through anyway (an edge into
    one, or an unresolved name inside one): their contents may matter after all."""
    if not result.counted:
        return frozenset()
    counted = {m.name: m.path for m in result.index.modules.values()
               if m.path in result.counted}
    graph = result.graph
    hit: set[str] = set()
    for module, path in counted.items():  # a counted module has no nodes but its own
        node = module_node(module)
        if node in graph and any(graph.nodes[src].get("module") not in counted
                                 for src in graph.predecessors(node)):
            hit.add(path)
    for entry in result.unresolved:
        parts = str(entry["name"]).split(".")
        for i in range(1, len(parts) + 1):
            if (prefix := ".".join(parts[:i])) in counted \
                    and entry["path"] not in result.counted:
                hit.add(counted[prefix])
    needles = _unshown_loader_names(result)
    answers = may_answer_pattern(result.index.sought_by_name) \
        if result.index.sought_by_name else None
    if needles or answers is not None:  # (each counted file read once, for both)
        for path in counted.values():
            if path in hit:
                continue
            data = result.sources.get(path, b"")
            if any(n in data for n in needles) \
                    or (answers is not None and answers.search(data) is not None):
                hit.add(path)
    index = {f.path: i for i, f in enumerate(result.discovery.files)}
    return frozenset(index[p] for p in hit)


def _unshown_loader_names(result: ScanResult) -> set[bytes]:
    """Names of the targets kept because nothing is shown to load them, and of the modules
    they are installed as: a counted file naming one may be the import that shows it."""
    graph = result.graph
    out: set[bytes] = set()
    for name in result.native.kept_targets:
        node = target_node(name)
        if node not in graph:
            continue
        out.add(name.encode())
        for u in graph.predecessors(node):
            if graph.edges[u, node].get("kind") in ("built_by", "installed_by"):
                module = graph.nodes[u].get("module") or u.partition(":")[2]
                out.add(str(module).rpartition(".")[2].encode())
    out.discard(b"")
    return out
