"""The layout's two rules for every module of ``analyzer/`` that no linter checks: a docstring
at the top saying its place in the pipeline, and at most 700 lines (issue 50's limit: a module
that outgrows it holds more than one job and is split, not let grow)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "analyzer"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 700


def test_the_package_is_found() -> None:
    # (a moved package would make the checks below pass on nothing)
    assert len(MODULES) > 100 and PACKAGE / "pipeline" / "scan.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_has_a_docstring_and_at_most_700_lines(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert ast.get_docstring(ast.parse(text)), f"{path.name}: no module docstring"
    lines = len(text.splitlines())
    assert lines <= MAX_LINES, f"{path.name}: {lines} lines (at most {MAX_LINES}: split it)"
