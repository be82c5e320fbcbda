"""Report stage, Markdown: a pull-request comment (``summary.md``) and a change description
per dropped feature (``summary-<feature>.md``).

Formatting only: every number comes from the ``ScanResult`` (``manifest.totals``, the
features' reports, the blockers, the native summary); nothing is analysed here.

Both are meant to be pasted into GitHub, which takes at most 65,536 characters: each stays
under ``LIMIT``. ``summary.md`` leads with what a reviewer acts on -- the headline (the
dropped features' lines apart from other dead code), the per-feature table, then what blocks
each feature (a default that selects a dropped key first, the places that free most, the
rest counted) -- and links the rest: the per-feature descriptions, ``report.html`` and
``manifest.json``. Long lists are cut with a count of what is left and where to find it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from analyzer.model import is_behaviour_decision
from analyzer.outputs.manifest import (
    feature_part,
    feature_tu_archs,
    feature_tus,
    shared_prefix,
    taken_along,
    totals,
)
from analyzer.util.words import PAIRS_LEGEND, num, pairs

if TYPE_CHECKING:
    from analyzer.model import Deletion
    from analyzer.result import Blocker, FeatureReport, ScanResult

LIMIT = 60_000  # characters; GitHub takes 65,536 in a comment or a pull-request description
BLOCKERS_SHOWN = 5  # places in live code per feature in summary.md (defaults always shown)
LIST_SHOWN = 25  # rows of the other lists in summary.md


def _cell(text: object) -> str:
    """A Markdown table cell: pipes escaped, no newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: object) -> str:
    return f"`{str(text).replace('`', '')}`"


def _where(b: Blocker) -> str:
    return f"{b.file}:{b.line}" if b.file and b.line else (b.file or "the build")


def _blocked_details(feature: FeatureReport, limit: int | None = None) -> list[str]:
    out: list[str] = []
    items = feature.blocked if limit is None else feature.blocked[:limit]
    chains = shared_prefix([item.chain for item in items])
    for item, chain in zip(items, chains, strict=True):
        out.append(f"<details><summary>{_code(item.label)} ({item.kind}) is blocked</summary>")
        out.append("")
        out.append("```")
        out.extend(chain or ["(no chain recorded)"])
        out.append("```")
        out.append("")
        out.append("</details>")
    if limit is not None and len(feature.blocked) > limit:
        out.append(f"\n... and {len(feature.blocked) - limit} more blocked items "
                   "(report.html, or `depgraph why --manifest manifest.json ITEM`)")
    return out


def blocker_table(blockers: list[Blocker], shown: int | None = None,
                  more: str = "report.html") -> list[str]:
    """Rows of a feature's blockers: every default that selects a dropped key, then the
    places in live code (``shown`` of them, most freeing first; all when None), the rest
    counted, the tests importing it on one line."""
    defaults = [b for b in blockers if b.group == "default"]
    code = [b for b in blockers if b.group == "code"]
    tests = [b for b in blockers if b.group == "test"]
    listed = code if shown is None else [b for b in code if b.frees][:shown]
    lines: list[str] = []
    if defaults or listed:
        lines += ["| where | edit | frees | blocks |", "|---|---|---:|---:|"]
        for b in defaults:
            lines.append(f"| {_cell(_where(b))} | **{_cell(b.edit)}** | {len(b.frees)} | "
                         f"{len(b.blocks)} |")
        for b in listed:
            behind = f" (live only through the key {_code(b.behind)}: change the default " \
                     "first)" if b.behind else ""
            lines.append(f"| {_cell(_where(b))} | {_cell(b.edit)}{_cell(behind)} | "
                         f"{len(b.frees)} | {len(b.blocks)} |")
        lines.append("")
    rest = len(code) - len(listed)
    if rest:
        alone = " (freeing nothing alone)" if not any(b.frees for b in code
                                                       if b not in listed) else ""
        lines += [f"+ {rest} more place{'s' if rest != 1 else ''} in live code{alone}: "
                  f"{more}", ""]
    if tests:
        files = sorted({b.file for b in tests})
        head = ", ".join(_code(f) for f in files[:5])
        more = f" and {len(files) - 5} more" if len(files) > 5 else ""
        lines += [f"{len(files)} test{'s import' if len(files) != 1 else ' imports'} it "
                  f"(it goes with the feature once nothing else keeps it): {head}{more}", ""]
    return lines


def render_markdown(result: ScanResult) -> str:
    """``summary.md``: under ``LIMIT`` characters whatever the tree's size."""
    text = ""
    for shown, listed in ((BLOCKERS_SHOWN, LIST_SHOWN), (3, 10), (1, 5), (0, 0)):
        text = _summary(result, shown, listed)
        if len(text) <= LIMIT:
            return text
    return _cut(text)


def _cut(text: str) -> str:
    note = "\n\n... (cut to stay under GitHub's 65,536 characters: see report.html)\n"
    return text[:LIMIT - len(note)].rsplit("\n", 1)[0] + note


def _summary(result: ScanResult, shown: int, listed: int) -> str:
    t = totals(result)
    lines: list[str] = ["## depgraph: dead-code report", ""]
    roots = ", ".join(_code(r) for r in result.root_names) or "(entry points only)"
    lines.append(f"Roots: {roots}")
    profile = result.profile.profile
    if profile is not None:
        dropped = ", ".join(_code(d) for d in result.profile.drops) or "nothing"
        lines.append(f"Profile: {_code(profile.name)}; dropped: {dropped}")
    lines.append("")
    scope = result.options.scope
    head = (f"**Removable: {num(t['lines_removable'])} lines** ({num(t['files_removable'])} "
            f"files, {num(t['deletions'])} deletions)")
    if result.profile.drops:
        head += (f": the dropped features take **{num(t['lines_features'])} lines** "
                 f"({num(t['files_features'])} files)")
        head += (", other dead code is not planned (`--scope features`)." if scope == "features"
                 else f"; **{num(t['lines_other'])} lines** ({num(t['files_other'])} files) are "
                      "other dead code: code the roots do not reach (other models, unused "
                      "helpers).")
    lines += [head, ""]
    if result.features:
        lines += _feature_table(result, t)
        blocked = [f for f in result.features if result.blockers.get(f.name)]
        if blocked:
            lines += ["### What blocks them", ""]
            for f in blocked:
                lines += [f"**{_cell(f.name)}**: {len(f.blocked)} blocked item"
                          f"{'s' if len(f.blocked) != 1 else ''}", ""]
                if f.name in result.freeing:
                    lines += [f"What frees it: {result.freeing[f.name].text()}", ""]
                lines += blocker_table(result.blockers.get(f.name, []), shown,
                                       f"[summary-{f.name}.md](summary-{f.name}.md)")
    decided = [d for d in result.plan.deletions if is_behaviour_decision(d)]
    if decided:
        lines += [f"### Behaviour decisions ({len(decided)})", "",
                  "Deletions that change which code runs on the target (read them before "
                  "applying):", ""]
        lines += [f"- `{d.path}{':' + str(d.start_line) if d.start_line else ''}`: "
                  f"{_cell(d.reason)}" for d in decided[:listed]]
        if len(decided) > listed:
            lines.append(f"- ... and {len(decided) - listed} more: report.html "
                         "(behaviour decisions)")
        lines.append("")
    _share, other = feature_part(result)
    if other:
        lines += _other_dead_code(other, listed)
    if result.kept_by_tests:
        kept = result.kept_by_tests
        lines += [f"### Kept by tests ({len(kept)} files)", "",
                  "Only a test of live code reaches these (it stays, so what it imports "
                  "stays):", ""]
        lines += [f"- `{p}`: kept: imported by `{t}` (a test of live code)"
                  for p, t in list(kept.items())[:listed]]
        if len(kept) > listed:
            lines.append(f"- ... and {len(kept) - listed} more: report.html (kept by tests)")
        lines.append("")
    lines += _build(result, listed)
    lines += ["### Details", ""]
    if result.profile.drops:
        lines.append("- One change description per dropped feature (what goes, what stays "
                     "blocked and why): " + ", ".join(
                         f"[summary-{d}.md](summary-{d}.md)" for d in result.profile.drops))
    lines += ["- Every deletion with its reason and source, the blocked chains, the "
              "dependency view: `report.html` (open it locally)",
              "- The plan: `manifest.json` (`depgraph apply manifest.json --stat`, then "
              "`--write`, or `--feature NAME` one feature at a time); why anything is kept or "
              "goes: `depgraph why --manifest manifest.json NAME`"]
    return "\n".join(lines).rstrip() + "\n"


def _feature_table(result: ScanResult, t: dict[str, int]) -> list[str]:
    lines = ["### Dropped features", "",
             "| feature | files | lines | TUs | TU x arch | blocked | top blocker |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for f in result.features:
        blockers = result.blockers.get(f.name, [])
        # the first by what changing it frees (analysis.blockers.present orders them)
        top = next((b for b in blockers if b.group in ("default", "code")), None)
        first = (f"{_code(_where(top))}: {_cell(top.edit.split(' at ')[0])}" if top else "")
        lines.append(f"| {_cell(f.name)} | {num(f.files_removable)} | {num(f.lines_removable)} | "
                     f"{num(feature_tus(result, f.name))} | "
                     f"{pairs(*feature_tu_archs(result, f.name))} | {len(f.blocked)} | {first} |")
    along = taken_along(result)
    if along:
        lines.append(f"| (dead code with them) | "
                     f"{num(sum(1 for d in along if d.kind == 'delete_file'))} | "
                     f"{num(sum(d.lines for d in along))} | | | | |")
    lines.append(f"| **dropped features** | **{num(t['files_features'])}** | "
                 f"**{num(t['lines_features'])}** | | | | |")
    if result.options.scope != "features":
        lines.append(f"| other dead code | {num(t['files_other'])} | {num(t['lines_other'])} "
                     "| | | | |")
    return [*lines, "", PAIRS_LEGEND + ".", ""]


def _other_dead_code(other: list[Deletion], listed: int) -> list[str]:
    lines = ["### Other dead code", "",
             "Code the roots do not reach for other reasons than the dropped features: by "
             "category, and the files with most lines.", "",
             "| category | deletions | lines |", "|---|---:|---:|"]
    count: Counter[str] = Counter()
    size: Counter[str] = Counter()
    for d in other:
        count[d.category or d.kind] += 1
        size[d.category or d.kind] += d.lines
    lines += [f"| {_cell(c)} | {num(n)} | {num(size[c])} |" for c, n in sorted(count.items())]
    lines.append("")
    per_file: Counter[str] = Counter()
    for d in other:
        per_file[d.path] += d.lines
    if listed and per_file:
        lines += ["| file | lines |", "|---|---:|"]
        lines += [f"| {_cell(p)} | {num(n)} |" for p, n in per_file.most_common(listed)]
        if len(per_file) > listed:
            lines.append(f"| ... {num(len(per_file) - listed)} more files (report.html) | |")
        lines.append("")
    return lines


def _build(result: ScanResult, listed: int) -> list[str]:
    s = result.native_summary
    lines = ["### Build", ""]
    if s.dead_targets:
        lines += ["| dead target | file | TUs (repo) | TUs (fetched) |", "|---|---|---:|---:|"]
        lines += [f"| {_cell(d.name)} | {_cell(d.file)} | {d.tus_in_repo} | {d.tus_fetched} |"
                  for d in s.dead_targets[:max(listed, 1)]]
        if len(s.dead_targets) > max(listed, 1):
            lines.append(f"| ... {len(s.dead_targets) - max(listed, 1)} more (report.html) "
                         "| | | |")
        lines.append("")
    else:
        lines += ["No dead targets.", ""]
    if s.dead_fetches:
        lines.append("Fetched repositories no longer needed: "
                     + ", ".join(_code(f) for f in s.dead_fetches))
    if s.dead_ops:
        ops = ", ".join(_code(o) for o in s.dead_ops[:max(listed, 1)])
        more = f" and {len(s.dead_ops) - max(listed, 1)} more" \
            if len(s.dead_ops) > max(listed, 1) else ""
        lines.append(f"Dead ops ({len(s.dead_ops)}): {ops}{more}")
    lines += [f"Translation units removed: {s.tus_removed}", ""]
    return lines


def render_feature_markdown(result: ScanResult, feature: str) -> str:
    """A change description for dropping one feature: what goes, what stays blocked and why,
    under ``LIMIT`` characters. ``KeyError`` when the scan has no such dropped feature."""
    text = ""
    for goes, blocked in ((None, None), (300, 50), (100, 20), (30, 5)):
        text = _feature(result, feature, goes, blocked)
        if len(text) <= LIMIT:
            return text
    return _cut(text)


def _feature(result: ScanResult, feature: str, goes: int | None,
             blocked: int | None) -> str:
    report = next((f for f in result.features if f.name == feature), None)
    if report is None:
        raise KeyError(feature)
    deletions = [d for d in result.plan.deletions if d.feature == feature]
    title = f"Drop feature `{feature}`"
    lines = [f"## {title}", ""]
    if report.description:
        lines += [report.description, ""]
    blockers = result.blockers.get(feature, [])
    if blockers:
        lines += ["### What blocks it", "",
                  "Live code enters the feature at these places; the edit on each line frees the "
                  "items it alone keeps. A default that selects a dropped key comes first: "
                  "change it rather than removing the registration.", ""]
        lines += blocker_table(blockers)
    lines += [f"- files removed: {report.files_removable}",
              f"- lines removed: {report.lines_removable}",
              f"- deletions: {len(deletions)}",
              f"- CUDA/C++ translation units removed from the build: "
              f"{feature_tus(result, report.name)}",
              f"- TU x architecture pairs removed from the build: "
              f"{pairs(*feature_tu_archs(result, report.name))}", ""]
    if deletions:
        lines += ["### What goes", "", "| path | lines | category | reason |",
                  "|---|---:|---|---|"]
        for d in deletions if goes is None else deletions[:goes]:
            where = d.path if d.start_line is None else f"{d.path}:{d.start_line}" + (
                f"-{d.end_line}" if d.end_line not in (None, d.start_line) else "")
            lines.append(f"| {_cell(where)} | {d.lines} | {_cell(d.category)} | "
                         f"{_cell(d.reason)} |")
        if goes is not None and len(deletions) > goes:
            lines.append(f"| ... {len(deletions) - goes} more (manifest.json, report.html) "
                         "| | | |")
        lines.append("")
    removable = [i for i in report.items if i.status == "removable"]
    if removable:
        lines += ["### Removable items", ""]
        shown = removable if goes is None else removable[:goes]
        lines += [f"- {_code(i.label)} ({i.kind})" for i in shown]
        if len(removable) > len(shown):
            lines.append(f"- ... and {len(removable) - len(shown)} more")
        lines.append("")
    if report.blocked:
        lines += ["### Still blocked", "",
                  "Live code still reaches these; they stay. The edit that unblocks each is at "
                  "the last step of its chain outside the feature.", ""]
        lines.extend(_blocked_details(report, blocked))
    else:
        lines.append("Nothing of this feature stays blocked.")
    return "\n".join(lines).rstrip() + "\n"
