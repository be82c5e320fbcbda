"""Extract stage, packaging metadata: the entry points a repository declares.

``[project.scripts]``, ``[project.gui-scripts]`` and ``[project.entry-points.*]`` of
``pyproject.toml`` files, and ``[options.entry_points]`` of ``setup.cfg``: each value
``pkg.mod:func`` names code that runs without any in-tree import reaching it, so the scan uses
them as default roots. A pure function of (path, bytes) like every extractor.
"""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass

from analyzer.model import ParseProblem


@dataclass(frozen=True)
class EntryPoint:
    group: str  # "console_scripts", "gui_scripts" or the entry-point group
    name: str
    value: str  # "pkg.mod:attr" or "pkg.mod"
    source: str  # file it was declared in


def extract(path: str, data: bytes) -> tuple[list[EntryPoint], list[ParseProblem]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [], [ParseProblem(path, 0, "invalid-utf8", "packaging file is not UTF-8")]
    if path.endswith(".toml"):
        return _from_pyproject(path, text)
    return _from_setup_cfg(path, text)


def _from_pyproject(path: str, text: str) -> tuple[list[EntryPoint], list[ParseProblem]]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [ParseProblem(path, 0, "syntax-error", f"invalid TOML: {exc}")]
    project = doc.get("project", {}) if isinstance(doc.get("project"), dict) else {}
    groups: dict[str, object] = {
        "console_scripts": project.get("scripts", {}),
        "gui_scripts": project.get("gui-scripts", {}),
    }
    extra = project.get("entry-points", {})
    if isinstance(extra, dict):
        groups.update(extra)
    out: list[EntryPoint] = []
    for group, table in groups.items():
        if isinstance(table, dict):
            out.extend(EntryPoint(group, str(k), str(v).split("[")[0].strip(), path)
                       for k, v in table.items())
    return out, []


def _from_setup_cfg(path: str, text: str) -> tuple[list[EntryPoint], list[ParseProblem]]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return [], [ParseProblem(path, 0, "syntax-error", f"invalid setup.cfg: {exc}")]
    if not parser.has_section("options.entry_points"):
        return [], []
    out: list[EntryPoint] = []
    for group, body in parser.items("options.entry_points"):
        for line in body.splitlines():
            if "=" in line:
                name, value = line.split("=", 1)
                out.append(EntryPoint(group, name.strip(), value.split("[")[0].strip(), path))
    return out, []
