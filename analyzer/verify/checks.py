"""Verify stage: after pruning, a re-scan of the tree plus checks that it still holds together.

``verify_scan`` runs ``analyzer.pipeline.scan.run_scan`` on the (pruned) tree with the options the
pruning scan used; ``check`` then lists, as ``path:line: what`` problems:

- an import in a live module or live definition (module-level or lazy; not under
  ``TYPE_CHECKING``, not in ``try/except ImportError``, not in a folded-away branch) of an
  in-tree name that is no module, package, extension target or definition;
- ``importlib.import_module("pkg.x")`` in live code naming nothing in the tree, and a dotted
  string in live code whose longest in-tree prefix is a subpackage but whose rest names nothing;
- ``torch.ops.<ns>.<op>`` in live code where the tree registers ``<ns>`` but not ``<op>``;
- a Python file that does not compile (``compile()`` only: nothing is executed);
- a CMake target listing a source that is not in the tree, and an ``include()`` /
  ``add_subdirectory()`` of an in-tree path that does not exist;
- a kept target (``--keep-target`` or the profile's ``keep_targets``) that no CMake file defines.
"""

from __future__ import annotations

import fnmatch
import re
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analyzer.graph.native import is_tu
from analyzer.nodes import module_node
from analyzer.plan.check.breaks import Break
from analyzer.verify.edited import EditedFile, compile_error
from analyzer.verify.problem import VerifyProblem, problem_of

if typing.TYPE_CHECKING:
    from analyzer.result import ScanResult

CLI_SOURCE = "<command line>"
_LINE = re.compile(r"^([^:]*):\d+: ")
_UNKNOWN_TARGET = re.compile(r"unknown target '([^']*)'")
_MISSING_SOURCE = re.compile(r"^source of (.+?): no such file in the repository: (.+)$")
# variables that point inside the tree: an include() through them that misses is a break
_IN_TREE_VARS = ("${CMAKE_CURRENT_LIST_DIR}", "${CMAKE_CURRENT_SOURCE_DIR}",
                 "${PROJECT_SOURCE_DIR}", "${CMAKE_SOURCE_DIR}")
_SKIP_COMPILE = frozenset({"binary", "invalid-utf8", "unreadable", "symlink-loop"})


def check_against_manifest(result: ScanResult, before: dict[str, Any], root: Path,
                           jobs: int = 1, edited: Mapping[str, EditedFile] | None = None
                           ) -> list[VerifyProblem]:
    """What only a comparison with the original can tell: new undefined names, names and
    class attributes removed while still used, modules that now raise (``verify_python``,
    on the ``edited`` files read already, else linting in ``jobs`` worker processes);
    entries the codemod did not carry out; dropped keys live code still selects."""
    from analyzer.codemod.apply import unapplied_entries
    from analyzer.codemod.apply_state import STATE_NAME
    from analyzer.verify.members import check_module_values, check_subclasses
    from analyzer.verify.native import check_native
    from analyzer.verify.python import check_python

    out = check_python(result, before, jobs, edited)
    out.extend(check_module_values(result, before.get("verify_baseline_members")))
    out.extend(check_subclasses(result, before.get("verify_baseline_subclasses")))
    if (Path(root) / STATE_NAME).is_file():  # pruned with `depgraph apply`, not by hand
        out.extend(problem_of(Break("unapplied", p, line,
                                    f"manifest entry not carried out: {why}"))
                   for p, line, why in unapplied_entries(before, root))
    removed = {d.get("reason", "") for d in before.get("deletions", [])
               if d.get("category") == "registry-entry"}
    for key, where in sorted(result.profile.blocked_keys.items()):
        if any(f"entry {key!r} " in r for r in removed):
            path, _, rest = where.partition(":")
            line, _, what = rest.partition(":")
            out.append(problem_of(Break(
                "selected-key", path, int(line or 0), f"live code selects dropped key "
                f"{key!r} ({what.strip()}) but the pruning removed its registry entries",
                name=key)))
    out.extend(check_native(result, before))
    return out


def check(result: ScanResult, compile_paths: set[str] | None = None,
          shared: bool = True, edited: Mapping[str, EditedFile] | None = None
          ) -> list[VerifyProblem]:
    """All problems of a scanned tree. ``compile_paths`` limits the compile check (None: every
    Python file; an empty set: none — what a baseline at scan time uses; ``edited``: files
    compiled already). ``shared``: also
    the breaks of the shared checks (``analyzer.plan.check``) in the tree's live code:
    imports, strings, missing sources and includes, ops called but registered nowhere; a
    verify against a manifest runs them over everything that remains instead
    (``check_against_manifest``)."""
    from analyzer.plan.check.native import native_breaks
    from analyzer.verify.native import native_state

    problems: list[VerifyProblem] = []
    if shared:
        problems.extend(live_python_breaks(result))
        problems.extend(problem_of(b)
                        for b in native_breaks(None, native_state(result, live_only=True)))
    problems.extend(check_compiles(result, compile_paths, edited))
    problems.extend(_check_kept_targets(result))
    return sorted(set(problems))


def live_python_breaks(result: ScanResult) -> list[VerifyProblem]:
    """The Python breaks of a tree as it is, in its live code: imports, dotted strings and
    chains of live modules, outside folded branches and dead definitions."""
    from analyzer.model import Plan
    from analyzer.plan.check.breaks import python_breaks
    from analyzer.plan.check.view import planned_view

    scoped = Plan([d for d in result.plan.deletions
                   if d.category in ("python-branch", "python-symbol")])
    view = planned_view(scoped, result.index, {})
    live = [name for name in result.index.modules
            if result.liveness.is_live(module_node(name))]
    return [problem_of(b) for b in python_breaks(view, live)]


def check_compiles(result: ScanResult, paths: set[str] | None = None,
                   compiled: Mapping[str, EditedFile] | None = None) -> list[VerifyProblem]:
    """Every Python file of the tree (or of ``paths``) must compile (``compile()`` parses;
    nothing runs; ``compiled``: files whose answer is known already)."""
    skip = {p.path for p in result.problems if p.kind in _SKIP_COMPILE}
    out: list[VerifyProblem] = []
    for path in sorted(result.files if paths is None else paths & set(result.files)):
        if result.files[path].language != "python" or path in skip:
            continue
        known = (compiled or {}).get(path)
        if known is not None:
            error = known.compile_error
        else:
            try:
                error = compile_error((result.root / path).read_bytes(), path)
            except OSError:
                continue
        if error is not None:
            out.append(problem_of(Break("compile", path, error[0],
                                        f"does not compile: {error[1]}")))
    return out


def _check_kept_targets(result: ScanResult) -> list[VerifyProblem]:
    profile = result.profile.profile
    if profile is None:
        return []
    names = [t.name for t in result.native.project.targets]
    source, line = _profile_location(result, profile.source)
    return [problem_of(Break("kept-target", source, line, f"kept target {pattern!r} (profile "
                             "keep_targets) is defined by no CMake file", "target", pattern))
            for pattern in profile.keep_targets
            if not any(fnmatch.fnmatchcase(n, pattern) for n in names)]


def _profile_location(result: ScanResult, source: str) -> tuple[str, int]:
    """The profile file relative to the scanned root, and its ``keep_targets`` line."""
    path = Path(source)
    try:
        rel = path.resolve().relative_to(result.root.resolve()).as_posix()
    except (ValueError, OSError):
        return source, 0
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return rel, 0
    line = next((i for i, text in enumerate(lines, 1)
                 if re.match(r"\s*keep_targets\s*=", text)), 0)
    return rel, line


def translation_units(result: ScanResult) -> int:
    """In-tree translation units the CMake targets compile (each file once)."""
    return len({s.path for t in result.native.project.targets for s in t.sources
                if s.path and is_tu(s.path)})
