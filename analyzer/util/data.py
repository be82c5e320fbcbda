"""Shared: where depgraph's packaged data lives (queries, templates, the bundled sample repos):
inside the installed wheel first, the checkout second."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    """Folder of packaged data (``queries`` or ``templates``): wheel first, checkout second."""
    packaged = resources.files("analyzer") / name
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / name
