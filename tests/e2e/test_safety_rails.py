"""Safety rails of ``depgraph apply`` (issue 27, item 7): a manifest applied to another tree is
refused in one line, a copy of the scanned tree anywhere is not; ``--write --commit`` makes one
git commit per dropped feature, then one for the other dead code, and refuses cleanly outside a
git work tree or with uncommitted changes to the files it would touch.

mini_sglang with root deepseek_v2 (tests/e2e/test_scope.py): 214 lines, dropped fa3, flashmla
and ascend; flashmla's backend python/minisgl/srt/layers/attention/flashmla_backend.py goes
whole; models/llama.py is other dead code. Its top-level packages are minisgl and mini_kernel.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, SAMPLES, run_apply, snapshot

FLASHMLA_BACKEND = "python/minisgl/srt/layers/attention/flashmla_backend.py"
LLAMA = "python/minisgl/srt/models/llama.py"


@pytest.fixture
def scanned(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    shutil.copytree(MINI_SGLANG, root)
    manifest = tmp_path / "manifest.json"
    write_manifest(run_scan(root, ["deepseek_v2"]), manifest)
    return root, manifest


def test_the_manifest_records_the_tree(scanned: tuple[Path, Path]) -> None:
    tree = json.loads(scanned[1].read_text())["tree"]
    assert tree["packages"] == [
        {"name": "mini_kernel", "init": "sgl-kernel/python/mini_kernel/__init__.py"},
        {"name": "minisgl", "init": "python/minisgl/__init__.py"}]
    assert tree["profile"] == "mini_sglang"
    assert tree["files"] == sum(1 for p in scanned[0].rglob("*")
                                if p.is_file() and p.suffix in (".py", ".cu", ".cuh", ".cc",
                                                                ".h", ".cmake", ".txt"))
    assert re.fullmatch(r"[0-9a-f]{64}", tree["fingerprint"])


def test_another_tree_is_refused_in_one_line(scanned: tuple[Path, Path], tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(SAMPLES / "blocker_story", other)
    before = snapshot(other)
    code, _, err = run_apply(scanned[1], "--root", other, "--write")
    assert code == 7
    assert err.splitlines() == [
        f"depgraph: error: manifest made for another tree: it was scanned from {scanned[0]} "
        f"(packages mini_kernel, minisgl); {other} has none of them (scan this tree, or give "
        "--root the tree it was made for)"]
    assert snapshot(other) == before


def test_a_copy_of_the_same_tree_applies(scanned: tuple[Path, Path], tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(scanned[0], copy)
    code, _, err = run_apply(scanned[1], "--root", copy, "--write")
    assert code == 0, err
    assert not (copy / FLASHMLA_BACKEND).exists() and (scanned[0] / FLASHMLA_BACKEND).exists()


def test_another_version_is_refused_in_one_line(scanned: tuple[Path, Path],
                                                tmp_path: Path) -> None:
    copy = tmp_path / "newer"
    shutil.copytree(scanned[0], copy)
    for rel in (LLAMA, FLASHMLA_BACKEND):
        (copy / rel).write_text((copy / rel).read_text() + "\n# changed upstream\n")
    files = len({d["path"] for d in json.loads(scanned[1].read_text())["deletions"]})
    code, _, err = run_apply(scanned[1], "--root", copy)
    assert code == 7
    [line] = err.splitlines()
    assert line.startswith(f"depgraph: error: stale manifest: 2 of the {files} files it edits "
                           f"are not as scanned (first: {FLASHMLA_BACKEND} changed since the "
                           "scan (sha256 ")
    assert line.endswith("; re-run depgraph scan")


# -- --commit --------------------------------------------------------------------------------
def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(scanned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    for var, value in (("GIT_AUTHOR_NAME", "t"), ("GIT_AUTHOR_EMAIL", "t@example.com"),
                       ("GIT_COMMITTER_NAME", "t"), ("GIT_COMMITTER_EMAIL", "t@example.com"),
                       ("GIT_CONFIG_GLOBAL", "/dev/null")):
        monkeypatch.setenv(var, value)
    root = scanned[0]
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "import")
    return scanned


def test_commit_makes_one_commit_per_feature_then_the_rest(repo: tuple[Path, Path]) -> None:
    root, manifest = repo
    code, _, err = run_apply(manifest, "--write", "--commit")
    assert code == 0, err
    subjects = git(root, "log", "--format=%s").splitlines()
    assert [re.sub(r" \(.*\)$", "", s) for s in subjects] == [
        "depgraph: remove other dead code", "depgraph: drop feature ascend",
        "depgraph: drop feature flashmla", "depgraph: drop feature fa3", "import"]
    # together they carry the whole plan: 214 lines
    lines = [int(m.group(1)) for s in subjects if (m := re.search(r"\((\d+) lines", s))]
    assert sum(lines) == 214
    flashmla = git(root, "log", "--format=%H", "--grep", "drop feature flashmla").strip()
    assert f"D\t{FLASHMLA_BACKEND}" in git(root, "show", "--name-status", "--format=",
                                           flashmla).splitlines()
    body = git(root, "log", "-1", "--format=%B", flashmla)
    assert "What went and why:" in body
    # the figures of the scan's table (one definition: issue 49): flashmla's share, 101 lines
    assert "flashmla: its share, 101 lines." in body.splitlines()
    assert f"- {FLASHMLA_BACKEND}: unreachable from roots" in body.splitlines()
    rest = git(root, "log", "-1", "--format=%H", "--grep", "other dead code").strip()
    assert f"D\t{LLAMA}" in git(root, "show", "--name-status", "--format=", rest).splitlines()
    # nothing of the pruning is left uncommitted: only the apply's own records are untracked
    status = git(root, "status", "--porcelain").splitlines()
    assert all(s.startswith("?? ") for s in status), status
    assert {s[3:] for s in status} >= {".depgraph-apply.json"}


def test_commit_of_one_feature(repo: tuple[Path, Path]) -> None:
    root, manifest = repo
    code, _, err = run_apply(manifest, "--write", "--commit", "--feature", "flashmla")
    assert code == 0, err
    assert git(root, "log", "-1", "--format=%s").startswith("depgraph: drop feature flashmla (")
    assert len(git(root, "log", "--format=%s").splitlines()) == 2
    assert (root / LLAMA).exists()  # other dead code is not part of it


def test_one_feature_applied_says_its_share(repo: tuple[Path, Path]) -> None:
    # mini_sglang's table: fa3 51 lines, ascend 13 (tests/cli/test_scan_terminal.py)
    _root, manifest = repo
    code, _, err = run_apply(manifest, "--feature", "fa3")
    assert code == 0, err
    assert "  fa3: its share, 51 lines" in err.splitlines()
    code, _, err = run_apply(manifest, "--feature", "ascend", "--write")
    assert code == 0, err
    assert "  ascend: its share, 13 lines" in err.splitlines()


def test_commit_refuses_outside_a_work_tree(scanned: tuple[Path, Path]) -> None:
    root, manifest = scanned
    before = snapshot(root)
    code, _, err = run_apply(manifest, "--write", "--commit")
    assert code == 7
    assert err.strip() == f"depgraph: error: --commit: {root} is not in a git work tree " \
                          "(run git init, or apply without --commit)"
    assert snapshot(root) == before


def test_commit_refuses_uncommitted_changes_to_its_files(repo: tuple[Path, Path]) -> None:
    root, manifest = repo
    (root / LLAMA).write_text((root / LLAMA).read_text())  # same bytes: no change
    (root / "README.local").write_text("a change elsewhere does not matter\n")
    server_args = root / "python/minisgl/srt/server_args.py"  # the plan edits it
    original = server_args.read_text()
    git(root, "rm", "-q", "--cached", LLAMA)  # staged: llama.py untracked now
    code, _, err = run_apply(manifest, "--write", "--commit")
    assert code == 7
    assert err.strip() == ("depgraph: error: --commit: 1 file(s) it would touch are not "
                           f"tracked by git ({LLAMA}); commit or remove them first")
    git(root, "reset", "-q")
    server_args.write_text(original + "# local edit\n")
    code, _, err = run_apply(manifest, "--write", "--commit")
    assert code == 7
    assert "--commit: uncommitted changes to 1 file(s) it would touch " \
        "(python/minisgl/srt/server_args.py); commit or stash them first" in err
    assert git(root, "log", "--format=%s").splitlines() == ["import"]


def test_commit_needs_write(scanned: tuple[Path, Path]) -> None:
    code, _, err = run_apply(scanned[1], "--commit")
    assert code == 2 and "--commit needs --write" in err
