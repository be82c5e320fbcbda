"""Output stage, dispatch: render a ScanResult in the formats ``depgraph scan --format`` asks
for, as bytes per output file, and the console summary as lines.

Rendering to bytes (instead of writing straight to files) lets the CLI write outputs
atomically and lets :mod:`analyzer.pipeline.result_cache` keep them for an unchanged re-scan;
they are held deflated (:class:`Packed`) until written.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from analyzer.util.words import PAIRS_LEGEND, count, num

if TYPE_CHECKING:
    from analyzer.config.types import Profile
    from analyzer.result import Blocker, ScanResult

FORMATS = ("html", "json", "md", "sarif")
DEFAULT_FORMATS = ("json", "html")
FILE_NAMES = {"json": "manifest.json", "html": "report.html", "md": "summary.md",
              "sarif": "depgraph.sarif"}


@dataclass(frozen=True)
class Packed:
    """One output file's bytes, deflated as they were encoded: the largest tree's manifest and
    report are 34 MB together, rendered while the whole analysis is still in memory, and
    5 MB so. :meth:`write_to` inflates them where they are written, a piece at a time;
    the result cache keeps them deflated."""

    deflated: bytes

    def data(self) -> bytes:
        """The bytes, inflated whole (``--out -``, the tests)."""
        return zlib.decompress(self.deflated)

    def write_to(self, out: BinaryIO) -> None:
        """Write the bytes into ``out`` as they inflate, a piece at a time (the scan's memory
        is not all given back when the outputs are written: never the whole file at once)."""
        inflate = zlib.decompressobj()
        view = memoryview(self.deflated)
        for at in range(0, len(view), _BATCH):
            out.write(inflate.decompress(view[at:at + _BATCH]))
        out.write(inflate.flush())

    @classmethod
    def of(cls, data: bytes) -> Packed:
        return cls(zlib.compress(data, 1))


def render(result: ScanResult, fmt: str) -> dict[str, Packed]:
    """File name -> bytes of one format (``md`` also writes one file per dropped feature;
    ``json``: the manifest of a plan the gate verified, ``GateError`` otherwise)."""
    if fmt == "json":
        from analyzer.outputs.manifest import verified_manifest

        return {FILE_NAMES[fmt]: _json_packed(verified_manifest(result))}
    if fmt == "html":
        from analyzer.outputs.html import html_pieces

        return {FILE_NAMES[fmt]: _packed(html_pieces(result))}
    if fmt == "md":
        from analyzer.outputs.markdown import render_feature_markdown, render_markdown

        out = {FILE_NAMES[fmt]: Packed.of(render_markdown(result).encode("utf-8"))}
        for feature in result.profile.drops:  # one change description per feature (a PR each)
            out[f"summary-{feature}.md"] = Packed.of(
                render_feature_markdown(result, feature).encode())
        return out
    if fmt == "sarif":
        from analyzer.outputs.sarif import render_sarif

        return {FILE_NAMES[fmt]: _json_packed(render_sarif(result))}
    raise ValueError(f"unknown format {fmt!r}")


def _json_packed(data: object) -> Packed:
    """``json.dumps(data, indent=2) + "\\n"`` in UTF-8, encoded and deflated as the encoder
    goes: the manifest of a large tree is ~20 MB, and ``dumps`` holds its millions of pieces,
    their join and its encoding at once."""
    return _packed(json.JSONEncoder(indent=2).iterencode(data), "\n")


# text encoded and deflated at a time (characters)
_BATCH = 1 << 16


def _packed(pieces: Iterable[str], end: str = "") -> Packed:
    """The UTF-8 bytes of the pieces joined, then ``end``, deflated a batch of pieces at a
    time: neither the joined text nor its bytes are ever held whole."""
    deflate = zlib.compressobj(1)
    out: list[bytes] = []
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _BATCH:
            out.append(deflate.compress("".join(batch).encode("utf-8")))
            batch.clear()
            size = 0
    batch.append(end)
    out.append(deflate.compress("".join(batch).encode("utf-8")))
    out.append(deflate.flush())
    return Packed(b"".join(out))


def profile_origin(profile: Profile) -> str:
    """Where a profile comes from: its file, and the profile it extends or the config whose
    options it carries."""
    if profile.config:
        return f"{profile.source}, options from {profile.config}"
    if profile.extends:
        return f"{profile.source}, extends {profile.extends}"
    return profile.source


def blocker_lines(blockers: list[Blocker], indent: str, shown: int = 2) -> list[str]:
    """A feature's blockers on the terminal, by what changing each alone frees: every
    default that selects a dropped key and frees something, the ``shown`` most freeing places
    in live code among them, then every default that frees nothing alone (said so: other
    places keep the key's code too), the rest counted, the tests that import the feature
    grouped on one line."""
    out: list[str] = []
    code = [b for b in blockers if b.group == "code"]
    first = {id(b) for b in [b for b in code if b.frees][:shown]}
    freeing = [b for b in blockers if b.frees and (b.group == "default" or id(b) in first)]
    tests = [b for b in blockers if b.group == "test"]
    for b in freeing:
        if b.group == "default":
            out.append(f"{indent}{b.edit.split(' (it selects')[0]} (selects the dropped key "
                       f"{b.behind!r}; frees {num(len(b.frees))})")
            continue
        where = f"{b.file or 'the build'}{':' + str(b.line) if b.line else ''}"
        behind = f"; live only through the key {b.behind!r}" if b.behind else ""
        out.append(f"{indent}blocked at {where}: {b.edit.split(' at ')[0]} "
                   f"(frees {num(len(b.frees))}{behind})")
    for b in blockers:
        if b.group == "default" and not b.frees:
            out.append(f"{indent}{b.edit.split(' (it selects')[0]} selects the dropped key "
                       f"{b.behind!r}: changing it alone frees nothing (other places keep "
                       "what the key selects)")
    rest = len(code) - len(first)
    if rest:
        alone = "" if any(b.frees for b in code if id(b) not in first) \
            else " (freeing nothing alone)"
        out.append(f"{indent}+ {count(rest, 'more place', 'more places')} in live code"
                   f"{alone}: the report lists them")
    if tests:
        files = sorted({b.file for b in tests})
        head = ", ".join(files[:3]) + (f", +{len(files) - 3} more" if len(files) > 3 else "")
        out.append(f"{indent}{count(len(files), 'test imports', 'tests import')} it: {head}")
    return out


VERBOSE = "\x00v "  # prefix of stderr lines printed only with -v


def summary_lines(result: ScanResult) -> tuple[list[str], list[str]]:
    """(stdout lines, stderr lines) of the console summary. The ``removable:`` line ends with
    ``{elapsed}``, filled in by the caller."""
    from analyzer.outputs.html import feature_totals
    from analyzer.outputs.manifest import taken_along, totals

    native = [p for p in result.problems if p.kind == "syntax-error"
              and not p.path.endswith((".py", ".pyi"))]
    shown = [p for p in result.problems if p not in native]
    err: list[str] = [f"warning: {p.path}:{p.line}: {p.kind}: {p.message}" for p in shown[:20]]
    if len(shown) > 20:
        err.append(f"warning: ... {count(len(shown) - 20, 'more problem')} in the report")
    if native:
        files = len({p.path for p in native})
        err.append(f"note: {count(len(native), 'C/C++/CUDA construct')} in "
                   f"{count(files, 'file')} tree-sitter could not parse; extraction went on "
                   "around them (-v lists them)")
        err.extend(f"{VERBOSE}warning: {p.path}:{p.line}: {p.kind}: {p.message}" for p in native)
    # the built-in profile's stale entries: the user cannot edit them, the feature table's
    # anchors line says what they mean for each feature; -v lists them
    err.extend(f"{VERBOSE if s.startswith('builtin:') else ''}warning: stale: {s}"
               for s in result.profile.stale)
    out: list[str] = []
    if result.profile.profile is not None:
        out.append(f"profile {result.profile.profile.name} "
                   f"({profile_origin(result.profile.profile)}); "
                   f"dropped: {', '.join(result.profile.drops) or 'nothing'}")
        for a in result.anchors:  # the profile's knowledge of a feature, out of date: first
            if a.out_of_date:
                out.append(f"  OUT OF DATE: {a.summary()} -- the profile may not know this "
                           "tree; what the feature holds here may be missed")
    t = totals(result)
    if result.features:
        rows = {row["name"]: row for row in feature_totals(result)}
        out.append(f"  {'feature':<22} {'files':>6} {'lines':>9} {'TUs':>5} {'TU x arch':>9} "
                   f"{'blocked':>8}")
        for f in result.features:
            out.append(f"  {f.name:<22} {num(f.files_removable):>6} "
                       f"{num(f.lines_removable):>9} {num(rows[f.name]['tus']):>5} "
                       f"{rows[f.name]['tu_archs']:>9} {num(len(f.blocked)):>8}")
            anchored = next((a for a in result.anchors if a.feature == f.name), None)
            if anchored is not None and anchored.stale and not anchored.out_of_date:
                out.append(f"      anchors {anchored.matched}/{anchored.total}; stale: "
                           + ", ".join(str(a) for a in anchored.stale))
            out.extend(blocker_lines(result.blockers.get(f.name, []), "      "))
            if f.name in result.freeing:
                out.append(f"      what frees it: {result.freeing[f.name].text()}")
        along = taken_along(result)
        if along:
            out.append(f"  {'(dead code with them)':<22} "
                       f"{num(sum(1 for d in along if d.kind == 'delete_file')):>6} "
                       f"{num(sum(d.lines for d in along)):>9}")
        if any("?" in row["tu_archs"] for row in rows.values()):
            out.append(f"  ({PAIRS_LEGEND})")
    out.append(f"{count(t['python_files'], 'Python file')}, {count(t['modules'], 'module')}, "
               f"{num(t['live_modules'])} live")
    if result.kept_by_tests:
        kept = result.kept_by_tests
        lines = sum(result.files[p].lines for p in kept if p in result.files)
        out.append(f"  kept by tests: {count(len(kept), 'file')}, {count(lines, 'line')} "
                   "only a test of live code reaches (`depgraph why` names it)")
    out.append(f"removable: {count(t['files_removable'], 'file')}, "
               f"{count(t['lines_removable'], 'line')} in {count(t['deletions'], 'deletion')} "
               "({elapsed})")
    if result.profile.drops:
        hint = ("--scope features: only these are planned" if result.options.scope == "features"
                else "--scope features plans only these")
        out.append(f"  dropped features: {num(t['files_features']):>7} files, "
                   f"{num(t['lines_features']):>9} lines   ({hint})")
        if result.options.scope == "features":
            out.append("  other dead code:  not planned (--scope features)")
        else:
            out.append(f"  other dead code:  {num(t['files_other']):>7} files, "
                       f"{num(t['lines_other']):>9} lines   (code the roots do not reach: "
                       "other models, unused helpers)")
    return out, err
