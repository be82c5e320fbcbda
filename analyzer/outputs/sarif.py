"""Report stage, SARIF 2.1.0, for code-scanning UIs: what a person has to act on, at its line.

Formatting only. One result per place that needs an edit or a read, each with its location:

- ``blocked-by-default`` (warning): a live default that selects a dropped registry key
  (``server_args.py:1749: self.dsa_decode_backend = 'fa3'``): change it, the feature's
  registrations then go;
- ``blocked-by-code`` (warning): a place in live code that keeps a dropped feature's items
  live (a blocker: the edit and what it frees in the message);
- ``blocked-by-test`` (note): a test that imports a dropped feature;
- ``behaviour-decision`` (note): a deletion that changes which code runs on the target.

The deletions themselves are not results (thousands of notes nobody reads): the run's
``properties`` hold the plan's totals -- the dropped features' share apart from other dead
code, the deletions by category -- and point at ``manifest.json``, which holds every
deletion with its reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from analyzer import __version__
from analyzer.model import is_behaviour_decision
from analyzer.outputs.manifest import totals

if TYPE_CHECKING:
    from analyzer.result import ScanResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"

# rule id -> (level, short description)
RULES: dict[str, tuple[str, str]] = {
    "blocked-by-default": ("warning", "A live default selects a dropped feature's registry "
                                      "key: change it (not the registration)"),
    "blocked-by-code": ("warning", "Live code keeps a dropped feature's code live"),
    "blocked-by-test": ("note", "A test imports a dropped feature"),
    "behaviour-decision": ("note", "A deletion changes which code runs on the target"),
}
# deletion category -> what it removes: the run's ``properties.deletions_by_category``
CATEGORIES: dict[str, str] = {
    "python-file": "Python module no root reaches",
    "python-symbol": "Function or class no live code references",
    "python-import": "Import whose names are dead or unused",
    "python-branch": "Branch the profile folds away",
    "registry-entry": "Registry entry of a dropped feature",
    "test-file": "Test of dead code only",
    "native-file": "C/C++/CUDA file only dead targets compile",
    "cmake-file": "CMake file left with no live content",
    "cmake-block": "CMake block left with no live command",
    "op-registration": "Registration of a dead torch op",
    "python-type-test": "A class nothing live constructs, added to a list only isinstance reads",
    "test-entry": "A runner's or suite list's entry naming a test that goes",
}
_GROUP_RULE = {"default": "blocked-by-default", "code": "blocked-by-code",
               "test": "blocked-by-test"}


def _location(path: str, line: int) -> list[dict[str, Any]]:
    if not path:
        return []
    return [{"physicalLocation": {
        "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": max(line, 1)}}}]


def render_sarif(result: ScanResult) -> dict[str, Any]:
    rule_ids = list(RULES)
    index = {r: i for i, r in enumerate(rule_ids)}
    rules = [{"id": r, "name": r, "shortDescription": {"text": RULES[r][1]},
              "defaultConfiguration": {"level": RULES[r][0]}} for r in rule_ids]
    results: list[dict[str, Any]] = []
    for f in result.features:
        for b in result.blockers.get(f.name, []):
            rule = _GROUP_RULE.get(b.group, "blocked-by-code")
            text = (f"Dropped feature {f.name} is blocked here: {b.edit} (frees "
                    f"{len(b.frees)} of its {len(f.blocked)} blocked items)")
            if b.behind and b.group == "code":
                text += f"; live only through the dropped key {b.behind!r}: change its " \
                        "default first"
            results.append({
                "ruleId": rule, "ruleIndex": index[rule], "level": RULES[rule][0],
                "message": {"text": text}, "locations": _location(b.file, b.line),
                "properties": {"feature": f.name, "frees": len(b.frees),
                               "blocks": len(b.blocks), "group": b.group}})
    for d in result.plan.deletions:
        if is_behaviour_decision(d):
            rule = "behaviour-decision"
            results.append({
                "ruleId": rule, "ruleIndex": index[rule], "level": RULES[rule][0],
                "message": {"text": d.reason}, "locations": _location(d.path, d.start_line or 1),
                "properties": {"feature": d.feature, "lines": d.lines}})
    t = totals(result)
    by_category: dict[str, int] = {}
    for d in result.plan.deletions:
        by_category[d.category or d.kind] = by_category.get(d.category or d.kind, 0) + 1
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "depgraph", "version": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": result.root.resolve().as_uri() + "/"}},
            "results": results,
            "properties": {
                "manifest": "manifest.json holds every deletion with its reason",
                "dropped": list(result.profile.drops),
                "scope": result.options.scope,
                **{k: t[k] for k in ("lines_removable", "files_removable", "deletions",
                                     "lines_features", "files_features", "lines_other",
                                     "files_other")},
                "deletions_by_category": {
                    c: {"count": n, "what": CATEGORIES.get(c, c)}
                    for c, n in sorted(by_category.items())}},
        }],
    }
