"""Codemod stage, memory of earlier runs: what ``depgraph apply --write`` did to a tree.

``apply.py`` reads this before planning and writes it (after the reverse patch, before the
first edited file) on every ``--write`` that edits a file or deliberately skips an entry.
It lives in the tree root as ``.depgraph-apply.json``, written atomically and merged with what
is there (never replaced wholesale)::

    {"format": "depgraph-apply-state", "version": 1,
     "files": {"pkg/a.py": [{"before": SHA, "after": SHA | "deleted",
                             "applied": [ENTRY_ID, ...], "skipped": {ENTRY_ID: WHY, ...},
                             "patches": [REVERSE_PATCH, ...]}, ...]},
     "features": ["fa3", ...]}

``features``: the dropped features applied so far with ``--feature`` (``"*"``: a whole
manifest was applied): an ``apply --feature F`` carries out what goes once those and ``F``
are applied, and ``depgraph verify`` expects what they selected, no more.

One *step* per (file, content before, content after): the manifest entries carried out
(``applied``) or deliberately left undone (``skipped``: optional entries, see
``apply._optional``; ``before == after`` when nothing else changed), and the reverse patches
that undo it (relative to the root when inside it). Entry ids are ``apply.entry_id``: a hash of
the manifest entry. A file's steps form a graph over content hashes; what was done to a file
now at hash C that a manifest scanned at hash S is the union of the steps on the path from S to
C (plus the skip-only steps at the hashes on it). The ``# depgraph-apply {json}`` header lines
of reverse patches (written by older versions too) are read as steps as well, so a lost state
file costs nothing while the patches are there.

A reverse patch is also how an edited file's original content is recovered
(``reconstruct``): its hunks are undone and the result must hash to the step's ``before``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.codemod.text_edits import split_lines
from analyzer.util.atomic import atomic_write

STATE_NAME = ".depgraph-apply.json"
STATE_FORMAT = "depgraph-apply-state"
RECORD = "# depgraph-apply "
DELETED = "deleted"
WHOLE = "*"  # in ``features``: a whole manifest was applied


class StateError(Exception):
    """The state file exists but cannot be used."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Step:
    """One recorded edit of one file: content ``before`` -> ``after`` (sha256 or "deleted")."""

    path: str
    before: str
    after: str
    applied: set[str] = field(default_factory=set)
    skipped: dict[str, str] = field(default_factory=dict)
    patches: list[str] = field(default_factory=list)

    def merge(self, other: Step) -> None:
        self.applied |= other.applied
        for k, v in other.skipped.items():
            self.skipped.setdefault(k, v)
        self.patches += [p for p in other.patches if p not in self.patches]

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "applied": sorted(self.applied),
                "skipped": dict(sorted(self.skipped.items())), "patches": self.patches}


@dataclass
class History:
    """What the state file and the reverse patches say was done to a file."""

    steps: list[Step]  # the path of steps from the scanned content to the current one
    applied: set[str]
    skipped: dict[str, str]


class State:
    """Every recorded step, by file."""

    def __init__(self) -> None:
        self.files: dict[str, list[Step]] = {}
        self.features: set[str] = set()  # applied with --feature; "*": a whole manifest

    @property
    def applied_features(self) -> frozenset[str] | None:
        """The features applied so far (None: a whole manifest was)."""
        return None if WHOLE in self.features else frozenset(self.features)

    def add(self, step: Step) -> None:
        steps = self.files.setdefault(step.path, [])
        for s in steps:
            if (s.before, s.after) == (step.before, step.after):
                s.merge(step)
                return
        steps.append(Step(step.path, step.before, step.after, set(step.applied),
                          dict(step.skipped), list(step.patches)))

    def history(self, path: str, scanned: str, current: str) -> History | None:
        """The steps leading from ``scanned`` to ``current`` (shortest path), with what they
        did; None when no recorded steps lead there."""
        steps = self.files.get(path, [])
        prev: dict[str, Step | None] = {scanned: None}
        queue = deque([scanned])
        while queue and current not in prev:
            node = queue.popleft()
            for s in steps:
                if s.before == node and s.after not in prev:
                    prev[s.after] = s
                    queue.append(s.after)
        if current not in prev:
            return None
        chain: list[Step] = []
        node = current
        while (step := prev[node]) is not None:
            chain.append(step)
            node = step.before
        chain.reverse()
        hashes = {scanned, *(s.after for s in chain)}
        out = History(chain, set(), {})
        for s in [*chain, *(s for s in steps if s.before == s.after and s.before in hashes)]:
            out.applied |= s.applied
            for k, v in s.skipped.items():
                out.skipped.setdefault(k, v)
        for k in out.applied:  # carried out later (after an undo, say): applied wins
            out.skipped.pop(k, None)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": 1,
                "files": {p: [s.to_json() for s in steps]
                          for p, steps in sorted(self.files.items())},
                "features": sorted(self.features)}


def state_path(root: Path) -> Path:
    return root / STATE_NAME


def read_state_file(root: Path, state: State) -> None:
    """Add the steps of ``root``'s state file to ``state``; StateError when it is unusable."""
    path = state_path(root)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise StateError(f"{path}: cannot read: {exc}") from exc
    try:
        data = json.loads(raw)
        if data.get("format") != STATE_FORMAT or data.get("version") != 1:
            raise ValueError("not a depgraph apply state file (version 1)")
        for rel, steps in data["files"].items():
            for s in steps:
                state.add(Step(str(rel), str(s["before"]), str(s["after"]),
                               {str(i) for i in s["applied"]},
                               {str(k): str(v) for k, v in s["skipped"].items()},
                               [str(p) for p in s["patches"]]))
        state.features.update(str(f) for f in data.get("features", ()))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise StateError(f"{path}: unusable ({exc}); restore it or remove it") from exc


def read_patch_records(patch: Path, name: str, state: State) -> None:
    """Add the ``# depgraph-apply`` header lines of a reverse patch to ``state``."""
    try:
        with patch.open(encoding="utf-8", errors="surrogateescape") as fh:
            for line in fh:
                if not line.startswith(RECORD):
                    break  # the records are the patch's first lines
                try:
                    rec = json.loads(line[len(RECORD):])
                    state.add(Step(rec["path"], rec["from"], rec["to"], set(rec["entries"]),
                                   dict(rec.get("skipped", {})), [name]))
                except (ValueError, KeyError, TypeError):
                    continue
    except OSError:
        return


def load(root: Path, extra_patches: Sequence[Path] = (), *, strict: bool = True) -> State:
    """The state file of ``root`` plus the records of every reverse patch it names, the
    ``depgraph-apply-*.patch`` files in ``root`` and ``extra_patches``. With ``strict`` an
    unusable state file raises StateError; otherwise it is ignored."""
    state = State()
    try:
        read_state_file(root, state)
    except StateError:
        if strict:
            raise
    patches = {patch_name(root, p): p for p in sorted(root.glob("depgraph-apply-*.patch"))}
    for p in extra_patches:
        patches.setdefault(patch_name(root, p), p)
    for steps in list(state.files.values()):
        for s in steps:
            for name in s.patches:
                patches.setdefault(name, resolve_patch(root, name))
    for name, p in patches.items():
        read_patch_records(p, name, state)
    return state


def patch_name(root: Path, patch: Path) -> str:
    """How the state file names a reverse patch: relative to the root when inside it."""
    full = patch.resolve() if patch.exists() else patch.absolute()
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(full)


def resolve_patch(root: Path, name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() else root / path


def save(root: Path, steps: list[Step], feature: str | None = None) -> Path:
    """Merge ``steps`` into the state file of ``root`` (re-read just before), with the
    ``feature`` they applied (None: the whole manifest), and write it atomically."""
    state = State()
    read_state_file(root, state)
    for s in steps:
        state.add(s)
    state.features.add(WHOLE if feature is None else feature)
    path = state_path(root)
    atomic_write(path, (json.dumps(state.to_json(), indent=1) + "\n").encode("utf-8"))
    return path


# -- undoing a reverse patch's hunks ------------------------------------------------------
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
Hunk = tuple[int, int, list[str], list[str]]  # new start (0-based), new length, old, new lines


def patch_sections(text: str) -> dict[str, list[Hunk]]:
    """The hunks of a unified diff written by ``apply.unified_diff``, by path (``a/PATH``).
    Hunk bodies are read by their counts, so a removed line that looks like a header is
    content."""
    lines = [x + "\n" for x in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    out: dict[str, list[Hunk]] = {}
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- a/") and i + 1 < len(lines)
                and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        path = lines[i][len("--- a/"):].rstrip("\n")
        hunks = out.setdefault(path, [])
        i += 2
        while i < len(lines) and (m := _HUNK.match(lines[i])):
            a_len = 1 if m.group(2) is None else int(m.group(2))
            b_start = int(m.group(3))
            b_len = 1 if m.group(4) is None else int(m.group(4))
            old: list[str] = []
            new: list[str] = []
            i += 1
            while (len(old) < a_len or len(new) < b_len) and i < len(lines):
                tag, body = lines[i][:1], lines[i][1:]
                i += 1
                if i < len(lines) and lines[i].startswith("\\"):
                    body = body[:-1] if body.endswith("\n") else body
                    i += 1
                if tag in " -":
                    old.append(body)
                if tag in " +":
                    new.append(body)
                if tag not in " -+":
                    return out  # not a diff this module wrote
            hunks.append((b_start - 1 if b_len else b_start, b_len, old, new))
    return out


def unpatch(current: bytes, hunks: list[Hunk]) -> bytes | None:
    """``current`` with ``hunks`` undone (new lines -> old lines); None when they do not fit."""
    lines = [x.decode("utf-8", "surrogateescape") for x in split_lines(current)]
    out: list[str] = []
    pos = 0
    for start, length, old, new in sorted(hunks, key=lambda h: h[0]):
        if start < pos or lines[start:start + length] != new:
            return None
        out += lines[pos:start] + old
        pos = start + length
    out += lines[pos:]
    return "".join(out).encode("utf-8", "surrogateescape")


def reconstruct(root: Path, history: History, current: bytes) -> bytes | None:
    """The content the file had before the first step of ``history``, from ``current`` and
    the steps' reverse patches (each result checked against the step's ``before`` hash);
    None when a patch is missing or does not fit."""
    content = current
    for step in reversed(history.steps):
        found = None
        for name in step.patches:
            try:
                text = resolve_patch(root, name).read_text(encoding="utf-8",
                                                           errors="surrogateescape")
            except OSError:
                continue
            hunks = patch_sections(text).get(step.path)
            if hunks is None:
                continue
            before = unpatch(content, hunks)
            if before is not None and sha256(before) == step.before:
                found = before
                break
        if found is None:
            return None
        content = found
    return content
