"""The progress line (analyzer/cli/progress.py): it names the stage, its total is every file
discovered from the first report on (the on-demand extraction learns what it will parse as it
goes: that count grows, the total shown does not), and it writes no colour codes."""

from __future__ import annotations

import io
import re

from analyzer.cli.progress import StageProgress
from analyzer.extract.runner import Progress


def test_the_total_does_not_jump_and_the_stage_is_named() -> None:
    out = io.StringIO()
    bar = StageProgress(out, delay=0, tick=3600)
    bar.enter("discover")
    # on-demand extraction: 2,326 files discovered; what is scheduled grows 64 -> 900
    for parsed, scheduled in ((64, 200), (128, 640), (640, 900)):
        bar(Progress(2326, 0, parsed, scheduled))
    drawn = [d for d in out.getvalue().split("\r") if d.strip()]
    assert drawn[0].startswith("depgraph: discovering files  0s")
    parsing = [d for d in drawn if d.startswith("depgraph: parsing [")]
    assert [re.search(r"\] ([\d,]+) of ([\d,]+) files", d).groups() for d in parsing] == [
        ("64", "2,326"), ("128", "2,326"), ("640", "2,326")]
    bar.enter("liveness")
    bar.enter("check")
    bar.enter("liveness")
    bar.enter("check")
    assert bar.line().startswith("depgraph: checking the plan (soundness) (round 2)  0s "
                                 "(2,326 files; total ")
    bar.enter("gate")
    assert bar.line().startswith("depgraph: verifying the plan on a copy of the tree  0s")
    bar.close()
    assert out.getvalue().endswith("\r" + " " * 100 + "\r")
    assert "\x1b" not in out.getvalue()


def test_nothing_is_drawn_within_the_delay() -> None:
    out = io.StringIO()
    bar = StageProgress(out, delay=60, tick=3600)
    bar.enter("extract")
    bar(Progress(10, 0, 5, 10))
    bar.close()
    assert out.getvalue() == ""
