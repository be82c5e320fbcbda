"""The result of a scan: every stage's output in one value (``ScanResult``).

The pipeline (``analyzer.pipeline.scan``) builds it; the outputs, verify and the commands
read it. It lives in a layer of its own, above the stages whose values it holds (discover ...
plan) and below those that read it (verify, outputs, pipeline, cli), so that no reader
imports the pipeline and ``lint-imports`` needs no exemption for typing-only imports. The
value types of the analysis the outputs format (a feature's report, a blocker, liveness) are
named here too: an output reads them from the result, never from the stage that computes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.analysis.anchors import FeatureAnchors
from analyzer.analysis.blockers import Blocker
from analyzer.analysis.feature_columns import FeatureColumns
from analyzer.analysis.features import FeatureReport
from analyzer.analysis.freeing import Freeing
from analyzer.analysis.liveness import Liveness
from analyzer.config.options import ScanOptions
from analyzer.decide.profile_facts import ProfileUse
from analyzer.discover.walk import Discovery
from analyzer.graph.native import NativeIndex
from analyzer.model import Deletion, FileInfo, ParseProblem, Plan
from analyzer.nodes import Graph
from analyzer.plan.check import Conflict
from analyzer.plan.native import NativeSummary
from analyzer.resolve.python import ModuleIndex

__all__ = ["Blocker", "FeatureAnchors", "FeatureColumns", "FeatureReport", "Liveness",
           "ScanResult"]


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
    sources: Mapping[str, bytes] = field(default_factory=dict)  # bytes as scanned, by path
    options: ScanOptions = field(default_factory=ScanOptions)  # what the scan was asked
    # path -> pyflakes' undefined names of the original (what the plan check already linted)
    lint_before: dict[str, dict[str, int]] = field(default_factory=dict)
    # the Python breaks the tree has before any pruning: what verify leaves out
    breaks_before: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    # what the original build holds (analyzer.plan.check.native.native_baseline)
    native_before: dict[str, Any] = field(default_factory=dict)
    # per dropped feature: the profile's anchors of it this tree has (analysis.anchors)
    anchors: list[FeatureAnchors] = field(default_factory=list)
    # per dropped feature: its items by depth and the live nodes reaching in (report view)
    feature_columns: dict[str, FeatureColumns] = field(default_factory=dict)
    # feature -> the edges that keep its blocked items live, most freeing first
    blockers: dict[str, list[Blocker]] = field(default_factory=dict)
    # root -> why it is one (analysis.why.root_reasons): the first step of every chain
    root_reasons: dict[str, str] = field(default_factory=dict)
    # module path -> the test keeping it live (only tests reach it: analysis.why.kept_by_tests)
    kept_by_tests: dict[str, str] = field(default_factory=dict)
    # each dropped feature's share (pipeline.shares: bare deletions; "": dead anyway)
    shares: dict[str, frozenset[Deletion]] = field(default_factory=dict)
    # blocked feature -> the further drop that frees the most of it (pipeline.frees)
    freeing: dict[str, Freeing] = field(default_factory=dict)
    # what the soundness rounds kept, and why (plan_check.Conflict)
    conflicts: list[Conflict] = field(default_factory=list)
    # Python modules counted without a parse (no parsed file can name them: dead whatever is
    # decided; see analyzer.extract.demand)
    counted: frozenset[str] = frozenset()
    # counted files a first analysis turned out to depend on, parsed in a second one
    reparsed: frozenset[str] = frozenset()
    # the verify baseline of the manifest the gate verified on the plan's applied copy
    # (analyzer.pipeline.gate); None: no gate ran (a scan no manifest is made of)
    verified: dict[str, Any] | None = None
