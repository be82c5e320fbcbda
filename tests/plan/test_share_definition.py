"""A feature's share, one definition (issue 49): an item is in F's share exactly when the
plan that keeps F, all else equal, keeps it -- the manifest's ``features`` of a deletion are
the shares that hold it. What else it waits for (its user goes only with other features) is
``after``: it goes once all of both are applied.

sample_repos/knock_ons/shared_chain, read by hand: Layer.__init__ is one chain over the three
dropped platforms, `if is_xpu(): ... elif is_cpu(): <import cpu_ops> ... elif is_rocm(): ...
else: ...`; its fold (one edit, lines 6-15, the else unwrapped) changes when any of them is
kept, so it is in all three shares. app/cpu_ops.py stays only when cpu is kept (its clause
imports it); with xpu or rocm kept it is still unreferenced. is_xpu (platform.py 4-5) stays
with xpu kept, likewise is_cpu and is_rocm; `import os` (line 1) stays when any probe does."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.pipeline.scan import run_scan
from analyzer.plan.feature_sets import bare
from tests.helpers import MINI_SGLANG, SAMPLES, apply_and_verify

CHAIN = SAMPLES / "knock_ons" / "shared_chain"


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_shares_and_what_each_deletion_waits_for(jobs: int) -> None:
    # (jobs 2: the plans keeping each feature run in forked workers; the same shares)
    result = run_scan(CHAIN, [], jobs=jobs)
    got = {(d.path, d.start_line): (d.features, d.after) for d in result.plan.deletions}
    assert got == {
        ("app/layer.py", 6): (("xpu", "cpu", "rocm"), ()),
        ("app/cpu_ops.py", None): (("cpu",), ("xpu", "rocm")),
        ("app/platform.py", 1): (("xpu", "cpu", "rocm"), ()),
        ("app/platform.py", 4): (("xpu",), ("cpu", "rocm")),
        ("app/platform.py", 8): (("cpu",), ("xpu", "rocm")),
        ("app/platform.py", 12): (("rocm",), ("xpu", "cpu")),
    }
    # figures count the shares: cpu = the fold (10 lines), import os (1), is_cpu (2) and
    # cpu_ops.py (2)
    lines = {f.name: f.lines_removable for f in result.features}
    assert lines == {"xpu": 13, "cpu": 15, "rocm": 13}


def test_cpu_applied_alone_carries_out_only_what_waits_for_nothing_else(
        tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(CHAIN, tree)
    out = apply_and_verify(tmp_path, tree, run_scan(tree, []), feature="cpu")
    assert out.exit_code == 0, out.output
    # every deletion holding cpu waits for xpu and rocm (the chain's one fold): nothing goes
    assert (tree / "app/cpu_ops.py").is_file()
    assert (tree / "app/layer.py").read_text() == (CHAIN / "app/layer.py").read_text()


@pytest.mark.parametrize(("sample", "roots"), [
    (CHAIN, []),
    (MINI_SGLANG, ["deepseek_v2"]),
    (SAMPLES / "mini_vllm", ["deepseek_v2"]),
    (SAMPLES / "profile_keys", []),
])
def test_each_share_is_the_plan_minus_the_plan_keeping_it(sample: Path,
                                                         roots: list[str]) -> None:
    result = run_scan(sample, roots, jobs=2)  # (its shares planned in forked workers)
    planned = {bare(d) for d in result.plan.deletions}
    assert result.profile.drops
    for feature in result.profile.drops:
        kept = {bare(d) for d in run_scan(sample, roots, keep=(feature,)).plan.deletions}
        share = {bare(d) for d in result.plan.deletions if feature in d.features}
        assert share == planned - kept, feature
