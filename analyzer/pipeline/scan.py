"""The pipeline, as one call: inputs (discover, profile, digests) -> extract -> resolve ->
rounds of decide -> graph -> liveness -> plan (``analyzer.pipeline.rounds``) -> native plan,
feature attribution and reports of the dropped features.

``scan`` (and ``run_scan``, its keyword form) is what the commands and tests call; it returns
a ``ScanResult`` holding every stage's output, so the outputs only format, never compute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.analysis.blockers import Blocker, feature_blockers
from analyzer.analysis.feature_columns import FeatureColumns, feature_columns
from analyzer.analysis.features import FeatureReport, analyze_features, feature_nodes
from analyzer.analysis.liveness import Liveness
from analyzer.config.options import ScanOptions
from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.decide.profile_facts import ProfileUse, profile_use
from analyzer.discover.walk import Discovery
from analyzer.extract.cache import FactsCache
from analyzer.extract.runner import Progress, extract_all
from analyzer.graph.native import NativeIndex
from analyzer.model import FileInfo, ParseProblem, Plan
from analyzer.nodes import Graph
from analyzer.pipeline.inputs import ScanError, ScanInputs, gather_inputs
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.timing import StageTimer
from analyzer.pipeline.tree import build_tree, deletion_scope
from analyzer.plan.check import Conflict
from analyzer.plan.check_cache import CheckCache
from analyzer.plan.features import attribute_deletions
from analyzer.plan.native import NativeSummary, plan_native
from analyzer.resolve.python import ModuleIndex
from analyzer.util.gc_pause import gc_paused

__all__ = ["ScanError", "ScanInputs", "ScanResult", "analyze", "gather_inputs", "run_scan"]


@dataclass
class ScanResult:
    root: Path
    discovery: Discovery
    files: dict[str, FileInfo]
    index: ModuleIndex
    graph: Graph
    roots: list[str]  # graph nodes used as roots
    root_names: list[str]  # as the user gave them
    default_roots: list[str]  # entry points the repository declares
    liveness: Liveness
    plan: Plan
    native: NativeIndex
    native_summary: NativeSummary
    keep_targets: list[str]
    profile: ProfileUse
    features: list[FeatureReport]
    in_scope: set[str]
    problems: list[ParseProblem]
    unresolved: list[dict[str, object]]
    timings: dict[str, float] = field(default_factory=dict)
    sources: dict[str, bytes] = field(default_factory=dict)  # bytes as scanned, by path
    options: ScanOptions = field(default_factory=ScanOptions)  # what the scan was asked
    # path -> pyflakes' undefined names of the original (what the plan check already linted)
    lint_before: dict[str, dict[str, int]] = field(default_factory=dict)
    # per dropped feature: its items by depth and the live nodes reaching in (report view)
    feature_columns: dict[str, FeatureColumns] = field(default_factory=dict)
    # feature -> the edges that keep its blocked items live, most freeing first
    blockers: dict[str, list[Blocker]] = field(default_factory=dict)
    # what the soundness rounds kept, and why (plan_check.Conflict)
    conflicts: list[Conflict] = field(default_factory=list)


@dataclass(frozen=True)
class RunSettings:
    """How a scan runs (not what it computes): worker processes, cache folder, progress."""

    jobs: int = 1
    cache_dir: Path | None = None
    progress: Callable[[Progress], None] | None = None


def scan(path: Path, options: ScanOptions, settings: RunSettings = RunSettings()) -> ScanResult:
    """The whole pipeline on ``path``: inputs, then :func:`analyze`."""
    return analyze(gather_inputs(path, options, cache_dir=settings.cache_dir), options, settings)


def run_scan(path: Path, root_names: list[str], *, jobs: int = 1,
             cache_dir: Path | None = None,
             progress: Callable[[Progress], None] | None = None, **options: Any) -> ScanResult:
    """:func:`scan` with the options as keywords (``use_profile=False``, ``drop=(...)``...):
    the convenience of the API and the tests."""
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                              for k, v in options.items()}
    opts = ScanOptions(roots=tuple(root_names), **fields)
    return scan(Path(path), opts, RunSettings(jobs, cache_dir, progress))


def analyze(inputs: ScanInputs, options: ScanOptions,
            settings: RunSettings = RunSettings()) -> ScanResult:
    """Extract -> resolve -> decide -> graph -> liveness -> plan over inputs already read."""
    with gc_paused():
        return _analyze(inputs, options, settings)


def _analyze(inputs: ScanInputs, options: ScanOptions, settings: RunSettings) -> ScanResult:
    timer = StageTimer(inputs.timings)
    use = profile_use(inputs.profile, merge_drops(inputs.profile, options.drop, options.keep))
    found = inputs.discovery
    with timer("extract"):
        reads = inputs.reads()
        cache = FactsCache(settings.cache_dir) if settings.cache_dir is not None else None
        extracted = extract_all(found.root, list(found.files), jobs=settings.jobs,
                                cache=cache, progress=settings.progress, read=reads)
    with timer("resolve"):
        tree = build_tree(found, extracted, effective_cmake_options(use.profile, use.drops))
        scope = deletion_scope(tree, use.profile.test_paths if use.profile else ())
    sources = {f.path: r.data for f, r in zip(found.files, reads, strict=True)
               if r.data is not None}
    sims = CheckCache(settings.cache_dir, found.root)
    last = Rounds(inputs, options, use, tree, scope, sources, timer, sims).run()
    sims.save()
    with timer("plan"):
        graph, live, plan, use = last.graph, last.liveness, last.plan, last.use
        native_summary = plan_native(graph, live, last.native, tree.cmake_facts, tree.files,
                                     plan)
        attribute_deletions(plan, graph, use.features, tree.project)
        plan.deletions.sort(key=lambda d: (d.path, d.start_line or 0, d.kind))
        features = analyze_features(graph, live, use.features,
                                    feature_nodes(graph, use.features, use.kept_features), plan)
        columns = {f.name: feature_columns(graph, live, f) for f in features}
        blockers = {f.name: feature_blockers(graph, live, f) for f in features}
    return ScanResult(found.root, found, tree.files, last.index, graph, last.roots,
                      list(options.roots), last.default_roots, live, plan, last.native,
                      native_summary, list(last.keep_targets), use, features,
                      set(scope.in_scope), tree.problems, last.unresolved, timer.seconds,
                      sources, options=options, conflicts=last.conflicts,
                      lint_before=last.lint_before,
                      feature_columns=columns, blockers=blockers)
