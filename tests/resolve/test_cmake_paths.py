"""Resolve stage, CMake: what an evaluation reads of the tree's paths
(``analyzer/resolve/cmake_paths.py``). Expectations from
sample_repos/cmake_glob_reads/CMakeLists.txt: ``file(GLOB KERNELS "csrc/*.cu")`` and one
target, glob_ops, built from ``${KERNELS}``."""

from __future__ import annotations

from analyzer.extract.cmake import extract
from analyzer.resolve.cmake import evaluate_reading
from analyzer.resolve.cmake_paths import PathReads
from tests.helpers import SAMPLES

LISTS = "CMakeLists.txt"


def test_an_evaluation_reads_its_glob_and_the_sources_it_lists() -> None:
    data = (SAMPLES / "cmake_glob_reads" / LISTS).read_bytes()
    paths = {LISTS, "csrc/a.cu", "csrc/b.cu", "csrc/a.h", "csrc/sub/c.cu"}
    _project, reads = evaluate_reading({LISTS: extract(LISTS, data)}, frozenset(paths))
    assert reads.globs == ((("csrc/*.cu", False), ("csrc/a.cu", "csrc/b.cu")),)
    assert reads.members == (("csrc/a.cu", True), ("csrc/b.cu", True))
    # the answers hold for another tree that gives them, and only for such a tree
    assert reads.hold_for(paths - {"csrc/a.h", "csrc/sub/c.cu"})
    assert not reads.hold_for(paths - {"csrc/b.cu"})
    assert not reads.hold_for(paths | {"csrc/e.cu"})


def test_path_reads_answer_as_the_set_does_and_keep_each_answer() -> None:
    reads = PathReads(frozenset({"a/x.cu", "a/b/y.cu", "a/z.h"}))
    assert reads.glob("a/*.cu", False) == ("a/x.cu",)
    assert reads.glob("a/*.cu", True) == ("a/b/y.cu", "a/x.cu")
    assert "a/z.h" in reads and "a/missing.cu" not in reads
    kept = reads.reads()
    assert kept.globs == ((("a/*.cu", False), ("a/x.cu",)),
                          (("a/*.cu", True), ("a/b/y.cu", "a/x.cu")))
    assert kept.members == (("a/missing.cu", False), ("a/z.h", True))
