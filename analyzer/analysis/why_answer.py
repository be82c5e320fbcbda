"""Analysis stage: the answer of ``depgraph why`` as a value -- what the item is, whether it
is live (a root, or reached by a chain), dead (what the plan deletes of it) or dead but kept,
the chain, the edits that would free it, the deletions -- printed as lines or written as JSON
(``--format json``). ``analysis.why`` builds it from a scan, ``cli.why_manifest`` from a
manifest: the same fields, the same words."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal

Status = Literal["root", "live", "dead", "kept"]  # kept: dead, kept by a profile decision


@dataclass
class WhyAnswer:
    item: str  # the item as the answer names it
    status: Status
    feature: str | None = None  # the dropped feature it belongs to
    lines: list[str] = field(default_factory=list)  # the answer as printed
    chain: list[str] = field(default_factory=list)  # root -> ... -> item (live)
    to_free: list[str] = field(default_factory=list)  # edits that free a blocked item
    deletions: list[str] = field(default_factory=list)  # what the plan deletes of it (dead)

    def text(self) -> str:
        return "\n".join(self.lines)

    def to_json(self) -> str:
        return json.dumps({"schema": "depgraph-why/1", **asdict(self)}, indent=2) + "\n"
