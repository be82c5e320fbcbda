"""Which CMake files a configure may read (analyzer/plan/check/native.read_cmake_files): a
.cmake file whose last include went is read by nothing, so its commands break nothing."""

from __future__ import annotations

from pathlib import Path

from analyzer.pipeline.scan import run_scan
from analyzer.plan.check.native import read_cmake_files


def tree(tmp_path: Path, top: str) -> Path:
    (tmp_path / "cmake").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.26)\nproject(p LANGUAGES CXX)\n" + top)
    (tmp_path / "cmake" / "used.cmake").write_text("set(A 1)\n")
    (tmp_path / "cmake" / "orphan.cmake").write_text("set(B 1)\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    return tmp_path


def test_a_cmake_file_nothing_includes_is_not_read(tmp_path: Path) -> None:
    result = run_scan(tree(tmp_path, "include(${CMAKE_CURRENT_LIST_DIR}/cmake/used.cmake)\n"),
                      [])
    assert read_cmake_files(result.native) == {"CMakeLists.txt", "cmake/used.cmake"}


def test_an_include_that_does_not_resolve_may_read_any_file(tmp_path: Path) -> None:
    result = run_scan(tree(tmp_path, "include(${SOMEWHERE}/helpers.cmake)\n"), [])
    assert read_cmake_files(result.native) == {
        "CMakeLists.txt", "cmake/used.cmake", "cmake/orphan.cmake"}
