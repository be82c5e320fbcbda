"""The answers of plans under other drops kept between scans (``analyzer.pipeline.plans_kept``):
a feature's share and what frees a blocked feature are taken from the store while the tree
reads alike, their deletions' byte figures made from the files as they are now.

On sample_repos/what_frees (see tests/plan/test_what_frees.py), read by hand: flashmla is
dropped; the shares plan keeping flashmla and keeping every feature; what frees flashmla plans
with nsa dropped too, keeping flashmla and keeping none. Dropping nsa frees
app/flashmla_kernels.py whole (11 lines) instead of its two functions (5 lines): +1 file,
+6 lines. Nothing blocks flashmla once nsa is dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analyzer.analysis.freeing import Freeing
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.scan import run_scan
from analyzer.result import ScanResult
from tests.helpers import SAMPLES, scanned_copy, store_entries


@pytest.fixture
def plans_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The drops of each plan whose rounds ran, in this process (one job: every plan)."""
    made: list[str] = []
    real = Rounds.run

    def run(self: Rounds, state: Any = None) -> Any:
        made.append(",".join(self.use.drops))
        return real(self, state)

    monkeypatch.setattr(Rounds, "run", run)
    return made


def _answer(result: ScanResult) -> tuple[object, ...]:
    """Every field of every deletion with its labels, each feature's row, what frees it."""
    return (sorted((d.kind, d.path, d.sha256, d.lines, d.start_line, d.end_line, d.reason,
                    d.features, d.with_features, d.after) for d in result.plan.deletions),
            [(f.name, f.files_removable, f.lines_removable, len(f.blocked))
             for f in result.features],
            result.freeing)


def test_a_comment_keeps_the_answers_with_the_files_figures_of_now(
        tmp_path: Path, plans_made: list[str]) -> None:
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    # the scan's plan and the gate's copy; flashmla's share (the plan keeping it: nothing
    # dropped), the other dead code (the plan keeping every dropped feature: the same plan,
    # taken as kept), what frees flashmla (nsa dropped too: keeping flashmla, keeping none)
    assert plans_made == ["flashmla", "flashmla", "", "nsa", "flashmla,nsa"]
    assert len(store_entries(cache, "plans-under")) == 3
    kernels = tree / "app" / "flashmla_kernels.py"
    kernels.write_text(kernels.read_text() + "# one line more\n")  # (12 lines now)
    plans_made.clear()
    again = run_scan(tree, [], cache_dir=cache)
    # the scan's plan alone (the gate's applied copy reads as the last one: its verdict is
    # kept, pipeline.gate_verdicts)
    assert plans_made == ["flashmla"]
    # the kernels' file whole is 12 lines now: dropping nsa frees 7 lines more, not 6
    assert again.freeing == {"flashmla": Freeing("flashmla", ("nsa",), 1, 7, 0, ("nsa",))}
    assert _answer(again) == _answer(run_scan(tree, []))


def test_a_line_of_code_makes_the_plans_again(tmp_path: Path, plans_made: list[str]) -> None:
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    main = tree / "app" / "main.py"
    main.write_text(main.read_text() + "\nSTARTED = True\n")
    plans_made.clear()
    again = run_scan(tree, [], cache_dir=cache)
    assert plans_made == ["flashmla", "flashmla", "", "nsa", "flashmla,nsa"]
    assert _answer(again) == _answer(run_scan(tree, []))


def test_a_further_drop_takes_the_plans_what_frees_made(
        tmp_path: Path, plans_made: list[str]) -> None:
    # --drop nsa: flashmla's share is the plan keeping it with nsa dropped -- what frees
    # flashmla made that plan in the default scan; the other dead code is the plan keeping
    # both (nothing dropped: the default scan's shares made it). nsa's share keeps nsa: the
    # default scan's own plan, never made as a plan under other drops
    cache = tmp_path / "cache"
    run_scan(SAMPLES / "what_frees", [], cache_dir=cache)
    plans_made.clear()
    dropped = run_scan(SAMPLES / "what_frees", [], cache_dir=cache, drop=("nsa",))
    assert plans_made == ["flashmla,nsa", "flashmla,nsa", "flashmla"]
    assert _answer(dropped) == _answer(run_scan(SAMPLES / "what_frees", [], drop=("nsa",)))
