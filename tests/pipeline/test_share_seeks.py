"""The plans under other drops (each dropped feature's share, ``analyzer.pipeline.shares``)
seek names tree-wide as the scan's own plan does: a counted file that may set one is parsed
and the tree analysed again -- with one job, and with the plans made in forked workers, which
hand the names back (``analyzer.pipeline.plans_under``).

Expectations come from reading sample_repos/share_seeks (its README says why)."""

from __future__ import annotations

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "share_seeks"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_setter_only_a_share_plan_asks_for_is_parsed(jobs: int) -> None:
    result = run_scan(SAMPLE, [], jobs=jobs)
    assert result.reparsed == {"lazy/toggle.py"}
    assert not result.counted
    labels = {(d.kind, d.path, d.start_line): (d.features, d.with_features, d.after)
              for d in result.plan.deletions}
    accel = (("accel",), (), ())
    assert labels == {
        ("delete_file", "lazy/accel.py", None): accel,
        ("remove_import_names", "lazy/models/llama.py", 1): accel,  # is_accel
        ("fold_branch", "lazy/models/llama.py", 9): accel,  # kept by the plan keeping accel
        ("delete_range", "lazy/platform.py", 1): accel,  # def is_accel
        ("delete_file", "lazy/toggle.py", None): ((), (), ()),  # dead anyway
        ("delete_file", "lazy/turbo.py", None): ((), (), ()),  # used by nothing
    }
