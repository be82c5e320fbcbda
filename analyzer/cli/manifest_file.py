"""Command line: the manifest a command is given (``apply MANIFEST``, ``why --manifest``,
``verify --before``), readable or one line and exit 3 -- the same words for every command."""

from __future__ import annotations

from pathlib import Path

from analyzer.errors import InputError


def readable_manifest(path: Path) -> Path:
    """``path`` when it is a file that can be read; InputError (exit 3) otherwise."""
    try:
        with path.open("rb") as f:
            f.read(1)
    except IsADirectoryError:
        raise InputError(f"cannot read manifest {path}: it is a folder (give the "
                         "manifest.json in it)") from None
    except OSError as exc:
        raise InputError(f"cannot read manifest {path}: {exc.strerror or exc}") from None
    return path
