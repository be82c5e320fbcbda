"""Shared helper: one pure function over many items in worker processes (the plan check's and
the verify baseline's per-file pyflakes runs, apply's LibCST edits), with the results in the
items' order.

Workers are forked on Linux (they inherit the loaded code, nothing is re-imported), spawned
elsewhere; the largest items go first so the workers finish together. Too few items, or one
job, run in this process: a pool costs more than it saves there.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def worker_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: forked on Linux (the loaded code is inherited), spawned
    elsewhere."""
    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


def parallel_map(fn: Callable[[Item], Result], items: Sequence[Item], jobs: int,
                 size: Callable[[Item], int] | None = None, min_items: int = 8,
                 progress: Callable[[int, int], None] | None = None) -> list[Result]:
    """``[fn(item) for item in items]``, computed in up to ``jobs`` worker processes
    (``fn`` must be a module-level function; ``size`` orders the work, largest first;
    ``progress(done, total)`` after each item). A worker's exception is raised here."""
    if jobs < 2 or len(items) < min_items:
        out: list[Result] = []
        for item in items:
            out.append(fn(item))
            if progress is not None:
                progress(len(out), len(items))
        return out
    order = sorted(range(len(items)), key=lambda i: -size(items[i])) if size is not None \
        else range(len(items))
    results: dict[int, Result] = {}
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=worker_context()) as pool:
        futures = {pool.submit(fn, items[i]): i for i in order}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if progress is not None:
                progress(len(results), len(items))
    return [results[i] for i in range(len(items))]
