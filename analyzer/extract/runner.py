"""Extract stage driver: read each discovered file once, hash it, run its language's extractor.

``extract_file`` is the unit of work (and of caching/parallelism): it reads the bytes, computes
the sha256 the manifest records, and calls the pure per-language ``extract(path, data)``.
Read errors become parse problems, never exceptions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.model import ParseProblem, SourceFile


@dataclass(frozen=True)
class ExtractedFile:
    path: str
    language: str
    sha256: str
    lines: int
    facts: Any  # PythonFacts | CudaFacts | CmakeFacts | None when unreadable
    problems: tuple[ParseProblem, ...]


def _extractor(language: str):
    if language == "python":
        from analyzer.extract import python
        return python.extract
    if language == "cuda":
        from analyzer.extract import cuda
        return cuda.extract
    if language == "cmake":
        from analyzer.extract import cmake
        return cmake.extract
    raise ValueError(language)


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def extract_file(root: Path, source: SourceFile) -> ExtractedFile:
    try:
        data = (root / source.path).read_bytes()
    except OSError as exc:
        problem = ParseProblem(source.path, 0, "unreadable", f"cannot read: {exc.strerror or exc}")
        return ExtractedFile(source.path, source.language, "", 0, None, (problem,))
    digest = hashlib.sha256(data).hexdigest()
    try:
        facts = _extractor(source.language)(source.path, data)
    except Exception as exc:  # an extractor bug must not stop the scan; say where it happened
        problem = ParseProblem(source.path, 0, "extractor-error",
                               f"{type(exc).__name__}: {exc}")
        return ExtractedFile(source.path, source.language, digest, count_lines(data), None,
                             (problem,))
    problems = tuple(getattr(facts, "problems", ()))
    return ExtractedFile(source.path, source.language, digest, count_lines(data), facts, problems)
