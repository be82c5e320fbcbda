"""Command line, init: ``depgraph init [PATH]`` writes a commented starter ``depgraph.toml``.

For a tree a built-in profile detects (SGLang, vLLM), a short config that extends it
(``extends = "sglang"``; what it adds merges in, see ``analyzer/config/extends.py``), with the
scan options and an example feature commented out; ``--full`` writes a full copy of the
built-in instead (``extends = false``), to edit as a profile of its own. Otherwise a skeleton
with every section explained. Never overwrites: an existing file is an error (exit 3).
Registered by ``analyzer.cli.main``.
"""

from __future__ import annotations

from pathlib import Path

import click

from analyzer.cli.options import DepgraphCommand, verbosity_options, version_option
from analyzer.errors import InputError, OutputError

EXTENDS = """\
# depgraph configuration (docs/profiles.md). It extends the built-in {name} profile: what
# you write here merges into it (lists appended, tables merged by key, features and
# registries by name). `depgraph init --full` writes a full copy to edit instead.
extends = "{name}"

"""

EXAMPLE = """\
# More of a built-in feature, or a feature of your own (docs/profiles.md, [features.NAME]):
# [features.fa3]
# paths = ["python/my_fork/fa3_extras/**"]
"""

OPTIONS_HEADER = """\
# depgraph configuration (docs/profiles.md). The scan options below are the command line's:
# a value typed there overrides the key here.
# roots = ["deepseek_v2"]        # --roots: the models or modules you serve
# exclude = []                   # --exclude: gitignore-style patterns to skip
# drop = []                      # --drop: features to drop on top of default_drops
# keep = []                      # --keep: features to keep although default_drops lists them
# default_roots = true           # false: --no-default-roots
# strict = false                 # --strict: stale profile entries are errors
# format = ["json", "html"]      # scan --format
# out = "depgraph-out"           # scan --out (relative to this tree; "-": stdout)
# fail_on_removable = false      # scan --fail-on-removable (CI, pre-commit)
# jobs = 2                       # --jobs
# cache_dir = ".depgraph-cache"  # --cache-dir (relative to this tree)
# scope = "all"                  # --scope: "features" plans only what the dropped features take

"""

SKELETON = """\
# The profile: what depgraph knows about this repository (docs/profiles.md).
name = "{name}"
description = ""
entry_points = []          # "pkg.module:function" or "pkg.module": always roots
test_paths = []            # globs of test files besides test_*.py, tests/ ...
default_drops = []         # features dropped unless --keep

# [[registries]]           # string-keyed registration points: decorators, dicts, choices ...
# name = "backends"
# kind = "decorator"
# target = "pkg.registry.register_backend"

# [constants]              # platform probes with a known value on the target
# "pkg.utils.is_npu" = false

# [features.npu]           # what --drop npu removes
# description = "NPU support"
# paths = ["pkg/npu/**"]
# identifiers = ["Npu*"]
# [features.npu.registry_keys]
# backends = ["npu"]
"""


@click.command("init", cls=DepgraphCommand)
@click.argument("path", required=False, type=click.Path(path_type=Path), default=Path("."))
@click.option("--full", is_flag=True,
              help="Write a full copy of the detected built-in profile (extends = false) "
                   "instead of a short config that extends it.")
@verbosity_options("Also print the file written.")
@version_option
def init_command(path: Path, full: bool, quiet: bool, verbose: bool) -> None:
    """Write a commented starter depgraph.toml in PATH (default: here)."""
    from analyzer.config.profile import builtin_text, detected_builtin

    if not path.is_dir():
        raise InputError(f"{path} is not a directory")
    target = path / "depgraph.toml"
    if target.exists():
        raise InputError(f"{target} exists: depgraph init never overwrites a file")
    name = detected_builtin(path)
    if name and full:
        text = OPTIONS_HEADER + "extends = false  # a profile of its own\n\n" \
            + builtin_text(name)
        kind = f"a full copy of the built-in {name} profile"
    elif name:
        text = (EXTENDS.format(name=name) + "# Scan options: a value typed on the command line "
                "overrides its key.\n" + OPTIONS_HEADER.split("\n", 2)[2] + EXAMPLE)
        kind = f"extends the built-in {name} profile"
    else:
        text = OPTIONS_HEADER + SKELETON.format(name=path.resolve().name)
        kind = "a skeleton profile"
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    if verbose:
        click.echo(text, nl=False)
    if not quiet:
        click.echo(f"wrote {target} ({kind}, scan options commented out)")
