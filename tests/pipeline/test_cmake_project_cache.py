"""Pipeline, the evaluated CMake project kept in the facts cache (``evaluate_cmake`` in
``analyzer/resolve/tree.py``): read back while the CMake files' bytes and the forced options
are those of a kept evaluation and the set of paths gives the answers it read (whether each
source is in the tree, what each ``file(GLOB)`` matches); evaluated afresh when any changes.
Expectations from sample_repos/cmake_option_fold/CMakeLists.txt (foo_ops is created under
``if(ENABLE_FOO)`` from csrc/foo.cc; core_ops from csrc/core.cc, and csrc/foo_extra.cc
under ``if(ENABLE_FOO)``; no ``file(GLOB)``) and sample_repos/cmake_glob_reads/CMakeLists.txt
(``file(GLOB KERNELS csrc/*.cu)`` into the one target)."""

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
    real = tree_stage.cmake_eval.evaluate_reading

    def counted(*args, **kwargs):
        evaluations.append(kwargs.get("options"))
        return real(*args, **kwargs)

    monkeypatch.setattr(tree_stage.cmake_eval, "evaluate_reading", counted)
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
    # one more path that no command asks about (no file(GLOB), no source names it): the
    # evaluation read nothing that changed, so its project is read back
    facts, files = _inputs(data, ("csrc/new.cc",))
    assert tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False}) == off
    assert len(evaluations) == 1
    # csrc/foo.cc appears: the evaluation had asked whether foo_ops' source is in the tree
    # (no): evaluated, and the source now resolves to it
    facts, files = _inputs(data, ("csrc/foo.cc",))
    found = tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert len(evaluations) == 2
    assert _sources(off, "foo_ops") == [None] and _sources(found, "foo_ops") == ["csrc/foo.cc"]
    # other bytes: evaluated, and the edit shows (core_ops renamed)
    facts, files = _inputs(data.replace(b"core_ops", b"base_ops"))
    renamed = tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False})
    assert len(evaluations) == 3 and "base_ops" in {t.name for t in renamed.targets}
    # the paths of every kept evaluation are asked in turn: the first one's read back
    facts, files = _inputs(data)
    assert tree_stage.evaluate_cmake(facts, files, {"ENABLE_FOO": False}) == off
    assert len(evaluations) == 3


def _sources(project, target: str) -> list[str | None]:
    """The repository paths of ``target``'s sources (None: not in the tree)."""
    return [s.path for t in project.targets if t.name == target for s in t.sources]


def test_a_glob_answer_that_changes_evaluates_again(monkeypatch: pytest.MonkeyPatch) -> None:
    root = SAMPLES / "cmake_glob_reads"
    data = (root / LISTS).read_bytes()
    info = FileInfo(LISTS, hashlib.sha256(data).hexdigest(), data.count(b"\n"), "cmake")

    def files_of(*paths: str) -> dict[str, FileInfo]:
        return {LISTS: info, **{p: FileInfo(p, "0", 1, "cuda") for p in paths}}

    facts = {LISTS: extract(LISTS, data)}
    first = tree_stage.evaluate_cmake(facts, files_of("csrc/a.cu", "csrc/b.cu"), None)
    assert _sources(first, "glob_ops") == ["csrc/a.cu", "csrc/b.cu"]
    evaluations = _counted_evaluations(monkeypatch)
    # a header and a kernel one folder down: `csrc/*.cu` matches neither -- read back
    same = tree_stage.evaluate_cmake(
        facts, files_of("csrc/a.cu", "csrc/b.cu", "csrc/a.h", "csrc/sub/c.cu"), None)
    assert evaluations == [] and same == first
    # a kernel the pattern matches goes: evaluated, and the target lists one source
    fewer = tree_stage.evaluate_cmake(facts, files_of("csrc/a.cu"), None)
    assert len(evaluations) == 1 and _sources(fewer, "glob_ops") == ["csrc/a.cu"]
    # one it matches comes: evaluated
    more = tree_stage.evaluate_cmake(facts, files_of("csrc/a.cu", "csrc/b.cu", "csrc/d.cu"),
                                     None)
    assert len(evaluations) == 2
    assert _sources(more, "glob_ops") == ["csrc/a.cu", "csrc/b.cu", "csrc/d.cu"]
    # what is read back is what an evaluation from nothing gives
    assert same == tree_stage.cmake_eval.evaluate(
        dict(facts), frozenset(files_of("csrc/a.cu", "csrc/b.cu", "csrc/a.h", "csrc/sub/c.cu")))


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
