"""Output stage, cache: whole-scan results keyed by everything the scan reads.

A scan is a pure function of its inputs: the discovered files (path, language, sha256 of the
bytes), discovery's Python roots and problems, the chosen profile, the packaging files that
declare entry points, the options that change the analysis, and depgraph's own code (the
version of the query ``results``: all of depgraph). When none of that changed since a
previous scan, its rendered outputs (manifest, report, ...) and console summary are reused instead
of re-running extract -> graph -> liveness -> plan. The key hashes file *contents* (sha256;
for a file whose stat signature did not change since it was hashed, the recorded hash:
:mod:`analyzer.discover.digests`), so an edit is never missed.

An entry is the query ``results`` of the store (:mod:`analyzer.core`), checked on read
(corrupted or partial -> miss), written atomically; the store's eviction policy keeps it
from growing with every profile edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from analyzer.config.options import ScanOptions
from analyzer.core.store import Query, Store, key_of
from analyzer.extract.cache import PARSERS
from analyzer.outputs.render import Packed
from analyzer.pipeline.inputs import ScanInputs, content_key

# the whole scan, rendered: all of depgraph, its patterns and what parses and lints for it
RESULTS = Query("results", code=("analyzer",), data=("queries",), dists=(*PARSERS, "pyflakes"))


@dataclass
class CachedScan:
    """What the CLI prints and writes for one scan, rendered."""

    outputs: dict[str, dict[str, Packed]]  # format -> file name -> its bytes, deflated
    stdout: list[str]
    stderr: list[str]
    stale: list[str]  # stale profile entries (--strict turns them into exit 6)
    has_deletions: bool
    timings: dict[str, float] = field(default_factory=dict)


def scan_key(inputs: ScanInputs, options: ScanOptions) -> str:
    """Hash of every input of a scan (see the module docstring); the options by
    ``ScanOptions.cache_key`` (every field that changes the analysis)."""
    return key_of("depgraph-scan", str(inputs.discovery.root), content_key(inputs, options))


class ResultCache:
    def __init__(self, directory: Path):
        self.store = Store(directory)

    def get(self, key: str) -> CachedScan | None:
        entry = self.store.get(RESULTS, key)  # missing, corrupted, unreadable: a miss
        return entry if isinstance(entry, CachedScan) else None

    def put(self, key: str, entry: CachedScan) -> None:
        self.store.put(RESULTS, key, entry)
