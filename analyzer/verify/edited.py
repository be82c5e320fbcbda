"""Verify stage, the files the pruning edited: each one read back, linted
(:class:`~analyzer.plan.check.lint.FileLint`) and compiled, in worker processes that run
beside the re-scan of the pruned tree once it has extracted the tree.

Both answers are a function of the file's bytes alone, so they need nothing the scan computes:
after extraction (whose workers take every core) the scan keeps one core busy for most of its
time, and the other core lints meanwhile. What the workers have not started when
:meth:`EditedFiles.results` is asked for is done then, on every core. Nothing is imported or
run: files are parsed with ``ast``, checked by ``compile()`` and read with pyflakes.

Being a function of the bytes, each answer is kept beside the file's facts (the query
``verify-edited`` of :func:`~analyzer.extract.cache.stored_facts`, keyed by path and sha256):
the gate verifies the same edited files on every re-analysis, and ``depgraph verify`` after it
finds them answered. Each file is read once, here; only the answers not stored go to workers.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from analyzer.core.store import Query
from analyzer.extract.cache import stored_facts
from analyzer.plan.check.lint import FileLint, lint_tree, parse
from analyzer.util.parallel import parallel_map, worker_context

EDITED = Query("verify-edited", code=("analyzer.verify.edited",), dists=("pyflakes",))
_KIND = "verify-edited"  # facts-cache entries of :func:`read_edited`


@dataclass(frozen=True)
class EditedFile:
    """One edited Python file as it is now: its lint (None: it does not parse) and why it does
    not compile, as (line, message) (None: it compiles)."""

    lint: FileLint | None
    compile_error: tuple[int, str] | None


# (path, bytes): one file whose answer is not stored
Job = tuple[str, bytes]


def read_edited(job: Job) -> EditedFile:
    """The file ``path`` with these bytes linted and compiled."""
    path, data = job
    return EditedFile(lint_source(data, path), compile_error(data, path))


def read_now(files: list[tuple[Path, str]], jobs: int) -> dict[str, EditedFile]:
    """Each (root, path) of ``files`` read now, the answers not stored computed in ``jobs``
    worker processes: path -> the file (unreadable files left out)."""
    known, todo = _stored(files)
    known.update(_made(todo, parallel_map(read_edited, todo, jobs, size=_size)))
    return dict(sorted(known.items()))


def _stored(files: list[tuple[Path, str]]) -> tuple[dict[str, EditedFile], list[Job]]:
    """The answers of ``files`` the store holds (by their bytes now), and the jobs of the
    others, largest first (unreadable files: in neither)."""
    cache = stored_facts()
    known: dict[str, EditedFile] = {}
    todo: list[Job] = []
    for root, path in files:
        try:
            data = (root / path).read_bytes()
        except OSError:
            continue
        found = cache.get(path, hashlib.sha256(data).hexdigest(), _KIND, EDITED) \
            if cache is not None else None
        if isinstance(found, EditedFile):
            known[path] = found
        else:
            todo.append((path, data))
    return known, sorted(todo, key=lambda job: -_size(job))


def _made(todo: list[Job], answers: list[EditedFile]) -> dict[str, EditedFile]:
    """The answers computed for ``todo``, stored."""
    cache = stored_facts()
    if cache is not None:
        for (path, data), found in zip(todo, answers, strict=True):
            cache.put(path, hashlib.sha256(data).hexdigest(), _KIND, found, EDITED)
    return {path: found for (path, _data), found in zip(todo, answers, strict=True)}


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
        # (read now: the answers the store holds need no worker)
        self._known, self._items = _stored([(root, p) for p in paths])
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[EditedFile]] = []
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
        started = {item[0]: future for item, future in zip(
            self._items, self._futures, strict=False) if not future.cancel()}
        rest = [item for item in self._items if item[0] not in started]
        answers = dict(zip((path for path, _data in rest),
                           parallel_map(read_edited, rest, self._jobs, size=_size),
                           strict=True))
        answers.update((path, future.result()) for path, future in started.items())
        self.close()
        out = dict(self._known)
        out.update(_made(self._items, [answers[path] for path, _data in self._items]))
        return dict(sorted(out.items()))

    def close(self) -> None:
        """Stop the workers (what they have not started is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _size(job: Job) -> int:
    """The file's size (the largest go first, so the workers finish together)."""
    return len(job[1])
