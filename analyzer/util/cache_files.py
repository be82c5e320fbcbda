"""Cache stage helpers: the one file format every depgraph cache uses (facts, digests,
results) — ``<sha256 of the payload>\\n<payload>`` — checked on read and written atomically.

A file whose digest does not match (corrupted, truncated, half-written) reads as missing, so a
cache is rebuilt and never trusted blindly; a write goes to a temporary name in the same folder
and is renamed into place, so readers never see a partial file. Write failures are swallowed:
a cache that cannot be written only costs time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from analyzer.util import pickling
from analyzer.util.atomic import atomic_write

_DIGEST_LEN = 64  # hex sha256


def read_checked(path: Path) -> bytes | None:
    """The payload of a cache file, or ``None`` when it is missing or does not check out."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    digest, _, payload = raw.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    return payload


def write_checked(path: Path, payload: bytes) -> None:
    """Atomically write ``payload`` with its digest; failures are ignored."""
    _write(path, lambda fh: fh.writelines(
        (hashlib.sha256(payload).hexdigest().encode(), b"\n", payload)))


def _write(path: Path, fill: Callable[[BinaryIO], object]) -> None:
    """Atomically write what ``fill`` writes into the open file, its folder made first; a
    failure to write is ignored (a cache that cannot be written only costs time)."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, fill, sync=False)


class _Hashing:
    """A file's ``write`` that also hashes what goes through it."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha.update(data)
        return self.fh.write(data)


def write_keyed(path: Path, head: object, value: object, *, shared: bool = False) -> None:
    """Like :func:`write_pickled`, with ``head`` pickled before ``value``, apart: a reader
    checks it before loading the value (:func:`read_keyed`). For a cache whose value is
    large and only valid under a key -- depgraph's version, the tree's shape: a stale one is
    not unpickled only to be thrown away (what it held stays with the process as freed
    memory the allocator does not give back)."""
    _write_values(path, (head, value), shared)


def read_keyed(path: Path, wanted: Callable[[object], bool]) -> tuple[object, object] | None:
    """(head, value) of a file :func:`write_keyed` wrote, when it checks out and
    ``wanted(head)``; else ``None`` (the value then is never unpickled)."""
    payload = read_checked(path)
    if payload is None:
        return None
    try:
        stream = io.BytesIO(payload)
        head = pickling.load(stream)
        if not wanted(head):
            return None
        value = pickling.load(stream)
    except Exception:
        return None
    return head, value


def write_pickled(path: Path, value: object, *, shared: bool = False) -> None:
    """``write_checked(path, pickle.dumps(value))``, pickled straight into the file: the
    payload is never held whole in memory (the result cache's entry, the edge memo: tens of
    MB on the largest trees). The digest line is written last, over a placeholder of its
    length; the file appears only complete (:func:`analyzer.util.atomic.atomic_write`).
    ``shared``: its integers and strings load as the process's shared ones
    (:mod:`analyzer.util.pickling`; slower to write)."""
    _write_values(path, (value,), shared)


def _write_values(path: Path, values: tuple[object, ...], shared: bool) -> None:
    """Pickle each of ``values`` in turn into ``path``, under one digest line."""
    def fill(fh: BinaryIO) -> None:
        fh.write(b"0" * _DIGEST_LEN + b"\n")
        out = _Hashing(fh)
        for value in values:
            if shared:
                pickling.dump(value, out)
            else:
                pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        fh.seek(0)
        fh.write(out.sha.hexdigest().encode())

    _write(path, fill)


def read_pickled(path: Path) -> object | None:
    """The unpickled payload of a cache file, or ``None`` when it is missing, does not check
    out or does not unpickle (an unreadable cache is only a miss)."""
    payload = read_checked(path)
    if payload is None:
        return None
    try:
        loaded: object = pickling.loads(payload)
    except Exception:
        return None
    return loaded
