"""Plan stage, soundness: each module's breaks kept between the checks of one scan.

A scan checks many plans: one per soundness round, then each dropped feature's share of the
last one (``analyzer.plan.feature_sets``). Between two of them most modules' own checks
(:func:`~analyzer.plan.check.breaks.module_breaks`: imports, strings, chains) ask the same
questions of the view and get the same answers. :class:`ModuleBreaks` records, per module, every
question its checks asked the view -- does a module exist, is an extension gone, is a name or
class attribute lost -- with the answer, what the view holds of the module's own file (the lines
removed, the elements and import names dropped), the chains' lost names it reads, and the
folds its resolution read (:meth:`ModuleIndex.recording`). A later check gives the module the
same breaks while every one of those answers is the same, and runs the checks again
otherwise: the same breaks a fresh check finds, at the cost of asking the recorded
questions again.

``depgraph verify`` runs the checks once, without this memo.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import starmap
from sys import intern

from analyzer.model import Ranges
from analyzer.plan.check.breaks import Break, chain_tails, module_breaks
from analyzer.plan.check.view import PythonView
from analyzer.resolve.python import PyModule

# a question the checks asked the view: ("module", name), ("extension", name),
# ("name", module, name) or ("attr", module, class, name)
Question = tuple[str, ...]


class _Asking(PythonView):
    """A view that notes each question asked of it (it shares the view's fields: made by
    :meth:`of`, never by the dataclass's constructor)."""

    asked: dict[Question, bool]

    @classmethod
    def of(cls, view: PythonView) -> _Asking:
        view.lost_anywhere()  # (kept by the view: every copy reads it)
        asking = object.__new__(cls)
        asking.__dict__.update(view.__dict__)
        asking.asked = {}
        return asking

    def module_exists(self, name: str) -> bool:
        answer = self.asked[("module", name)] = super().module_exists(name)
        return answer

    def extension_gone(self, name: str) -> bool:
        answer = self.asked[("extension", name)] = super().extension_gone(name)
        return answer

    def lost_name(self, module: str, name: str) -> bool:
        answer = self.asked[("name", module, name)] = super().lost_name(module, name)
        return answer

    def lost_attr(self, module: str, cls: str, name: str) -> bool:
        answer = self.asked[("attr", module, cls, name)] = super().lost_attr(module, cls, name)
        return answer


@dataclass(frozen=True, slots=True)
class _Record:
    """One module's breaks, and every answer they rest on (tuples of interned strings: a
    record is kept all along the scan, for thousands of modules)."""

    mod: PyModule
    local: tuple[object, ...]  # what the view and the folds hold of the module's own file
    # the questions asked, each kind by answer: modules that exist in the view and do not,
    # extensions gone and not, (module, name) pairs lost and not (flat: m1, n1, m2, n2...)
    exists: tuple[str, ...]
    missing: tuple[str, ...]
    extensions_gone: tuple[str, ...]
    extensions_built: tuple[str, ...]
    names_lost: tuple[str, ...]
    names_kept: tuple[str, ...]
    attrs: tuple[tuple[str, str, str, bool], ...]
    orders: Mapping[tuple[str, str, str], tuple[bool, ...]]
    breaks: tuple[Break, ...]

    def holds(self, view: PythonView, mod: PyModule, local: tuple[object, ...]) -> bool:
        """Every question has the answer it had."""
        if mod is not self.mod or local != self.local:
            return False
        exists, gone = view.module_exists, view.extension_gone
        lost_name, lost_attr = view.lost_name, view.lost_attr
        return (all(map(exists, self.exists)) and not any(map(exists, self.missing))
                and all(map(gone, self.extensions_gone))
                and not any(map(gone, self.extensions_built))
                and all(starmap(lost_name, _pairs(self.names_lost)))
                and not any(starmap(lost_name, _pairs(self.names_kept)))
                and all(lost_attr(m, c, n) is a for m, c, n, a in self.attrs)
                and view.index.same_orders(self.orders))

    @classmethod
    def of(cls, mod: PyModule, local: tuple[object, ...], asked: dict[Question, bool],
           orders: Mapping[tuple[str, str, str], tuple[bool, ...]],
           breaks: list[Break]) -> _Record:
        by: dict[tuple[str, bool], list[str]] = {(k, a): [] for k in ("module", "extension",
                                                                     "name") for a in (True, False)}
        attrs: list[tuple[str, str, str, bool]] = []
        for q, a in asked.items():
            if q[0] == "attr":
                attrs.append((intern(q[1]), intern(q[2]), intern(q[3]), a))
            else:
                by[(q[0], a)].extend(map(intern, q[1:]))
        return cls(mod, local, tuple(by[("module", True)]), tuple(by[("module", False)]),
                   tuple(by[("extension", True)]), tuple(by[("extension", False)]),
                   tuple(by[("name", True)]), tuple(by[("name", False)]), tuple(attrs), orders,
                   tuple(breaks))


def _pairs(flat: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    items = iter(flat)
    return zip(items, items, strict=True)


# records kept per module: the checks of one scan go through a few views in turn (the rounds'
# plans, then each dropped feature's share of the last one and the whole of it)
_VARIANTS = 4


@dataclass
class ModuleBreaks:
    """The breaks of each module at the last checks that ran its checks (see the module
    docstring); :meth:`__call__` answers :func:`module_breaks`."""

    records: dict[str, list[_Record]] = field(default_factory=dict)
    reused: int = 0  # modules answered from a record (since made)
    computed: int = 0  # modules whose checks ran
    _view: PythonView | None = None
    _dropped: dict[str, tuple[tuple[int, tuple[str, ...]], ...]] = field(default_factory=dict)

    def __call__(self, view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
        local = self._local(view, mod, gone)
        kept = self.records.setdefault(mod.name, [])
        for i in range(len(kept) - 1, -1, -1):
            if kept[i].holds(view, mod, local):
                self.reused += 1
                return list(kept[i].breaks)
        self.computed += 1
        asking = _Asking.of(view)
        index = view.index
        with index.recording() as used:
            found = module_breaks(asking, mod, gone)
        kept.append(_Record.of(mod, local, asking.asked, index.orders_of(used), found))
        del kept[:-_VARIANTS]
        return found

    def clear(self) -> None:
        """Forget every record (the scan's last check ran)."""
        self.records.clear()
        self._view = None
        self._dropped = {}

    def _local(self, view: PythonView, mod: PyModule, gone: Ranges | None
               ) -> tuple[object, ...]:
        """What the view holds of the module's own file, and the folded arms' reads there:
        the removed lines, the removed elements, the import names dropped, the lost names
        its chains read past their head."""
        if view is not self._view:  # (the import names dropped, by path: once per view)
            self._view = view
            dropped: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
            for (path, line), names in view.dropped_import_names.items():
                dropped.setdefault(path, []).append((line, tuple(sorted(names))))
            self._dropped = {p: tuple(sorted(v)) for p, v in dropped.items()}
        lost = tuple(sorted(view.lost_anywhere() & chain_tails(mod))) \
            if view.lost_names or view.lost_attrs else None
        elements = view.gone_elements.get(mod.path)
        return (gone.spans() if gone is not None else None,
                tuple(sorted(elements)) if elements else (),
                self._dropped.get(mod.path, ()), lost,
                tuple(view.index.dead_reads.get(mod.name, ())))
