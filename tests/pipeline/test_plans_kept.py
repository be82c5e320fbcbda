"""The answers of plans under other drops kept between scans (``analyzer.pipeline.plans_kept``):
a feature's share and what frees a blocked feature are taken from the store while the tree
reads alike, their deletions' byte figures made from the files as they are now.

On sample_repos/what_frees (see tests/plan/test_what_frees.py), read by hand: flashmla is
dropped; the shares plan keeping flashmla and keeping every feature; what frees flashmla plans
with nsa dropped too, keeping flashmla and keeping none. Dropping nsa frees
app/flashmla_kernels.py whole (11 lines) instead of its two functions (5 lines): +1 file,
+6 lines."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from analyzer.analysis.freeing import Freeing
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.scan import run_scan
from analyzer.result import ScanResult
from tests.helpers import SAMPLES, store_entries


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


def _scanned_copy(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "what_frees", tree)
    cache = tmp_path / "cache"
    run_scan(tree, [], cache_dir=cache)
    return tree, cache


def test_a_comment_keeps_the_answers_with_the_files_figures_of_now(
        tmp_path: Path, plans_made: list[str]) -> None:
    tree, cache = _scanned_copy(tmp_path)
    # the scan's plan, the two shares, the two plans of what frees flashmla, the gate's copy
    assert len(plans_made) == 6
    assert len(store_entries(cache, "plans-under")) == 4
    kernels = tree / "app" / "flashmla_kernels.py"
    kernels.write_text(kernels.read_text() + "# one line more\n")  # (12 lines now)
    plans_made.clear()
    again = run_scan(tree, [], cache_dir=cache)
    # the scan's plan and the gate's copy (the manifest edits the file: its verdict is new)
    assert plans_made == ["flashmla", "flashmla"]
    # the kernels' file whole is 12 lines now: dropping nsa frees 7 lines more, not 6
    assert again.freeing == {"flashmla": Freeing("flashmla", ("nsa",), 1, 7, 0, ("nsa",))}
    assert _answer(again) == _answer(run_scan(tree, []))


def test_a_line_of_code_makes_the_plans_again(tmp_path: Path, plans_made: list[str]) -> None:
    tree, cache = _scanned_copy(tmp_path)
    main = tree / "app" / "main.py"
    main.write_text(main.read_text() + "\nSTARTED = True\n")
    plans_made.clear()
    again = run_scan(tree, [], cache_dir=cache)
    assert len(plans_made) == 6
    assert _answer(again) == _answer(run_scan(tree, []))
