"""Plan stage, soundness: the breaks of a plan (``analyzer.plan.check.breaks``, the checks
``depgraph verify`` runs too) and, for each, what to keep so that it goes away.

``check_plan`` simulates every Python file the plan edits, builds the view of the tree the
plan would leave, runs the checks, leaves out what the original tree already had (the same
break, line-free, in the ``baseline``) and blames each remaining break on the deletions that
caused it: the deletions whose removed code bound the missing name (else every edit of its
file), or the graph node to keep (a module the plan deletes, the definition an import or a
dotted string names). The rounds (``analyzer.pipeline.rounds``) feed the conflicts back until
there are none: a fixpoint in which every round only keeps more.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from analyzer.model import Deletion, Plan
from analyzer.nodes import module_node, target_node
from analyzer.plan.check.breaks import (
    Break,
    ModuleChecks,
    affected_modules,
    defined_methods,
    python_breaks,
)
from analyzer.plan.check.simulate import FileSim, simulate
from analyzer.plan.check.view import PythonView, planned_view
from analyzer.resolve.python import ModuleIndex

# (path, path -> bytes, the file's edits) -> the file simulated (its bytes read when needed)
Simulator = Callable[[str, Mapping[str, bytes], tuple[Deletion, ...]], FileSim]


@dataclass(frozen=True)
class Conflict:
    """A break of the plan, and what to keep so that it goes away."""

    path: str  # where the broken code is
    line: int
    what: str
    deletion: Deletion | None = None  # cancel this deletion ...
    root: str | None = None  # ... or keep this graph node ...
    option: str | None = None  # ... or leave this CMake option as the tree sets it ...
    keep_line: tuple[str, int] | None = None  # ... or this CMake command (line 0: the file)


def edits_by_path(plan: Plan) -> dict[str, tuple[Deletion, ...]]:
    """Each Python file the plan edits (not deletes) -> its edits, in plan order: what
    :func:`check_plan` simulates."""
    by_path: dict[str, list[Deletion]] = defaultdict(list)
    for d in plan.deletions:
        if d.kind != "delete_file" and d.path.endswith((".py", ".pyi")):
            by_path[d.path].append(d)
    return {path: tuple(edits) for path, edits in by_path.items()}


def original_breaks(index: ModuleIndex, per_module: ModuleChecks | None = None
                    ) -> Counter[tuple[str, str, str]]:
    """The breaks the tree has before any pruning (unresolved imports of optional packages,
    strings naming nothing): the baseline a plan's breaks are compared with."""
    return Counter(b.key for b in python_breaks(PythonView(index), per_module=per_module))


@dataclass(frozen=True)
class Unbuilt:
    """An extension module the plan's build no longer makes: its target, and the forced
    CMake options that turn it off (none: the plan deletes it, nothing live loading it)."""

    target: str
    options: tuple[str, ...] = ()


def plan_breaks(plan: Plan, index: ModuleIndex, sources: Mapping[str, bytes],
                baseline: Counter[tuple[str, str, str]],
                simulated: Simulator | None = None,
                unbuilt: dict[str, Unbuilt] | None = None,
                per_module: ModuleChecks | None = None) -> tuple[list[Break], PythonView]:
    """The breaks of ``plan`` the original tree (``baseline``) does not have, and the view
    of the tree the plan leaves (``unbuilt``: extension module -> why the build no longer
    makes it; ``per_module``: the module checks, kept between the checks of a scan --
    ``analyzer.plan.check.module_memo``)."""
    sims: dict[str, FileSim] = {}
    for path, edits in sorted(edits_by_path(plan).items()):
        if path in sources:
            sims[path] = (simulated or _simulate)(path, sources, edits)
    view = planned_view(plan, index, sims, frozenset(unbuilt or ()))
    deleted_methods = [d.symbol for d in plan.deletions if d.category == "python-symbol"
                       and d.symbol and "." in d.symbol.partition(":")[2]]
    # the member check compares the methods each class defines before and after: only the
    # names a deleted method or module defines can differ
    names = {s.rpartition(".")[2] for s in deleted_methods} | {
        m.name for name in view.deleted if name in index.modules
        for m in index.modules[name].facts.method_defs}
    found = python_breaks(view, affected_modules(view), defined_methods(index, names=names),
                          defined_methods(index, deleted_methods, view.deleted, names),
                          per_module)
    return new_breaks(found, baseline), view


def new_breaks(found: list[Break], baseline: Counter[tuple[str, str, str]]) -> list[Break]:
    """``found`` less as many breaks of each key as the baseline has."""
    left = Counter(baseline)
    out: list[Break] = []
    for b in found:
        if left[b.key] > 0:
            left[b.key] -= 1
            continue
        out.append(b)
    return out


def check_plan(plan: Plan, index: ModuleIndex, sources: Mapping[str, bytes],
               baseline: Counter[tuple[str, str, str]] | None = None,
               simulated: Simulator | None = None,
               unbuilt: dict[str, Unbuilt] | None = None,
               per_module: ModuleChecks | None = None) -> list[Conflict]:
    """The conflicts of ``plan`` with the code it leaves (``baseline``: the original tree's
    breaks, :func:`original_breaks`; computed when not given; ``per_module``: as
    :func:`plan_breaks`)."""
    if baseline is None:
        baseline = original_breaks(index, per_module)
    found, view = plan_breaks(plan, index, sources, baseline, simulated, unbuilt, per_module)
    out: list[Conflict] = []
    for b in found:
        out.extend(blame(b, plan, view, unbuilt or {}) or _blame_everything(b, plan, view))
    return list(dict.fromkeys(out))


def blame_found(b: Break, plan: Plan, view: PythonView,
                unbuilt: dict[str, Unbuilt] | None = None) -> list[Conflict]:
    """What to keep so that a break the full check found goes away (``depgraph verify``
    run on the applied plan: the gate, ``analyzer.pipeline.gate``): the checks' own breaks
    are blamed as :func:`blame` blames them; verify's other problems -- a file that no longer
    compiles, a module used as a value that lost a definition, a subclass
    ``__subclasses__()`` no longer finds, an entry the codemod could not carry out, a
    dropped key whose registry entries went while live code selects it -- on what made
    them; anything else on every edit of the files it involves."""
    def cancel(ds: list[Deletion]) -> list[Conflict]:
        return [Conflict(b.path, b.line, b.what, d) for d in ds]

    kind = b.kind
    if kind == "compile":
        found = cancel([d for d in plan.deletions if d.path == b.path])
    elif kind == "module-value":
        found = cancel([d for d in plan.deletions if d.symbol == f"{b.module}:{b.name}"])
    elif kind == "subclass":
        found = [Conflict(b.path, b.line, b.what, root=node) for node in b.name.split()]
    elif kind == "unapplied":
        found = cancel([d for d in plan.deletions
                        if d.path == b.path and (d.start_line or 1) == b.line])
    elif kind == "selected-key":
        found = cancel([d for d in plan.deletions if d.category == "registry-entry"
                        and f"entry {b.name!r} " in d.reason])
    else:
        found = blame(b, plan, view, unbuilt)
    return found or _blame_everything(b, plan, view)


def _blame_everything(b: Break, plan: Plan, view: PythonView) -> list[Conflict]:
    """A break no rule could pin on a deletion: every edit of the files it involves goes
    back, and the module it needs stays (the fixpoint must not leave a break behind)."""
    index = view.index
    paths = {b.path} | ({index.modules[b.module].path} if b.module in index.modules else set())
    out = [Conflict(b.path, b.line, b.what, d) for d in plan.deletions if d.path in paths
           and d.kind != "delete_file"]
    if b.module in index.modules:
        out.append(Conflict(b.path, b.line, b.what, root=module_node(b.module)))
    return out


def _simulate(path: str, sources: Mapping[str, bytes], edits: tuple[Deletion, ...]
              ) -> FileSim:
    return simulate(sources[path], list(edits), path)


# -- blame --------------------------------------------------------------------------------------
def blame(b: Break, plan: Plan, view: PythonView,
          unbuilt: dict[str, Unbuilt] | None = None) -> list[Conflict]:
    """What to keep so that break ``b`` goes away."""
    what = b.what
    if b.kind == "extension":  # the build must make it: options as the tree sets them
        fate = (unbuilt or {}).get(b.module)
        if fate is not None and fate.options:
            return [Conflict(b.path, b.line, what, option=o) for o in fate.options]
        return [Conflict(b.path, b.line, what, root=target_node(fate.target) if fate is not None
                         else module_node(b.module))]

    def cancel(ds: list[Deletion]) -> list[Conflict]:
        return [Conflict(b.path, b.line, what, d) for d in ds]

    def keep(node: str | None) -> list[Conflict]:
        return [Conflict(b.path, b.line, what, root=node)] if node else []

    if b.kind in ("undefined", "unbound"):
        sim = view.sims.get(b.path)
        return cancel(sim.culprits(b.name)) if sim is not None else []
    if b.kind == "raise":
        return cancel([d for d in plan.deletions if d.path == b.path
                       and d.kind == "fold_branch"])
    if b.kind == "member":
        return cancel([d for d in plan.deletions if d.category == "python-symbol" and d.symbol
                       and d.symbol.rpartition(".")[2] == b.name
                       and "." in d.symbol.partition(":")[2]])
    if b.kind == "string":
        return _blame_dotted(b, view, cancel, keep)
    # imports and chains: a module gone, or a name gone from a module
    out = keep(_deleted_prefix(view, f"{b.module}.{b.name}" if b.name else b.module))
    if b.name:
        out.extend(_blame_name(view, b.module, b.name, cancel, keep))
    return out


def _blame_name(view: PythonView, module: str, name: str,
                cancel: Callable[[list[Deletion]], list[Conflict]],
                keep: Callable[[str | None], list[Conflict]]) -> list[Conflict]:
    """Keep ``module.name``: the deletions that removed its binding in ``module`` (and in each
    module a re-export of it went through), and the definition it names."""
    index = view.index
    out: list[Conflict] = []
    mod = index.modules.get(module)
    lost = name in view.lost_names.get(module, ()) or any(
        name in attrs for (m, _cls), attrs in view.lost_attrs.items() if m == module)
    if mod is not None and (sim := view.sims.get(mod.path)) is not None and lost:
        out.extend(cancel(sim.culprits(name)))
    target = index.resolve_attr(module, name)
    for via in target.via:
        via_mod = index.modules.get(via)
        if via_mod is not None and (sim := view.sims.get(via_mod.path)) is not None \
                and via in view.lost_names:
            out.extend(cancel([d for n in view.lost_names[via] if n in sim.binders
                               for d in sim.binders[n]] or []))
    if target.kind in ("symbol", "module"):
        out.extend(keep(target.node))
    return out


def _blame_dotted(b: Break, view: PythonView,
                  cancel: Callable[[list[Deletion]], list[Conflict]],
                  keep: Callable[[str | None], list[Conflict]]) -> list[Conflict]:
    index = view.index
    target = index.resolve_dotted(b.module)
    out = keep(_deleted_prefix(view, target.module))
    if target.kind == "module" and target.module not in index.modules:
        # a namespace package the plan empties: its modules stay
        for sub in index.submodules(target.module, recursive=True):
            if sub in view.deleted:
                out.extend(keep(module_node(sub)))
    elif target.kind == "module":
        out.extend(keep(target.node))
    elif target.name:
        out.extend(_blame_name(view, target.module, target.name.split(".")[0], cancel, keep))
    return out


def _deleted_prefix(view: PythonView, dotted: str) -> str | None:
    """The graph node of the deepest module on ``dotted``'s path that the plan deletes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in view.deleted:
            return module_node(prefix)
    return None
