"""Command line, shared options: one click decorator gives ``scan``, ``why``, ``graph`` and
``verify`` the same scan options, handed to the command as one ``ScanOptions`` value
(``options``) and one ``RunSettings`` value (``settings``: ``--jobs``, ``--cache-dir``,
``--no-cache``, the progress bar).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from analyzer.config.options import ScanOptions
from analyzer.config.types import SCOPES
from analyzer.errors import DepgraphError, NoRootsError, ProfileError

if TYPE_CHECKING:
    from analyzer.pipeline.scan import RunSettings, ScanResult


class DepgraphCommand(click.Command):
    """Every depgraph command: a ``DepgraphError`` a stage raises becomes ``depgraph: error:
    <message>`` on stderr and its exit code -- the one place errors map to exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DepgraphError as exc:
            click.echo(f"depgraph: error: {exc}", err=True)
            ctx.exit(exc.exit_code)

# name of the command's parameter -> (ScanOptions field, how the value maps)
_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "roots": ("roots", tuple),
    "no_default_roots": ("use_default_roots", lambda v: not v),
    "keep_targets": ("keep_targets", tuple),
    "excludes": ("excludes", tuple),
    "profile": ("profile", lambda v: v),
    "drop": ("drop", tuple),
    "keep": ("keep", tuple),
    "no_profile": ("use_profile", lambda v: not v),
    "strict": ("strict", bool),
    "parse_all": ("parse_all", bool),
    "scope": ("scope", lambda v: v),
}

_OPTIONS = [
    click.option("--roots", "-r", "roots", multiple=True,
                 help="Root to keep live: short module name, dotted module, file path or "
                      "module:Symbol. Repeatable."),
    click.option("--no-default-roots", is_flag=True,
                 help="Do not add the entry points the repository declares (pyproject "
                      "scripts, __main__ modules) as roots."),
    click.option("--keep-target", "keep_targets", multiple=True,
                 help="CMake target to keep whole (a root of the build). Globs allowed. "
                      "Repeatable."),
    click.option("--exclude", "excludes", multiple=True,
                 help="Extra gitignore-style pattern to skip. Repeatable."),
    click.option("--profile", "profile", default=None,
                 help="Profile file or built-in name (default: depgraph.toml, [tool.depgraph] "
                      "in pyproject.toml, or a built-in one that detects the tree)."),
    click.option("--drop", "drop", multiple=True,
                 help="Feature to drop (on top of the profile's defaults). Repeatable."),
    click.option("--keep", "keep", multiple=True,
                 help="Feature to keep although the profile drops it. Repeatable."),
    click.option("--strict", is_flag=True,
                 help="Stale profile entries (matching nothing) are errors."),
    click.option("--no-profile", is_flag=True, help="Use no profile, not even a detected one."),
    click.option("--scope", type=click.Choice(SCOPES), default="all",
                 show_default=True,
                 help="all: plan every deletion; features: only what the dropped features "
                      "take (their code, knock-ons, dead code that goes with them), other dead "
                      "code stays."),
    click.option("--parse-all", is_flag=True,
                 help="Parse every file, also those no root, test, script or profile entry "
                      "can reach (same result, slower: the on-demand extraction's reference)."),
]


def scan_options(func: Any) -> Any:
    """The scan options and --jobs/--cache-dir/--no-cache; the command receives ``options``
    (a ``ScanOptions``), ``given`` (the option fields typed on the command line) and ``jobs``,
    ``cache_dir``, ``no_cache``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        values: dict[str, Any] = {}
        given: set[str] = set()
        for param, (name, convert) in _FIELDS.items():
            values[name] = convert(kwargs.pop(param))
            source = ctx.get_parameter_source(param)
            if source is not None and source.name == "COMMANDLINE":
                given.add(name)
        options = ScanOptions(**values)
        if kwargs.get("manifest") is None:  # why --manifest reads no tree
            options = with_config(options, frozenset(given), kwargs.get("path"))
        return func(*args, options=options, given=frozenset(given), **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return perf_options(wrapper)


def config_options(path: Path | None, options: ScanOptions) -> Any:
    """The scan options of the tree's config (the profile file's), or None."""
    found = config_of(path, options)
    return found[0] if found is not None else None


def config_of(path: Path | None, options: ScanOptions) -> tuple[Any, Path] | None:
    """The scan options of the tree's config and the folder its relative paths (``out``,
    ``cache_dir``) start from: the config file's (it may lie above the scanned folder)."""
    from analyzer.config.profile import select_profile

    if path is None or not options.use_profile or not Path(path).is_dir():
        return None
    profile = select_profile(Path(path), options.profile)
    if profile is None:
        return None
    source = profile.config or profile.source
    base = Path(source).parent if not source.startswith("builtin:") else Path(path)
    return profile.options, base


def require_roots(options: ScanOptions, path: Path) -> None:
    """A scan plans what the roots do not reach: with none named -- on the command line, as
    ``roots`` in a config, or as the ``entry_points`` a profile of the user's own declares
    (a built-in's serve no model) -- everything but the tree's own entry points would be
    planned away. ``NoRootsError`` (exit 2), saying how to name them."""
    from analyzer.config.lookup import find_config
    from analyzer.config.profile import own_entry_points, select_profile
    from analyzer.discover.walk import resolve_root

    resolve_root(Path(path))  # (a path that is no folder is that error first: exit 3)
    if options.roots:
        return
    profile = select_profile(Path(path), options.profile) if options.use_profile else None
    if profile is not None and own_entry_points(profile):
        return

    where = (f"no depgraph.toml or [tool.depgraph] from {path} up to the repository's top"
             if find_config(Path(path)) is None
             else "the config found names none (roots = [...])")
    raise NoRootsError(f"no roots: name the entry points you serve with --roots NAME "
                       f"(repeatable: a model module such as deepseek_v2, a dotted module, a "
                       f"file, module:Symbol) or roots = [...] in depgraph.toml ({where}; "
                       "`depgraph init` writes one)")


def with_config(options: ScanOptions, given: frozenset[str], path: Path | None
                ) -> ScanOptions:
    """``options`` completed from the config: a key fills a field the command line did not
    set (``roots = [...]`` in ``[tool.depgraph]`` spares typing ``--roots`` each time)."""
    config = config_options(path, options)
    if config is None:
        return options
    changes: dict[str, Any] = {}
    for name in ("roots", "excludes", "drop", "keep"):
        if name not in given and getattr(config, name):
            changes[name] = getattr(config, name)
    if "use_default_roots" not in given and config.use_default_roots is not None:
        changes["use_default_roots"] = config.use_default_roots
    if "strict" not in given and config.strict is not None:
        changes["strict"] = config.strict
    if "scope" not in given and config.scope is not None:
        changes["scope"] = config.scope
    return options.replace(**changes) if changes else options


def version_option(func: Any) -> Any:
    """``--version`` on every command, as on the group."""
    from analyzer import __version__

    return click.version_option(__version__, prog_name="depgraph")(func)


def verbosity_options(verbose_help: str) -> Callable[[Any], Any]:
    """``-q/--quiet`` and ``-v/--verbose`` (``verbose_help``: what -v adds to this command),
    for the commands that have no others: the command receives ``quiet`` and ``verbose``."""
    def add(func: Any) -> Any:
        func = click.option("--verbose", "-v", is_flag=True, help=verbose_help)(func)
        return click.option("--quiet", "-q", is_flag=True,
                            help="Print nothing but errors and the answer.")(func)
    return add


def perf_options(func: Any) -> Any:
    """--jobs/--cache-dir/--no-cache."""
    func = click.option("--no-cache", is_flag=True, help="Neither read nor write the caches "
                        "(per-file facts and whole-scan results).")(func)
    func = click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
                        help="Cache folder (default: $XDG_CACHE_HOME/depgraph or "
                             "~/.cache/depgraph).")(func)
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                        help="Worker processes for extraction (default: all cores).")(func)


def run_settings(jobs: int | None, cache_dir: Path | None, no_cache: bool, quiet: bool) -> Any:
    """How the pipeline runs; a progress line (``analyzer.cli.progress``) only on a terminal
    and when not ``quiet``: ``close_progress(settings)`` clears it."""
    from analyzer.cli.progress import StageProgress
    from analyzer.pipeline.scan import RunSettings
    from analyzer.util.fingerprint import default_cache_dir

    bar = StageProgress() if not quiet and sys.stderr.isatty() else None
    return RunSettings(jobs or os.cpu_count() or 1,
                       None if no_cache else (cache_dir or default_cache_dir()),
                       bar, bar.enter if bar is not None else None)


def close_progress(settings: Any) -> None:
    """Clear the progress line, if any (before the summary is printed)."""
    close = getattr(settings.progress, "close", None)
    if close is not None:
        close()


def check_strict(stale: list[str], options: ScanOptions) -> None:
    if options.strict and stale:
        raise ProfileError(f"stale profile entry: {stale[0]}"
                           + (f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""))


def scan_tree(path: Path, options: ScanOptions, settings: RunSettings) -> ScanResult:
    """The pipeline, as why/graph/verify run it (--strict checked)."""
    from analyzer.pipeline.scan import scan as run_pipeline

    try:
        result = run_pipeline(path, options, settings)
    finally:
        close_progress(settings)
    check_strict(result.profile.stale, options)
    return result
