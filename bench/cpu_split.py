"""Benchmark: where a scan's CPU seconds go -- its own process, the workers it forks, and the
gate's process -- stage by stage.

On two cores the wall time of a scan is about its CPU seconds over two: what to cut is
whatever burns them, in whichever process. ``scan --timings`` gives wall seconds of the
scan's own process; this runs ``depgraph scan`` in this process (depgraph's own code, never
the scanned tree's) with each stage's timer also reading ``getrusage``, and prints, per stage:

- its wall seconds, and the CPU seconds of this process during it (user + system);
- the CPU seconds of the child processes reaped during it: the forked workers (extraction,
  edge resolution, lints, edits) and the gate's process. A worker counts at the stage that
  waits for it to end: the plans under other drops (each dropped feature's share, what would
  free a blocked one), forked before the gate and made while it verifies, count at ``shares``
  or ``frees``, whichever waits for them last; the gate's process counts at ``gate``;

then the same of the gate's process (``analyzer.pipeline.gate_process``: the applied copy's
scan, with its own workers), and the totals (a process's own CPU includes its start and
imports). The stages are those a stage timer times (``discover`` and ``fingerprint`` are
timed apart, ``render`` and ``write`` by the command line: seconds each, left out). With
``--jobs 1`` everything runs in this process (the gate's copy too) and the children's
column holds nothing.

    python bench/cpu_split.py TREE --roots deepseek_v2 --jobs 2 --cache-dir <empty dir> [...]

The arguments are those of ``depgraph scan`` (``--quiet`` is added). One run, the machine's
load included: run it on an otherwise idle machine, and compare CPU seconds, not wall.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# (stage, wall seconds, this process's CPU seconds, reaped children's CPU seconds)
Row = tuple[str, float, float, float]


def cpu_seconds(who: int) -> float:
    """User + system CPU seconds of ``who`` (``RUSAGE_SELF`` or ``RUSAGE_CHILDREN``)."""
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def record_stages(rows: list[Row]) -> None:
    """Make every stage timer of depgraph (``analyzer.pipeline.timing.StageTimer``) of this
    process also append its stage's :data:`Row` to ``rows``."""
    from analyzer.pipeline import timing

    timed = timing.StageTimer.__call__

    @contextmanager
    def call(self: timing.StageTimer, stage: str) -> Iterator[None]:
        wall, own = time.perf_counter(), cpu_seconds(resource.RUSAGE_SELF)
        reaped = cpu_seconds(resource.RUSAGE_CHILDREN)
        with timed(self, stage):
            yield
        rows.append((stage, time.perf_counter() - wall,
                     cpu_seconds(resource.RUSAGE_SELF) - own,
                     cpu_seconds(resource.RUSAGE_CHILDREN) - reaped))

    timing.StageTimer.__call__ = call  # type: ignore[method-assign,assignment]


def in_gate_process(out: str) -> None:
    """In the gate's process: record its stages, and write them with its totals as JSON to
    ``out`` when it ends."""
    import atexit

    rows: list[Row] = []
    record_stages(rows)
    start = time.perf_counter()

    def write() -> None:
        Path(out).write_text(json.dumps({
            "rows": rows, "wall": time.perf_counter() - start,
            "self": cpu_seconds(resource.RUSAGE_SELF),
            "children": cpu_seconds(resource.RUSAGE_CHILDREN)}), encoding="utf-8")

    atexit.register(write)


def _table(title: str, rows: list[Row]) -> None:
    by: dict[str, list[float]] = {}
    for stage, wall, own, reaped in rows:
        summed = by.setdefault(stage, [0.0, 0.0, 0.0, 0.0])
        summed[0] += 1
        summed[1] += wall
        summed[2] += own
        summed[3] += reaped
    print(f"\n{title}\n")
    print("| stage | timed | wall s | this process CPU s | reaped children CPU s |")
    print("|---|---:|---:|---:|---:|")
    for stage, (n, wall, own, reaped) in by.items():
        print(f"| {stage} | {int(n)} | {wall:.1f} | {own:.1f} | {reaped:.1f} |")


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (this checkout's)
    from analyzer.cli.main import main as cli
    from analyzer.errors import EXIT_REMOVABLE
    from analyzer.pipeline import gate_process

    rows: list[Row] = []
    record_stages(rows)
    with tempfile.TemporaryDirectory(prefix="depgraph-cpu-split-") as work:
        answer = os.path.join(work, "gate.json")
        here = str(Path(__file__).resolve().parent)
        # the gate's process runs the scan's import path (gate_process: sys.path handed
        # over), this script's folder and checkout included
        gate_process._PROGRAM = (  # type: ignore[attr-defined]
            "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
            f"sys.path.insert(0, {here!r}); import cpu_split; "
            f"cpu_split.in_gate_process({answer!r}); "
            "from analyzer.pipeline.gate_process import serve; serve(sys.argv[2], sys.argv[3])")
        start = time.perf_counter()
        try:
            cli.main(["scan", *argv, "--quiet"], standalone_mode=False)
        except SystemExit as exc:  # (--fail-on-removable's exit with a plan is a run too)
            if exc.code not in (0, None, EXIT_REMOVABLE):
                raise
        wall = time.perf_counter() - start
        gate: dict[str, Any] | None = (json.loads(Path(answer).read_text(encoding="utf-8"))
                                       if os.path.isfile(answer) else None)
    own, reaped = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    _table("the scan's process, by stage", rows)
    if gate is not None:
        _table("the gate's process (the applied copy's scan), by stage",
               [tuple(r) for r in gate["rows"]])  # type: ignore[misc]
    print("\n| process | wall s | CPU s |")
    print("|---|---:|---:|")
    print(f"| the scan's own | {wall:.1f} | {own:.1f} |")
    if gate is not None:
        gate_cpu = gate["self"] + gate["children"]
        print(f"| the gate's (its own + its workers) | {gate['wall']:.1f} | "
              f"{gate['self']:.1f} + {gate['children']:.1f} |")
        print(f"| the scan's workers | | {reaped - gate_cpu:.1f} |")
    else:
        print(f"| the scan's workers (no gate process) | | {reaped:.1f} |")
    print(f"| all | {wall:.1f} | {own + reaped:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
