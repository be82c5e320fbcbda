"""Pipeline, the scan the commands and tests run: the analysis (``analyzer.pipeline.analyze``)
with its plan through the gate (``analyzer.pipeline.gate``), so that every result a manifest
is made of has been verified on its applied copy (``ScanResult.verified``).

``scan`` (and ``run_scan``, its keyword form) is what the commands and tests call.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from analyzer.config.options import ScanOptions
from analyzer.extract.runner import Progress
from analyzer.pipeline.analyze import RunSettings, analyze_inputs
from analyzer.pipeline.gate import make_gate
from analyzer.pipeline.inputs import ScanError, ScanInputs, gather_inputs
from analyzer.result import ScanResult

__all__ = ["RunSettings", "ScanError", "ScanInputs", "ScanResult", "analyze", "gather_inputs",
           "run_scan", "scan"]


def scan(path: Path, options: ScanOptions, settings: RunSettings | None = None) -> ScanResult:
    """The whole pipeline on ``path``: inputs, then :func:`analyze`."""
    settings = settings or RunSettings()
    if settings.stage is not None:
        settings.stage("discover")
    return analyze(gather_inputs(path, options, cache_dir=settings.cache_dir), options, settings)


def run_scan(path: Path, root_names: list[str], *, jobs: int = 1,
             cache_dir: Path | None = None,
             progress: Callable[[Progress], None] | None = None, **options: Any) -> ScanResult:
    """:func:`scan` with the options as keywords (``use_profile=False``, ``drop=(...)``...):
    the convenience of the API and the tests."""
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                              for k, v in options.items()}
    opts = ScanOptions(roots=tuple(root_names), **fields)
    return scan(Path(path), opts, RunSettings(jobs, cache_dir, progress))


def analyze(inputs: ScanInputs, options: ScanOptions,
            settings: RunSettings | None = None) -> ScanResult:
    """The analysis of inputs already read, its plan through the gate: a plan whose applied
    copy fails ``depgraph verify --before`` is planned again with what verify blames kept,
    until it passes (``result.verified``: the baseline its manifest carries)."""
    settings = settings or RunSettings()
    return analyze_inputs(inputs, options, settings, gate=make_gate(settings))
