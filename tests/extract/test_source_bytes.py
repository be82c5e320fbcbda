"""Extract stage: ``SourceBytes`` -- the scanned files' bytes read again when a later stage
asks, each read checked against the digest the scan read the file with."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from analyzer.errors import ScanError
from analyzer.extract.source_bytes import SourceBytes


def _tree(tmp_path: Path) -> SourceBytes:
    (tmp_path / "pkg").mkdir()
    files = {"pkg/a.py": b"import os\n", "pkg/b.py": b"x = 1\n"}
    for rel, data in files.items():
        (tmp_path / rel).write_bytes(data)
    return SourceBytes(tmp_path, {rel: hashlib.sha256(data).hexdigest()
                                  for rel, data in files.items()})


def test_reads_the_scanned_bytes(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    assert sources["pkg/a.py"] == b"import os\n"
    assert sources.get("pkg/b.py") == b"x = 1\n"
    assert sorted(sources) == ["pkg/a.py", "pkg/b.py"] and len(sources) == 2
    assert "pkg/a.py" in sources and "pkg/c.py" not in sources
    assert sources.get("pkg/c.py") is None  # not a scanned file
    with pytest.raises(KeyError):
        sources["pkg/c.py"]


def test_a_file_changed_since_the_scan_read_it_is_an_error(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    (tmp_path / "pkg/a.py").write_bytes(b"import sys\n")
    with pytest.raises(ScanError, match=r"pkg/a\.py: changed during the scan"):
        sources["pkg/a.py"]
    (tmp_path / "pkg/b.py").unlink()
    with pytest.raises(ScanError, match=r"pkg/b\.py: cannot be read again"):
        sources.get("pkg/b.py")


def test_pickles_without_the_bytes(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    assert sources["pkg/a.py"] == b"import os\n"  # (read once: kept among the recent)
    data = pickle.dumps(sources)
    assert b"import os" not in data
    again = pickle.loads(data)
    assert isinstance(again, SourceBytes) and again["pkg/a.py"] == b"import os\n"
    assert again.digest("pkg/b.py") == hashlib.sha256(b"x = 1\n").hexdigest()


def test_only_some_paths(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    some = sources.only(["pkg/b.py", "pkg/gone.py"])
    assert list(some) == ["pkg/b.py"] and some["pkg/b.py"] == b"x = 1\n"
    (tmp_path / "pkg/a.py").unlink()  # never read through `some`
    assert "pkg/a.py" not in some
