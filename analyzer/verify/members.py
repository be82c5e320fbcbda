"""Verify stage, Python methods: a name code reads as an attribute (``x.name``,
``getattr(x, "name")``) that the original tree defined as a method of a class that still
exists and the pruned tree defines nowhere.

Method deletions (``py:<module>:<Class>.<method>``) rest on a name-based rule: a method stays
while anything that remains reads its name. This check re-reads the pruned tree with the same
extractor and compares it with ``member_baseline`` (recorded from the original, in the
manifest as ``verify_baseline_members``): every method name a class of the original defined
that the pruned tree still reads, that no class defines any more while one of those classes
still exists, is reported where it is read. A name defined by code this extractor does not see as a
definition (a nested class's method) is in neither set: never reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analyzer.nodes import symbol_node
from analyzer.plan.check.breaks import Break
from analyzer.verify.problem import VerifyProblem, problem_of

if TYPE_CHECKING:
    from analyzer.analysis.liveness import Liveness
    from analyzer.resolve.python import ModuleIndex
    from analyzer.result import ScanResult


def defined_members(index: ModuleIndex) -> dict[str, list[str]]:
    """Method name -> the classes (``module:Class``) that define it (methods of top-level
    classes). Attributes a method assigns are not counted: one assigned only in a folded
    branch goes with code that never runs, and its name is read on objects of every kind."""
    out: dict[str, set[str]] = {}
    for name, mod in index.modules.items():
        classes: dict[str, str] = {}  # (one string a class, whatever its methods' number)
        for m in mod.facts.method_defs:
            owner = classes.get(m.cls)
            if owner is None:
                owner = classes[m.cls] = f"{name}:{m.cls}"
            out.setdefault(m.name, set()).add(owner)
    return {k: sorted(v) for k, v in out.items()}


def member_baseline(result: ScanResult) -> dict[str, list[str]]:
    """Method name -> ``module:Class`` defining it, and public top-level function or class
    name -> ``module`` defining it (no colon): what ``check_members`` and
    ``check_module_values`` compare the pruned tree with."""
    out = defined_members(result.index)
    for name, mod in result.index.modules.items():
        for d, kind in mod.defs.items():
            if kind in ("function", "class") and not d.startswith("_"):
                out.setdefault(d, []).append(name)
    return {k: sorted(set(v)) for k, v in out.items()}


def check_module_values(result: ScanResult, baseline: dict[str, list[str]] | None
                        ) -> list[VerifyProblem]:
    """A module live code uses as a value (``CMD_MODULES = [cli.serve]``, then
    ``m.cmd_init()``) that lost a public definition of the original whose name code that
    remains reads as an attribute."""
    if not baseline:
        return []
    graph, live, index = result.graph, result.liveness, result.index
    valued = {graph.nodes[v].get("module") for u, v, data in graph.edges(data=True)
              if data.get("kind") == "module_value" and live.is_live(u)}
    lost: dict[str, str] = {}
    for name, where in baseline.items():
        for module in where:
            mod = index.modules.get(module) if ":" not in module else None
            if module in valued and mod is not None and name not in mod.defs:
                lost.setdefault(name, module)
    out: list[VerifyProblem] = []
    for module in sorted(index.modules):
        mod = index.modules[module]
        if not live.is_live(f"py:{module}") or lost.keys().isdisjoint(mod.facts.member_names):
            continue
        for use in mod.facts.member_uses:
            if use.name in lost:
                out.append(problem_of(Break(
                    "module-value", mod.path, use.lines[0],
                    f"reads .{use.name}, which module {lost[use.name]} (used as a value) "
                    "defined in the original tree and does not define now",
                    lost[use.name], use.name)))
    return out


def check_members(result: ScanResult, baseline: dict[str, list[str]] | None
                  ) -> list[VerifyProblem]:
    """Reads of a name a class that still exists defined in the original and no class
    defines now (a method deleted from a class that stays). Names only deleted classes
    defined are not reported: no instance of them can exist (a remaining use of the class
    itself is an undefined name or a broken import, reported by the other checks)."""
    if not baseline:
        return []
    index = result.index
    now = defined_members(index)

    def exists(qualified: str) -> bool:
        module, _, cls = qualified.partition(":")
        mod = index.modules.get(module)
        return mod is not None and mod.defs.get(cls) == "class"

    lost = {name: [c for c in classes if ":" in c and exists(c)]
            for name, classes in baseline.items() if name not in now}
    lost = {name: classes for name, classes in lost.items() if classes}
    out: list[VerifyProblem] = []
    for module in sorted(index.modules):
        mod = index.modules[module]
        if lost.keys().isdisjoint(mod.facts.member_names):
            continue
        for use in mod.facts.member_uses:
            if use.name in lost:
                out.append(problem_of(Break(
                    "member", mod.path, use.lines[0],
                    f"reads .{use.name}, which {lost[use.name][0]} defined in the original "
                    "tree and no class defines now", name=use.name)))
    return out


def enumerated_subclasses(result: ScanResult) -> dict[str, list[str]]:
    """Class node -> its direct subclasses' nodes, for each class that live code enumerates
    with ``Base.__subclasses__()``."""
    from analyzer.graph.python_nodes import subclass_index

    subclasses = subclass_index(result.index)
    if not subclasses:
        return {}
    return {base: sorted(symbol_node(m, n) for m, n in subclasses.get(base, ()))
            for base, _path, _line in _enumerations(result.index, result.liveness)}


def _enumerations(index: ModuleIndex, live: Liveness) -> list[tuple[str, str, int]]:
    """(class node, path, line) of each ``Base.__subclasses__`` read in live code."""
    from analyzer.graph.python_nodes import enumerated_class

    out: list[tuple[str, str, int]] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        for ref in mod.facts.references:
            base = enumerated_class(index, name, ref.scope, ref.chain)
            if base is not None and live.is_live(
                    f"py:{name}:{ref.scope}" if ref.scope else f"py:{name}"):
                out.append((base, mod.path, ref.line))
    return out


def check_subclasses(result: ScanResult, baseline: dict[str, list[str]] | None
                     ) -> list[VerifyProblem]:
    """``Base.__subclasses__()`` in live code that now misses a subclass the original had:
    the registration that importing the subclass made is gone."""
    if not baseline:
        return []
    now = enumerated_subclasses(result)
    out: list[VerifyProblem] = []
    for base, path, line in _enumerations(result.index, result.liveness):
        lost = sorted(set(baseline.get(base, ())) - set(now.get(base, ())))
        if lost:
            out.append(problem_of(Break(
                "subclass", path, line,
                f"{base.removeprefix('py:')}.__subclasses__() no longer finds "
                f"{', '.join(x.removeprefix('py:') for x in lost)} (a subclass in the "
                "original tree)", base, " ".join(lost))))
    return out
