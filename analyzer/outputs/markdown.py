"""Report stage, Markdown: a PR-comment summary of a scan and a change description per feature.

Formatting only: every number comes from the ``ScanResult`` (``manifest.totals``, the
features' reports, the native summary); nothing is analysed here.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from analyzer.model import is_behaviour_decision
from analyzer.outputs.manifest import shared_prefix, totals

if TYPE_CHECKING:
    from analyzer.analysis.features import FeatureReport
    from analyzer.pipeline.scan import ScanResult


def _cell(text: object) -> str:
    """A Markdown table cell: pipes escaped, no newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: object) -> str:
    return f"`{str(text).replace('`', '')}`"


def feature_tus(result: ScanResult, feature: FeatureReport) -> int:
    """Translation units the feature's dead targets take out of the build (repo + fetched)."""
    names = {i.label for i in feature.items if i.kind == "target" and i.status == "removable"}
    return sum(t.tus_in_repo + t.tus_fetched for t in result.native_summary.dead_targets
               if t.name in names)


def _blocked_details(feature: FeatureReport) -> list[str]:
    out: list[str] = []
    chains = shared_prefix([item.chain for item in feature.blocked])
    for item, chain in zip(feature.blocked, chains, strict=True):
        out.append(f"<details><summary>{_code(item.label)} ({item.kind}) is blocked</summary>")
        out.append("")
        out.append("```")
        out.extend(chain or ["(no chain recorded)"])
        out.append("```")
        out.append("")
        out.append("</details>")
    return out


def render_markdown(result: ScanResult) -> str:
    t = totals(result)
    lines: list[str] = ["## depgraph: dead-code report", ""]
    roots = ", ".join(_code(r) for r in result.root_names) or "(entry points only)"
    lines.append(f"Roots: {roots}")
    profile = result.profile.profile
    if profile is not None:
        dropped = ", ".join(_code(d) for d in result.profile.drops) or "nothing"
        lines.append(f"Profile: {_code(profile.name)}; dropped: {dropped}")
    lines += ["", "| | count |", "|---|---:|",
              f"| Python files | {t['python_files']} |",
              f"| Python lines | {t['python_lines']} |",
              f"| modules (live) | {t['modules']} ({t['live_modules']}) |",
              f"| files removable | {t['files_removable']} |",
              f"| lines removable | {t['lines_removable']} |",
              f"| of which the dropped features' | {t['lines_features']} |",
              f"| of which other dead code | {t['lines_other']} |",
              f"| deletions | {t['deletions']} |",
              f"| dead targets | {t['dead_targets']} of {t['targets']} |",
              f"| translation units removed | {t['translation_units_removed']} |",
              f"| parse problems | {t['parse_problems']} |", ""]
    if result.features:
        lines += ["### Features", "",
                  "| feature | files removable | lines removable | items removable | blocked |",
                  "|---|---:|---:|---:|---:|"]
        for f in result.features:
            removable = sum(1 for i in f.items if i.status == "removable")
            lines.append(f"| {_cell(f.name)} | {f.files_removable} | {f.lines_removable} | "
                         f"{removable} | {len(f.blocked)} |")
        lines.append("")
        blocked = [f for f in result.features if f.blocked]
        if blocked:
            lines += ["### Blocked", ""]
            for f in blocked:
                lines.append(f"**{_cell(f.name)}**")
                lines.append("")
                lines.extend(_blocked_details(f))
                lines.append("")
    decided = [d for d in result.plan.deletions if is_behaviour_decision(d)]
    if decided:
        lines += ["### Behaviour decisions", "",
                  "Deletions that change which code runs on the target (read them before "
                  "applying):", ""]
        lines += [f"- `{d.path}{':' + str(d.start_line) if d.start_line else ''}`: "
                  f"{_cell(d.reason)}" for d in decided]
        lines.append("")
    by_category = Counter(d.category or d.kind for d in result.plan.deletions)
    if by_category:
        lines += ["### Deletions by category", "", "| category | deletions |", "|---|---:|"]
        lines += [f"| {_cell(c)} | {n} |" for c, n in sorted(by_category.items())]
        lines.append("")
    s = result.native_summary
    lines += ["### Build", ""]
    if s.dead_targets:
        lines += ["| dead target | file | TUs (repo) | TUs (fetched) |", "|---|---|---:|---:|"]
        lines += [f"| {_cell(d.name)} | {_cell(d.file)} | {d.tus_in_repo} | {d.tus_fetched} |"
                  for d in s.dead_targets]
        lines.append("")
    else:
        lines += ["No dead targets.", ""]
    if s.dead_fetches:
        lines.append("Fetched repositories no longer needed: "
                     + ", ".join(_code(f) for f in s.dead_fetches))
    if s.dead_ops:
        lines.append("Dead ops: " + ", ".join(_code(o) for o in s.dead_ops))
    lines.append(f"Translation units removed: {s.tus_removed}")
    return "\n".join(lines).rstrip() + "\n"


def render_feature_markdown(result: ScanResult, feature: str) -> str:
    """A change description for dropping one feature: what goes, what stays blocked and why.
    ``KeyError`` when the scan has no such dropped feature."""
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
                  "items it alone keeps.", "", "| where | edit | frees | blocks |",
                  "|---|---|---:|---:|"]
        lines += [f"| {_cell(f'{b.file}:{b.line}' if b.file else 'the build')} | "
                  f"{_cell(b.edit)} | {len(b.frees)} | {len(b.blocks)} |" for b in blockers]
        lines.append("")
    lines += [f"- files removed: {report.files_removable}",
              f"- lines removed: {report.lines_removable}",
              f"- deletions: {len(deletions)}",
              f"- CUDA/C++ translation units removed from the build: "
              f"{feature_tus(result, report)}", ""]
    if deletions:
        lines += ["### What goes", "", "| path | lines | category | reason |",
                  "|---|---:|---|---|"]
        for d in deletions:
            where = d.path if d.start_line is None else f"{d.path}:{d.start_line}" + (
                f"-{d.end_line}" if d.end_line not in (None, d.start_line) else "")
            lines.append(f"| {_cell(where)} | {d.lines} | {_cell(d.category)} | "
                         f"{_cell(d.reason)} |")
        lines.append("")
    removable = [i for i in report.items if i.status == "removable"]
    if removable:
        lines += ["### Removable items", ""]
        lines += [f"- {_code(i.label)} ({i.kind})" for i in removable]
        lines.append("")
    if report.blocked:
        lines += ["### Still blocked", "",
                  "Live code still reaches these; they stay. The edit that unblocks each is at "
                  "the last step of its chain outside the feature.", ""]
        lines.extend(_blocked_details(report))
    else:
        lines.append("Nothing of this feature stays blocked.")
    return "\n".join(lines).rstrip() + "\n"
