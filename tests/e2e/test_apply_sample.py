"""``depgraph apply`` end to end on a copy of sample_repos/mini_sglang: scan, dry run, write,
reverse patch, re-scan, git apply, one feature at a time (refusals on tiny trees:
tests/codemod/test_apply.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from analyzer.codemod.manifest_check import validate
from analyzer.codemod.text_edits import delete_lines
from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, run_apply, snapshot


@pytest.fixture
def sample(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    shutil.copytree(MINI_SGLANG, root)
    manifest = tmp_path / "manifest.json"
    write_manifest(run_scan(root, ["deepseek_v2"]), manifest)
    return root, manifest


def test_sample_manifest_validates(sample: tuple[Path, Path]) -> None:
    assert validate(json.loads(sample[1].read_text())) == []


def test_dry_run_changes_nothing(sample: tuple[Path, Path]) -> None:
    root, manifest = sample
    before = snapshot(root)
    code, out, err = run_apply(manifest)
    assert code == 0
    # from the manifest alone: each file, the plan's lines; the tree it would change
    assert "would delete sgl-kernel/cmake/flashmla.cmake: 24 lines by the plan's count " \
        "(1 entry)" in out.splitlines()
    assert f"tree: {root}" in err.splitlines()
    assert "would delete" in err
    code, out, err = run_apply(manifest, "--diff")
    assert code == 0
    assert "--- a/sgl-kernel/cmake/flashmla.cmake\n+++ /dev/null\n" in out
    assert "-    fp8_scaled_mm,\n" in out
    assert snapshot(root) == before


def test_write_then_reverse_patch_restores(sample: tuple[Path, Path], tmp_path: Path) -> None:
    root, manifest = sample
    before = snapshot(root)
    data = json.loads(manifest.read_text())
    code, _, err = run_apply(manifest, "--write", "--patch-out", tmp_path / "undo.patch")
    assert code == 0, err
    after = snapshot(root)
    for rel, content in after.items():  # everything left still parses (compiled, never run)
        if rel.endswith(".py"):
            compile(content, rel, "exec", dont_inherit=True)
    gone = {d["path"] for d in data["deletions"] if d["kind"] == "delete_file"}
    assert gone and not gone & set(after)
    cmake = "sgl-kernel/CMakeLists.txt"  # only the planned lines are gone
    ranges = [(d["start_line"], d["end_line"]) for d in data["deletions"] if d["path"] == cmake]
    assert after[cmake] == delete_lines(before[cmake], ranges)
    assert b"include(${CMAKE_CURRENT_LIST_DIR}/cmake/flashmla.cmake)" not in after[cmake]

    # second run: nothing left to do
    code, out, err = run_apply(manifest, "--write", "--patch-out", tmp_path / "undo.patch")
    assert code == 0 and out == ""
    assert f"already applied: {len(data['deletions'])} entries" in err
    assert snapshot(root) == after

    # the reverse patch restores the original tree byte for byte
    patch = shutil.which("patch")
    if patch is None:
        pytest.skip("patch(1) not installed")
    subprocess.run([patch, "-R", "-p1", "-s", "-i", str(tmp_path / "undo.patch")],
                   cwd=root, check=True)
    undone = snapshot(root)
    assert undone.pop(".depgraph-apply.json")  # what was done stays on record
    assert undone == before

    # applying again after the undo edits the tree again, with a new reverse patch
    code, _, err = run_apply(manifest, "--write", "--patch-out", tmp_path / "redo.patch")
    assert code == 0 and "already applied" not in err, err
    assert {k: v for k, v in snapshot(root).items() if k != ".depgraph-apply.json"} == {
        k: v for k, v in after.items() if k != ".depgraph-apply.json"}
    assert (tmp_path / "redo.patch").read_bytes() == (tmp_path / "undo.patch").read_bytes()


def test_rescan_after_apply_has_nothing_left_of_the_dropped_features(
        sample: tuple[Path, Path]) -> None:
    root, manifest = sample
    assert run_apply(manifest, "--write")[0] == 0
    for patch in root.glob("depgraph-apply-*.patch"):
        patch.unlink()
    again = run_scan(root, ["deepseek_v2"])
    dropped = {"fa3", "flashmla", "ascend"}
    left = [d for d in again.plan.deletions if d.feature in dropped]
    # A re-scan may find new, smaller dead code that the first apply exposed (for example
    # `TYPE_CHECKING` imports that nothing reads once their `if` went); none of it may
    # belong to a dropped feature's leftovers.
    # server_args' `"fa3" if is_fa3_supported() else "triton"` loses its "fa3" arm and its
    # condition in the first scan already (what a folded conditional expression stops
    # reading makes no edges), so nothing is left for a second pass.
    assert left == [], [(d.path, d.kind, d.start_line) for d in left]


def test_git_apply_reverse_check(sample: tuple[Path, Path], tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not installed")
    root, manifest = sample
    env = ["-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([git, "init", "-q"], cwd=root, check=True)
    subprocess.run([git, "add", "-A"], cwd=root, check=True)
    subprocess.run([git, *env, "commit", "-qm", "base"], cwd=root, check=True)
    assert run_apply(manifest, "--write", "--patch-out", tmp_path / "u.patch")[0] == 0
    subprocess.run([git, "apply", "-R", "--check", str(tmp_path / "u.patch")], cwd=root,
                   check=True)


def test_feature_applies_only_its_entries(sample: tuple[Path, Path], tmp_path: Path) -> None:
    root, manifest = sample
    data = json.loads(manifest.read_text())
    before = snapshot(root)
    code, _, err = run_apply(manifest, "--write", "--feature", "flashmla",
                             "--patch-out", tmp_path / "f.patch")
    assert code == 0, err
    after = snapshot(root)
    mine = {d["path"] for d in data["deletions"] if d["feature"] == "flashmla"}
    changed = {p for p in before if before[p] != after.get(p)}
    assert changed == mine
    assert "sgl-kernel/csrc/flash_extension.cc" in after  # fa3's file stays
    args = after["python/minisgl/srt/server_args.py"]
    assert b'["triton", "fa3", "ascend"]' in args
    code, _, err = run_apply(manifest, "--feature", "nope")
    assert code == 6  # as scan --drop nope: a profile error
    code, _, err = run_apply(manifest, "--feature", "flashmal")
    assert code == 6
    assert err.strip() == ("depgraph: error: --feature: unknown feature 'flashmal' (did you "
                           "mean 'flashmla'?) (manifest.json); features with deletions: "
                           "ascend, fa3, flashmla")
