"""Pipeline: seconds per stage, summed over the rounds a stage runs in (``scan --timings``);
``on_stage`` hears each stage entered (the command line's progress line names it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StageTimer:
    def __init__(self, start: dict[str, float] | None = None,
                 on_stage: Callable[[str], None] | None = None) -> None:
        self.seconds: dict[str, float] = dict(start or {})
        self.on_stage = on_stage

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        if self.on_stage is not None:
            self.on_stage(stage)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - t0
