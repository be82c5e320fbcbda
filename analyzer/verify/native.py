"""Verify stage, native half: the build of a scanned tree as the shared native checks see it
(``analyzer.plan.check.native``: the ones the plan's soundness rounds run), and those checks
against the baseline a manifest recorded of the original build."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from analyzer.model import EXPRESSION_REWRITES, Ranges
from analyzer.nodes import module_node
from analyzer.plan.check.conflicts import new_breaks
from analyzer.plan.check.native import NativeState, native_baseline, native_breaks, op_reads

if TYPE_CHECKING:
    from analyzer.result import ScanResult
    from analyzer.verify.problem import VerifyProblem


def native_state(result: ScanResult, live_only: bool = False) -> NativeState:
    """The build of ``result`` and the ``torch.ops`` reads of its Python code: every module
    (a pruned tree: all of it remains), or with ``live_only`` the live code outside folded
    branches (a tree as it is)."""
    index = result.index
    gone: dict[str, Ranges] = {}
    modules = list(index.modules)
    if live_only:
        live = result.liveness
        modules = [m for m in modules if live.is_live(module_node(m))]
        for d in result.plan.deletions:  # branches the profile folds away, dead definitions
            if d.start_line is not None and (
                    (d.kind == "fold_branch" and d.rewrite not in EXPRESSION_REWRITES)
                    or d.category == "python-symbol"):
                gone.setdefault(d.path, Ranges()).add(d.start_line, d.end_line or d.start_line)
    profile = result.profile.profile
    return NativeState(result.native, frozenset(result.files), op_reads(index, modules, gone),
                       profile.system_libraries if profile is not None else ())


def baseline_of(result: ScanResult) -> dict[str, Any]:
    """What the original tree's build holds (the manifest's ``verify_baseline_native``): the
    soundness rounds recorded it; computed again for a result without it."""
    return result.native_before or native_baseline(native_state(result))


def check_native(result: ScanResult, manifest: dict[str, Any]) -> list[VerifyProblem]:
    """The native breaks of the pruned tree ``result`` that the original (as ``manifest``
    recorded it: ``verify_baseline_native``, ``verify_baseline_breaks``) did not have."""
    from analyzer.verify.problem import problem_of

    found = native_breaks(manifest.get("verify_baseline_native"), native_state(result))
    original = Counter(tuple(k) for k in manifest.get("verify_baseline_breaks", ()))
    return sorted({problem_of(b) for b in new_breaks(found, original)})
