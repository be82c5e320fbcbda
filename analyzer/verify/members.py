"""Verify stage, Python attributes: a name code reads as an attribute (``x.name``,
``getattr(x, "name")``) that the original tree defined as a method or attribute and the
pruned tree defines nowhere.

Method deletions (``py:<module>:<Class>.<method>``) rest on a name-based rule: a method stays
while anything that remains reads its name. This check re-reads the pruned tree with the same
extractor and compares it with ``member_baseline`` (recorded from the original, in the
manifest as ``verify_baseline_members``): every attribute name the original defined -- methods
of top-level classes, ``self.x = ...`` targets, class-body names -- that the pruned tree
still reads but no longer defines is reported where it is read. A name defined by code this
extractor does not see as a definition (a nested class's method) is in neither set: never
reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analyzer.verify.problem import VerifyProblem

if TYPE_CHECKING:
    from analyzer.pipeline.scan import ScanResult
    from analyzer.resolve.python import ModuleIndex


def defined_members(index: ModuleIndex) -> set[str]:
    """Attribute names the tree defines: methods of top-level classes, assigned attributes
    (``self.x = ...``, ``obj.x = ...``) and names assigned in class bodies."""
    out: set[str] = set()
    for mod in index.modules.values():
        out.update(m.name for m in mod.facts.method_defs)
        out.update(a.attr for a in mod.facts.attr_assigns)
    return out


def member_baseline(result: ScanResult) -> list[str]:
    return sorted(defined_members(result.index))


def check_members(result: ScanResult, baseline: list[str] | None) -> list[VerifyProblem]:
    if not baseline:
        return []
    before = set(baseline)
    now = defined_members(result.index)
    gone = before - now
    out: list[VerifyProblem] = []
    if not gone:
        return out
    for name in sorted(result.index.modules):
        mod = result.index.modules[name]
        for use in mod.facts.member_uses:
            if use.name in gone:
                out.append(VerifyProblem(mod.path, use.lines[0], f"reads .{use.name}, which "
                                         "the original tree defined and the pruned tree "
                                         "defines nowhere"))
    return out
