"""Plan stage, soundness: a Python tree as the checks of ``analyzer.plan.check.breaks`` see
it -- which modules remain, which lines of each are gone, which module-level names and class
attributes are gone -- built either from a plan (the tree it would leave, simulated from the
original: :func:`planned_view`) or from a pruned tree read back from disk and what the
manifest recorded of the original (:func:`pruned_view`, for ``depgraph verify``).

The checks ask only this view, so the plan's soundness check and verify run the same code on
the same questions; only where the answers come from differs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from analyzer.model import EXPRESSION_REWRITES, Deletion, Plan, Ranges, deletion_lines
from analyzer.plan.check.lint import FileLint
from analyzer.plan.check.simulate import FileSim
from analyzer.resolve.python import ModuleIndex, PyModule

_STATEMENT_EDITS = ("delete_range", "fold_branch")


@dataclass
class PythonView:
    """The remaining Python tree. ``index`` holds every module of the tree the view was made
    from (the original for a plan, the pruned tree for verify); ``deleted`` the modules the
    plan deletes (none on disk: a deleted file is simply not in the pruned index); ``gone``
    the lines of each remaining file the plan removes (none on disk); ``lost_names`` and
    ``lost_attrs`` the module-level names and class attributes that no longer exist (or no
    longer on every path: a binding that ran is gone while another remains); ``before`` and
    ``after`` the lints of each edited file."""

    index: ModuleIndex
    deleted: frozenset[str] = frozenset()
    gone: dict[str, Ranges] = field(default_factory=dict)
    # (line, chain or string) of expressions the plan removes inside lines it keeps:
    # registry elements, a folded comparison's member
    gone_elements: dict[str, set[tuple[int, str]]] = field(default_factory=dict)
    dropped_import_names: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    lost_names: dict[str, set[str]] = field(default_factory=dict)
    lost_attrs: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    before: dict[str, FileLint] = field(default_factory=dict)
    after: dict[str, FileLint] = field(default_factory=dict)
    # edited path -> its simulation (plan only): which deletion removed each binding
    sims: dict[str, FileSim] = field(default_factory=dict)
    # extension modules the original tree builds that the remaining build does not
    extensions_gone: frozenset[str] = frozenset()
    # (importer, module as written) -> the file beside the importer a bare import of a script
    # named in the original (a pruned tree read back from disk: the file may be gone, and the
    # name would then read as a third-party module)
    siblings: dict[tuple[str, str], str] = field(default_factory=dict)
    _namespaces: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)
    # name -> module_exists(name): a function of the index, ``deleted`` and
    # ``extensions_gone``, fixed when the view is made
    _exists: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)
    _lost_anywhere: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def remaining(self) -> Iterator[tuple[PyModule, Ranges | None]]:
        """Each module that remains, with the lines the plan removes from it."""
        for name in sorted(self.index.modules):
            mod = self.index.modules[name]
            if name not in self.deleted:
                yield mod, self.gone.get(mod.path)

    def module_exists(self, name: str) -> bool:
        """``name`` is a module, package or extension of the remaining tree."""
        known = self._exists.get(name)
        if known is None:
            known = self._exists[name] = self._module_exists(name)
        return known

    def _module_exists(self, name: str) -> bool:
        if not self.index.is_module(name) or name in self.extensions_gone:
            return False
        parts = name.split(".")
        if any(".".join(parts[:i]) in self.deleted for i in range(1, len(parts) + 1)):
            return False
        index = self.index
        if name in index.modules or name in index.extensions \
                or name in index.installed_packages or not self.deleted:
            return True
        # a namespace package (a folder without __init__.py) is there while a module under
        # it remains: deleting its last one leaves nothing to import
        known = self._namespaces.get(name)
        if known is None:
            known = self._namespaces[name] = any(
                m in index.modules and m not in self.deleted
                for m in index.submodules(name, recursive=True))
        return known

    def extension_gone(self, name: str) -> bool:
        """``name`` is an extension module the original builds and the remaining build
        does not."""
        return name in self.extensions_gone

    def lost_name(self, module: str, name: str) -> bool:
        """``module`` no longer binds ``name`` (on every path)."""
        return name in self.lost_names.get(module, ())

    def lost_attr(self, module: str, cls: str, name: str) -> bool:
        """Class ``cls`` of ``module`` no longer has the attribute ``name``."""
        return name in self.lost_attrs.get((module, cls), ())

    def lost_anywhere(self) -> frozenset[str]:
        """Every name lost from a module or a class (the chain check's quick test)."""
        known = self._lost_anywhere
        if known is None:
            known = self._lost_anywhere = frozenset().union(*self.lost_names.values(),
                                                            *self.lost_attrs.values())
        return known

    def removed(self, path: str, line: int) -> bool:
        ranges = self.gone.get(path)
        return ranges is not None and ranges.covers(line, line)

    @property
    def changed(self) -> frozenset[str]:
        """Modules the view deletes or that lost a name or class attribute."""
        return self.deleted | frozenset(self.lost_names) | frozenset(
            m for m, _ in self.lost_attrs)


def planned_view(plan: Plan, index: ModuleIndex, sims: dict[str, FileSim],
                 extensions_gone: frozenset[str] = frozenset()) -> PythonView:
    """The tree ``plan`` would leave: its deleted modules, removed lines and, from the
    simulations of its edited files (``sims``, by path), what each file no longer binds;
    ``extensions_gone``: the extension modules its build no longer makes."""
    deleted_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    view = PythonView(index, frozenset(index.by_path[p] for p in deleted_files
                                       if p in index.by_path), sims=sims,
                      extensions_gone=extensions_gone)
    for d in plan.deletions:
        if d.kind == "delete_file" or not d.path.endswith((".py", ".pyi")):
            continue
        if d.kind in _STATEMENT_EDITS and d.rewrite not in EXPRESSION_REWRITES \
                and d.start_line:
            for s, e in deletion_lines(d):
                view.gone.setdefault(d.path, Ranges()).add(s, e)
        elif d.kind == "remove_import_names" and d.start_line:
            view.dropped_import_names.setdefault((d.path, d.start_line), set()).update(d.names)
        if d.kind == "remove_list_element" and d.start_line:
            view.gone_elements.setdefault(d.path, set()).update(
                (d.start_line, n) for n in d.names)
            view.gone_elements[d.path].update(_strings_in(d.start_line, d.names))
        elif d.rewrite == "compare" and d.start_line and len(d.names) == 3:
            view.gone_elements.setdefault(d.path, set()).add((d.start_line, d.names[2]))
    for path, sim in sims.items():
        module = index.by_path.get(path)
        if sim.before is None or sim.after is None:
            continue
        view.before[path], view.after[path] = sim.before, sim.after
        if module is None:
            continue
        lost = lost_names(sim.before, sim.after, sim)
        if lost:
            view.lost_names[module] = lost
        for cls, attrs in lost_attrs(sim.before, sim.after).items():
            view.lost_attrs[(module, cls)] = attrs
    return view


def pruned_view(index: ModuleIndex, before: dict[str, FileLint],
                after: dict[str, FileLint], extensions_before: frozenset[str] = frozenset(),
                siblings: dict[tuple[str, str], str] | None = None) -> PythonView:
    """A pruned tree read back from disk (``index``: its re-scan) and the lints the manifest
    recorded of the original edited files (``before``) beside those of the files now
    (``after``); ``extensions_before``: the extension modules the original built;
    ``siblings``: the bare imports of scripts the original resolved to the file beside them
    (:func:`sibling_imports`)."""
    view = PythonView(index, before=before, after=after,
                      extensions_gone=extensions_before - frozenset(index.extensions),
                      siblings=dict(siblings or {}))
    for path, now in after.items():
        module = index.by_path.get(path)
        was = before.get(path)
        if module is None or was is None:
            continue
        lost = lost_names(was, now, None)
        if lost:
            view.lost_names[module] = lost
        for cls, attrs in lost_attrs(was, now).items():
            view.lost_attrs[(module, cls)] = attrs
    return view


def _strings_in(line: int, elements: tuple[str, ...]) -> set[tuple[int, str]]:
    """(line, value) of the string literals inside elements written as code (a call holding
    a test's path, from ``line`` on): gone with the element."""
    out: set[tuple[int, str]] = set()
    for element in elements:
        if "(" not in element:
            continue
        try:
            tree = ast.parse(element.strip(), mode="eval")
        except SyntaxError:
            continue
        out.update((line + node.lineno - 1, node.value) for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return out


def sibling_imports(index: ModuleIndex) -> dict[tuple[str, str], str]:
    """(importer, module as written) -> the module a bare import of a script names in
    ``index``: the file beside it (``from case_parser import ...`` in a script)."""
    out: dict[tuple[str, str], str] = {}
    for name in sorted(index.modules):
        for fact in index.modules[name].facts.imports:
            if fact.level == 0 and (absolute := index.absolute(name, fact)) is not None \
                    and absolute != fact.module:
                out[(name, fact.module)] = absolute
    return out


def lost_names(before: FileLint, after: FileLint, sim: FileSim | None) -> set[str]:
    """Module-level names gone, and names that lost a binding that ran while another remains
    (``if ok: from ext import Meta`` / ``else: class Meta`` losing its import: on that path
    the name is unbound). With a simulation, a binding only folded branches removed does not
    count (that branch never runs), and the blame narrows to the deletions that were no
    fold."""
    out = set(before.module_names - after.module_names)
    for name, n in before.binding_counts.items():
        now = after.binding_counts.get(name, 0)
        if not 0 < now < n:
            continue
        if sim is None:
            out.add(name)
            continue
        culprits = [d for d in sim.binders.get(name, ()) if d.kind != "fold_branch"]
        if culprits:
            out.add(name)
            sim.binders[name] = culprits
    return out


def lost_attrs(before: FileLint, after: FileLint) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for cls, names in before.class_attrs.items():
        lost = names - after.class_attrs.get(cls, frozenset())
        if lost:
            out[cls] = set(lost)
    return out


def deletions_covering(plan: Plan, path: str, line: int) -> list[Deletion]:
    """The plan's deletions that remove ``line`` of ``path`` (the whole file included)."""
    return [d for d in plan.deletions if d.path == path and (
        d.kind == "delete_file" or (d.start_line or 0) <= line <= (d.end_line or 0))]
