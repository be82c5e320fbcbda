"""Report stage, SARIF 2.1.0: one result per planned deletion, for code-scanning UIs.

Formatting only: each ``Deletion`` of the plan becomes a result with ``ruleId`` = its category,
level ``note``, the deletion's reason as message and its file/line range as location.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from analyzer import __version__
from analyzer.outputs.manifest import deletion_entry

if TYPE_CHECKING:
    from analyzer.pipeline.scan import ScanResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"

# category -> short description of the rule
RULES: dict[str, str] = {
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
}


# the manifest's fields SARIF carries as properties (always the first three, others if set)
_PROPERTIES = ("kind", "lines", "sha256", "feature", "symbol", "names", "rewrite")
_ALWAYS = frozenset({"kind", "lines", "sha256"})


def _rule_id(category: str, kind: str) -> str:
    return category or kind


def render_sarif(result: ScanResult) -> dict[str, Any]:
    rule_ids = sorted({_rule_id(d.category, d.kind) for d in result.plan.deletions} | set(RULES))
    index = {r: i for i, r in enumerate(rule_ids)}
    rules = [{"id": r, "name": r,
              "shortDescription": {"text": RULES.get(r, r)},
              "defaultConfiguration": {"level": "note"}} for r in rule_ids]
    results: list[dict[str, Any]] = []
    for d in result.plan.deletions:
        rule = _rule_id(d.category, d.kind)
        start = d.start_line or 1
        end = d.end_line or (d.lines if d.start_line is None and d.lines else start)
        entry = deletion_entry(d)
        props = {k: entry[k] for k in _PROPERTIES if entry.get(k) or k in _ALWAYS}
        results.append({
            "ruleId": rule,
            "ruleIndex": index[rule],
            "level": "note",
            "message": {"text": d.reason},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": d.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": start, "endLine": max(end, start)},
            }}],
            "properties": props,
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "depgraph", "version": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": result.root.resolve().as_uri() + "/"}},
            "results": results,
        }],
    }
