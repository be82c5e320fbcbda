"""Verify stage, the files the pruning edited: each one read back, linted
(:class:`~analyzer.plan.check.lint.FileLint`) and compiled, in worker processes that run
beside the re-scan of the pruned tree once it has extracted the tree.

Both answers are a function of the file's bytes alone, so they need nothing the scan computes:
after extraction (whose workers take every core) the scan keeps one core busy for most of its
time, and the other core lints meanwhile. What the workers have not started when
:meth:`EditedFiles.results` is asked for is done then, on every core. Nothing is imported or
run: files are parsed with ``ast``, checked by ``compile()`` and read with pyflakes.

Being a function of the bytes, each answer is the query ``edited`` of the store, keyed by the
file's path and sha256: the gate verifies the same edited files on every re-analysis, and
``depgraph verify`` after it finds them answered.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from analyzer.core.session import current_store
from analyzer.core.store import Query, Store, key_of
from analyzer.plan.check.lint import FileLint, lint_tree, parse
from analyzer.util.parallel import parallel_map, worker_context

EDITED = Query("edited", code=("analyzer.verify.edited",), dists=("pyflakes",))
# (root, path, the store's folder or None): one file to read
Item = tuple[Path, str, Path | None]


@dataclass(frozen=True)
class EditedFile:
    """One edited Python file as it is now: its lint (None: it does not parse) and why it does
    not compile, as (line, message) (None: it compiles)."""

    lint: FileLint | None
    compile_error: tuple[int, str] | None


def read_edited(job: Item) -> EditedFile | None:
    """``path`` under ``root`` linted and compiled (None: it cannot be read); the answer of
    the store under ``folder`` when it has one for these bytes."""
    root, path, folder = job
    try:
        data = (root / path).read_bytes()
    except OSError:
        return None
    store = Store(folder) if folder is not None else None
    key = key_of(path, hashlib.sha256(data).hexdigest())
    known = store.get(EDITED, key) if store is not None else None
    if isinstance(known, EditedFile):
        return known
    found = EditedFile(lint_source(data, path), compile_error(data, path))
    if store is not None:
        store.put(EDITED, key, found)
    return found


def read_now(files: list[tuple[Path, str]], jobs: int) -> dict[str, EditedFile]:
    """Each (root, path) of ``files`` read now, in ``jobs`` worker processes: path -> the
    file (unreadable files left out)."""
    return _read_now(_items(files), jobs)


def _read_now(items: list[Item], jobs: int) -> dict[str, EditedFile]:
    return {path: found for (_root, path, _folder), found in zip(
        items, parallel_map(read_edited, items, jobs, size=_size), strict=True)
        if found is not None}


def _items(files: list[tuple[Path, str]]) -> list[Item]:
    """``files`` as the jobs of :func:`read_edited`, with the open session's store."""
    store = current_store()
    folder = store.directory if store is not None else None
    return [(root, path, folder) for root, path in files]


def lint_source(data: bytes, path: str) -> FileLint | None:
    """The file's lint, or None when it does not parse."""
    tree = parse(data, path)
    return lint_tree(tree, path) if tree is not None else None


def compile_error(data: bytes, path: str) -> tuple[int, str] | None:
    """Why ``data`` does not compile (bytes, so BOMs and coding cookies count as Python
    does), as (line, message); None when it compiles. ``compile()`` parses, nothing runs."""
    try:
        compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 0, str(exc.msg)
    except ValueError as exc:
        return 0, str(exc)
    return None


class EditedFiles:
    """The edited files ``paths`` of the tree at ``root``, read in the background by
    ``jobs - 1`` worker processes (one core stays with the scan) from :meth:`start` on;
    with one job, or not started, read when the results are asked for."""

    def __init__(self, root: Path, paths: list[str], jobs: int):
        self._jobs = jobs
        self._items = sorted(_items([(root, p) for p in paths]), key=lambda item: -_size(item))
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[EditedFile | None]] = []
        self._started = False

    def start(self) -> None:
        """Start reading in the background (once; a second call does nothing). The verify
        starts it when the re-scan has extracted the tree: extraction's workers take every
        core, the stages after it one."""
        if self._started:
            return
        self._started = True
        if self._jobs > 1 and len(self._items) >= 8:
            self._pool = ProcessPoolExecutor(self._jobs - 1, mp_context=worker_context())
            self._futures = [self._pool.submit(read_edited, item) for item in self._items]

    def results(self) -> dict[str, EditedFile]:
        """Path -> the file as it is (unreadable files left out). The items no worker started
        are read now, in ``jobs`` processes."""
        # (the futures, when a pool was started, are the items' in order)
        started = {item[1]: future for item, future in zip(
            self._items, self._futures, strict=False) if not future.cancel()}
        out = _read_now([item for item in self._items if item[1] not in started], self._jobs)
        out.update((path, found) for path, future in started.items()
                   if (found := future.result()) is not None)
        self.close()
        return dict(sorted(out.items()))

    def close(self) -> None:
        """Stop the workers (what they have not started is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _size(item: Item) -> int:
    """The file's size (the largest go first, so the workers finish together)."""
    try:
        return (item[0] / item[1]).stat().st_size
    except OSError:
        return 0
