"""Command line, progress: one line on a terminal that names the stage a command is in.

``StageProgress`` is what ``RunSettings.progress`` (extraction: files parsed so far) and
``RunSettings.stage`` (every stage the pipeline enters: ``analyzer.pipeline.timing``) report
to. While extracting it shows ``parsing [####....] 1,234 of 2,326 files``: the total is every
file discovered, known before the first one is read, so it never jumps (files that cannot
matter are counted without a parse: the bar ends short of full, and the last line says how
many). The later stages -- resolving, building the graph, the plan's soundness rounds (their
number), planning, the gate -- show their name, the seconds spent and the files of the tree,
redrawn each second by a background thread. Nothing is drawn for a command that ends within
``delay`` seconds, nothing at all off a terminal; no colour codes (``NO_COLOR`` has nothing
to turn off).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from analyzer.extract.runner import Progress

# the pipeline's stage names (analyzer/pipeline/timing.py) as a person reads them
STAGES = {
    "discover": "discovering files",
    "extract": "parsing",
    "resolve": "resolving names",
    "graph": "building the graph",
    "fold": "folding guards",
    "liveness": "marking what the roots reach",
    "check": "checking the plan (soundness)",
    "plan": "planning deletions",
    "shares": "planning each dropped feature's share (workers)",
    "frees": "planning what further drops would free",
    "gate": "verifying the plan on a copy of the tree",
    "render": "writing the outputs",
}


class StageProgress:
    """The progress line of one command (see the module docstring)."""

    def __init__(self, stream: TextIO | None = None, delay: float = 0.5, width: int = 30,
                 tick: float = 1.0) -> None:
        self.stream = stream or sys.stderr
        self.delay = delay
        self.width = width
        self.tick = tick
        self.started = time.monotonic()
        self.stage_started = self.started
        self.stage = ""
        self.rounds = 0
        self.files: Progress | None = None
        self.drawn = False
        self.closed = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- what the pipeline reports
    def __call__(self, p: Progress) -> None:
        with self._lock:
            self.files = p
            self.stage = "extract"
        self._draw()

    def enter(self, stage: str) -> None:
        with self._lock:
            if stage != self.stage:
                self.stage_started = time.monotonic()
            if stage == "liveness":
                self.rounds += 1
            self.stage = stage
        self._draw()
        if self._thread is None and not self.closed:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Clear the line (the summary follows on a clean terminal line)."""
        with self._lock:
            self.closed = True
            if self.drawn:
                self.stream.write("\r" + " " * 100 + "\r")
                self.stream.flush()
                self.drawn = False

    # -- drawing
    def line(self) -> str:
        """The line as drawn now."""
        now = time.monotonic()
        name = STAGES.get(self.stage, self.stage)
        p = self.files
        if self.stage == "extract" and p is not None and p.files:
            done = min(p.parsed + p.cached, p.files)
            filled = self.width * done // p.files
            cached = f", {p.cached:,} cached" if p.cached else ""
            return (f"depgraph: {name} [{'#' * filled}{'.' * (self.width - filled)}] "
                    f"{done:,} of {p.files:,} files{cached}  {now - self.started:.0f}s")
        rounds = f" (round {self.rounds})" if self.rounds > 1 and self.stage in (
            "liveness", "check", "plan", "graph", "fold") else ""
        files = f"{p.files:,} files; " if p is not None and p.files else ""
        return (f"depgraph: {name}{rounds}  {now - self.stage_started:.0f}s "
                f"({files}total {now - self.started:.0f}s)")

    def _draw(self) -> None:
        with self._lock:
            if self.closed or time.monotonic() - self.started < self.delay:
                return
            text = self.line()
            self.stream.write("\r" + text.ljust(100)[:max(100, len(text))])
            self.stream.flush()
            self.drawn = True

    def _run(self) -> None:
        while not self.closed:
            time.sleep(self.tick)
            self._draw()
