"""Codemod stage: apply a deletion manifest to a source tree (``depgraph apply``).

Reads only the manifest and the files it edits; never imports or runs scanned code.
``apply.py`` orchestrates (checks, plans, diff, atomic writes, reverse patch),
``apply_state.py`` remembers earlier runs (``.depgraph-apply.json``, reverse patches),
``python_edits.py`` edits Python through LibCST, ``text_edits.py`` deletes line ranges from
any other file, ``git_commit.py`` makes ``--commit``'s git commits; the click command is
``analyzer/cli/apply.py``.

The names below load ``apply`` (and LibCST) on first use, so the CLI starts fast.
"""

from typing import Any

__all__ = ["ApplyError", "ApplyResult", "run_apply"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from analyzer.codemod import apply

        return getattr(apply, name)
    raise AttributeError(name)
