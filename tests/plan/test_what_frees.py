"""What would free a blocked feature, with its yield (issue 51, item 1), on
sample_repos/what_frees, read by hand: flashmla is dropped; its backend (app/flashmla_backend.py,
6 lines), its registration (backends.py 18-22, 5 lines) and the two kernels only the backend
calls (flashmla_kernels.py 1-2 and 5-7) go: 1 file, 16 lines. The NSA backend -- feature nsa,
kept by default -- calls flash_mla_sparse_fwd (nsa_backend.py:6) and imports it (line 1):
2 items blocked. Dropping nsa too frees them: flashmla_kernels.py (11 lines) goes whole instead
of its two functions: +1 file, +6 lines, no TUs, nothing left blocked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.analysis.freeing import Freeing
from analyzer.cli.main import main
from analyzer.outputs.html import render_html
from analyzer.outputs.markdown import render_markdown
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "what_frees"


def test_the_further_drop_and_its_yield() -> None:
    result = run_scan(SAMPLE, [])
    row = {f.name: (f.files_removable, f.lines_removable, len(f.blocked))
           for f in result.features}
    assert row == {"flashmla": (1, 16, 2)}
    assert result.freeing == {"flashmla": Freeing("flashmla", ("nsa",), 1, 6, 0, ("nsa",))}


def test_the_yield_is_what_a_scan_with_the_drop_finds() -> None:
    now = {f.name: f for f in run_scan(SAMPLE, []).features}["flashmla"]
    then = {f.name: f for f in run_scan(SAMPLE, [], drop=("nsa",)).features}["flashmla"]
    assert (then.files_removable - now.files_removable,
            then.lines_removable - now.lines_removable, len(then.blocked)) == (1, 6, 0)


def test_terminal_manifest_markdown_and_report_say_it(tmp_path: Path) -> None:
    got = CliRunner().invoke(main, ["scan", str(SAMPLE), "--no-cache", "--out",
                                    str(tmp_path), "--format", "json", "--format", "md"])
    assert got.exit_code == 0, got.output
    assert "      what frees it: drop nsa -> +1 file, +6 lines, +0 TUs" in \
        got.stdout.splitlines()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    feature = manifest["profile"]["features"][0]
    assert feature["what_frees_it"] == {"drop": ["nsa"], "files": 1, "lines": 6, "tus": 0,
                                        "tried": ["nsa"]}
    result = run_scan(SAMPLE, [])
    assert "What frees it: drop nsa -> +1 file, +6 lines, +0 TUs" in render_markdown(result)
    assert "what frees it: drop nsa -&gt; +1 file, +6 lines, +0 TUs" in render_html(result)


def test_no_further_drop_is_said_too() -> None:
    """sample_repos/blocker_story: fa3, its one feature, is kept by a default and by code of
    no other feature (6 items blocked, tests/e2e/test_blocker_story.py): no drop can free it,
    and the answer says so instead of staying silent."""
    result = run_scan(SAMPLES / "blocker_story", ["model"])
    assert result.freeing == {"fa3": Freeing("fa3", (), 0, 0, 0, ())}
    assert result.freeing["fa3"].text() == (
        "no further drop: no feature this run keeps holds its blockers; the blockers are "
        "the edits")
    assert "What frees it: no further drop" in render_markdown(result)


@pytest.mark.parametrize("jobs", [1, 2])
def test_two_blocked_features_each_freed_by_another_drop(jobs: int) -> None:
    # sample_repos/what_frees_two, read by hand: the what_frees sample with a second pair --
    # fa3 dropped (its backend, 6 lines; its registration, backends.py 32-36, 5 lines; the
    # two kernels only the backend calls, fa3_kernels.py 1-2 and 5-7: 1 file, 16 lines), its
    # fa3_varlen still imported and called by the hybrid backend (kept): 2 items blocked;
    # dropping hybrid too frees them (fa3_kernels.py, 11 lines, goes whole: +1 file, +6
    # lines). Two further drops to plan: with two jobs they are made in forked workers.
    result = run_scan(SAMPLES / "what_frees_two", [], jobs=jobs)
    row = {f.name: (f.files_removable, f.lines_removable, len(f.blocked))
           for f in result.features}
    assert row == {"flashmla": (1, 16, 2), "fa3": (1, 16, 2)}
    assert result.freeing == {
        "flashmla": Freeing("flashmla", ("nsa",), 1, 6, 0, ("nsa",)),
        "fa3": Freeing("fa3", ("hybrid",), 1, 6, 0, ("hybrid",)),
    }


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_further_drop_frees_a_kernel_target_and_its_translation_units(jobs: int) -> None:
    # sample_repos/what_frees_tus/README.md: flashmla's share now 1 file / 15 lines / 0 TUs;
    # with nsa dropped too 4 / 48 / 2 (the extension's .cc and the dead target's fetched TU)
    result = run_scan(SAMPLES / "what_frees_tus", [], jobs=jobs)
    assert result.freeing == {"flashmla": Freeing("flashmla", ("nsa",), 3, 33, 2, ("nsa",))}
