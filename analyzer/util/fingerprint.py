"""Shared: where depgraph keeps its cache folder. (What keys the entries in it -- the version
of the code each query runs -- is :mod:`analyzer.core.code_version`.)"""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "depgraph"
