"""Once the plan passed its gate and the plans under other drops are made in forked workers,
the scan's rounds are over in its own process: ``Rounds.finished`` drops the memos only a
further round reads (the folds' memory, each module's plan share) before the labels build
the open graph. With one job the plans under other drops are made in the scan's process
from those memos: nothing is dropped.

sample_repos/mini_sglang (rooted at deepseek_v2, its depgraph.toml dropping features) makes
plans under other drops: each dropped feature's share of the plan."""

from __future__ import annotations

import pytest

from analyzer.model import Deletion
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "mini_sglang"


def _keys(deletions: list[Deletion]) -> list[tuple[str, str, int | None, int | None]]:
    return sorted((d.kind, d.path, d.start_line, d.end_line) for d in deletions)


def test_with_two_jobs_the_rounds_finish_and_a_round_after_plans_alike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    again: list[list[Deletion]] = []
    finish = Rounds.finished

    def finished(self: Rounds) -> None:
        finish(self)
        # a round asked for after all: from empty memos, the same plan
        again.append(list(self.run().plan.deletions))

    monkeypatch.setattr(Rounds, "finished", finished)
    result = run_scan(SAMPLE, ["deepseek_v2"], jobs=2)
    assert result.shares, "the sample makes plans under other drops"
    assert len(again) == 1
    assert _keys(again[0]) == _keys(result.plan.deletions)
    assert _keys(result.plan.deletions) == _keys(run_scan(SAMPLE, ["deepseek_v2"]).plan.deletions)


def test_with_one_job_the_memos_stay_for_the_plans_made_here(
        monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[Rounds] = []
    monkeypatch.setattr(Rounds, "finished", lambda self: called.append(self))
    result = run_scan(SAMPLE, ["deepseek_v2"], jobs=1)
    assert result.shares
    assert called == []
