"""The whole day on a copy of the sample: scan -> apply --write -> verify -> scan again."""

from __future__ import annotations

import json
import shutil

from analyzer.codemod.apply import run_apply
from analyzer.config.options import ScanOptions
from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import verify_scan
from tests.helpers import MINI_SGLANG


def test_pruned_sample_verifies_and_has_nothing_left_to_drop(tmp_path):
    tree = tmp_path / "mini_sglang"
    shutil.copytree(MINI_SGLANG, tree)
    before = run_scan(tree, ["deepseek_v2"])
    manifest = tmp_path / "manifest.json"
    write_manifest(before, manifest)
    applied = run_apply(manifest, write=True, patch_out=tmp_path / "undo.patch")
    assert applied.changes and not applied.skipped

    verification = verify_scan(tree, ScanOptions(roots=("deepseek_v2",)),
                               before=json.loads(manifest.read_text()))
    assert verification.problems == []

    after = run_scan(tree, ["deepseek_v2"])
    left = [d for d in after.plan.deletions if d.feature in ("fa3", "flashmla", "ascend")]
    # the first scan folded server_args' `"fa3" if is_fa3_supported() else "triton"` with
    # its condition and removed the import only the condition read: nothing is left, and
    # FA3's wrapper stays blocked by utils/fa3_check.py alone
    assert left == []
    assert {f.name: [i.label for i in f.blocked] for f in after.features} == {
        "fa3": ["mini_kernel.flash_attn", "mini_kernel.flash_attn:is_fa3_supported"],
        "flashmla": [], "ascend": []}
