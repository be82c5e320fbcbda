"""Make the checkout's ``analyzer`` importable without installing it."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_configure(config) -> None:
    """CLI runs in tests cache under a throwaway folder, never the user's ~/.cache."""
    import os
    import tempfile

    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="depgraph-test-cache-")
