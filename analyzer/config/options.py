"""Config stage: the options of one scan, as one frozen value.

``scan``, ``why``, ``graph`` and ``verify`` build it with one shared click decorator
(``analyzer.cli.options.scan_options``), the pipeline takes it whole, the result cache derives
its key from it (``cache_key``: every field that changes the analysis, by construction, not by
a hand-kept list), and the manifest records it (``to_json``) so ``verify`` replays the scan.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ScanOptions:
    roots: tuple[str, ...] = ()  # --roots, as the user gave them
    use_default_roots: bool = True  # not --no-default-roots
    excludes: tuple[str, ...] = ()  # --exclude (gitignore-style)
    keep_targets: tuple[str, ...] = ()  # --keep-target (globs)
    profile: str | None = None  # --profile FILE|NAME
    drop: tuple[str, ...] = ()  # --drop FEATURE
    keep: tuple[str, ...] = ()  # --keep FEATURE
    use_profile: bool = True  # not --no-profile
    # --parse-all: extract every file, not only those something can depend on (same result;
    # the reference the on-demand extraction is compared with)
    parse_all: bool = False
    # --scope: "all" plans every deletion; "features" only what the dropped features take
    # (their code, knock-ons and the dead code that goes with them: analyzer/pipeline/scope)
    scope: str = "all"
    # --strict: stale profile entries are errors; decides the exit code, not the analysis
    strict: bool = field(default=False, metadata={"analysis": False})

    def cache_key(self) -> tuple[tuple[str, Any], ...]:
        """Every field that changes what a scan computes, with its value."""
        return tuple((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                     if f.metadata.get("analysis", True))

    def to_json(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> ScanOptions:
        """The options a manifest recorded; unknown keys are ignored, missing ones default."""
        if not isinstance(data, dict):
            return cls()
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            kwargs[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**kwargs)

    def replace(self, **changes: Any) -> ScanOptions:
        return dataclasses.replace(self, **changes)
