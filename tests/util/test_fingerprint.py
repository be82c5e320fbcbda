"""Shared, the cache folder (``analyzer/util/fingerprint.py``) and the packaged data
(``analyzer/util/data.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.util.data import data_dir
from analyzer.util.fingerprint import default_cache_dir


def test_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "depgraph"


@pytest.mark.parametrize("xdg", [None, ""], ids=["unset", "empty"])
def test_cache_dir_defaults_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                    xdg: str | None) -> None:
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / ".cache" / "depgraph"


@pytest.mark.parametrize(("folder", "files"), [
    pytest.param("queries", {"python.scm", "cuda.scm", "cmake.scm"}, id="queries"),
    pytest.param("templates", {"report.html.j2"}, id="templates"),
])
def test_packaged_data(folder: str, files: set[str]) -> None:
    found = data_dir(folder)
    assert found.is_dir() and found.name == folder
    assert files <= {p.name for p in found.iterdir()}
