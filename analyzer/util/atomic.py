"""Shared: writing files so that nothing is ever half-written -- the one atomic write (temp file
in the same folder, fsync, rename) of the codemod, the command line's outputs and the caches,
and the exclusive create of a file that must never be overwritten (a reverse patch).

A new file gets the permissions any program's new file gets (``0o666`` less the process's
umask: ``rw-r--r--`` under the usual ``022``, readable by the group), not the temp file's
``0o600``; a replaced file keeps its own mode."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def new_file_mode() -> int:
    """The mode of a new file: ``0o666`` less the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _synced_temp(path: Path, data: bytes | Callable[[BinaryIO], object],
                 sync: bool = True) -> str:
    """A temp file next to ``path`` holding ``data`` (or what ``data``, a function, writes
    into the open file), flushed to disk with ``sync``, with the mode of a new file (mkstemp's
    is ``0o600``)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".depgraph")
    try:
        os.fchmod(fd, new_file_mode())
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
            else:
                data(fh)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: Path, data: bytes | Callable[[BinaryIO], object],
                 sync: bool = True) -> None:
    """Replace ``path`` with ``data``: temp file in the same folder, fsync (unless ``sync`` is
    off: caches, which may be lost), ``os.replace``; the file's mode is kept. ``data`` may be
    a function writing the content into the open file (a large cache streamed, not held)."""
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
