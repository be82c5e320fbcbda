"""Codemod stage: ``depgraph apply`` run again, in parts, after an undo; the state file.

Hand-made manifests on tiny trees. A second run of the same manifest (any --patch-out, or
--feature subsets one after the other) exits 0, says "already applied" and writes nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.codemod import apply_state
from analyzer.codemod.apply import FileChange, sha256, unapplied_entries, unified_diff
from tests.helpers import write_tree

STATE = ".depgraph-apply.json"

FILES = {
    # a try_unwrap that cannot be applied (the except clause binds a name): skipped
    "opt.py": ("try:\n    from ext import fast\nexcept ImportError as e:\n    fast = None\n"
               "\n\ndef unused():\n    return 1\n"),
    # edited by both features
    "shared.py": ("import os\n\n\ndef dead_a():\n    return 1\n\n\ndef live():\n    return 2\n"
                  "\n\ndef dead_b():\n    return 3\n"),
    "only_a.txt": "one\ntwo\nthree\n",
    "only_b.py": "x = 1\n",
    "keep.py": "y = 2\n",
}
ENTRIES = [
    {"path": "opt.py", "kind": "fold_branch", "rewrite": "try_unwrap", "start_line": 1,
     "end_line": 3, "statement": [1, 4], "keep": [4, 4], "feature": "A"},
    {"path": "opt.py", "start_line": 7, "end_line": 8, "feature": "A"},
    {"path": "shared.py", "start_line": 4, "end_line": 5, "feature": "A"},
    {"path": "only_a.txt", "start_line": 2, "end_line": 2, "feature": "A"},
    {"path": "shared.py", "start_line": 12, "end_line": 13, "feature": "B"},
    {"path": "only_b.py", "kind": "delete_file", "feature": "B"},
]
FINAL = {  # the whole manifest applied at once
    "opt.py": "try:\n    from ext import fast\nexcept ImportError as e:\n    fast = None\n",
    "shared.py": "import os\n\n\ndef live():\n    return 2\n",
    "only_a.txt": "one\nthree\n",
    "keep.py": "y = 2\n",
}


def run(*args: str | Path) -> tuple[int, str, str]:
    # (the real group: click keeps the first help option a command is given, so a stand-in
    # group would change `depgraph apply -h` for the tests after these)
    res = CliRunner().invoke(main, ["apply", *map(str, args)])
    return res.exit_code, res.stdout, res.stderr


def snapshot(base: Path) -> dict[str, bytes]:
    return {p.relative_to(base).as_posix(): p.read_bytes()
            for p in sorted(base.rglob("*")) if p.is_file()}


def sources(root: Path) -> dict[str, str]:
    """The tree without depgraph's own files."""
    return {k: v.decode() for k, v in snapshot(root).items()
            if k != STATE and not k.startswith("depgraph-apply-")}


def make(tmp_path: Path, entries: list[dict] = ENTRIES, name: str = "t") -> tuple[Path, Path]:
    root = write_tree(tmp_path / name, dict(FILES))
    deletions = []
    for e in entries:
        full = {"kind": "delete_range", "lines": 1, "category": "", "reason": "test", **e}
        full["sha256"] = sha256((root / full["path"]).read_bytes())
        deletions.append(full)
    manifest = tmp_path / f"{name}-manifest.json"
    manifest.write_text(json.dumps({
        "schema_version": 1, "tool": {"name": "depgraph", "version": "0"}, "root": str(root),
        "roots": [], "totals": {}, "deletions": deletions,
        "build": {"dead_targets": [], "fetches_no_longer_needed": [], "dead_ops": [],
                  "translation_units_removed": 0}}))
    return root, manifest


def ok(*args: str | Path) -> str:
    code, _, err = run(*args)
    assert code == 0, err
    return err


# -- a second run ---------------------------------------------------------------------------
@pytest.mark.parametrize(("first", "second"), [
    (None, None), ("p1", "p1"), ("p1", "p2"), ("p1", None), (None, "p2")])
def test_second_run_says_already_applied_and_writes_nothing(
        tmp_path: Path, first: str | None, second: str | None) -> None:
    root, manifest = make(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    err = ok(manifest, "--write", *(["--patch-out", out / first] if first else []))
    assert "warning: opt.py:1: try_unwrap left as it is" in err
    assert sources(root) == FINAL
    state = json.loads((root / STATE).read_text())
    assert state["format"] == "depgraph-apply-state" and set(state["files"]) == {
        "opt.py", "shared.py", "only_a.txt", "only_b.py"}
    tree, patches = snapshot(root), snapshot(out)
    assert len(patches) == (1 if first else 0)
    assert len([p for p in tree if p.startswith("depgraph-apply-")]) == (0 if first else 1)

    code, stdout, err = run(manifest, "--write", *(["--patch-out", out / second]
                                                   if second else []))
    assert code == 0, err
    assert stdout == "" and "warning" not in err
    assert f"already applied: {len(ENTRIES)} entries; nothing to change" in err
    assert snapshot(root) == tree  # the state file too: nothing written
    assert snapshot(out) == patches  # no new patch, the old one not overwritten

    code, stdout, err = run(manifest)  # a dry run agrees
    assert (code, stdout) == (0, "") and "already applied" in err


def test_only_a_skipped_entry_records_it_and_writes_no_patch(tmp_path: Path) -> None:
    root, manifest = make(tmp_path, ENTRIES[:1])
    err = ok(manifest, "--write", "--patch-out", tmp_path / "u.patch")
    assert "warning: opt.py:1: try_unwrap left as it is" in err
    assert "nothing to change: 1 entries left as they are" in err
    assert not (tmp_path / "u.patch").exists()
    assert sources(root) == FILES
    step = json.loads((root / STATE).read_text())["files"]["opt.py"]
    assert len(step) == 1 and step[0]["before"] == step[0]["after"]
    assert step[0]["applied"] == [] and len(step[0]["skipped"]) == 1
    tree = snapshot(root)
    err = ok(manifest, "--write", "--patch-out", tmp_path / "u.patch")
    assert "already applied: 1 entries" in err and "warning" not in err
    assert snapshot(root) == tree and not (tmp_path / "u.patch").exists()


def test_an_existing_patch_out_is_never_overwritten(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    patch = tmp_path / "undo.patch"
    patch.write_text("precious\n")
    tree = snapshot(root)
    code, _, err = run(manifest, "--write", "--patch-out", patch)
    assert code == 7 and "exists" in err and "never overwrites" in err
    assert snapshot(root) == tree and not (root / STATE).exists()
    assert patch.read_text() == "precious\n"


def test_a_lost_state_file_falls_back_on_the_patch_records(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    ok(manifest, "--write")
    (root / STATE).unlink()
    tree = snapshot(root)
    err = ok(manifest, "--write")
    assert "already applied: 6 entries" in err
    assert snapshot(root) == tree


def test_an_unusable_state_file_is_refused(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    (root / STATE).write_text("{not json")
    tree = snapshot(root)
    code, _, err = run(manifest, "--write")
    assert code == 7 and STATE in err and "remove it" in err
    assert snapshot(root) == tree


def test_undo_then_apply_again(tmp_path: Path) -> None:
    patch_cmd = shutil.which("patch")
    if patch_cmd is None:
        pytest.skip("patch(1) not installed")
    root, manifest = make(tmp_path)
    ok(manifest, "--write", "--patch-out", tmp_path / "u1.patch")
    subprocess.run([patch_cmd, "-R", "-p1", "-s", "-i", str(tmp_path / "u1.patch")],
                   cwd=root, check=True)
    assert sources(root) == FILES
    err = ok(manifest, "--write", "--patch-out", tmp_path / "u2.patch")
    assert "already applied" not in err and sources(root) == FINAL
    assert "already applied: 6" in ok(manifest, "--write")


# -- partial application ----------------------------------------------------------------------
def test_features_one_after_the_other(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    ok(manifest, "--write", "--feature", "A", "--patch-out", tmp_path / "a.patch")
    after_a = snapshot(root)
    assert sources(root)["shared.py"] == ("import os\n\n\ndef live():\n    return 2\n"
                                          "\n\ndef dead_b():\n    return 3\n")
    assert "only_b.py" in after_a
    err = ok(manifest, "--write", "--feature", "A", "--patch-out", tmp_path / "a2.patch")
    assert "already applied: 4 entries" in err
    assert snapshot(root) == after_a and not (tmp_path / "a2.patch").exists()

    # B's entry of shared.py: planned again from the scanned content (line numbers moved)
    err = ok(manifest, "--write", "--feature", "B", "--patch-out", tmp_path / "b.patch")
    assert "edited shared.py" in err and "deleted only_b.py" in err
    assert sources(root) == FINAL
    after_b = snapshot(root)
    for args in (["--feature", "A"], ["--feature", "B"], []):
        err = ok(manifest, "--write", *args, "--patch-out", tmp_path / "again.patch")
        assert "already applied" in err
        assert snapshot(root) == after_b and not (tmp_path / "again.patch").exists()

    patch_cmd = shutil.which("patch")
    if patch_cmd is None:
        pytest.skip("patch(1) not installed")
    for name in ("b.patch", "a.patch"):  # undo, newest first
        subprocess.run([patch_cmd, "-R", "-p1", "-s", "-i", str(tmp_path / name)], cwd=root,
                       check=True)
    assert sources(root) == FILES


def test_feature_then_the_whole_manifest(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    ok(manifest, "--write", "--feature", "A")
    err = ok(manifest, "--write")
    assert "(2 entries; 4 already applied)" in err
    assert sources(root) == FINAL
    tree = snapshot(root)
    assert "already applied: 6 entries" in ok(manifest, "--write")
    assert snapshot(root) == tree


def test_the_rest_of_a_file_needs_a_rescan_without_its_reverse_patch(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    ok(manifest, "--write", "--feature", "A", "--patch-out", tmp_path / "a.patch")
    (tmp_path / "a.patch").unlink()
    tree = snapshot(root)
    code, _, err = run(manifest, "--write")
    assert code == 7
    assert "applying the remaining entries of shared.py needs a re-scan" in err
    assert snapshot(root) == tree


def test_a_file_changed_by_hand_is_stale(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    ok(manifest, "--write", "--feature", "A")
    (root / "shared.py").write_text("changed = True\n")
    tree = snapshot(root)
    code, _, err = run(manifest, "--write")
    assert code == 7 and "stale manifest: shared.py changed since the scan" in err
    assert snapshot(root) == tree


# -- for verify ---------------------------------------------------------------------------------
def test_unapplied_entries(tmp_path: Path) -> None:
    root, manifest = make(tmp_path)
    data = json.loads(manifest.read_text())
    assert unapplied_entries(data, root) == []  # nothing applied yet
    ok(manifest, "--write", "--feature", "A")
    left = unapplied_entries(data, root)
    # feature B's entries are not expected yet: only A's skipped optional entry is reported
    assert [(p, line) for p, line, _ in left] == [("opt.py", 1)]
    assert left[0][2].startswith("fold_branch try_unwrap skipped: opt.py:1: try_unwrap left")
    ok(manifest, "--write")
    assert [(p, line) for p, line, _ in unapplied_entries(data, root)] == [("opt.py", 1)]


# -- reverse patches read back ----------------------------------------------------------------
def test_reverse_patch_hunks_undo_exactly(tmp_path: Path) -> None:
    old = (b"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n\\ odd\n"  # lines that look like a diff
           b"keep\r\nform\x0cfeed\n" + b"".join(b"line %d\n" % i for i in range(20))
           + b"gone\nlast")
    new = b"keep\r\nform\x0cfeed\n" + b"".join(b"line %d\n" % i for i in range(20) if i % 7)
    change = FileChange("x.py", old, new, [], sha256(old))
    text = unified_diff(change)
    assert text.count("\\ No newline at end of file") == 1
    hunks = apply_state.patch_sections(text)["x.py"]
    assert apply_state.unpatch(new, hunks) == old
    assert apply_state.unpatch(new.replace(b"line 8\n", b"line 8 edited\n"), hunks) is None
    gone = FileChange("x.py", old, None, [], sha256(old))
    assert apply_state.unpatch(b"", apply_state.patch_sections(unified_diff(gone))["x.py"]) \
        == old

    patch_cmd = shutil.which("patch")
    if patch_cmd is None:
        pytest.skip("patch(1) not installed")
    (tmp_path / "x.py").write_bytes(new)
    (tmp_path / "u.patch").write_text(text, encoding="utf-8", errors="surrogateescape")
    subprocess.run([patch_cmd, "-R", "-p1", "-s", "-i", "u.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "x.py").read_bytes() == old
