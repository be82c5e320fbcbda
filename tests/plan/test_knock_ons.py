"""Knock-ons outlive the deletion that made them (issue 48, class 1), and the gate that makes
sure no manifest its own verify would fail is written. Sample: ``sample_repos/knock_ons/
settling`` (its depgraph.toml says what it holds); expectations come from reading it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import analyzer.pipeline.rounds as rounds_module
from analyzer.cli.verify import verify_command
from analyzer.codemod.apply import run_apply
from analyzer.config.options import ScanOptions
from analyzer.outputs.manifest import manifest_dict
from analyzer.pipeline.analyze import RunSettings, analyze_inputs
from analyzer.pipeline.inputs import gather_inputs
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import manifest_of
from analyzer.verify.baseline import verify_baseline
from tests.helpers import SAMPLES

SETTLING = SAMPLES / "knock_ons" / "settling"
MODEL = "app/models/big/nvidia/model.py"
# what the plan takes, read from the sample: the dropped ROCM_ATTN member and the backend only
# it named, a helper nothing calls, and BigModel's one method nothing names with the import
# only that method read; BigModel stays (big/__init__.py re-exports it), with _make_mapper and
# the imports of LMHead, WeightsMapper and maybe_prefix its __init__ uses
EXPECTED = {
    ("app/attention/registry.py", 6, 6),
    ("app/attention/rocm_attn.py", None, None),
    ("app/layers/weights.py", 10, 11),
    (MODEL, 1, 1),
    (MODEL, 16, 17),
}


def copied(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(SETTLING, tree)
    return tree


def planned(result: ScanResult) -> set[tuple[str, int | None, int | None]]:
    return {(d.path, d.start_line, d.end_line) for d in result.plan.deletions}


def verify_output(tmp_path: Path, tree: Path, manifest: dict[str, object]) -> tuple[int, str]:
    """Apply ``manifest`` to ``tree`` with --write, then ``depgraph verify --before``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    run_apply(path, tree, write=True, patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(path)])
    return out.exit_code, out.output


def test_a_producer_arm_in_a_test_lets_the_rounds_settle(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tests/test_basic.py's ROCM_ATTN arm is folded, but the plan never edits a test: the
    # producer is reported again in every round; the state must not grow from it
    seen: dict[int, int] = {}  # rounds of each use of the profile (the shares' plans too)
    real = rounds_module.Rounds._round

    def counting(self: rounds_module.Rounds, state: rounds_module.Retained
                 ) -> rounds_module.Planned:
        seen[id(self)] = seen.get(id(self), 0) + 1
        return real(self, state)

    monkeypatch.setattr(rounds_module.Rounds, "_round", counting)
    tree = copied(tmp_path)
    result = run_scan(tree, [])
    assert max(seen.values()) < 10  # (60 when the rounds do not settle)
    assert planned(result) == EXPECTED
    assert "tests/test_basic.py" not in {d.path for d in result.plan.deletions}
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def test_out_of_rounds_the_knock_ons_of_what_stays_stay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one round only: its plan deletes BigModel with _make_mapper and BigModel's imports; the
    # check then keeps BigModel (the re-export), and what it uses must come back with it. The
    # gate finds the first plan's knock-ons (LMHead, _make_mapper and `re` undefined, BigModel
    # whole being kept) and keeps their imports: `import re` stays although the next plan
    # deletes clean_name, its one reader (what the rounds keep, they keep)
    monkeypatch.setattr(rounds_module, "MAX_ROUNDS", 1)
    tree = copied(tmp_path)
    result = run_scan(tree, [])
    assert planned(result) == EXPECTED - {(MODEL, 1, 1)}
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def test_the_gate_finds_what_the_rounds_check_missed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a check that sees no Python break at all: only the gate (verify on the applied copy)
    # can find that deleting BigModel breaks big/__init__.py's re-export
    monkeypatch.setattr(rounds_module, "check_plan", lambda *args, **kwargs: [])
    tree = copied(tmp_path)
    options = ScanOptions()
    # without the gate the plan does break the tree: the planted break is real
    ungated = analyze_inputs(gather_inputs(tree, options), options, RunSettings())
    assert ungated.verified is None
    assert (MODEL, 11, 17) in planned(ungated)  # BigModel, 11-17
    code, output = verify_output(tmp_path / "ungated", copied(tmp_path / "ungated"),
                                 manifest_dict(ungated, verify_baseline(ungated)))
    assert code == 8
    assert "app/models/big/__init__.py:8: from app.models.big.nvidia.model import BigModel" \
        in output
    # with it, the manifest keeps BigModel and what it uses
    result = run_scan(tree, [])
    assert result.verified is not None
    assert planned(result) == EXPECTED
    assert any(c.path == "app/models/big/__init__.py" for c in result.conflicts)
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def scanned_sample(tmp_path: Path, name: str) -> tuple[Path, ScanResult]:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "knock_ons" / name, tree)
    return tree, run_scan(tree, [])


def test_a_conftest_keeps_what_it_imports(tmp_path: Path) -> None:
    # tests/conftest.py imports AudioAsset and fetch_image, which nothing else uses: it stays
    # (pytest loads it for every test below it), and so do they; the test of the dead
    # app/legacy.py goes with it
    tree, result = scanned_sample(tmp_path, "conftest_imports")
    assert planned(result) == {("app/legacy.py", None, None),
                               ("tests/test_legacy.py", None, None)}
    assert result.root_reasons["py:tests.conftest"].startswith("test infrastructure")
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def test_kept_platform_modules_keep_what_they_import(tmp_path: Path) -> None:
    # the XPU worker (a dotted path the live selector returns) and the XPU LoRA wrapper (a
    # lazy import in the live manager) are blocked: the runner and the ops package they import
    # stay with them; so does the ROCm backend a live selector names, with the helper of
    # attention/utils.py it imports; only split_evenly, which nothing uses, goes
    tree, result = scanned_sample(tmp_path, "platform_worker")
    assert planned(result) == {("app/attention/utils.py", 9, 10)}
    blocked = {f.name: {i.label for i in f.blocked} for f in result.features}
    assert {"app.worker.xpu_model_runner", "app.lora.ops.xpu_ops.expand"} <= blocked["xpu"]
    assert "app.attention.rocm_aiter_fa" in blocked["rocm"]
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def test_a_registry_path_of_a_blocked_key_keeps_its_class(tmp_path: Path) -> None:
    # the live default selects CPU_ATTN: the key is blocked, its member stays, and so does the
    # class its dotted path names; the ROCm member goes with the module (and the package holding
    # only it) that only its path named
    tree, result = scanned_sample(tmp_path, "registry_paths")
    assert planned(result) == {("app/attention/registry.py", 7, 7),
                               ("app/attention/mla/rocm_aiter_mla.py", None, None),
                               ("app/attention/mla/__init__.py", None, None)}
    assert result.profile.blocked_keys == {
        "CPU_ATTN": "app/config.py:3: self.attention_backend = 'CPU_ATTN'"}
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output


def test_typing_only_imports_keep_the_names_they_import(tmp_path: Path) -> None:
    # CaptureInputs and ReplayBuffers are read by a type checker only (TYPE_CHECKING import,
    # string annotations): they stay; unused_budget goes
    tree, result = scanned_sample(tmp_path, "typing_defs")
    assert planned(result) == {("app/worker/encoder_defs.py", 18, 19)}
    code, output = verify_output(tmp_path, tree, manifest_of(result))
    assert code == 0, output
