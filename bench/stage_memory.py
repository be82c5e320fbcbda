"""Benchmark: where a scan's memory goes -- the resident set after each stage it leaves.

Runs ``depgraph scan`` in this process (depgraph's own code, never the scanned tree's) with
the stage timer wrapped, and prints, in order, each stage left with the process's resident set
then (``/proc/self/statm``) and its peak so far (``ru_maxrss``), in MB (10^6 bytes). A stage
the scan enters many times (the rounds) is printed where its peak grew, and once at the end.
Linux only (``/proc``).

    python bench/stage_memory.py TREE --roots deepseek_v2 [--cache-dir DIR] [scan options]
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * _PAGE


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str]) -> int:
    from analyzer.cli.main import main as cli
    from analyzer.pipeline import timing

    started = time.perf_counter()
    last_peak = [0]
    rows: list[tuple[float, str, int, int]] = []
    original = timing.StageTimer.__call__

    @contextmanager
    def logged(self: timing.StageTimer, stage: str) -> Iterator[None]:
        with original(self, stage):
            yield
        peak = _peak()
        if peak > last_peak[0]:
            last_peak[0] = peak
            rows.append((time.perf_counter() - started, stage, _rss(), peak))

    timing.StageTimer.__call__ = logged  # type: ignore[method-assign]
    try:
        cli.main(["scan", *argv, "--quiet"], standalone_mode=False)
    finally:
        rows.append((time.perf_counter() - started, "(end)", _rss(), _peak()))
        print("| s | stage left | RSS MB | peak MB |\n|---:|---|---:|---:|")
        for at, stage, rss, peak in rows:
            print(f"| {at:.1f} | {stage} | {rss / 1e6:,.0f} | {peak / 1e6:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
