"""Verify stage, the members baseline (``analyzer.verify.members``): method name -> the
classes defining it, public function or class name -> its module; each class named by one
string however many methods it defines (the baseline is held from the gate to the
manifest)."""

from __future__ import annotations

from pathlib import Path

from analyzer.verify.members import defined_members
from tests.helpers import module_index


def test_each_method_name_lists_its_classes_once_a_class(tmp_path: Path) -> None:
    index = module_index(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/attn.py": (
            "class FlashBackend:\n"
            "    def forward(self):\n        return 1\n"
            "    def init_metadata(self):\n        return 2\n"
            "class TritonBackend:\n"
            "    def forward(self):\n        return 3\n"
            "    def _private(self):\n        return 4\n"
            "def helper():\n    return 5\n"),
        "pkg/mla.py": ("class FlashBackend:\n"
                       "    def forward(self):\n        return 6\n"),
    })
    members = defined_members(index)
    assert members == {
        "forward": ["pkg.attn:FlashBackend", "pkg.attn:TritonBackend", "pkg.mla:FlashBackend"],
        "init_metadata": ["pkg.attn:FlashBackend"],
        "_private": ["pkg.attn:TritonBackend"],
    }
    # one string a class: the entries of FlashBackend's two methods are the same object
    assert members["forward"][0] is members["init_metadata"][0]
    assert members["forward"][1] is members["_private"][0]
