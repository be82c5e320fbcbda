"""Performance helper shared by the pipeline stages: pause Python's cyclic garbage collector.

A scan allocates millions of small, long-lived objects (facts, graph nodes and edges) and
creates almost no reference cycles; the collector's repeated full passes over them cost a
third of a warm re-analysis on SGLang. Reference counting still frees everything but a cycle,
so analyzer code makes none (no recursive nested function, no class made per call:
``tests/pipeline/test_no_cycles.py``); the collector is restored afterwards.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
