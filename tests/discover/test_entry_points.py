"""The entry points a repository declares (``analyzer/discover/entry_points.py``): scripts and
entry-point groups of ``pyproject.toml``, ``[options.entry_points]`` of ``setup.cfg``; extras
(``[cli]``) are not part of the target; bad files are problems, never exceptions."""

from __future__ import annotations

import pytest

from analyzer.discover.entry_points import EntryPoint, extract


def test_pyproject_scripts_gui_scripts_and_groups() -> None:
    text = b"""
[project]
name = "demo"

[project.scripts]
demo = "demo.cli:main"
demo-extra = "demo.cli:extra [cli]"

[project.gui-scripts]
demo-gui = "demo.gui:run"

[project.entry-points."demo.plugins"]
fast = "demo.plugins.fast"
"""
    points, problems = extract("pyproject.toml", text)
    assert problems == []
    assert points == [
        EntryPoint("console_scripts", "demo", "demo.cli:main", "pyproject.toml"),
        EntryPoint("console_scripts", "demo-extra", "demo.cli:extra", "pyproject.toml"),
        EntryPoint("gui_scripts", "demo-gui", "demo.gui:run", "pyproject.toml"),
        EntryPoint("demo.plugins", "fast", "demo.plugins.fast", "pyproject.toml"),
    ]


def test_setup_cfg() -> None:
    text = b"""
[metadata]
name = demo

[options.entry_points]
console_scripts =
    demo = demo.cli:main
    demo-x = demo.cli:x [extra]
demo.plugins =
    slow = demo.plugins.slow
"""
    points, problems = extract("sub/setup.cfg", text)
    assert problems == []
    assert [(p.group, p.name, p.value, p.source) for p in points] == [
        ("console_scripts", "demo", "demo.cli:main", "sub/setup.cfg"),
        ("console_scripts", "demo-x", "demo.cli:x", "sub/setup.cfg"),
        ("demo.plugins", "slow", "demo.plugins.slow", "sub/setup.cfg"),
    ]


@pytest.mark.parametrize(("path", "data"), [
    pytest.param("pyproject.toml", b'[project]\nname = "x"\n', id="pyproject-without-scripts"),
    pytest.param("pyproject.toml", b"[tool.black]\nline-length = 100\n", id="no-project-table"),
    pytest.param("pyproject.toml", b'project = "not a table"\n', id="project-not-a-table"),
    pytest.param("setup.cfg", b"[metadata]\nname = x\n", id="setup-cfg-without-entry-points"),
])
def test_nothing_declared(path: str, data: bytes) -> None:
    assert extract(path, data) == ([], [])


@pytest.mark.parametrize(("path", "data", "kind"), [
    pytest.param("pyproject.toml", b"[project\n", "syntax-error", id="invalid-toml"),
    pytest.param("setup.cfg", b"no section header\n", "syntax-error", id="invalid-setup-cfg"),
    pytest.param("pyproject.toml", b'[project]\nname = "\xe9"\n', "invalid-utf8",
                 id="not-utf8"),
])
def test_bad_files_are_problems(path: str, data: bytes, kind: str) -> None:
    points, problems = extract(path, data)
    assert points == []
    assert [(p.path, p.kind) for p in problems] == [(path, kind)]
