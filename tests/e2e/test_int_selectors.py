"""The sample ``sample_repos/int_selectors`` (read it: every expectation below comes from it):
FlashAttention versions as an integer-valued ``values`` registry, with ``fa3`` (key 3) and
``fa4`` (key 4) dropped and the domains ``*.fa_version`` and ``get_flash_attn_version()``.

- ``if self.fa_version == 3:`` folds (no live code hands 3 to a ``fa_version``): the branch
  goes, then ``fa3_scheduler_metadata`` nothing calls any more, and its imported name;
- ``cls(fa_version=4)`` hands 4 to a ``fa_version``: key 4 is blocked with that line, and
  ``if self.fa_version == 4:`` and ``fa4_tile_size`` stay;
- ``self.aot_schedule = get_flash_attn_version() == 3`` is a comparison outside any condition:
  not folded, so ``get_flash_attn_version`` stays live.
"""

from __future__ import annotations

import shutil

import pytest

from analyzer.config.options import ScanOptions
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import verify_scan
from tests.helpers import SAMPLES, prune_copy

SAMPLE = SAMPLES / "int_selectors"


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(SAMPLE, [])


def test_exact_plan(result: ScanResult) -> None:
    assert {(d.kind, d.path, d.start_line, d.end_line, d.names, d.feature)
            for d in result.plan.deletions} == {
        ("fold_branch", "fa/backend.py", 16, 17, (), "fa3"),
        # knock-ons of the fold: fa3_scheduler_metadata was read only there, so they go
        # with fa3 (apply --feature fa3 takes them along)
        ("delete_range", "fa/utils.py", 11, 12, (), "fa3"),
        ("remove_import_names", "fa/backend.py", 3, 3, ("fa3_scheduler_metadata",), "fa3"),
    }


def test_a_produced_integer_blocks_its_key(result: ScanResult) -> None:
    assert result.profile.blocked_keys == {"4": "fa/backend.py:13: fa_version = 4"}
    assert result.liveness.is_live("py:fa.utils:fa4_tile_size")
    assert result.liveness.is_live("py:fa.utils:get_flash_attn_version")
    assert not result.liveness.is_live("py:fa.utils:fa3_scheduler_metadata")


def test_without_the_producer_both_keys_fold(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    backend = tree / "fa/backend.py"
    backend.write_text(backend.read_text().replace("cls(fa_version=4)", "cls()"))
    again = run_scan(tree, [])
    assert again.profile.blocked_keys == {}
    folds = {(d.start_line, d.end_line, d.feature) for d in again.plan.deletions
             if d.kind == "fold_branch"}
    assert folds == {(16, 17, "fa3"), (18, 19, "fa4")}
    assert not again.liveness.is_live("py:fa.utils:fa4_tile_size")


def test_pruned_copy_verifies(tmp_path) -> None:
    tree, manifest = prune_copy(SAMPLE, tmp_path, [])
    assert verify_scan(tree, ScanOptions(), before=manifest).problems == []
    text = (tree / "fa/backend.py").read_text()
    assert "fa3_scheduler_metadata" not in text and "if self.fa_version == 4:" in text
