"""Pipeline, the evaluated CMake project kept in the facts cache (``evaluate_cmake`` in
``analyzer/resolve/tree.py``): read back while the CMake files' bytes, the set of paths and
the forced options are those of the last evaluation; evaluated afresh when any changes.
Expectations from sample_repos/cmake_option_fold/CMakeLists.txt (foo_ops is created under
``if(ENABLE_FOO)``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from analyzer.core.session import session
from analyzer.extract.cmake import extract
from analyzer.model import FileInfo
from analyzer.resolve import tree as tree_stage
from tests.helpers import SAMPLES

LISTS = "CMakeLists.txt"



@pytest.fixture(autouse=True)
def _stored(tmp_path: Path) -> Iterator[None]:
    """Every test here runs in one session storing under its folder (scans come and go,
    the store outlives them)."""
    with session(tmp_path):
        yield

def _inputs(data: bytes, extra: tuple[str, ...] = ()):
    info = FileInfo(LISTS, hashlib.sha256(data).hexdigest(), data.count(b"\n"), "cmake")
    files = {LISTS: info, "csrc/core.cc": FileInfo("csrc/core.cc", "0", 1, "cuda"),
             **{p: FileInfo(p, "0", 1, "cuda") for p in extra}}
    return {LISTS: extract(LISTS, data)}, files


def _counted_evaluations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The forced options of each evaluation from now on (read back: none)."""
    evaluations: list[object] = []
    real = tree_stage.cmake_eval.evaluate

    def counted(*args, **kwargs):
        evaluations.append(kwargs.get("options"))
        return real(*args, **kwargs)

    monkeypatch.setattr(tree_stage.cmake_eval, "evaluate", counted)
    return evaluations


def test_the_project_is_read_back_until_an_input_changes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    data = (SAMPLES / "cmake_option_fold" / LISTS).read_bytes()
    facts, files = _inputs(data)
    off = tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert {t.name: t.off is not None for t in off.targets} == {"foo_ops": True,
                                                                "core_ops": False}

    evaluations = _counted_evaluations(monkeypatch)
    again = tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert evaluations == [] and again == off  # nothing changed: read back
    # other forced options: evaluated, and foo_ops is built
    on = tree_stage.evaluate_cmake(facts, files, None)
    assert evaluations == [None] and {t.name: t.off for t in on.targets}["foo_ops"] is None
    # one more path (a file(GLOB) could match it): evaluated
    facts, files = _inputs(data, ("csrc/new.cc",))
    tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert len(evaluations) == 2
    # other bytes: evaluated, and the edit shows (core_ops renamed)
    facts, files = _inputs(data.replace(b"core_ops", b"base_ops"))
    renamed = tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert len(evaluations) == 3 and "base_ops" in {t.name for t in renamed.targets}


def test_the_project_a_plan_leaves_is_read_back_too(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.model import Deletion, Plan
    from analyzer.plan.check.native_view import Build, _planned_build
    from analyzer.plan.check.view import PythonView
    from analyzer.resolve.python import ModuleIndex

    data = (SAMPLES / "cmake_option_fold" / LISTS).read_bytes()
    facts, files = _inputs(data)
    # the plan removes the `if(ENABLE_FOO)` block (lines 13-19): foo_ops is gone
    plan = Plan([Deletion("delete_range", LISTS, files[LISTS].sha256, 7, "dropped", 13, 19)])
    index = ModuleIndex([])
    view = PythonView(index)

    def build() -> Build:  # (each scan makes its own; the cache outlives them)
        return Build(facts, {}, frozenset(files), {p: f.lines for p, f in files.items()},
                     {LISTS: data}, {}, digests={LISTS: files[LISTS].sha256})

    evaluations = _counted_evaluations(monkeypatch)
    first = _planned_build(plan, build(), index, view)
    assert len(evaluations) == 1
    assert {t.name for t in first.project.targets} == {"core_ops"}
    again = _planned_build(plan, build(), index, view)
    assert len(evaluations) == 1  # the next scan reads it back
    assert again.project == first.project
    # another plan (nothing removed): another project, evaluated
    other = _planned_build(Plan([]), build(), index, view)
    assert len(evaluations) == 2 and {t.name for t in other.project.targets} == {
        "core_ops", "foo_ops"}
