"""Decide stage, literal registries (``analyzer/decide/registries.py``): an entry under a key of
a dropped feature -- a dict entry, a choices element, an enum member (by name, lower-cased name
or value), a module-level ``register("key", ...)`` call -- makes no edges and is deleted (an
element sharing its line with others: the element only); blocked keys and cancelled entries
stay. Line numbers are counted in the sources below."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from analyzer.config.profile import load_profile_text
from analyzer.decide.profile_facts import ProfileUse, profile_use
from analyzer.decide.registries import RegistryOutcome, decide_registries
from analyzer.model import FileInfo
from tests.helpers import module_index

TREE = {
    "pkg/__init__.py": "",
    "pkg/backends.py": ('BACKENDS = {\n'                      # 1
                        '    "triton": Triton,\n'             # 2
                        '    "fa3": FlashAttn3,\n'            # 3
                        '}\n'                                 # 4
                        'CHOICES = ["triton", "fa3", "ascend"]\n'  # 5
                        'MORE = [\n'                          # 6
                        '    "triton",\n'                     # 7
                        '    "ascend",  # npu\n'              # 8
                        ']\n'),                               # 9
    "pkg/enums.py": ("import enum\n"                          # 1
                     "\n"                                     # 2
                     "\n"                                     # 3
                     "class Backend(enum.Enum):\n"            # 4
                     '    TRITON = "pkg.triton.Backend"\n'    # 5
                     '    FA3 = "pkg.fa3.Backend"\n'          # 6
                     '    NPU = "ascend"\n'),                 # 7
    "pkg/registry.py": ("class Registry:\n"
                        "    @staticmethod\n"
                        "    def register(name, handler):\n"
                        "        return handler\n"),
    "pkg/handlers.py": ("from pkg.registry import Registry\n"     # 1
                        "\n"                                      # 2
                        'Registry.register("fa3", object)\n'      # 3
                        'Registry.register("triton", object)\n'   # 4
                        "\n"                                      # 5
                        "\n"                                      # 6
                        "def later():\n"                          # 7
                        '    Registry.register("fa3", object)\n'),  # 8: not at module level
}

PROFILE = textwrap.dedent("""
    name = "t"
    registries = [
        { name = "backends", kind = "dict", target = "pkg.backends.BACKENDS" },
        { name = "choices", kind = "choices", target = "pkg.backends.CHOICES" },
        { name = "more", kind = "choices", target = "pkg.backends.MORE" },
        { name = "enum", kind = "enum", target = "pkg.enums.Backend" },
        { name = "calls", kind = "call", target = "pkg.registry.Registry.register" },
    ]

    [features.fa3]
    description = "fa3"
    registry_keys = { backends = ["fa3"], choices = ["fa3"], enum = ["fa3"], calls = ["fa3"] }

    [features.ascend]
    description = "ascend"
    registry_keys = { choices = ["ascend"], more = ["ascend"], enum = ["ascend"] }
    """).lstrip("\n")

SHA = "f" * 64


def decide(tmp_path: Path, use: ProfileUse,
           cancelled: frozenset[tuple[str, int]] = frozenset()) -> RegistryOutcome:
    index = module_index(tmp_path, TREE)
    files = {p: FileInfo(p, SHA, 9, "python") for p in TREE}
    return decide_registries(use, index, files, cancelled)


def brief(out: RegistryOutcome) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line, d.names, d.feature)
            for d in out.deletions}


@pytest.fixture
def use() -> ProfileUse:
    return profile_use(load_profile_text(PROFILE, "t.toml"), ("fa3", "ascend"))


def test_entries_of_dropped_keys_go(tmp_path: Path, use: ProfileUse) -> None:
    out = decide(tmp_path, use)
    assert brief(out) == {
        ("delete_range", "pkg/backends.py", 3, 3, (), "fa3"),  # a dict entry on its own line
        # two elements sharing line 5 with "triton": the elements only
        ("remove_list_element", "pkg/backends.py", 5, 5, ("fa3",), "fa3"),
        ("remove_list_element", "pkg/backends.py", 5, 5, ("ascend",), "ascend"),
        ("delete_range", "pkg/backends.py", 8, 8, (), "ascend"),  # a trailing comment is ok
        ("delete_range", "pkg/enums.py", 6, 6, (), "fa3"),  # FA3 -> "fa3"
        ("delete_range", "pkg/enums.py", 7, 7, (), "ascend"),  # by its value
        ("delete_range", "pkg/handlers.py", 3, 3, (), "fa3"),  # a module-level call
    }
    assert all(d.category == "registry-entry" and d.sha256 == SHA for d in out.deletions)
    # lines of entries alone on them make no edges; a shared line keeps its edges
    assert {m: sorted(r) for m, r in out.dead_lines.items()} == {
        "pkg.backends": [(3, 3), (8, 8)], "pkg.enums": [(6, 6), (7, 7)],
        "pkg.handlers": [(3, 3)]}
    assert {"path": "pkg/enums.py", "line": 6, "what": "enum[fa3]",
            "reason": "enum entry 'fa3' belongs to dropped feature fa3"} in out.decisions


def test_blocked_keys_stay(tmp_path: Path, use: ProfileUse) -> None:
    use.blocked_keys["fa3"] = "pkg/args.py:1: backend = 'fa3'"
    assert {d.feature for d in decide(tmp_path, use).deletions} == {"ascend"}


def test_cancelled_entries_stay(tmp_path: Path, use: ProfileUse) -> None:
    out = decide(tmp_path, use, frozenset({("pkg/enums.py", 6), ("pkg/handlers.py", 3)}))
    kept = {(d.path, d.start_line) for d in out.deletions}
    assert ("pkg/enums.py", 6) not in kept and ("pkg/handlers.py", 3) not in kept
    assert ("pkg/enums.py", 7) in kept
    assert "pkg.handlers" not in out.dead_lines


def test_nothing_dropped_nothing_decided(tmp_path: Path) -> None:
    for use in (profile_use(load_profile_text(PROFILE, "t.toml"), ()), profile_use(None, ())):
        out = decide(tmp_path, use)
        assert (out.deletions, out.dead_lines, out.decisions) == ([], {}, [])
