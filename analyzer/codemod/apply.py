"""Codemod stage, orchestration: ``manifest.json`` -> checked edit plans -> diff / writes.

Reads only the manifest and the files it names (never imports or runs them). Order: validate
the manifest (``manifest_check``), select entries (``--feature``), check every path (relative,
no ``..``, inside the root after following symlinks), check every file's sha256 against the
manifest and what earlier runs recorded (``apply_state``), compute each file's new bytes
(``python_edits`` for ``.py``, ``text_edits`` for the rest), and only when all of that
succeeded write anything: the reverse patch first (a new file, never an existing one), then
the state file ``.depgraph-apply.json`` in the root, then each edited file atomically (temp
file in the same directory, fsync, ``os.replace``), deleted files last. Any failure before
writing raises ``ApplyError`` and leaves the tree untouched.

Idempotence: every ``--write`` records, per file, the content hash before and after and the
ids of the entries carried out or deliberately skipped (optional entries that cannot be
applied, see ``_optional``), in the state file and in the reverse patch's header lines. A run
counts an entry as handled when the file's current content is reached from the scanned
content by recorded steps that handled it; a file whose selected entries are all handled is
"already applied", and a run with nothing to change writes nothing (no patch, no state).

Partial application (``--feature A`` first, then more of the same manifest): a file no
earlier step touched is edited as usual. A file already edited for other entries of the same
manifest is planned again from its scanned content, recovered by undoing the recorded reverse
patches (checked against the scanned hash): the result is what applying every handled and
every newly selected entry at once gives, and this run's reverse patch goes from the current
content to it. When that content cannot be recovered (a reverse patch was removed or edited),
or entries that are not in this manifest edited the file, the run refuses: applying the rest
of that file needs a re-scan. ``unapplied_entries`` lists what of a manifest was not carried
out (for ``depgraph verify``).
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from analyzer.codemod import apply_state
from analyzer.codemod.apply_state import (
    DELETED,
    RECORD,
    History,
    State,
    StateError,
    Step,
    sha256,
)
from analyzer.codemod.manifest_check import validate
from analyzer.codemod.python_edits import PyEdit, edit_python
from analyzer.codemod.text_edits import EditError, delete_lines, split_lines
from analyzer.core.session import current, session
from analyzer.core.store import Query, Store
from analyzer.errors import ApplyError
from analyzer.model import goes_with
from analyzer.util.atomic import atomic_write, exclusive_write
from analyzer.util.parallel import parallel_map
from analyzer.util.words import count, num

__all__ = ["ApplyError", "ApplyResult", "atomic_write", "entry_id",
           "run_apply", "sha256", "unapplied_entries"]

PYTHON_SUFFIXES = (".py", ".pyi")

EDITS = Query("edits", code=("analyzer.codemod",))  # a file's edits, by its bytes and entries
DIFFS = Query("diffs", code=("analyzer.codemod.apply",))  # a change's diff, by its two contents




@dataclass
class FileChange:
    path: str
    old: bytes  # the current content
    new: bytes | None  # None: the file is deleted
    entries: list[str]  # ids of the entries carried out
    manifest_sha: str  # the content the manifest was scanned from
    skipped: dict[str, str] = field(default_factory=dict)  # id -> why it was left undone

    @property
    def deleted(self) -> bool:
        return self.new is None

    def step(self, patch: str | None) -> Step:
        return Step(self.path, sha256(self.old), DELETED if self.new is None else
                    sha256(self.new), set(self.entries), dict(self.skipped),
                    [patch] if patch else [])


@dataclass(frozen=True)
class Preview:
    """A file a dry run would change, from the manifest's entries alone (no edit computed):
    deleted or edited, the plan's lines of its entries, how many entries."""

    path: str
    deleted: bool
    lines: int
    entries: int


@dataclass
class ApplyResult:
    changes: list[FileChange] = field(default_factory=list)
    previews: list[Preview] = field(default_factory=list)  # a preview: no edit computed
    unchanged: list[FileChange] = field(default_factory=list)  # only skipped entries: no edit
    selected: int = 0
    already: int = 0
    diff: str = ""
    patch_path: Path | None = None
    state_path: Path | None = None
    lines_removed: int = 0  # what the diff removes (net lines)
    plan_lines: int = 0  # the plan's line total of the entries carried out (the one number)
    skipped: list[str] = field(default_factory=list)  # optional entries left as they are

    def summary(self, written: bool) -> str:
        if self.previews:
            deleted = sum(1 for p in self.previews if p.deleted)
            return (f"would delete {count(deleted, 'file')}, would edit "
                    f"{count(len(self.previews) - deleted, 'file')}, would remove "
                    f"{count(sum(p.lines for p in self.previews), 'line')} by the "
                    f"plan's count ({num(self.selected - self.already)} entries"
                    + (f"; {num(self.already)} already applied)" if self.already else ")")
                    + " (the edits are computed by --diff and --write)")
        deleted = sum(1 for c in self.changes if c.deleted)
        edited = len(self.changes) - deleted
        left = sum(len(c.skipped) for c in self.unchanged)
        if not self.changes:
            if left:
                return (f"nothing to change: {left} entries left as they are (warnings above)"
                        + (f"; {self.already} already applied" if self.already else ""))
            return f"already applied: {self.already} entries; nothing to change" \
                if self.already else "nothing to apply"
        verb = ("deleted", "edited", "removed") if written else \
            ("would delete", "would edit", "would remove")
        text = (f"{verb[0]} {count(deleted, 'file')}, {verb[1]} {count(edited, 'file')}, "
                f"{verb[2]} {count(self.plan_lines, 'line')} by the plan's count (the diff "
                f"removes {num(self.lines_removed)}: with the blank lines and block headers "
                f"that go with them) ({num(self.selected - self.already)} entries")
        text += f"; {num(self.already)} already applied)" if self.already else ")"
        if self.patch_path is not None:
            text += (f"\nundo diff: {self.patch_path} (the diff of these edits; undo them with "
                     f"patch -R -p1 < it, or git apply -R)")
        return text


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
    manifest: dict[str, Any] = data  # valid against the schema: an object
    return manifest


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


def selected(entry: dict[str, Any], applied: frozenset[str] | None) -> bool:
    """The entry goes once the features ``applied`` are (None: the whole manifest): the
    plan's rule (``analyzer.model.goes_with``). An entry of a manifest written before
    ``features`` existed goes with its own ``feature``."""
    if applied is not None and "features" not in entry:
        return entry.get("feature", "") in applied
    return goes_with(tuple(entry.get("features", ())), tuple(entry.get("with_features", ())),
                     applied, tuple(entry.get("after", ())))


def _by_path(entries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        out.setdefault(e["path"], []).append(e)
    return out


def plan(manifest: dict[str, Any], root: Path, feature: str | None, state: State,
         progress: Callable[[int, int], None] | None = None, edit: bool = True
         ) -> ApplyResult:
    """Every file's new content; ApplyError on the first refusal. Without ``edit``: the
    files it would change as previews (every check made, no edit computed: what ``--stat``
    and the dry run show). The edits of a file already computed (by its bytes and entries)
    are read back from the open session's store (``EditCache``)."""
    applied = None if feature is None else (state.applied_features or frozenset()) | {feature}
    entries = [e for e in manifest["deletions"] if selected(e, applied)]
    result = ApplyResult(selected=len(entries))
    # (rel, old, base, todo, expected): the files to edit, edited below in worker processes
    work: list[tuple[str, bytes, bytes, list[dict[str, Any]], str]] = []
    for e in entries:
        safe_path(root, e["path"])
    check_tree(manifest, root, state)
    every = _by_path(manifest["deletions"])
    stale: list[str] = []  # files that are not as scanned: refused together, in one line
    for rel, group in sorted(_by_path(entries).items()):
        shas = {e["sha256"] for e in every[rel]}
        if len(shas) > 1:
            raise ApplyError(f"{rel}: entries disagree on the file's sha256")
        expected = shas.pop()
        target = root / rel
        kinds = {e["kind"] for e in every[rel]}
        if "delete_file" in kinds and len(kinds) > 1:
            raise ApplyError(f"{rel}: overlapping entries: the file is deleted and edited")
        if not target.is_file():
            if kinds == {"delete_file"} and not target.exists():
                result.already += len(group)
                continue
            stale.append(f"{rel} is missing")
            continue
        old = target.read_bytes()
        current = sha256(old)
        history = state.history(rel, expected, current)
        if history is None:
            stale.append(f"{rel} changed since the scan (sha256 {current[:12]} != "
                         f"{expected[:12]})")
            continue
        handled = history.applied | set(history.skipped)
        pending = [e for e in group if entry_id(e) not in handled]
        result.already += len(group) - len(pending)
        if not pending:
            continue
        if kinds == {"delete_file"}:
            result.changes.append(FileChange(rel, old, None, [entry_id(e) for e in pending],
                                             expected))
            continue
        if history.steps:  # edited before for other entries: plan again from the scan's content
            base = _scanned_content(root, rel, history, old, every[rel])
            todo = [e for e in every[rel] if entry_id(e) in history.applied] + pending
        else:
            base, todo = old, pending
        work.append((rel, old, base, todo, expected))
    if stale:
        files = len(_by_path(entries))
        if len(stale) == 1:
            raise ApplyError(f"stale manifest: {stale[0]}; re-run depgraph scan")
        raise ApplyError(f"stale manifest: {len(stale)} of the {files} files it edits are not "
                         f"as scanned (first: {stale[0]}); re-run depgraph scan")
    if not edit:
        result.previews = sorted(
            [Preview(c.path, True, sum(int(e.get("lines", 0)) for e in every[c.path]
                                       if entry_id(e) in set(c.entries)), len(c.entries))
             for c in result.changes]
            + [Preview(rel, False, sum(int(e.get("lines", 0)) for e in todo), len(todo))
               for rel, _old, _base, todo, _e in work], key=lambda p: p.path)
        result.changes = []
        return result
    for (rel, old, _base, todo, expected), (new, skipped) in zip(
            work, _edit_all([(rel, base, todo) for rel, _old, base, todo, _e in work],
                            progress),
            strict=True):
        result.skipped.extend(skipped.values())
        ids = [entry_id(e) for e in todo if entry_id(e) not in skipped]
        change = FileChange(rel, old, new, ids, expected, dict(skipped))
        (result.changes if new != old else result.unchanged).append(change)
    result.changes.sort(key=lambda c: c.path)  # deletions and edits in one path order
    return result


def check_tree(manifest: dict[str, Any], root: Path, state: State) -> None:
    """Refuse, in one line, a manifest made for another tree: none of the top-level packages
    it recorded (``tree.packages``: each ``__init__.py`` at its relative path) is in
    ``root``. A copy of the scanned tree anywhere passes (the paths are relative); a tree
    where the manifest was applied before passes too (its state file knows the files). A
    manifest from before ``tree`` existed is checked by its files' sha256 only."""
    tree = manifest.get("tree")
    if not isinstance(tree, dict) or not tree.get("packages") or state.files:
        return
    packages = [p for p in tree["packages"] if isinstance(p, dict)]
    if any((root / str(p.get("init", ""))).is_file() for p in packages):
        return
    names = ", ".join(str(p.get("name")) for p in packages[:5])
    raise ApplyError(f"manifest made for another tree: it was scanned from "
                     f"{manifest.get('root', '?')} (packages {names}); {root} has none of "
                     "them (scan this tree, or give --root the tree it was made for)")


def _edit_all(jobs: list[tuple[str, bytes, list[dict[str, Any]]]],
              progress: Callable[[int, int], None] | None = None
              ) -> list[tuple[bytes, dict[str, str]]]:
    """``_edit_entries`` of every job, in worker processes when there are many (LibCST
    parsing dominates a large apply); the first refusal is raised, as in a serial run.
    ``progress(done, total)`` after each file. The jobs edited before (same bytes, same
    entries) are read back from the store; the others are stored once edited."""
    opened = current()
    cache = opened.view("edits", EditCache) if opened is not None else None
    known = [cache.get(rel, old, todo) if cache is not None else None
             for rel, old, todo in jobs]
    todo_jobs = [job for job, hit in zip(jobs, known, strict=True) if hit is None]
    # largest files first, one at a time: the workers finish together
    done = iter(parallel_map(_edit_job, todo_jobs, min(os.cpu_count() or 1, 8),
                             size=lambda job: len(job[1]), min_items=16, progress=progress))
    out: list[tuple[bytes, dict[str, str]]] = []
    for job, hit in zip(jobs, known, strict=True):
        if hit is None:
            hit = next(done)
            if cache is not None:
                cache.put(job[0], job[1], job[2], hit)
        out.append(hit)
    return out


class EditCache:
    """A file's edits are a pure function of its bytes and its entries (and of depgraph's
    code): the query ``edits`` of the store (:mod:`analyzer.core`), so a scan's gate
    computes them once for the ``apply`` that follows, and a plan that changed a few files
    edits only those. What the attribution sets on an entry (:data:`_LABELS`: the features it
    goes with, set after the gate) is no part of the edit: an entry is the same edit however
    labelled (the entries left undone are kept by their place in the file's entries, and
    named by the asking entries' ids). Unreadable or corrupted entries are misses."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def _key(rel: str, old: bytes, entries: list[dict[str, Any]]) -> str:
        edits = [{k: v for k, v in e.items() if k not in _LABELS} for e in entries]
        return hashlib.sha256(rel.encode() + b"\0" + hashlib.sha256(old).digest() + json.dumps(
            edits, sort_keys=True).encode()).hexdigest()

    def get(self, rel: str, old: bytes, entries: list[dict[str, Any]]
            ) -> tuple[bytes, dict[str, str]] | None:
        got = self.store.get(EDITS, self._key(rel, old, entries))
        if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], bytes)
                and isinstance(got[1], dict)
                and all(isinstance(i, int) and 0 <= i < len(entries) for i in got[1])):
            return None
        return got[0], {entry_id(entries[i]): str(why) for i, why in got[1].items()}

    def put(self, rel: str, old: bytes, entries: list[dict[str, Any]],
            edited: tuple[bytes, dict[str, str]]) -> None:
        place = {entry_id(e): i for i, e in enumerate(entries)}
        self.store.put(EDITS, self._key(rel, old, entries),
                       (edited[0], {place[key]: why for key, why in edited[1].items()}))


# what the attribution sets on an entry (``analyzer.plan.feature_sets``): never read by an edit
_LABELS = frozenset({"feature", "features", "with_features", "after"})


def _edit_job(job: tuple[str, bytes, list[dict[str, Any]]]) -> tuple[bytes, dict[str, str]]:
    return _edit_entries(*job)


def _scanned_content(root: Path, rel: str, history: History, current: bytes,
                     entries: list[dict[str, Any]]) -> bytes:
    """The content ``rel`` had when scanned, recovered by undoing the recorded reverse
    patches; ApplyError when that is impossible (then the rest needs a re-scan)."""
    known = {entry_id(e) for e in entries}
    if not history.applied <= known:
        raise ApplyError(f"applying the remaining entries of {rel} needs a re-scan: the "
                         "file was edited by entries that are not in this manifest")
    base = apply_state.reconstruct(root, history, current)
    if base is None:
        patches = sorted({p for s in history.steps for p in s.patches})
        raise ApplyError(f"applying the remaining entries of {rel} needs a re-scan: its "
                         f"scanned content cannot be recovered (undo diff "
                         f"{', '.join(patches) or 'not recorded'} missing or changed)")
    return base


def _optional(e: dict[str, Any]) -> bool:
    """Entries safe to leave undone: a `try: import gone / except ImportError:` keeps working
    when the import fails, which is what folding it assumed."""
    return e["kind"] == "fold_branch" and e.get("rewrite") == "try_unwrap"


def _edit(rel: str, old: bytes, group: list[dict[str, Any]], skipped: list[str]) -> bytes:
    """``old`` with ``group`` applied; messages of the optional entries left undone are
    appended to ``skipped``."""
    new, left = _edit_entries(rel, old, group)
    skipped.extend(left.values())
    return new


def _edit_entries(rel: str, old: bytes, group: list[dict[str, Any]]
                  ) -> tuple[bytes, dict[str, str]]:
    """``old`` with ``group`` applied, and the optional entries left undone (id -> message);
    ApplyError when a required entry cannot be applied."""
    left: dict[str, str] = {}
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
                required = [e for e in group if not _optional(e)]
                new = edit_python(source, edits_of(required))  # raises: a required one fails
                fails: dict[str, str] = {}
                for e in optional:  # leave undone only the optional entries that fail
                    try:
                        edit_python(source, edits_of([*required, e]))
                    except EditError as why:
                        fails[entry_id(e)] = str(why)
                kept = [e for e in optional if entry_id(e) not in fails]
                if kept:
                    try:
                        new = edit_python(source, edits_of([*required, *kept]))
                    except EditError:  # they fail together: leave every optional one
                        kept = []
                done = {entry_id(e) for e in kept}
                left = {entry_id(e): f"{rel}:{e['start_line']}: {e.get('rewrite')} left as it "
                                     f"is ({fails.get(entry_id(e), exc)})"
                        for e in optional if entry_id(e) not in done}
            try:
                ast.parse(new, filename=rel)
            except SyntaxError as exc:
                raise EditError(f"the edited file would not parse (line {exc.lineno})") from exc
            return new.encode("utf-8"), left
        bad = sorted({e["kind"] for e in group} - {"delete_range"})
        if bad:
            raise EditError(f"{', '.join(bad)} is only supported for Python files")
        return delete_lines(old, [(e["start_line"], e["end_line"]) for e in group
                                  if _ranged(e)]), left
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
    """Lines split on ``\\n`` only (as ``patch`` and ``git apply`` count them)."""
    return [x.decode("utf-8", "surrogateescape") for x in split_lines(data)]


def _diffs(changes: list[FileChange]) -> list[str]:
    """The :func:`unified_diff` of each change: read back from the open session's store
    (the query ``diffs``: a function of the path and the two contents), the others made in
    worker processes when there are many (``difflib`` on the largest files) and stored."""
    opened = current()
    store = opened.store if opened is not None else None
    keys = [hashlib.sha256("\0".join((c.path, sha256(c.old), DELETED if c.new is None
                                       else sha256(c.new))).encode()).hexdigest()
            for c in changes]
    known = [store.get(DIFFS, k) if store is not None else None for k in keys]
    todo = [c for c, hit in zip(changes, known, strict=True) if not isinstance(hit, str)]
    made = iter(parallel_map(unified_diff, todo, min(os.cpu_count() or 1, 8),
                             size=lambda c: len(c.old), min_items=16))
    out: list[str] = []
    for key, hit in zip(keys, known, strict=True):
        if not isinstance(hit, str):
            hit = next(made)
            if store is not None:
                store.put(DIFFS, key, hit)
        out.append(hit)
    return out


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


def _patch_text(result: ApplyResult) -> str:
    """The undo diff: one ``# depgraph-apply {json}`` line per file (``patch`` and
    ``git apply`` skip them; ``apply_state`` reads them), then the diff of the edits (old ->
    new: ``patch -R`` undoes it)."""
    head = [RECORD + json.dumps({"path": c.path, "from": sha256(c.old),
                                 "to": DELETED if c.new is None else sha256(c.new),
                                 "entries": c.entries, "skipped": c.skipped}) + "\n"
            for c in result.changes]
    return "".join(head) + result.diff


# -- writing ------------------------------------------------------------------------------
def run_apply(manifest_path: Path, root: Path | None = None, *, write: bool = False,
              feature: str | None = None, patch_out: Path | None = None,
              progress: Callable[[int, int], None] | None = None, edit: bool = True,
              cache_dir: Path | None = None) -> ApplyResult:
    """Check, plan and (with ``write``) apply; ApplyError before anything is written.
    Without ``edit`` (and ``write``): previews from the manifest's entries, no edit computed
    (``--stat``, the dry run). ``cache_dir``: the cache folder the edits are kept in
    (``EditCache``; in a scan's session, that session's store)."""
    manifest = load_manifest(manifest_path)
    root = Path(manifest["root"]) if root is None else root
    if not root.is_dir():
        raise ApplyError(f"root {root} is not a directory")
    try:
        state = apply_state.load(root, [patch_out] if patch_out is not None else [])
    except StateError as exc:
        raise ApplyError(str(exc)) from exc
    with session(cache_dir):
        result = plan(manifest, root, feature, state, progress, edit or write)
        if result.previews:
            return result
        result.diff = "".join(_diffs(result.changes))
    result.lines_removed = sum(
        len(_text_lines(c.old)) - len(_text_lines(c.new or b"")) for c in result.changes)
    done = {e for c in result.changes for e in c.entries}
    result.plan_lines = sum(int(d.get("lines", 0)) for d in manifest["deletions"]
                            if entry_id(d) in done)
    if not write or not (result.changes or result.unchanged):
        return result
    patch: Path | None = None
    if result.changes:
        patch = patch_out or _free_name(root)
        if patch_out is not None and (patch_out.exists() or patch_out.is_symlink()):
            raise ApplyError(f"--patch-out {patch_out} exists: an undo diff never "
                             "overwrites a file (choose a new name)")
        if not patch.parent.is_dir():
            raise ApplyError(f"--patch-out {patch}: no such directory {patch.parent}")
        try:
            exclusive_write(
                patch, _patch_text(result).encode("utf-8", "surrogateescape"))
        except FileExistsError as exc:
            raise ApplyError(f"{patch} exists: an undo diff never overwrites a file") \
                from exc
        except OSError as exc:
            raise ApplyError(f"cannot write the undo diff {patch}: {exc}") from exc
        result.patch_path = patch
    name = apply_state.patch_name(root, patch) if patch is not None else None
    try:
        result.state_path = apply_state.save(
            root, [c.step(name) for c in [*result.changes, *result.unchanged]], feature)
    except (OSError, StateError) as exc:
        if patch is not None:
            patch.unlink()
        raise ApplyError(f"cannot record the run in {apply_state.state_path(root)}: {exc}") \
            from exc
    for c in result.changes:
        if c.new is not None:
            atomic_write(root / c.path, c.new)
    for c in result.changes:
        if c.new is None:
            (root / c.path).unlink()
            _remove_emptied_folders(root, (root / c.path).parent)
    return result


def _remove_emptied_folders(root: Path, folder: Path) -> None:
    """Remove ``folder`` and the folders above it (below ``root``) that a deletion left
    empty, as ``git rm`` does: an empty folder is a namespace package Python still imports
    here but a clone of the pruned tree does not have. A folder holding anything stays."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone already): it and everything above it stay
            return
        folder = folder.parent


def _free_name(root: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = root / f"depgraph-apply-{stamp}.patch"
    n = 1
    while path.exists():
        n += 1
        path = root / f"depgraph-apply-{stamp}-{n}.patch"
    return path


# -- for depgraph verify ------------------------------------------------------------------
def check_verified_tree(manifest: dict[str, Any], root: Path) -> None:
    """Refuse, in one line, to verify ``root`` against a manifest made for another tree, as
    ``apply`` refuses to apply it: none of its top-level packages is there; or, where
    ``depgraph apply`` recorded its runs, most of the files the manifest names that are
    there are neither as scanned nor as a recorded run left them (another version of the
    project)."""
    state = apply_state.load(root, strict=False)
    check_tree(manifest, root, apply_state.State())
    if not state.files:
        return
    stale: list[str] = []
    present = 0
    for rel, group in sorted(_by_path(manifest.get("deletions", [])).items()):
        target = root / rel
        if not target.is_file():
            continue  # (deleted by the pruning, or missing: verify reports what it breaks)
        present += 1
        expected = str(group[0].get("sha256", ""))
        current = sha256(target.read_bytes())
        if current != expected and state.history(rel, expected, current) is None:
            stale.append(f"{rel} is neither as scanned nor as depgraph apply left it")
    if stale and len(stale) * 2 > present:
        raise ApplyError(f"manifest made for another version of this tree: {len(stale)} of "
                         f"the {present} files it names are not as scanned (first: "
                         f"{stale[0]}); scan this tree again")


def unapplied_entries(manifest: dict[str, Any], root: Path) -> list[tuple[str, int, str]]:
    """The entries of ``manifest`` not carried out in ``root``, as (path, line, reason):
    optional entries skipped by an apply, and, once any entry of the manifest was carried
    out, every entry the features applied so far select that was not (its file changed
    since by something else). Empty when nothing of the manifest was applied. Never raises
    on an unusable state file or a missing file (they count as not applied)."""
    state = apply_state.load(root, strict=False)
    applied = state.applied_features if state.features else None
    done = False
    out: list[tuple[str, int, str]] = []
    expected = [e for e in manifest.get("deletions", []) if selected(e, applied)]
    for rel, group in sorted(_by_path(expected).items()):
        target = root / rel
        kinds = {e.get("kind") for e in group}
        if kinds == {"delete_file"} and not target.exists() and not target.is_symlink():
            done = True
            continue
        try:
            current = sha256(target.read_bytes())
        except OSError:
            out += [(rel, _line(e), f"{_what(e)} not applied: the file is missing")
                    for e in group]
            continue
        history = state.history(rel, str(group[0].get("sha256", "")), current)
        for e in group:
            eid = entry_id(e)
            if history is None:
                out.append((rel, _line(e), f"{_what(e)} not applied: the file changed since "
                                           "the scan"))
            elif eid in history.applied:
                done = True
            elif eid in history.skipped:
                done = True
                out.append((rel, _line(e), f"{_what(e)} skipped: {history.skipped[eid]}"))
            else:
                feature = f" (feature {e['feature']})" if e.get("feature") else ""
                out.append((rel, _line(e), f"{_what(e)} not applied{feature}"))
    return out if done else []


def _line(e: dict[str, Any]) -> int:
    return int(e.get("start_line") or 1)


def _what(e: dict[str, Any]) -> str:
    return f"{e.get('kind')} {e['rewrite']}" if e.get("rewrite") else str(e.get("kind"))
