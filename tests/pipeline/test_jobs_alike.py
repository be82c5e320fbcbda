"""One answer whatever the number of jobs: with two jobs the plans under other drops (each
dropped feature's share, what further drops would free) are made in forked workers that hand
back what they added to the scan's state (``analyzer.pipeline.plans_under``); with one, in
the scan's process. Every sample whose profile drops a feature gives the same manifest --
deletions, what each goes with, the features' rows and what would free them -- both ways."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from analyzer.outputs.manifest import manifest_dict
from analyzer.pipeline.scan import run_scan
from analyzer.util import parallel
from tests.helpers import SAMPLES

VOLATILE = {"generated_at", "tool", "options"}
ROOTS = {"demand_extract": ["llama"], "mini_sglang": ["deepseek_v2"],
         "mini_vllm": ["deepseek_v2"]}
DROPPING = ["arch_lists", "blocker_story", "cmake_option_fold", "demand_extract",
            "impl_version", "int_selectors", "membership_tuple", "method_selection",
            "mini_sglang", "mini_vllm", "probed_registry", "profile_keys", "prune_safety",
            "share_seeks", "spurious_blockers", "test_infra", "value_selection", "what_frees",
            "what_frees_two", "what_frees_tus"]


def _manifest(jobs: int, sample: str) -> dict:
    result = run_scan(SAMPLES / sample, ROOTS.get(sample, []), jobs=jobs)
    assert result.profile.drops  # (the plans under other drops are made)
    data = json.loads(json.dumps(manifest_dict(result), default=str))
    return {k: v for k, v in data.items() if k not in VOLATILE}


@pytest.mark.parametrize("sample", DROPPING)
def test_two_jobs_answer_as_one(sample: str) -> None:
    assert _manifest(2, sample) == _manifest(1, sample)


@pytest.mark.parametrize("sample", ["mini_sglang", "what_frees_two", "share_seeks"])
def test_two_jobs_where_processes_do_not_fork(sample: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # (macOS, Windows: the plans that continue the scan's memos in a worker's copy of them
    # must then be made as with one job, never on the scan's own state)
    monkeypatch.setattr(parallel, "sys", SimpleNamespace(platform="darwin"))
    assert _manifest(2, sample) == _manifest(1, sample)
