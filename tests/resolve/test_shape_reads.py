"""What resolution reads of the tree's shape (``analyzer/resolve/python.py``, kinds
``SHAPE_READS``): noted inside a module's edge recording, and noted alike when the answer
was first resolved outside one (the memo entry is made again), never noted elsewhere."""

from __future__ import annotations

from pathlib import Path

from analyzer.resolve.python import SHAPE_READS
from tests.helpers import module_index

TREE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def fa():\n    return 1\n",
    "pkg/reexp.py": "from pkg.a import fa\n",
}

# pkg.reexp.fa: is it a submodule (its name), is pkg.reexp an installed package; the binding
# `from pkg.a import fa`: the importer (a package or not), its folder's names for a script's
# sibling import (pkg, pkg.pkg), whether pkg is the tree's and pkg.a a module; then pkg.a.fa
EXPECTED = {("in", "pkg.reexp"), ("attr", "pkg.reexp", "fa"), ("in", "pkg"),
            ("in", "pkg.pkg"), ("top", "pkg"), ("in", "pkg.a"), ("attr", "pkg.a", "fa")}


def _shape_reads(used: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    return {d for d in used if d[0] in SHAPE_READS}


def test_an_edge_recording_notes_what_resolution_reads_of_the_shape(tmp_path: Path):
    index = module_index(tmp_path, TREE)
    with index.recording(shape=True) as used:
        target = index.resolve_attr("pkg.reexp", "fa")
    assert (target.kind, target.module, target.name) == ("symbol", "pkg.a", "fa")
    assert _shape_reads(used) == EXPECTED


def test_an_answer_first_resolved_outside_a_recording_notes_its_reads_inside_one(
        tmp_path: Path):
    index = module_index(tmp_path, TREE)
    index.resolve_attr("pkg.reexp", "fa")  # (the plan stage, say: nothing noted)
    with index.recording(shape=True) as used:
        index.resolve_attr("pkg.reexp", "fa")
    assert _shape_reads(used) == EXPECTED
    with index.recording(shape=True) as again:  # (now a hit made with them)
        index.resolve_attr("pkg.reexp", "fa")
    assert _shape_reads(again) == EXPECTED


def test_other_recordings_note_nothing_of_the_shape(tmp_path: Path):
    index = module_index(tmp_path, TREE)
    with index.recording() as used:
        index.resolve_attr("pkg.reexp", "fa")
    assert _shape_reads(used) == set()
    assert ("module", "pkg.a") in used  # (the facts it read, as always)
