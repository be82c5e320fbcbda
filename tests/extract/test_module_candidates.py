"""``module_candidates``: the dotted names a module's facts may resolve through, each with
every prefix (expected values written from the source below)."""

from __future__ import annotations

from analyzer.extract.demand import module_candidates
from analyzer.extract.python import extract


def test_each_imported_name_and_attribute_chain_comes_with_its_prefixes() -> None:
    facts = extract("pkg/mod.py", b"import a.b.c\n"
                                  b"from x.y import z\n"
                                  b"import np_alias as n\n"
                                  b"n.linalg.norm(1)\n")
    names, walked = module_candidates("pkg.mod", False, facts)
    assert {"a", "a.b", "a.b.c", "x", "x.y", "x.y.z", "np_alias", "np_alias.linalg",
            "np_alias.linalg.norm"} <= names
    assert "pkg" in names  # its own package (an ancestor)
    assert not walked
