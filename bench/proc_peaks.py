"""Bench helper: which process of a run reached its peak memory.

``ru_maxrss`` (``os.wait4``) gives one figure for a command and its descendants -- the largest
single process, without saying which. A scan is several processes: its own, the extraction's
and the plans' forked workers, the lint workers forked at the labels, the gate's fresh
process. :class:`ProcessPeaks` polls ``/proc`` (Linux; elsewhere it records nothing) five
times a second while the command runs: every descendant's ``VmHWM`` (its own high-water
mark, kept by the kernel, so a poll sees the true peak of every process alive at a poll; one
that lives less than a poll interval can be missed) with a name for it: the command's own
process, the gate's process (``analyzer.pipeline.gate_process``), or a forked worker with the
second it was first seen.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

INTERVAL = 0.2  # seconds between polls


@dataclass
class Seen:
    name: str
    hwm_kib: int


@dataclass
class ProcessPeaks:
    """Poll the process tree under ``pid`` until :meth:`stop` (a thread of this process)."""

    pid: int
    seen: dict[int, Seen] = field(default_factory=dict)
    _start: float = field(default_factory=time.perf_counter)
    _done: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> ProcessPeaks:
        if os.path.isdir("/proc"):
            self._thread = threading.Thread(target=self._poll, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def largest(self) -> Seen | None:
        """The process with the highest high-water mark seen (None: none seen)."""
        return max(self.seen.values(), key=lambda s: s.hwm_kib, default=None)

    def _poll(self) -> None:
        while not self._done.is_set():
            stack = [self.pid]
            while stack:
                pid = stack.pop()
                hwm = _hwm_kib(pid)
                if hwm is None:
                    continue
                one = self.seen.get(pid)
                if one is None:
                    one = self.seen[pid] = Seen(self._name(pid), hwm)
                one.hwm_kib = max(one.hwm_kib, hwm)
                stack += _children(pid)
            self._done.wait(INTERVAL)

    def _name(self, pid: int) -> str:
        if pid == self.pid:
            return "the command's own process"
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            cmdline = b""
        if b"gate_process" in cmdline:
            return "the gate's process"
        return f"a worker (seen at {time.perf_counter() - self._start:.0f} s)"


def _hwm_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        pass
    return out
