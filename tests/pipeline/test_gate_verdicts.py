"""The gate's verdicts kept between scans (``analyzer.pipeline.gate_verdicts``): the gate
takes from the store what verify reported on the same manifest applied to a tree the copy's
scan reads alike, instead of applying and scanning a copy again; or, once it applied the
manifest, what verify reported on a copy read alike, instead of scanning it.

On sample_repos/what_frees (see tests/plan/test_what_frees.py), read by hand: the plan deletes
app/flashmla_backend.py, lines 18-22 of app/backends.py and two functions of
app/flashmla_kernels.py; it leaves app/main.py alone. The manifest carries the sha256 of the
three files it edits or deletes, and a fingerprint of every file's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analyzer.pipeline.gate import CopyToVerify
from analyzer.pipeline.gate_verdicts import verdict_key
from analyzer.pipeline.scan import run_scan
from analyzer.result import ScanResult
from tests.helpers import SAMPLES, scanned_copy, store_entries


@pytest.fixture
def copies_verified(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots of the trees whose applied copy the gate verified, in this process (one
    job: the copy is verified here)."""
    verified: list[Path] = []
    real = CopyToVerify.problems

    def problems(self: CopyToVerify, settings: Any) -> Any:
        verified.append(self.root)
        return real(self, settings)

    monkeypatch.setattr(CopyToVerify, "problems", problems)
    return verified


@pytest.fixture
def copies_scanned(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The applied copies verify scanned, in this process (one job)."""
    import analyzer.pipeline.verify as verify

    scanned: list[Path] = []
    real = verify.verify_scan

    def verify_scan(path: Path, *args: Any, **kwargs: Any) -> Any:
        scanned.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(verify, "verify_scan", verify_scan)
    return scanned


def _answer(result: ScanResult) -> tuple[object, ...]:
    """Every field of every deletion, each feature's row, the rounds' log and the baseline
    the manifest carries (what the gate's verdict lets through)."""
    return (sorted((d.kind, d.path, d.sha256, d.lines, d.start_line, d.end_line, d.reason,
                    d.features, d.with_features, d.after) for d in result.plan.deletions),
            [(f.name, f.files_removable, f.lines_removable, len(f.blocked))
             for f in result.features],
            [str(c) for c in result.conflicts], result.verified)


def _rescanned(tree: Path, cache: Path, copies_verified: list[Path]
               ) -> tuple[ScanResult, int]:
    """The scan of ``tree`` again with ``cache``, with how many copies the gate verified;
    checked to answer as a scan from nothing (no cache) does."""
    copies_verified.clear()
    again = run_scan(tree, [], cache_dir=cache)
    verified = len(copies_verified)
    assert _answer(again) == _answer(run_scan(tree, []))
    return again, verified


def test_a_comment_in_a_file_the_plan_leaves_keeps_the_verdict(
        tmp_path: Path, copies_verified: list[Path]) -> None:
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    assert len(copies_verified) == 1  # (the plan passed at once)
    kept = store_entries(cache, "verdicts")
    assert len(kept) == 2  # (under the tree's key and under its applied copy's)
    main = tree / "app" / "main.py"
    main.write_text(main.read_text() + "\n# started by the server\n")
    again, verified = _rescanned(tree, cache, copies_verified)
    assert verified == 0  # (not even applied: the tree reads alike, the manifest is the same)
    assert store_entries(cache, "verdicts") == kept
    assert again.verified is not None  # (the manifest is made: the plan passed)


def test_a_comment_in_a_file_the_plan_edits_keeps_the_copys_verdict(
        tmp_path: Path, copies_verified: list[Path], copies_scanned: list[Path]) -> None:
    # the manifest carries the file's sha256: another manifest, applied to a copy again;
    # the applied copy reads as the last one did (the comment stays at the end of the
    # pruned file), and its verdict is kept
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    assert len(copies_scanned) == 1
    kernels = tree / "app" / "flashmla_kernels.py"
    kernels.write_text(kernels.read_text() + "# edited\n")
    copies_scanned.clear()
    _, verified = _rescanned(tree, cache, copies_verified)
    assert verified == 1
    assert len(copies_scanned) == 1  # (the scan from nothing's, in _rescanned)
    assert len(store_entries(cache, "verdicts")) == 3  # (the tree's new key)


def test_a_line_of_code_verifies_the_copy_again(
        tmp_path: Path, copies_verified: list[Path], copies_scanned: list[Path]) -> None:
    # a new definition in the file the plan leaves alone: the tree reads otherwise
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    main = tree / "app" / "main.py"
    main.write_text(main.read_text() + "\nSTARTED = True\n")
    copies_scanned.clear()
    _, verified = _rescanned(tree, cache, copies_verified)
    assert verified == 1
    assert len(copies_scanned) == 2  # (the cached scan's and the scan from nothing's)


def test_without_a_cache_no_verdict_is_kept(tmp_path: Path,
                                            copies_verified: list[Path]) -> None:
    run_scan(SAMPLES / "what_frees", [])
    run_scan(SAMPLES / "what_frees", [])
    assert len(copies_verified) == 2


def _manifest() -> dict[str, Any]:
    return {"root": "/t", "tree": {"packages": [{"name": "app", "init": "app/__init__.py"}],
                                   "profile": None, "files": 2, "fingerprint": "f" * 64},
            "totals": {"python_lines": 10},
            "deletions": [{"kind": "delete_file", "path": "app/a.py", "sha256": "a" * 64}]}


def test_the_key_leaves_out_only_the_figures_of_the_whole_trees_bytes() -> None:
    base = verdict_key("t", _manifest())
    other_bytes = _manifest()
    other_bytes["tree"]["fingerprint"] = "0" * 64
    other_bytes["totals"]["python_lines"] = 11
    assert verdict_key("t", other_bytes) == base
    edited = _manifest()
    edited["deletions"][0]["sha256"] = "b" * 64
    assert verdict_key("t", edited) != base
    files = _manifest()
    files["tree"]["files"] = 3
    assert verdict_key("t", files) != base
    assert verdict_key("u", _manifest()) != base
