"""Codemod stage, text edits: delete 1-based inclusive line ranges from any file's bytes.

Used for CMake, C++/CUDA and every non-Python file. Reads nothing: it gets the file's bytes
from ``apply.py`` and returns new bytes. Every byte outside the deleted lines is kept as it
was (CRLF endings, encodings, a missing final newline). Lines are split on ``\\n`` only, the
way the extractors count them.
"""

from __future__ import annotations

import itertools


class EditError(ValueError):
    """An edit that cannot be applied as described (out of range, overlapping, no match)."""


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their endings kept; ``b"".join(split_lines(d)) == d``."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def check_ranges(ranges: list[tuple[int, int]], line_count: int) -> list[tuple[int, int]]:
    """The ranges sorted; EditError when one is empty, out of the file, or two overlap."""
    ordered = sorted(set(ranges))
    for start, end in ordered:
        if start < 1 or end < start or end > line_count:
            raise EditError(f"lines {start}-{end} out of range (file has {line_count} lines)")
    for (s1, e1), (s2, e2) in itertools.pairwise(ordered):
        if s2 <= e1:
            raise EditError(f"overlapping line ranges {s1}-{e1} and {s2}-{e2}")
    return ordered


def delete_lines(data: bytes, ranges: list[tuple[int, int]]) -> bytes:
    """``data`` without the given lines. When the file had no final newline and its last line
    is deleted, the new last line loses its newline too, so the file still ends the same way."""
    lines = split_lines(data)
    ordered = check_ranges(ranges, len(lines))
    drop = {n for start, end in ordered for n in range(start, end + 1)}
    kept = [line for n, line in enumerate(lines, 1) if n not in drop]
    if lines and not lines[-1].endswith(b"\n") and len(lines) in drop and kept:
        last = kept[-1]
        kept[-1] = last[:-2] if last.endswith(b"\r\n") else last[:-1]
    return b"".join(kept)
