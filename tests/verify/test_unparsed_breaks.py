"""A break of a file the original's scan never parsed counts only when it names what the
pruning touched (analyzer/verify/python._may_follow)."""

from __future__ import annotations

from analyzer.plan.check.breaks import Break
from analyzer.verify.python import _may_follow


def brk(module: str) -> Break:
    return Break("import", "pkg/models/other.py", 3, f"import of {module}: gone", module)


def test_a_break_naming_nothing_the_pruning_touched_was_there_before() -> None:
    # pkg.v1.missing never existed; the apply touched pkg.fa3 only
    assert not _may_follow(brk("pkg.v1.missing"), {"pkg.fa3"})


def test_a_break_naming_what_the_pruning_touched_counts() -> None:
    assert _may_follow(brk("pkg.fa3"), {"pkg.fa3"})  # the module deleted or edited
    assert _may_follow(brk("pkg"), {"pkg.fa3"})  # a package holding it
    assert _may_follow(brk("pkg.fa3.kernels"), {"pkg.fa3"})  # a module inside it
    assert _may_follow(brk(""), set())  # nothing named: kept
