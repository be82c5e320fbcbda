"""Codemod stage: ``depgraph apply`` on hand-made manifests over tiny trees: refusals (exit 7,
one line, nothing written), text edits, skipped rewrites (the sample end to end:
tests/e2e/test_apply_sample.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.codemod.apply import sha256
from tests.helpers import run_apply, snapshot, write_tree


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
    code, out, err = run_apply(manifest, "--write")
    assert code == 7, (code, out, err)
    assert err.startswith("depgraph: error: ") and needle in err
    assert len(err.strip().splitlines()) == 1
    assert snapshot(root) == before


def test_refuses_stale_file(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "b.txt"}, {"path": "a.py"}])
    (root / "a.py").write_text("import os\nx = 2\n")
    refused(root, manifest, "a.py")


@pytest.mark.parametrize(("entries", "needle"), [
    # "{root}" is the tree's absolute path
    pytest.param([{"path": "b.txt"}, {"path": "{root}/a.py", "sha256": "0" * 64}], "absolute",
                 id="absolute-path"),
    pytest.param([{"path": "b.txt"}, {"path": "x/../a.py", "sha256": "0" * 64}], "..",
                 id="dotdot"),
    pytest.param([{"path": "b.txt"}, {"path": "a.py", "start_line": 1, "end_line": 2},
                  {"path": "a.py", "start_line": 2, "end_line": 2}], "overlapping",
                 id="overlapping-entries"),
])
def test_refuses_entry(tmp_path: Path, entries: list[dict], needle: str) -> None:
    root = tmp_path / "t"
    entries = [{**e, "path": e["path"].replace("{root}", str(root))} for e in entries]
    root, manifest = tiny(tmp_path, entries)
    refused(root, manifest, needle)


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


def test_text_edits_keep_crlf_and_missing_final_newline(tmp_path: Path) -> None:
    root, manifest = tiny(tmp_path, [{"path": "c.cmake", "start_line": 2, "end_line": 2},
                                     {"path": "c.cmake", "start_line": 4, "end_line": 4}],
                          {"c.cmake": "a\r\nb\r\nc\r\nd"})
    code, _, err = run_apply(manifest, "--write")
    assert code == 0, err
    assert (root / "c.cmake").read_bytes() == b"a\r\nc"
    code, _, err = run_apply(manifest, "--write")
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
