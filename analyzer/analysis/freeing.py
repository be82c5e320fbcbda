"""Analysis stage: what would free a blocked feature, as a value (``pipeline.frees`` finds
it; the terminal, the report, the Markdown and the manifest print it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Freeing:
    """Dropping ``drops`` too grows ``feature``'s share by ``files``/``lines``/``tus``. No
    ``drops``: no further drop frees any of it
    (``tried``: the kept features whose code holds its blockers, each re-planned and freeing
    nothing; none: no kept feature's code holds them) -- its blockers are the edits."""

    feature: str
    drops: tuple[str, ...]
    files: int
    lines: int
    tus: int
    tried: tuple[str, ...] = ()

    def text(self) -> str:
        """``drop nsa -> +4 files, +1,635 lines, +14 TUs``; or why no drop frees it."""
        if not self.drops:
            why = (f"dropping {' or '.join(self.tried)} too frees none of it" if self.tried
                   else "no feature this run keeps holds its blockers")
            return f"no further drop: {why}; the blockers are the edits"
        return (f"drop {' and '.join(self.drops)} -> +{self.files:,} "
                f"file{'s' if self.files != 1 else ''}, +{self.lines:,} "
                f"line{'s' if self.lines != 1 else ''}, +{self.tus:,} "
                f"TU{'s' if self.tus != 1 else ''}")

    def to_json(self) -> dict[str, object]:
        return {"drop": list(self.drops), "files": self.files, "lines": self.lines,
                "tus": self.tus, "tried": list(self.tried)}
