"""A module's own part (``analyzer.resolve.python.py_module``): its binding tables and the
values of its facts alone are made once per command and shared by every index built of the
same module -- the gate's copy of a tree takes the scan's for every file the plan left alone
-- while a file with other facts (an edited one) gets its own, and what depends on the index
stays per index."""

from __future__ import annotations

from analyzer.core.session import session
from analyzer.extract.python import extract
from analyzer.graph.python_nodes import module_nodes
from analyzer.resolve.python import ModuleIndex, py_module

SOURCE = b"import os\nfrom pkg import helper\n\n\ndef run():\n    return os.getcwd()\n"
EDITED = b"import os\n\n\ndef run():\n    return os.getcwd()\n"


def test_the_same_facts_share_the_tables_and_the_own_values_within_a_command() -> None:
    facts = extract("pkg/m.py", SOURCE)
    with session(None):
        first = py_module("pkg.m", "pkg/m.py", False, facts)
        index = ModuleIndex([first])
        nodes = module_nodes(first)
        again = py_module("pkg.m", "pkg/m.py", False, facts)
        copy = ModuleIndex([again])
    assert again is not first
    assert again.bindings is first.bindings and again.own is first.own
    assert module_nodes(again) is nodes
    # indexed once: a second index does not bind the imports again into the shared tables
    assert [imported for _fact, imported in copy.modules["pkg.m"].bindings["helper"]] \
        == ["helper"]
    assert len(index.modules["pkg.m"].bindings["os"]) == 1
    assert sorted(again.defs) == ["run"]
    # what depends on the index is each index's own
    assert again.derived is not first.derived


def test_other_facts_for_the_same_file_get_tables_of_their_own() -> None:
    with session(None):
        first = py_module("pkg.m", "pkg/m.py", False, extract("pkg/m.py", SOURCE))
        module_nodes(first)
        edited = py_module("pkg.m", "pkg/m.py", False, extract("pkg/m.py", EDITED))
    assert edited.bindings is not first.bindings and edited.own is not first.own
    assert sorted(edited.bindings) == ["os"]
    assert "helper" in first.bindings
    assert edited.own == {}


def test_another_module_name_or_no_session_shares_nothing() -> None:
    facts = extract("pkg/m.py", SOURCE)
    with session(None):
        first = py_module("pkg.m", "pkg/m.py", False, facts)
        renamed = py_module("m", "pkg/m.py", False, facts)
    assert renamed.own is not first.own and renamed.bindings is not first.bindings
    outside = py_module("pkg.m", "pkg/m.py", False, facts)
    later = py_module("pkg.m", "pkg/m.py", False, facts)
    assert later.own is not outside.own
    assert len(ModuleIndex([later]).modules["pkg.m"].bindings["os"]) == 1
