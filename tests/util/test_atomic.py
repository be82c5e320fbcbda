"""Shared, atomic writes (``analyzer/util/atomic.py``): a file is replaced whole or not at all,
keeps its mode, and leaves no temporary file behind; an exclusive write never overwrites."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analyzer.util.atomic import atomic_write, exclusive_write


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("sync", [True, False], ids=["synced", "unsynced"])
def test_atomic_write_creates_and_replaces(tmp_path: Path, sync: bool) -> None:
    path = tmp_path / "out.json"
    atomic_write(path, b"one", sync=sync)
    assert path.read_bytes() == b"one"
    atomic_write(path, b"two", sync=sync)
    assert path.read_bytes() == b"two"
    assert listing(tmp_path) == ["out.json"]


def test_atomic_write_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_bytes(b"old")
    path.chmod(0o750)
    atomic_write(path, b"new")
    assert path.stat().st_mode & 0o7777 == 0o750


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_bytes(b"before")
    with pytest.raises(TypeError):
        atomic_write(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"before"
    assert listing(tmp_path) == ["out.json"]


def test_exclusive_write_creates_once(tmp_path: Path) -> None:
    path = tmp_path / "undo.patch"
    exclusive_write(path, b"first")
    with pytest.raises(FileExistsError):
        exclusive_write(path, b"second")
    assert path.read_bytes() == b"first"
    assert listing(tmp_path) == ["undo.patch"]


def test_exclusive_write_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    def no_links(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "undo.patch"
    exclusive_write(path, b"first")
    assert path.read_bytes() == b"first"
    with pytest.raises(FileExistsError):
        exclusive_write(path, b"second")
    assert path.read_bytes() == b"first"
    assert listing(tmp_path) == ["undo.patch"]
