"""``ModuleIndex.resolved_once``: a tree-wide question answered by resolution (the classes
whose methods outside code may call, the subclasses of each class) is answered once for all
the copies a scan's rounds make (``with_dead_lines``), and again only for a copy whose folds
change a binding the answer read; a reused answer notes the re-exports it went through, as
resolving again would."""

from __future__ import annotations

from tests.graph.test_edge_memo import TREE
from tests.helpers import module_index


def _impl(index) -> str:
    """Where ``pkg.user``'s ``impl`` leads (``pkg.sel`` binds it in two branches)."""
    target = index.resolve_attr("pkg.sel", "impl")
    return f"{target.module}:{target.name}"


def test_answered_once_while_the_bindings_read_fold_alike(tmp_path):
    base = module_index(tmp_path, TREE)
    calls: list[int] = []

    def ask(index):
        calls.append(1)
        return _impl(index)

    first = base.with_dead_lines({})
    assert first.resolved_once("impl", lambda: ask(first)) == "pkg.b:fb"  # the last binding
    assert ("pkg.sel", "impl") in first.reexports_used
    # other folds (pkg.user's lines), pkg.sel's bindings alike: the answer is reused
    other = base.with_dead_lines({"pkg.user": [(5, 6)]})
    assert other.resolved_once("impl", lambda: ask(other)) == "pkg.b:fb"
    assert len(calls) == 1
    assert ("pkg.sel", "impl") in other.reexports_used  # noted as resolving would
    # the else arm folded: the binding that counts changed, so it is resolved again
    folded = base.with_dead_lines({"pkg.sel": [(5, 5)]})
    assert folded.resolved_once("impl", lambda: ask(folded)) == "pkg.a:fa"
    assert len(calls) == 2


def test_a_reused_answer_inside_a_recording_is_a_dependency_of_it(tmp_path):
    base = module_index(tmp_path, TREE)
    first = base.with_dead_lines({})
    first.resolved_once("impl", lambda: _impl(first))
    again = base.with_dead_lines({})
    with again.recording() as used:
        again.resolved_once("impl", lambda: _impl(again))
    assert ("order", "pkg.sel", "", "impl") in used
    assert ("reexport", "pkg.sel", "impl") in used
    assert ("pkg.sel", "impl") not in again.reexports_used  # the recording's, not the tree's
