"""Codemod stage: ``depgraph apply`` end to end on a copy of the sample repo and tiny trees."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from analyzer.cli.apply import apply_command
from analyzer.codemod.apply import sha256
from analyzer.codemod.manifest_check import validate
from analyzer.codemod.text_edits import delete_lines
from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, write_tree


@click.group()
def cli() -> None:
    """A stand-in for the real ``depgraph`` group."""


cli.add_command(apply_command, "apply")


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def run(*args: str | Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["apply", *map(str, args)])
    return res.exit_code, res.stdout, res.stderr


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
    code, out, err = run(manifest)
    assert code == 0
    assert "--- a/sgl-kernel/cmake/flashmla.cmake\n+++ /dev/null\n" in out
    assert "-    fp8_scaled_mm,\n" in out
    assert "would delete" in err
    assert snapshot(root) == before


def test_write_then_reverse_patch_restores(sample: tuple[Path, Path], tmp_path: Path) -> None:
    root, manifest = sample
    before = snapshot(root)
    data = json.loads(manifest.read_text())
    code, _, err = run(manifest, "--write", "--patch-out", tmp_path / "undo.patch")
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
    code, out, err = run(manifest, "--write", "--patch-out", tmp_path / "undo.patch")
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
    code, _, err = run(manifest, "--write", "--patch-out", tmp_path / "redo.patch")
    assert code == 0 and "already applied" not in err, err
    assert {k: v for k, v in snapshot(root).items() if k != ".depgraph-apply.json"} == {
        k: v for k, v in after.items() if k != ".depgraph-apply.json"}
    assert (tmp_path / "redo.patch").read_bytes() == (tmp_path / "undo.patch").read_bytes()


def test_rescan_after_apply_has_nothing_left_of_the_dropped_features(
        sample: tuple[Path, Path]) -> None:
    root, manifest = sample
    assert run(manifest, "--write")[0] == 0
    for patch in root.glob("depgraph-apply-*.patch"):
        patch.unlink()
    again = run_scan(root, ["deepseek_v2"])
    dropped = {"fa3", "flashmla", "ascend"}
    left = [d for d in again.plan.deletions if d.feature in dropped]
    # A re-scan may find new, smaller dead code that the first apply exposed (for example
    # `TYPE_CHECKING` imports that nothing reads once their `if` went); none of it may
    # belong to a dropped feature's leftovers.
    # One exception, known: server_args' `"fa3" if is_fa3_supported() else "triton"` lost
    # its "fa3" arm (live code may not select a dropped key) and with it the only call of
    # is_fa3_supported, which the first scan still saw on the kept line.
    assert [d.symbol for d in left] == ["mini_kernel.flash_attn:is_fa3_supported"], [
        (d.path, d.kind, d.start_line) for d in left]


def test_git_apply_reverse_check(sample: tuple[Path, Path], tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not installed")
    root, manifest = sample
    env = ["-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([git, "init", "-q"], cwd=root, check=True)
    subprocess.run([git, "add", "-A"], cwd=root, check=True)
    subprocess.run([git, *env, "commit", "-qm", "base"], cwd=root, check=True)
    assert run(manifest, "--write", "--patch-out", tmp_path / "u.patch")[0] == 0
    subprocess.run([git, "apply", "-R", "--check", str(tmp_path / "u.patch")], cwd=root,
                   check=True)


def test_feature_applies_only_its_entries(sample: tuple[Path, Path], tmp_path: Path) -> None:
    root, manifest = sample
    data = json.loads(manifest.read_text())
    before = snapshot(root)
    code, _, err = run(manifest, "--write", "--feature", "flashmla",
                       "--patch-out", tmp_path / "f.patch")
    assert code == 0, err
    after = snapshot(root)
    mine = {d["path"] for d in data["deletions"] if d["feature"] == "flashmla"}
    changed = {p for p in before if before[p] != after.get(p)}
    assert changed == mine
    assert "sgl-kernel/csrc/flash_extension.cc" in after  # fa3's file stays
    args = after["python/minisgl/srt/server_args.py"]
    assert b'["triton", "fa3", "ascend"]' in args
    code, _, err = run(manifest, "--feature", "nope")
    assert code == 2


# -- refusals: exit 7, one line, nothing written ----------------------------------------------
def tiny(tmp_path: Path, entries: list[dict], files: dict[str, str] | None = None
         ) -> tuple[Path, Path]:
    root = write_tree(tmp_path / "t", files or {"a.py": "import os\nx = 1\n",
                                                "b.txt": "one\ntwo\n"})
    deletions = []
    for e in entries:
        full = {"kind": "delete_range", "lines": 1, "category": "", "feature": "",
                "reason": "test", "start_line": 1, "end_line": 1, **e}
        full.setdefault("sha256", sha256((root / full["path"]).read_bytes())
                        if (root / full["path"]).is_file() else "0" * 64)
        deletions.append(full)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({
        "schema_version": 1, "tool": {"name": "depgraph", "version": "0"}, "root": str(root),
        "roots": [], "totals": {}, "deletions": deletions,
        "build": {"dead_targets": [], "fetches_no_longer_needed": [], "dead_ops": [],
                  "translation_units_removed": 0}}))
    return root, manifest


def refused(root: Path, manifest: Path, needle: str) -> None:
    before = snapshot(root)
    code, out, err = run(manifest, "--write")
    assert code == 7, (code, out, err)
    assert err.startswith("depgraph: error: ") and needle in err
    assert len(err.strip().splitlines()) == 1
    assert snapshot(root) == before


def test_refuses_stale_file(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "b.txt"}, {"path": "a.py"}])
    (root / "a.py").write_text("import os\nx = 2\n")
    refused(root, manifest, "a.py")


def test_refuses_absolute_path(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "b.txt"},
                                     {"path": str(tmp_path / "t" / "a.py"), "sha256": "0" * 64}])
    refused(root, manifest, "absolute")


def test_refuses_dotdot(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "b.txt"}, {"path": "x/../a.py",
                                                        "sha256": "0" * 64}])
    refused(root, manifest, "..")


def test_refuses_symlink_out_of_root(tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "outside", {"o.txt": "keep\nme\n"})
    root, manifest = tiny(tmp_path, [{"path": "b.txt"}])
    (root / "link.txt").symlink_to(outside / "o.txt")
    data = json.loads(manifest.read_text())
    data["deletions"].append({**data["deletions"][0], "path": "link.txt",
                              "sha256": sha256((outside / "o.txt").read_bytes())})
    manifest.write_text(json.dumps(data))
    refused(root, manifest, "outside the root")
    assert (outside / "o.txt").read_text() == "keep\nme\n"


def test_refuses_invalid_manifest(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "b.txt"}])
    data = json.loads(manifest.read_text())
    data["deletions"][0]["path"] = 3
    manifest.write_text(json.dumps(data))
    refused(root, manifest, "manifest.json: deletions[0].path: expected string")


def test_refuses_overlapping_entries(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [
        {"path": "b.txt"}, {"path": "a.py", "start_line": 1, "end_line": 2},
        {"path": "a.py", "start_line": 2, "end_line": 2}])
    refused(root, manifest, "overlapping")


def test_text_edits_keep_crlf_and_missing_final_newline(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "c.cmake", "start_line": 2, "end_line": 2},
                                     {"path": "c.cmake", "start_line": 4, "end_line": 4}],
                          {"c.cmake": "a\r\nb\r\nc\r\nd"})
    code, _, err = run(manifest, "--write")
    assert code == 0, err
    assert (root / "c.cmake").read_bytes() == b"a\r\nc"
    code, _, err = run(manifest, "--write")
    assert code == 0 and "already applied: 2 entries" in err


def test_try_unwrap_with_a_bound_exception_is_skipped_not_refused(tmp_path):
    from analyzer.codemod.apply import _edit

    src = (b"try:\n    from ext import fast\nexcept ImportError as e:\n    fast = None\n"
           b"\n\ndef unused():\n    return 1\n")
    group = [
        {"kind": "fold_branch", "start_line": 1, "end_line": 3, "rewrite": "try_unwrap",
         "statement": [1, 4], "keep": [4, 4], "reason": "ext will not exist"},
        {"kind": "delete_range", "start_line": 7, "end_line": 8, "reason": "dead"},
    ]
    skipped: list[str] = []
    out = _edit("m.py", src, group, skipped)
    # the try stays as it is (it still works once `ext` is gone); the dead function goes
    assert out == b"try:\n    from ext import fast\nexcept ImportError as e:\n    fast = None\n"
    assert len(skipped) == 1 and skipped[0].startswith("m.py:1: try_unwrap left as it is")
