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

from collections.abc import Mapping
from dataclasses import dataclass, field

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


def _answer(view: PythonView, question: Question) -> bool:
    kind = question[0]
    if kind == "module":
        return view.module_exists(question[1])
    if kind == "extension":
        return view.extension_gone(question[1])
    if kind == "name":
        return view.lost_name(question[1], question[2])
    return view.lost_attr(question[1], question[2], question[3])


@dataclass(frozen=True)
class _Record:
    mod: PyModule
    local: tuple[object, ...]  # what the view and the folds hold of the module's own file
    asked: Mapping[Question, bool]
    orders: Mapping[tuple[str, str, str], tuple[bool, ...]]
    breaks: tuple[Break, ...]


@dataclass
class ModuleBreaks:
    """The breaks of each module at the last check that ran its checks (see the module
    docstring); :meth:`__call__` answers :func:`module_breaks`."""

    records: dict[str, _Record] = field(default_factory=dict)
    reused: int = 0  # modules answered from a record (since made)
    computed: int = 0  # modules whose checks ran
    _view: PythonView | None = None
    _dropped: dict[str, tuple[tuple[int, frozenset[str]], ...]] = field(default_factory=dict)

    def __call__(self, view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
        local = self._local(view, mod, gone)
        known = self.records.get(mod.name)
        index = view.index
        if known is not None and known.mod is mod and known.local == local \
                and all(_answer(view, q) == a for q, a in known.asked.items()) \
                and index.same_orders(known.orders):
            self.reused += 1
            return list(known.breaks)
        self.computed += 1
        asking = _Asking.of(view)
        with index.recording() as used:
            found = module_breaks(asking, mod, gone)
        self.records[mod.name] = _Record(mod, local, asking.asked, index.orders_of(used),
                                         tuple(found))
        return found

    def _local(self, view: PythonView, mod: PyModule, gone: Ranges | None
               ) -> tuple[object, ...]:
        """What the view holds of the module's own file, and the folded arms' reads there:
        the removed lines, the removed elements, the import names dropped, the lost names
        its chains read past their head."""
        if view is not self._view:  # (the import names dropped, by path: once per view)
            self._view = view
            dropped: dict[str, list[tuple[int, frozenset[str]]]] = {}
            for (path, line), names in view.dropped_import_names.items():
                dropped.setdefault(path, []).append((line, frozenset(names)))
            self._dropped = {p: tuple(sorted(v, key=lambda x: x[0]))
                             for p, v in dropped.items()}
        lost = view.lost_anywhere() & chain_tails(mod) \
            if view.lost_names or view.lost_attrs else None
        return (gone.spans() if gone is not None else None,
                frozenset(view.gone_elements.get(mod.path, ())),
                self._dropped.get(mod.path, ()), lost,
                tuple(view.index.dead_reads.get(mod.name, ())))
