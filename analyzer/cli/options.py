"""Command line, shared options: ``--jobs``, ``--cache-dir`` and ``--no-cache`` for every
command that scans (scan, why, verify, graph), and the keyword arguments they become for
``analyzer.pipeline.scan.run_scan`` (worker count, cache folder, progress callback).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click


def perf_options(func: Any) -> Any:
    """--jobs/--cache-dir/--no-cache."""
    func = click.option("--no-cache", is_flag=True, help="Neither read nor write the caches "
                        "(per-file facts and whole-scan results).")(func)
    func = click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
                        help="Cache folder (default: $XDG_CACHE_HOME/depgraph or "
                             "~/.cache/depgraph).")(func)
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                        help="Worker processes for extraction (default: all cores).")(func)


def perf_settings(jobs: int | None, cache_dir: Path | None, no_cache: bool,
                  quiet: bool) -> dict[str, Any]:
    """run_scan keywords; a progress bar only on a terminal and when not ``quiet``."""
    from analyzer.extract.runner import ProgressBar
    from analyzer.util.fingerprint import default_cache_dir

    return {"jobs": jobs or os.cpu_count() or 1,
            "cache_dir": None if no_cache else (cache_dir or default_cache_dir()),
            "progress": ProgressBar() if not quiet and sys.stderr.isatty() else None}
