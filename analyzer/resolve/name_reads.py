"""Resolve stage: what resolving one name of a module reads of that module's facts.

``ModuleIndex.resolve_attr(module, name)`` notes ``("attr", module, name)`` instead of a read
of the whole module: its answer depends on the module's facts only through
:func:`attr_answer` (the definition of the name, its import bindings, whether an assignment
binds it, the star imports, whether the module runs as a script), the rest being the shape
(:mod:`analyzer.resolve.shape`), the folds (``("order", ...)``) and the other modules it
resolves through (noted by their own reads). A module's recorded edges
(``analyzer.graph.edge_store``) keep, per other module they resolved names in, the names and
a digest of their answers (:func:`names_digest`): an edit of that module that leaves those
answers alike (a removed function nobody here names, lines moved) leaves the record standing.

Keep :func:`attr_answer` in step with ``ModuleIndex._resolve_attr`` and ``_binding_target``:
what they read of the module's facts, it must hold.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analyzer.resolve.python import PyModule


def attr_answer(mod: PyModule, name: str) -> tuple[object, ...]:
    """What resolving ``mod.name`` reads of ``mod``'s facts (a value equal in two versions of
    the module when the resolution answers alike in both, the tree's shape and folds being
    the same)."""
    return (mod.defs.get(name),
            tuple((f.level, f.module, f.is_from, f.alias, imported)
                  for f, imported in mod.bindings.get(name, ())),
            name in mod.assigned,
            tuple((s.level, s.module) for s in mod.star_imports),
            mod.facts.main_guard_line is not None)


def names_digest(mod: PyModule, names: Iterable[str]) -> bytes:
    """A digest of :func:`attr_answer` of each of ``names`` (in order) in ``mod``."""
    return hashlib.blake2b(repr([attr_answer(mod, n) for n in names]).encode(),
                           digest_size=16).digest()
