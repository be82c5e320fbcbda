"""Shared by every stage: the one error hierarchy of depgraph, each error with its exit code.

A stage raises the error that says what is wrong with the user's input; the command line maps
any ``DepgraphError`` to one line on stderr (``depgraph: error: <message>``) and its
``exit_code``, in one place (``analyzer.cli.main``). Free of heavy imports, so the command line
can catch them without loading the analysis stages. The codes are documented in the README.
"""

from __future__ import annotations

import difflib

EXIT_REMOVABLE = 1  # scan --fail-on-removable and the plan has deletions (not an error)
EXIT_USAGE = 2  # click's own code for a bad option
EXIT_VERIFY = 8  # verify found problems (reported one per line, not an error)


class DepgraphError(Exception):
    """An input depgraph cannot work with. The message is one line."""

    exit_code = 1


class InputError(DepgraphError):
    """The path does not exist, is not a directory, or holds nothing to analyze."""

    exit_code = 3


class ScanError(InputError):
    """Input the scan cannot work on (missing path, nothing to analyze)."""


class NoRootsError(DepgraphError):
    """A scan with no roots: nothing the user serves is named, so nothing would be live."""

    exit_code = EXIT_USAGE


class RootError(DepgraphError):
    """A root name that matches nothing, or more than one module."""

    exit_code = 4


class OutputError(DepgraphError):
    """The output folder or file cannot be written."""

    exit_code = 5


class ProfileError(DepgraphError):
    """A profile that cannot be used. The message is one line: ``<file>:<line>: <what>``."""

    exit_code = 6


class ApplyError(DepgraphError):
    """``depgraph apply`` refused: nothing has been written."""

    exit_code = 7


class GateError(DepgraphError):
    """No manifest: the plan's applied copy fails ``depgraph verify --before`` and nothing
    can be blamed (``analyzer.pipeline.gate``), or a manifest was asked of a plan the gate
    never verified."""

    exit_code = 9


class WorkerError(DepgraphError):
    """A worker process died before it answered (killed, or out of memory): its work is
    lost, nothing was written."""

    exit_code = 10


def suggest(word: str, choices: list[str] | tuple[str, ...], *, several: bool = False) -> str:
    """`` (did you mean 'x'?)`` for the closest choice; with ``several``, ``; did you mean:
    a, b`` (or ``; no similar name found``), for the root and target messages."""
    close = difflib.get_close_matches(word, list(choices), n=5 if several else 1, cutoff=0.6)
    if several:
        return f"; did you mean: {', '.join(close)}" if close else "; no similar name found"
    return f" (did you mean {close[0]!r}?)" if close else ""
