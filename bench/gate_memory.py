"""Benchmark: what the gate's scan of the applied copy adds to a scan's memory, and by whom.

Runs ``depgraph scan`` in this process (depgraph's own code, never the scanned tree's) under
``tracemalloc`` (one frame per allocation: the line that made each block) and prints, in MB
(10^6 bytes) of blocks Python allocated (not the resident set: ``bench/stage_memory.py``
gives that):

- what the scan holds when its gate starts (its plan made), by the file that allocated it;
- by default, what is held at the end of the gate's verify of the applied copy beyond that,
  and the peak during the gate, by file and by line (the copy's own graph, index, plan and
  checks: what a scan of the copy sharing the scan's values would not allocate again);
- with ``--holders``, instead, what each attribute of the scan's ``Rounds``, then of its last
  ``Planned``, then of its ``ScanResult`` holds that nothing left holds (each set to None in
  turn, then a collection: a value two of them hold counts at the last), after which the run
  stops: its plan is not written.

Slow (tracemalloc costs two to three times the scan); one run at a time. It runs with one
job unless told otherwise: with several the gate's copy is scanned in a process of its own
(``analyzer.pipeline.gate_process``), whose memory this process does not see.

    python bench/gate_memory.py TREE --roots deepseek_v2 --cache-dir DIR [--holders] [...]
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import tracemalloc
from typing import Any

_TOP = 25  # rows of each table


def _mb(size: float, sign: str = "") -> str:
    return f"{size / 1e6:{sign},.1f}"


def _by(snapshot: tracemalloc.Snapshot, key: str, title: str) -> None:
    print(f"\n{title}")
    for stat in snapshot.statistics(key)[:_TOP]:
        print(f"  {_mb(stat.size):>8} MB  {stat.traceback}")


def _growth(now: tracemalloc.Snapshot, start: tracemalloc.Snapshot, key: str,
            title: str) -> None:
    print(f"\n{title}")
    for stat in now.compare_to(start, key)[:_TOP]:
        print(f"  {_mb(stat.size_diff, '+'):>8} MB  {stat.traceback}")


def _holders(objects: dict[str, Any]) -> None:
    """What each attribute of ``objects`` holds alone (destructive: the run stops after)."""
    gc.collect()
    for label, obj in objects.items():
        names = list(vars(obj)) if hasattr(obj, "__dict__") \
            else list(getattr(obj, "__dataclass_fields__", ()))
        rows: list[tuple[int, str]] = []
        for name in names:
            before = tracemalloc.get_traced_memory()[0]
            object.__setattr__(obj, name, None)
            gc.collect()
            rows.append((before - tracemalloc.get_traced_memory()[0], name))
        print(f"\nheld by one attribute of the {label} and nothing left (largest first)")
        for size, name in sorted(rows, reverse=True)[:_TOP]:
            print(f"  {_mb(size):>8} MB  {label}.{name}")


def main(argv: list[str]) -> int:
    holders = "--holders" in argv
    argv = [a for a in argv if a != "--holders"]
    if not any(a in ("--jobs", "-j") or a.startswith("--jobs=") for a in argv):
        argv = [*argv, "--jobs", "1"]  # (the gate's copy in this process: see above)
    tracemalloc.start(1)
    from analyzer.cli.main import main as cli
    from analyzer.pipeline import analyze, gate, verify

    seen: dict[str, Any] = {}
    planned_result = analyze._planned_result

    def result_of(*args: Any) -> Any:
        # the rounds and last plan of the pass about to be gated (a pass parsing more files
        # makes new ones; plans under other drops never come here)
        seen["rounds"], seen["last"] = args[2], args[3]
        return planned_result(*args)

    analyze._planned_result = result_of  # type: ignore[assignment]
    applied = gate.verify_applied

    def verify_applied(result: Any, baseline: Any, settings: Any, manifest: Any = None) -> Any:
        gc.collect()
        seen["start"] = tracemalloc.take_snapshot()
        held = tracemalloc.get_traced_memory()[0]
        print(f"the scan holds {_mb(held)} MB at the gate's start", flush=True)
        _by(seen["start"], "filename", "held at the gate's start, by file")
        if holders:
            _holders({"Rounds": seen.pop("rounds"), "Planned": seen.pop("last"),
                      "ScanResult": result})
            sys.stdout.flush()
            for worker in multiprocessing.active_children():  # (the shares' forked pool)
                worker.kill()
            os._exit(0)
        seen["held"] = held
        tracemalloc.reset_peak()
        return applied(result, baseline, settings, manifest)

    gate.verify_applied = verify_applied
    verified = verify._verify

    def verify_end(*args: Any, **kwargs: Any) -> Any:
        out = verified(*args, **kwargs)
        if "start" in seen:
            now = tracemalloc.take_snapshot()
            current, peak = tracemalloc.get_traced_memory()
            print(f"\nthe gate's copy adds {_mb(current - seen['held'])} MB held at the end "
                  f"of its verify, {_mb(peak - seen['held'])} MB at its peak", flush=True)
            start = seen.pop("start")
            _growth(now, start, "filename", "added by the gate, by file")
            _growth(now, start, "lineno", "added by the gate, by line")
        return out

    verify._verify = verify_end
    cli.main(["scan", *argv, "--quiet"], standalone_mode=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
