"""Shared, the checked cache file (``analyzer/util/cache_files.py``): ``<sha256 of the
payload>\\n<payload>``; anything that does not check out reads as missing; a write that fails
costs nothing but the cache."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from analyzer.util.cache_files import read_checked, write_checked


def test_round_trip_and_format(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "entry"  # folders are created
    write_checked(path, b"payload\nwith lines")
    assert read_checked(path) == b"payload\nwith lines"
    digest = hashlib.sha256(b"payload\nwith lines").hexdigest().encode()
    assert path.read_bytes() == digest + b"\npayload\nwith lines"


def test_empty_payload(tmp_path: Path) -> None:
    write_checked(tmp_path / "e", b"")
    assert read_checked(tmp_path / "e") == b""


@pytest.mark.parametrize("damage", [
    pytest.param(lambda raw: raw[:-1], id="truncated"),
    pytest.param(lambda raw: raw[:-1] + b"X", id="changed-payload"),
    pytest.param(lambda raw: b"0" * 64 + raw[64:], id="changed-digest"),
    pytest.param(lambda raw: raw.split(b"\n", 1)[1], id="no-digest-line"),
    pytest.param(lambda raw: b"", id="empty-file"),
])
def test_a_damaged_file_reads_as_missing(tmp_path: Path, damage) -> None:
    path = tmp_path / "entry"
    write_checked(path, b"some payload")
    path.write_bytes(damage(path.read_bytes()))
    assert read_checked(path) is None


def test_missing_file_reads_as_missing(tmp_path: Path) -> None:
    assert read_checked(tmp_path / "nope") is None


def test_a_write_that_cannot_happen_is_ignored(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    write_checked(blocker / "entry", b"x")  # its folder cannot be made: no exception
    assert read_checked(blocker / "entry") is None
    assert blocker.read_text() == "a file, not a folder"
