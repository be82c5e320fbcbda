"""The pipeline: discover -> extract -> resolve -> graph -> liveness -> plan, as one call.

``run_scan`` is what the CLI (and tests) call; it returns a ``ScanResult`` holding every
stage's output so reporters and the manifest writer only format, never compute.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import networkx as nx

from analyzer.analysis.features import FeatureReport, analyze_features, feature_nodes
from analyzer.analysis.liveness import Liveness, compute_liveness
from analyzer.analysis.profile_roots import (
    all_family_modules,
    entry_point_nodes,
    keep_target_names,
    never_delete_nodes,
    without_dropped,
)
from analyzer.analysis.roots import resolve_roots, resolve_targets
from analyzer.config.globs import path_matches
from analyzer.config.options import ScanOptions
from analyzer.config.profile import merge_drops
from analyzer.decide.guards import DeadRegion, fold_all
from analyzer.decide.profile_facts import ProfileUse, graph_options, guard_context, profile_use
from analyzer.decide.registries import decide_registries
from analyzer.discover import entry_points
from analyzer.discover.walk import Discovery, module_name
from analyzer.extract.cache import FactsCache
from analyzer.extract.cmake import CmakeFacts
from analyzer.extract.cuda import CudaFacts
from analyzer.extract.runner import ExtractedFile, Progress, extract_all
from analyzer.graph.native import NativeIndex, add_native_graph, extension_modules
from analyzer.graph.profile_edges import add_profile_edges
from analyzer.graph.python import build_python_graph
from analyzer.model import FileInfo, ParseProblem, Plan
from analyzer.nodes import module_node, symbol_node
from analyzer.pipeline.inputs import ScanError, ScanInputs, gather_inputs
from analyzer.plan.check import Conflict, check_plan, produced_keys
from analyzer.plan.features import attribute_deletions
from analyzer.plan.native import NativeSummary, plan_native
from analyzer.plan.python import (
    build_plan,
    kept_roots,
    plan_folded,
    plan_peripheral,
)
from analyzer.resolve import cmake as cmake_eval
from analyzer.resolve.python import ModuleIndex, PyModule
from analyzer.util.gc_pause import gc_paused

__all__ = ["ScanError", "ScanInputs", "ScanResult", "analyze", "gather_inputs", "run_scan"]


@dataclass
class ScanResult:
    root: Path
    discovery: Discovery
    files: dict[str, FileInfo]
    index: ModuleIndex
    graph: nx.DiGraph
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
    # what the soundness rounds kept, and why (plan_check.Conflict)
    conflicts: list[Conflict] = field(default_factory=list)


_TEST_DIR = re.compile(r"^(tests?|testing|e2e_tests?|\w+_tests?)$")
# problems that leave a file not (wholly) understood: it is kept, never planned
UNPARSED_KINDS = frozenset({"syntax-error", "binary", "invalid-utf8", "unreadable",
                            "symlink-loop"})
MAX_ROUNDS = 60


def is_test_path(path: str, globs: tuple[str, ...] = ()) -> bool:
    """Test files by convention, or by the profile's ``test_paths`` globs."""
    p = PurePosixPath(path)
    if any(_TEST_DIR.match(part) for part in p.parts[:-1]):
        return True
    if p.name.startswith("test_") or p.name.endswith("_test.py") or p.name == "conftest.py":
        return True
    return bool(globs) and path_matches(path, globs)


def unparsed_roots(index: ModuleIndex, unparsed: frozenset[str]) -> list[str]:
    """Modules depgraph could not read whole stay, and so does what they import."""
    return [module_node(index.by_path[p]) for p in sorted(unparsed) if p in index.by_path]


@dataclass
class _Retained:
    """What the soundness rounds keep: folded regions and registry entries not deleted
    after all, import statements kept, nodes made roots; and the conflicts that said so."""

    regions: set[tuple[str, int, int]] = field(default_factory=set)
    entries: set[tuple[str, int]] = field(default_factory=set)
    imports: set[tuple[str, int]] = field(default_factory=set)
    roots: set[str] = field(default_factory=set)
    log: list[Conflict] = field(default_factory=list)
    arms: dict[str, list[DeadRegion]] = field(default_factory=dict)  # producer arms folded

    def absorb(self, conflicts: list[Conflict], index: ModuleIndex) -> bool:
        """Turn conflicts into kept items; False when they ask nothing new (done)."""
        before = (len(self.regions), len(self.entries), len(self.imports), len(self.roots))
        for c in conflicts:
            self.log.append(c)
            d = c.deletion
            if c.root is not None:
                self.roots.add(c.root)
            elif d is None:
                continue
            elif d.category == "python-branch":
                self.regions.add((d.path, d.start_line or 0, d.end_line or 0))
            elif d.category == "registry-entry":
                self.entries.add((d.path, d.start_line or 0))
            elif d.category == "python-symbol" and d.symbol:
                self.roots.add(symbol_node(*d.symbol.split(":", 1)))
            elif d.category == "python-import":
                module = index.by_path.get(d.path)
                facts = index.modules[module].facts.imports if module else ()
                self.imports.update((d.path, f.start_line) for f in facts
                                    if (d.start_line or 0) <= f.start_line <= (d.end_line or 0))
            elif d.kind == "delete_file" and d.path in index.by_path:
                self.roots.add(module_node(index.by_path[d.path]))
        return (len(self.regions), len(self.entries), len(self.imports),
                len(self.roots)) != before


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
    opts = ScanOptions(roots=tuple(root_names), **{k: tuple(v) if isinstance(v, list) else v
                                                   for k, v in options.items()})
    return scan(Path(path), opts, RunSettings(jobs, cache_dir, progress))


def analyze(inputs: ScanInputs, options: ScanOptions,
            settings: RunSettings = RunSettings()) -> ScanResult:
    """Extract -> resolve -> decide -> graph -> liveness -> plan over inputs already read."""
    with gc_paused():
        return _analyze(inputs, options, settings)


def _analyze(inputs: ScanInputs, options: ScanOptions, settings: RunSettings) -> ScanResult:
    root_names = list(options.roots)
    use_default_roots, keep_targets = options.use_default_roots, options.keep_targets
    drop, keep = options.drop, options.keep
    jobs, cache_dir, progress = settings.jobs, settings.cache_dir, settings.progress
    found, chosen = inputs.discovery, inputs.profile
    timings = dict(inputs.timings)
    use = profile_use(chosen, merge_drops(chosen, drop, keep))
    t0 = time.perf_counter()
    cache = FactsCache(cache_dir) if cache_dir is not None else None
    reads = inputs.reads()
    extracted: list[ExtractedFile] = extract_all(found.root, list(found.files), jobs=jobs,
                                                 cache=cache, progress=progress, read=reads)
    timings["extract"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    problems = list(found.problems)
    files: dict[str, FileInfo] = {}
    modules: list[PyModule] = []
    native_facts: dict[str, CudaFacts] = {}
    cmake_facts: dict[str, CmakeFacts] = {}
    for ex in extracted:
        problems.extend(ex.problems)
        files[ex.path] = FileInfo(ex.path, ex.sha256, ex.lines, ex.language)
        if ex.facts is None:
            continue
        if ex.language == "cuda":
            native_facts[ex.path] = ex.facts
            continue
        if ex.language == "cmake":
            cmake_facts[ex.path] = ex.facts
            continue
        name = module_name(ex.path, found.python_roots)
        if name is None or ex.facts is None:
            continue
        is_package = ex.path.endswith("/__init__.py") or ex.path == "__init__.py"
        modules.append(PyModule(name, ex.path, is_package, ex.facts))
    modules = _dedupe(modules, problems)
    project = cmake_eval.evaluate(cmake_facts, frozenset(files))
    problems.extend(project.problems)
    index = ModuleIndex(modules, extension_modules(project))
    timings["resolve"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    test_globs = tuple(use.profile.test_paths) if use.profile is not None else ()
    tests = {m.path for m in modules if is_test_path(m.path, test_globs)}
    # Deletion scope: modules of regular top-level packages (an __init__.py at the top), so
    # loose scripts, benchmarks and examples outside packages are never edited (they go whole
    # or stay whole: plan_peripheral).
    in_scope = {m.path for m in modules if m.path not in tests
                and (top := index.modules.get(m.name.split(".")[0])) is not None
                and top.is_package}
    peripheral = {m.path for m in modules} - in_scope
    # files never edited: every name they import must keep existing
    frozen = frozenset(m.name for m in modules if m.path in peripheral)
    unparsed = frozenset(p.path for p in problems if p.kind in UNPARSED_KINDS)
    sources = {f.path: r.data for f, r in zip(found.files, reads, strict=True)
               if r.data is not None}
    ctx = guard_context(use, keep)
    base_regions = fold_all(index, ctx) if ctx is not None else {}
    timings["fold"] = time.perf_counter() - t0
    state = _Retained()
    sims: dict = {}
    graph = nx.DiGraph()
    for _round in range(MAX_ROUNDS):
        t0 = time.perf_counter()
        regions = {m: kept for m, rs in base_regions.items()
                   if (kept := [r for r in rs if (index.modules[m].path, r.start_line,
                                                   r.end_line) not in state.regions])}
        registry = decide_registries(use, index, files, frozenset(state.entries))
        dead_lines: dict[str, list[tuple[int, int]]] = {
            m: [(r.start_line, r.end_line) for r in rs if not r.partial]
            for m, rs in regions.items()}
        for m, ranges in registry.dead_lines.items():
            dead_lines.setdefault(m, []).extend(ranges)
        index.dead_lines = {m: sorted(r) for m, r in dead_lines.items()}
        index.reexports_used.clear()
        # the last round's graph: its views hold it in cycles the paused collector would
        # not free; emptied, its memory is freed now
        graph.clear()
        graph, unresolved = build_python_graph(
            index, graph_options(use, index, {m: tuple(sorted(r))
                                              for m, r in dead_lines.items()}, frozen))
        graph.graph["decisions"].extend(registry.decisions)
        graph.graph["decisions"].extend(
            {"path": index.modules[m].path, "line": r.start_line,
             "what": f"{m}:{r.start_line}", "reason": r.reason}
            for m, rs in regions.items() for r in rs)
        native = add_native_graph(graph, index, native_facts, project, cmake_facts,
                                  {p: f.lines for p, f in files.items()})
        add_profile_edges(use, graph, index)
        unresolved.extend(native.unresolved)
        unresolved.extend({"path": u.file, "line": u.line, "kind": "cmake", "name": u.what,
                           "reason": u.reason} for u in project.unresolved)
        timings["graph"] = timings.get("graph", 0.0) + time.perf_counter() - t0

        t0 = time.perf_counter()
        default_roots = (_default_roots(found, inputs.entry_point_files, graph, problems,
                                        test_globs) if use_default_roots else [])
        default_roots = without_dropped(default_roots + entry_point_nodes(use, graph), graph,
                                        use)
        kept = keep_target_names(use, keep_targets, [t.name for t in project.targets])
        roots = list(dict.fromkeys(
            resolve_roots(root_names, graph, found.root) + default_roots
            + resolve_targets(kept, graph, native) + all_family_modules(use, index)
            + never_delete_nodes(use, graph) + unparsed_roots(index, unparsed)
            + native.kept_roots
            + sorted(r for r in state.roots if r in graph)))
        liveness = compute_liveness(graph, roots)
        timings["liveness"] = timings.get("liveness", 0.0) + time.perf_counter() - t0
        t0 = time.perf_counter()
        plan = build_plan(graph, liveness, index, files, in_scope, frozenset(state.imports),
                          unparsed)
        retained = plan_peripheral(graph, liveness, index, files, peripheral, plan, unparsed)
        retained += kept_roots(plan, graph)
        plan_folded(liveness, index, files, regions, registry.deletions, plan, in_scope)
        plan.deletions[:] = [d for d in plan.deletions if d.path not in unparsed]
        timings["plan"] = timings.get("plan", 0.0) + time.perf_counter() - t0
        new_roots = {r for r in retained if not liveness.is_live(r)} - state.roots
        if new_roots:  # code that stays but nothing live uses: what it uses stays too
            state.roots |= new_roots
            continue
        t0 = time.perf_counter()
        selected, arms = produced_keys(plan, index, liveness, use.all_dropped_keys())
        if selected or arms:  # live code still picks these keys: their arm goes, or they stay
            use.blocked_keys.update(selected)
            for m, rs in arms.items():
                state.arms.setdefault(m, []).extend(rs)
            base_regions = fold_all(index, guard_context(use, keep) or ctx) if ctx else {}
            for m, rs in state.arms.items():
                base_regions[m] = sorted([*base_regions.get(m, []), *rs],
                                         key=lambda r: (r.start_line, r.end_line))
            timings["check"] = timings.get("check", 0.0) + time.perf_counter() - t0
            continue
        conflicts = check_plan(plan, index, sources, sims)
        timings["check"] = timings.get("check", 0.0) + time.perf_counter() - t0
        if not state.absorb(conflicts, index):
            # nothing new to keep: done, or conflicts no round can settle, whose deletions
            # are dropped as a last resort (no plan ever holds a deletion found breaking)
            _drop_convicted(plan, conflicts, index)
            break
    else:  # out of rounds: the plan is checked once more, and whatever breaks is dropped
        _drop_convicted(plan, check_plan(plan, index, sources, sims), index)
    t0 = time.perf_counter()
    native_summary = plan_native(graph, liveness, native, cmake_facts, files, plan)
    attribute_deletions(plan, graph, use.features)
    plan.deletions.sort(key=lambda d: (d.path, d.start_line or 0, d.kind))
    features = analyze_features(graph, liveness, use.features,
                                feature_nodes(graph, use.features, use.kept_features), plan)
    timings["plan"] = timings.get("plan", 0.0) + time.perf_counter() - t0
    return ScanResult(found.root, found, files, index, graph, roots, list(root_names),
                      default_roots, liveness, plan, native, native_summary, list(kept),
                      use, features, in_scope,
                      problems, unresolved, timings,
                      sources, options=options, conflicts=state.log)


def _drop_convicted(plan: Plan, conflicts: list[Conflict], index: ModuleIndex) -> None:
    convicted = {c.deletion for c in conflicts if c.deletion is not None}
    rooted = {index.modules[c.root[3:]].path for c in conflicts
              if c.root and c.root[3:] in index.modules}
    plan.deletions[:] = [d for d in plan.deletions if d not in convicted
                         and not (d.kind == "delete_file" and d.path in rooted)]


def _dedupe(modules: list[PyModule], problems: list[ParseProblem]) -> list[PyModule]:
    """Two files claiming one module name (e.g. copies in two roots): keep the first."""
    seen: dict[str, PyModule] = {}
    for m in modules:
        if m.name in seen:
            problems.append(ParseProblem(m.path, 0, "duplicate-module",
                                         f"module {m.name} also defined by {seen[m.name].path}; "
                                         "this copy is ignored"))
            continue
        seen[m.name] = m
    return list(seen.values())


def _default_roots(found: Discovery, entry_files: dict[str, bytes | str], graph: nx.DiGraph,
                   problems: list[ParseProblem], test_globs: tuple[str, ...] = ()) -> list[str]:
    """Entry points declared by packaging metadata, ``__main__`` modules, and modules of
    regular packages that run as scripts (``if __name__ == "__main__":``), tests excepted."""
    roots: list[str] = []
    for rel, data in entry_files.items():
        if isinstance(data, str):
            problems.append(ParseProblem(rel, 0, "unreadable", data))
            continue
        eps, errs = entry_points.extract(rel, data)
        problems.extend(errs)
        for ep in eps:
            mod, _, attr = ep.value.partition(":")
            attr = attr.split(".")[0].strip()
            node = symbol_node(mod.strip(), attr) if attr else module_node(mod.strip())
            if node not in graph:
                node = module_node(mod.strip())
            if node in graph:
                roots.append(node)
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "module" or is_test_path(data["path"], test_globs):
            continue
        if data["module"].endswith(".__main__") or data.get("main_guard"):
            roots.append(node)
    return sorted(set(roots))
