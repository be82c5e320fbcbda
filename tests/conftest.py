"""Make the checkout's ``analyzer`` importable without installing it."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


_CACHE_HOME: list[str] = []


def pytest_configure(config) -> None:
    """CLI runs in tests cache under a throwaway folder, never the user's ~/.cache."""
    import os
    import tempfile

    _CACHE_HOME.append(tempfile.mkdtemp(prefix="depgraph-test-cache-"))
    os.environ["XDG_CACHE_HOME"] = _CACHE_HOME[-1]


def pytest_unconfigure(config) -> None:
    import shutil

    for folder in _CACHE_HOME:
        shutil.rmtree(folder, ignore_errors=True)
