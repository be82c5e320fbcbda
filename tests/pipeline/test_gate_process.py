"""The gate in a process of its own (``analyzer.pipeline.gate_process``): with several jobs
the applied copy is verified in a fresh process, and it reports what the scan's own process
reports; a process that ends without an answer is a clear error.

sample_repos/gate_process, read by hand: ``app/main.py`` (the root) imports ``greet`` from
``app/helper.py``; ``app/unused.py`` is imported by nothing, so the plan deletes it whole and
nothing else."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from analyzer.errors import ProfileError
from analyzer.model import Deletion
from analyzer.pipeline.analyze import RunSettings
from analyzer.pipeline.gate import CopyToVerify, verify_applied
from analyzer.pipeline.gate_process import GateProcessError, verify_in_process
from analyzer.pipeline.scan import run_scan
from analyzer.verify.baseline import verify_baseline
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "gate_process"


def test_a_scan_gated_in_a_process_of_its_own_plans_as_with_one_job() -> None:
    two = run_scan(SAMPLE, ["app.main"], jobs=2)
    one = run_scan(SAMPLE, ["app.main"], jobs=1)
    assert [(d.kind, d.path) for d in two.plan.deletions] == [("delete_file", "app/unused.py")]
    assert two.plan.deletions == one.plan.deletions
    assert two.verified == one.verified


def test_the_process_reports_the_break_the_scans_own_process_reports() -> None:
    result = run_scan(SAMPLE, ["app.main"], jobs=1)
    helper = (SAMPLE / "app" / "helper.py").read_bytes()
    # a deletion no plan would make: the root's import of it breaks
    result.plan.deletions.append(Deletion("delete_file", "app/helper.py",
                                          hashlib.sha256(helper).hexdigest(), 2, "test"))
    baseline = verify_baseline(result)
    here = verify_applied(result, baseline, RunSettings(jobs=1))
    there = verify_applied(result, baseline, RunSettings(jobs=2))
    assert there == here
    assert any(p.path == "app/main.py" and "app.helper" in str(p) for p in there), there


class _Crashing(CopyToVerify):
    """A copy whose verify fails as a bug would (read in the process: this module)."""

    def problems(self, settings: RunSettings) -> list:
        raise RuntimeError("the copy cannot be verified")


class _Refused(CopyToVerify):
    """A copy whose verify refuses its input, as depgraph's own errors do."""

    def problems(self, settings: RunSettings) -> list:
        raise ProfileError("depgraph.toml:3: no such feature 'fa9'")


def test_a_process_that_ends_without_an_answer_is_a_clear_error(tmp_path: Path) -> None:
    crashing = _Crashing(tmp_path, {"deletions": []}, frozenset(), None)
    with pytest.raises(GateProcessError,
                       match="no answer: RuntimeError: the copy cannot be verified"):
        verify_in_process(crashing, RunSettings(jobs=2))


def test_an_error_of_the_input_in_the_process_is_raised_as_it_was(tmp_path: Path) -> None:
    refused = _Refused(tmp_path, {"deletions": []}, frozenset(), None)
    with pytest.raises(ProfileError, match=r"^depgraph\.toml:3: no such feature 'fa9'$"):
        verify_in_process(refused, RunSettings(jobs=2))
