"""Shared: writing files so that nothing is ever half-written -- the one atomic write (temp file
in the same folder, fsync, rename) of the codemod, the command line's outputs and the caches,
and the exclusive create of a file that must never be overwritten (a reverse patch)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _synced_temp(path: Path, data: bytes, sync: bool = True) -> str:
    """A temp file next to ``path`` holding ``data`` (flushed to disk with ``sync``)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".depgraph")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: Path, data: bytes, sync: bool = True) -> None:
    """Replace ``path`` with ``data``: temp file in the same folder, fsync (unless ``sync`` is
    off: caches, which may be lost), ``os.replace``; the file's mode is kept."""
    tmp = _synced_temp(path, data, sync)
    try:
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def exclusive_write(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``; FileExistsError (nothing written) when it exists. The
    content appears whole: written to a temp file, then hard-linked into place."""
    tmp = _synced_temp(path, data)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:  # no hard links on this file system: create exclusively, then write
            with path.open("xb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
