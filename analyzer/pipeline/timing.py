"""Pipeline: seconds per stage, summed over the rounds a stage runs in (``scan --timings``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimer:
    def __init__(self, start: dict[str, float] | None = None) -> None:
        self.seconds: dict[str, float] = dict(start or {})

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - t0
