"""Codemod stage: apply a deletion manifest to a source tree (``depgraph apply``).

Reads only the manifest and the files it edits; never imports or runs scanned code.
``apply.py`` orchestrates (checks, plans, diff, atomic writes, reverse patch),
``python_edits.py`` edits Python through LibCST, ``text_edits.py`` deletes line ranges from
any other file, ``command.py`` is the click command.
"""

from analyzer.codemod.apply import EXIT_REFUSED, ApplyError, ApplyResult, run_apply

__all__ = ["EXIT_REFUSED", "ApplyError", "ApplyResult", "run_apply"]
