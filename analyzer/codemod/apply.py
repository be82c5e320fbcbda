"""Codemod stage, orchestration: ``manifest.json`` -> checked edit plans -> diff / writes.

Reads only the manifest and the files it names (never imports or runs them). Order: validate
the manifest (``manifest_check``), select entries (``--feature``), check every path (relative,
no ``..``, inside the root after following symlinks), check every file's sha256 against the
manifest, compute each file's new bytes (``python_edits`` for ``.py``, ``text_edits`` for the
rest), and only when all of that succeeded write anything: the reverse patch first, then
each edited file atomically (temp file in the same directory, fsync, ``os.replace``), deleted
files last. Any failure before writing raises ``ApplyError`` and leaves the tree untouched.

Idempotence: a file whose hash differs from the manifest is either stale or already edited.
The reverse patch written by ``--write`` starts with one ``# depgraph-apply {json}`` line per
file (path, hash before, hash after, entry ids), which ``patch`` and ``git apply`` skip; a later
run reads those lines from ``depgraph-apply-*.patch`` in the root (and ``--patch-out``) and
counts a file whose current hash is a recorded result for all its selected entries as
already applied. A deleted file that is gone is already applied.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from analyzer.codemod.python_edits import PyEdit, edit_python
from analyzer.codemod.text_edits import EditError, delete_lines
from analyzer.manifest_check import validate

EXIT_REFUSED = 7
RECORD = "# depgraph-apply "
PYTHON_SUFFIXES = (".py", ".pyi")


class ApplyError(Exception):
    """A refusal: nothing has been written."""


@dataclass
class FileChange:
    path: str
    old: bytes
    new: bytes | None  # None: the file is deleted
    entries: list[str]
    manifest_sha: str

    @property
    def deleted(self) -> bool:
        return self.new is None


@dataclass
class ApplyResult:
    changes: list[FileChange] = field(default_factory=list)
    selected: int = 0
    already: int = 0
    diff: str = ""
    patch_path: Path | None = None
    lines_removed: int = 0
    skipped: list[str] = field(default_factory=list)  # optional entries left as they are

    def summary(self, written: bool) -> str:
        deleted = sum(1 for c in self.changes if c.deleted)
        edited = len(self.changes) - deleted
        if not self.changes:
            return f"already applied: {self.already} entries; nothing to change" \
                if self.already else "nothing to apply"
        verb = ("deleted", "edited", "removed") if written else \
            ("would delete", "would edit", "would remove")
        text = (f"{verb[0]} {deleted} files, {verb[1]} {edited} files, {verb[2]} "
                f"{self.lines_removed} lines ({self.selected - self.already} entries")
        text += f"; {self.already} already applied)" if self.already else ")"
        if self.patch_path is not None:
            text += f"\nreverse patch: {self.patch_path} (undo: patch -R -p1 < it)"
        return text


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry_id(entry: dict[str, Any]) -> str:
    return sha256(json.dumps(entry, sort_keys=True).encode())[:16]


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApplyError(f"{path.name}: cannot read manifest: {exc}") from exc
    errors = validate(data, name=path.name)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ApplyError(errors[0] + more)
    return data


def safe_path(root: Path, rel: str) -> Path:
    """``root / rel`` after checking ``rel`` is relative, has no ``..`` and stays in ``root``
    once symlinks are followed."""
    pure = PurePosixPath(rel)
    if pure.is_absolute() or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise ApplyError(f"{rel}: absolute path in manifest")
    if ".." in pure.parts or "\\" in rel:
        raise ApplyError(f"{rel}: path with '..' (or a backslash) in manifest")
    target = root / pure
    real_root = root.resolve()
    if not target.resolve().is_relative_to(real_root):
        raise ApplyError(f"{rel}: resolves outside the root {real_root}")
    return target


def plan(manifest: dict[str, Any], root: Path, feature: str | None,
         records: dict[tuple[str, str, str], set[str]]) -> ApplyResult:
    """Every file's new content; ApplyError on the first refusal."""
    entries = [e for e in manifest["deletions"] if feature is None or e["feature"] == feature]
    result = ApplyResult(selected=len(entries))
    by_path: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        safe_path(root, e["path"])
        by_path.setdefault(e["path"], []).append(e)
    for rel, group in sorted(by_path.items()):
        shas = {e["sha256"] for e in group}
        if len(shas) > 1:
            raise ApplyError(f"{rel}: entries disagree on the file's sha256")
        expected = shas.pop()
        ids = [entry_id(e) for e in group]
        target = root / rel
        kinds = {e["kind"] for e in group}
        if "delete_file" in kinds and len(kinds) > 1:
            raise ApplyError(f"{rel}: overlapping entries: the file is deleted and edited")
        if not target.is_file():
            if kinds == {"delete_file"} and not target.exists():
                result.already += len(group)
                continue
            raise ApplyError(f"stale manifest: {rel} is missing")
        old = target.read_bytes()
        current = sha256(old)
        if current != expected:
            done = records.get((rel, expected, current))
            if done is not None and set(ids) <= done:
                result.already += len(group)
                continue
            raise ApplyError(f"stale manifest: {rel} changed since the scan (sha256 {current[:12]}"
                             f" != {expected[:12]}); re-run depgraph scan")
        new = None if kinds == {"delete_file"} else _edit(rel, old, group, result.skipped)
        result.changes.append(FileChange(rel, old, new, ids, expected))
    return result


def _optional(e: dict[str, Any]) -> bool:
    """Entries safe to leave undone: a `try: import gone / except ImportError:` keeps working
    when the import fails, which is what folding it assumed."""
    return e["kind"] == "fold_branch" and e.get("rewrite") == "try_unwrap"


def _edit(rel: str, old: bytes, group: list[dict[str, Any]], skipped: list[str]) -> bytes:
    try:
        if rel.endswith(PYTHON_SUFFIXES):
            try:
                source = old.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise EditError("not UTF-8") from exc

            def edits_of(entries: list[dict[str, Any]]) -> list[PyEdit]:
                return [PyEdit(e["kind"], e["start_line"], e["end_line"],
                               tuple(e.get("names", ())), e.get("rewrite", ""),
                               _pair(e.get("statement")), _pair(e.get("keep")), e["reason"])
                        for e in entries if _ranged(e)]
            try:
                new = edit_python(source, edits_of(group))
            except EditError as exc:
                optional = [e for e in group if _optional(e)]
                if not optional:
                    raise
                new = edit_python(source, edits_of([e for e in group if not _optional(e)]))
                skipped.extend(f"{rel}:{e['start_line']}: {e.get('rewrite')} left as it is "
                               f"({exc})" for e in optional)
            try:
                ast.parse(new, filename=rel)
            except SyntaxError as exc:
                raise EditError(f"the edited file would not parse (line {exc.lineno})") from exc
            return new.encode("utf-8")
        bad = sorted({e["kind"] for e in group} - {"delete_range"})
        if bad:
            raise EditError(f"{', '.join(bad)} is only supported for Python files")
        return delete_lines(old, [(e["start_line"], e["end_line"]) for e in group
                                  if _ranged(e)])
    except EditError as exc:
        raise ApplyError(f"{rel}: cannot apply: {exc}") from exc


def _ranged(e: dict[str, Any]) -> bool:
    if "start_line" not in e or "end_line" not in e:
        raise EditError(f"{e['kind']} without start_line/end_line")
    return True


def _pair(value: Any) -> tuple[int, int] | None:
    return (int(value[0]), int(value[1])) if value else None


# -- diff and patch records ---------------------------------------------------------------
def _text_lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def unified_diff(change: FileChange) -> str:
    new = b"" if change.new is None else change.new
    to = "/dev/null" if change.deleted else f"b/{change.path}"
    out: list[str] = []
    lines = difflib.unified_diff(_text_lines(change.old), _text_lines(new),
                                 f"a/{change.path}", to, lineterm="")
    for i, line in enumerate(lines):
        if i < 2 or line.startswith("@@"):
            out.append(line + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def read_records(paths: list[Path]) -> dict[tuple[str, str, str], set[str]]:
    """(path, sha256 before, sha256 after) -> ids of the entries that edit produced."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for patch in paths:
        try:
            text = patch.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            continue
        for line in text.splitlines():
            if not line.startswith(RECORD):
                continue
            try:
                rec = json.loads(line[len(RECORD):])
                key = (rec["path"], rec["from"], rec["to"])
                out.setdefault(key, set()).update(rec["entries"])
            except (ValueError, KeyError, TypeError):
                continue
    return out


def _patch_text(result: ApplyResult) -> str:
    head = [RECORD + json.dumps({"path": c.path, "from": c.manifest_sha,
                                 "to": "deleted" if c.new is None else sha256(c.new),
                                 "entries": c.entries}) + "\n" for c in result.changes]
    return "".join(head) + result.diff


# -- writing ------------------------------------------------------------------------------
def atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".depgraph")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_apply(manifest_path: Path, root: Path | None = None, *, write: bool = False,
              feature: str | None = None, patch_out: Path | None = None) -> ApplyResult:
    """Check, plan and (with ``write``) apply; ApplyError before anything is written."""
    manifest = load_manifest(manifest_path)
    root = Path(manifest["root"]) if root is None else root
    if not root.is_dir():
        raise ApplyError(f"root {root} is not a directory")
    patches = sorted(root.glob("depgraph-apply-*.patch"))
    if patch_out is not None:
        patches.append(patch_out)
    result = plan(manifest, root, feature, read_records(patches))
    result.diff = "".join(unified_diff(c) for c in result.changes)
    result.lines_removed = sum(
        len(_text_lines(c.old)) - len(_text_lines(c.new or b"")) for c in result.changes)
    if not write or not result.changes:
        return result
    patch = patch_out or _free_name(root)
    atomic_write(patch, _patch_text(result).encode("utf-8", "surrogateescape"))
    result.patch_path = patch
    for c in result.changes:
        if c.new is not None:
            atomic_write(root / c.path, c.new)
    for c in result.changes:
        if c.new is None:
            (root / c.path).unlink()
    return result


def _free_name(root: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = root / f"depgraph-apply-{stamp}.patch"
    n = 1
    while path.exists():
        n += 1
        path = root / f"depgraph-apply-{stamp}-{n}.patch"
    return path
