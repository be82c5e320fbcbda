"""Extract stage driver: read each discovered file once, hash it, run its language's extractor.

Files are read and hashed in the main process (the sha256 is what the manifest records and
what the cache is keyed by); cache misses are extracted in worker processes (``jobs``) by the
pure per-language ``extract(path, data)``; results come back in discovery order, identical to
a single-process run. Read errors become parse problems, never exceptions.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, assert_never

from analyzer.extract.cache import FactsCache, stored_facts
from analyzer.model import Language, ParseProblem, SourceFile
from analyzer.util import pickling
from analyzer.util.gc_pause import gc_paused


@dataclass(frozen=True)
class ExtractedFile:
    path: str
    language: Language
    sha256: str
    lines: int
    facts: Any  # PythonFacts | CudaFacts | CmakeFacts | None when unreadable
    problems: tuple[ParseProblem, ...]


def _extractor(language: Language) -> Callable[[str, bytes], object]:
    if language == "python":
        from analyzer.extract import python
        return python.extract
    if language == "cuda":
        from analyzer.extract import cuda
        return cuda.extract
    if language == "cmake":
        from analyzer.extract import cmake
        return cmake.extract
    assert_never(language)


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def extract_bytes(path: str, language: Language, data: bytes) -> Any:
    """Facts of one file's bytes; an extractor bug becomes a problem, never an exception."""
    try:
        return _extractor(language)(path, data)
    except Exception as exc:
        return ParseProblem(path, 0, "extractor-error", f"{type(exc).__name__}: {exc}")


def _extract_batch(batch: list[tuple[str, Language, str, bytes]],
                   cache_dir: Path | None) -> list[bytes | ParseProblem]:
    """Worker side: extract, pickle the facts once, store them in the cache from here, and
    send the same bytes back (the main process only unpickles)."""
    cache = FactsCache(cache_dir) if cache_dir is not None else None
    out: list[bytes | ParseProblem] = []
    with gc_paused():
        for path, language, digest, data in batch:
            facts = extract_bytes(path, language, data)
            if isinstance(facts, ParseProblem):
                out.append(facts)
                continue
            payload = pickling.dumps(facts)
            if cache is not None:
                cache.put_payload(path, digest, language, payload)
            out.append(payload)
    return out


def _extract_local(batch: list[tuple[str, Language, str, bytes]]) -> list[Any]:
    cache = stored_facts()
    out = []
    for path, language, digest, data in batch:
        facts = extract_bytes(path, language, data)
        if cache is not None and not isinstance(facts, ParseProblem):
            cache.put(path, digest, language, facts)
        out.append(facts)
    return out


def _finish(source: SourceFile, digest: str, data: bytes, facts: Any) -> ExtractedFile:
    if isinstance(facts, ParseProblem):
        return ExtractedFile(source.path, source.language, digest, count_lines(data), None,
                             (facts,))
    return ExtractedFile(source.path, source.language, digest, count_lines(data), facts,
                         tuple(getattr(facts, "problems", ())))


def extract_file(root: Path, source: SourceFile) -> ExtractedFile:
    return extract_all(root, [source])[0]


@dataclass(frozen=True)
class ReadFile:
    """One discovered file's bytes and sha256, or why it could not be read."""

    data: bytes | None
    digest: str
    error: str | None = None


def read_all(root: Path, sources: list[SourceFile]) -> list[ReadFile]:
    """Read and hash every source once (the scan keeps the bytes for later stages)."""
    out: list[ReadFile] = []
    for source in sources:
        try:
            data = (root / source.path).read_bytes()
        except OSError as exc:
            out.append(ReadFile(None, "", f"cannot read: {exc.strerror or exc}"))
            continue
        out.append(ReadFile(data, hashlib.sha256(data).hexdigest()))
    return out


BATCH_BYTES = 256 * 1024


def _batches(todo: list[tuple[int, str, bytes]]) -> list[list[tuple[int, str, bytes]]]:
    """Largest files first, in batches of about ``BATCH_BYTES``: workers end together
    instead of one finishing a batch of big files alone (longest processing time first)."""
    batches: list[list[tuple[int, str, bytes]]] = []
    size = BATCH_BYTES
    for item in sorted(todo, key=lambda t: (-len(t[2]), t[0])):
        if size >= BATCH_BYTES or len(batches[-1]) >= 64:
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += len(item[2])
    return batches


def extract_all(root: Path, sources: list[SourceFile], *, jobs: int = 1,
                progress: Callable[[Progress], None] | None = None,
                read: list[ReadFile] | None = None) -> list[ExtractedFile]:
    """Facts of every source, in order; ``read`` (from :func:`read_all`) spares a re-read."""
    reads = read if read is not None else read_all(root, sources)
    cache = stored_facts()
    out: list[ExtractedFile | None] = [None] * len(sources)
    todo: list[tuple[int, str, bytes]] = []  # index, digest, data
    for i, (source, got) in enumerate(zip(sources, reads, strict=True)):
        if got.data is None:
            problem = ParseProblem(source.path, 0, "unreadable", got.error or "cannot read")
            out[i] = ExtractedFile(source.path, source.language, "", 0, None, (problem,))
            continue
        data, digest = got.data, got.digest
        facts = cache.get(source.path, digest, source.language) if cache is not None else None
        if facts is not None:
            out[i] = _finish(source, digest, data, facts)
        else:
            todo.append((i, digest, data))
    cached, parsed = len(sources) - len(todo), 0
    if progress and todo:
        progress(Progress(len(sources), cached, 0, len(todo)))
    batches = _batches(todo)

    def consume(batch: list[tuple[int, str, bytes]], results: list[Any]) -> None:
        nonlocal parsed
        for (i, digest, data), facts in zip(batch, results, strict=True):
            if isinstance(facts, bytes):
                facts = pickling.loads(facts)
                if cache is not None:  # (the worker stored them)
                    cache.held(sources[i].path, digest, sources[i].language, facts)
            out[i] = _finish(sources[i], digest, data, facts)
        parsed += len(batch)
        if progress:
            progress(Progress(len(sources), cached, parsed, len(todo)))

    payloads = [[(sources[i].path, sources[i].language, digest, data) for i, digest, data in b]
                for b in batches]
    if jobs > 1 and len(batches) > 1:
        from concurrent.futures import ProcessPoolExecutor

        cache_dir = cache.base if cache is not None else None
        with ProcessPoolExecutor(max_workers=jobs) as pool, gc_paused():
            for batch, results in zip(batches, pool.map(_extract_batch, payloads,
                                                        [cache_dir] * len(payloads)),
                                      strict=True):
                consume(batch, results)
    else:
        with gc_paused():
            for batch, payload in zip(batches, payloads, strict=True):
                consume(batch, _extract_local(payload))
    return [x for x in out if x is not None]


@dataclass(frozen=True)
class Progress:
    """Where extraction is: files discovered, taken from the cache, parsed so far, to parse.
    Reported only when something has to be parsed, after each batch."""

    files: int
    cached: int
    parsed: int
    to_parse: int


class ProgressBar:
    """A one-line progress bar on a terminal stream, drawn only once the work has taken more
    than ``delay`` seconds (a fast, mostly cached scan prints nothing)."""

    def __init__(self, stream: TextIO | None = None, delay: float = 0.5, width: int = 30):
        self.stream = stream or sys.stderr
        self.delay = delay
        self.width = width
        self.started: float | None = None
        self.drawn = False

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if self.started is None:
            self.started = now
        done = p.parsed >= p.to_parse
        if not self.drawn and (now - self.started < self.delay or done):
            return
        filled = self.width * p.parsed // max(p.to_parse, 1)
        elapsed = now - self.started
        eta = (f", {elapsed / p.parsed * (p.to_parse - p.parsed):.0f}s left"
               if p.parsed and not done else "")
        self.stream.write(f"\rdepgraph: {p.files:,} files, {p.cached:,} cached, parsing "
                          f"[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{p.parsed}/{p.to_parse}{eta}   ")
        self.drawn = True
        if done:
            self.stream.write("\n")
        self.stream.flush()
