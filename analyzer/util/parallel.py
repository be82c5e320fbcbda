"""Shared helper: one pure function over many items in worker processes (the plan check's and
the verify baseline's per-file pyflakes runs, apply's LibCST edits, the graph stage's module
edges), with the results in the items' order.

Workers are forked on Linux (they inherit the loaded code, nothing is re-imported), spawned
elsewhere; the largest items go first so the workers finish together. Too few items, or one
job, run in this process: a pool costs more than it saves there.

:func:`forked_map` is for a function of what this process holds (a closure over the scan's
module index and graph): forked workers inherit it instead of receiving it pickled, so it
runs in workers only where processes fork (Linux), and in this process elsewhere.
"""

from __future__ import annotations

import multiprocessing
import sys
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar, cast

from analyzer.errors import WorkerError
from analyzer.util import pickling
from analyzer.util.gc_pause import gc_paused

Item = TypeVar("Item")
Result = TypeVar("Result")
_LEVEL = 1  # zlib's compression level of the forked workers' answers: the fastest


def worker_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: forked on Linux (the loaded code is inherited), spawned
    elsewhere."""
    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


def parallel_map(fn: Callable[[Item], Result], items: Sequence[Item], jobs: int,
                 size: Callable[[Item], int] | None = None, min_items: int = 8,
                 progress: Callable[[int, int], None] | None = None) -> list[Result]:
    """``[fn(item) for item in items]``, computed in up to ``jobs`` worker processes
    (``fn`` must be a module-level function; ``size`` orders the work, largest first;
    ``progress(done, total)`` after each item). A worker's exception is raised here; a
    worker that died, as :class:`WorkerError`."""
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
            results[futures[future]] = _answer(future)
            if progress is not None:
                progress(len(results), len(items))
    return [results[i] for i in range(len(items))]


# the function :func:`forked_map` runs: set before its workers are forked, which inherit it
_FORKED: Callable[[Any], Any] | None = None


def _forked_chunk(chunk: list[Any]) -> bytes:
    """Worker side of :func:`forked_map`: the inherited function over one chunk, pickled
    once (strings as the shared ids :func:`analyzer.util.pickling.loads` shares) and
    compressed with zlib's fastest level: the answers of plans under other drops, megabytes
    each, wait in this process while the workers go on with others -- compressed, they hold
    a third of that (SGLang 2026-08-11: the plans' 24.9 MB of answers compress to 7.6 MB in
    0.5 s of the workers' time, the graph stage's 18.5 MB of module edges to 4.5 MB in
    0.2 s)."""
    assert _FORKED is not None
    fn = _FORKED
    with gc_paused():
        return zlib.compress(pickling.dumps([fn(item) for item in chunk]), _LEVEL)


def forked_map(fn: Callable[[Item], Result], items: Sequence[Item], jobs: int,
               chunks_per_job: int = 8) -> list[Result]:
    """``[fn(item) for item in items]``, in up to ``jobs`` forked workers that inherit ``fn``
    and everything it reads (nothing is pickled but the items and the results; ``fn`` may be
    a closure). The items go in contiguous chunks, ``chunks_per_job`` per worker, taken as
    workers come free. Where processes are not forked, or with one job, in this process."""
    return forked_start(fn, items, jobs, chunks_per_job).results()


class Forked:
    """The results of :func:`forked_start`: being computed in forked workers while this
    process goes on, or (one job, or no fork) computed here when asked for."""

    def __init__(self, fn: Callable[[Any], Any], items: Sequence[Any],
                 chunks: list[list[Any]] | None, jobs: int) -> None:
        self._fn, self._items = fn, items
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Any] = []  # (None: its result taken, by results_of)
        if chunks is not None:
            global _FORKED
            _FORKED = fn
            try:  # (a forking pool starts every worker at the first submit: they inherit fn)
                self._pool = ProcessPoolExecutor(min(jobs, len(chunks)),
                                                 mp_context=worker_context())
                self._futures = [self._pool.submit(_forked_chunk, c) for c in chunks]
            finally:
                _FORKED = None

    def results(self) -> list[Any]:
        """The results in the items' order (waiting for the workers; a worker's exception is
        raised here; a worker that died, as :class:`WorkerError`)."""
        if self._pool is None:
            return [self._fn(item) for item in self._items]
        assert None not in self._futures, "results taken by results_of"
        try:
            done = [_answer(future) for future in self._futures]
        finally:
            self.cancel()
        return _unpickled(done)

    def results_of(self, start: int, stop: int) -> list[Any]:
        """The results of the items ``start`` to ``stop`` (excluded), in order, while the
        workers go on with the others (the pool stays until :meth:`cancel`). Each chunk must
        hold one item (``chunks_per_job`` at least the items per job). Each is taken once:
        their pickled bytes are no longer held here (a plan's answer, with the edges and
        lints it hands back, is megabytes; the pool may stay long after)."""
        assert self._pool is not None and len(self._futures) == len(self._items)
        futures = self._futures[start:stop]
        assert None not in futures, "results taken twice"
        self._futures[start:stop] = [None] * len(futures)
        return _unpickled([_answer(future) for future in futures])

    def cancel(self) -> None:
        """Stop the workers (results no longer wanted)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _unpickled(payloads: list[bytes]) -> list[Any]:
    """The results of the chunks whose pickled and compressed results are ``payloads``, in
    order."""
    out: list[Any] = []
    with gc_paused():
        for payload in payloads:
            out.extend(cast(list[Any], pickling.loads(zlib.decompress(payload))))
    return out


def _answer(future: Future[Result]) -> Result:
    """A worker's result; a worker that died (the pool broke) as one clear error."""
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerError("a worker process died before it answered (killed, or out of "
                          "memory); run again, with fewer --jobs if memory is short") from None


def forks(jobs: int, count: int) -> bool:
    """Whether :func:`forked_start` runs ``count`` items with ``jobs`` in forked workers
    (else in this process): a caller whose function must only run in a worker's copy of the
    state asks first."""
    return jobs >= 2 and count >= 2 and sys.platform == "linux"


def forked_start(fn: Callable[[Item], Result], items: Sequence[Item], jobs: int,
                 chunks_per_job: int = 8) -> Forked:
    """:func:`forked_map` started: the workers run while this process goes on; their
    results come from :meth:`Forked.results`."""
    if not forks(jobs, len(items)):
        return Forked(fn, items, None, jobs)
    count = min(len(items), jobs * chunks_per_job)
    bounds = [len(items) * i // count for i in range(count + 1)]
    return Forked(fn, items, [list(items[bounds[i]:bounds[i + 1]]) for i in range(count)],
                  jobs)
