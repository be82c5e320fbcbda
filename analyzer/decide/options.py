"""Decide stage: what the decisions before the graph hand the graph stage (``GraphOptions``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GraphOptions:
    """Decisions a profile makes before edges exist (see analyzer/profile.py)."""

    # module -> sorted line ranges whose facts make no edges (folded guards, dropped entries)
    dead_lines: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    # decorator registry (qualified decorator name) -> (key argument index, dropped keys)
    registries: dict[str, tuple[int, frozenset[str]]] = field(default_factory=dict)
    # packages loaded dynamically whose modules are live only when roots or imports reach them
    # (package -> the family's name, for the decision's reason)
    restricted_families: dict[str, str] = field(default_factory=dict)
    # modules whose imports are never edited (outside the deletion scope): every name they
    # import must keep existing, used or not
    frozen_imports: frozenset[str] = frozenset()
    # identifier patterns of the dropped features: a method so named may go although a base
    # class outside the tree could call methods by name (``forward_npu`` of an ``nn.Module``)
    droppable: tuple[str, ...] = ()
