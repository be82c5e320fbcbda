"""Pipeline input: discover the files, choose the profile and read every file once.
Everything a scan reads from disk is in ``ScanInputs``; the analysis
(``analyzer.pipeline.scan``) works on it and the result cache
(``analyzer.pipeline.result_cache``) keys on it (:func:`content_key`, and the tree's folder).

Kept light (no graph libraries) so an unchanged re-scan answers from the cache quickly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from analyzer.config.options import ScanOptions
from analyzer.config.profile import select_profile
from analyzer.config.types import Profile
from analyzer.discover.cache import discover_cached
from analyzer.discover.digests import DigestIndex, now_ns
from analyzer.discover.walk import Discovery, discover
from analyzer.errors import ScanError
from analyzer.extract.runner import ReadFile, read_all

__all__ = ["ScanError", "ScanInputs", "content_key", "gather_inputs"]


@dataclass
class ScanInputs:
    """Everything a scan reads from disk: the discovered files' content hashes, the chosen
    profile, and the packaging files that declare entry points. The result cache keys on
    exactly this, so a scan whose inputs are unchanged can be skipped. File bytes are read
    when the analysis needs them (:meth:`reads`) and held by whoever asked, not here."""

    discovery: Discovery
    profile: Profile | None
    use_profile: bool
    digests: list[str]  # sha256 per discovered file, "" when unreadable
    errors: dict[int, str]  # file index -> why it could not be read
    entry_point_files: dict[str, bytes | str]  # rel path -> bytes, or the read error
    timings: dict[str, float] = field(default_factory=dict)
    # bytes fingerprinting read, by file index: handed to the first :meth:`reads`, not kept
    data: dict[int, bytes] = field(default_factory=dict)
    changed_since_key: bool = False  # a file changed between fingerprinting and reading
    # the name the store keeps this tree's per-tree entries under (digests, lints, edges):
    # its root's path, or the scan's ``slot`` (the gate's copy, a new folder each time)
    slot: str = ""

    def reads(self) -> list[ReadFile]:
        """Every file's bytes and digest, read now (those fingerprinting read are handed over
        the first time). The bytes are the caller's to drop: nothing here keeps them."""
        out: list[ReadFile] = []
        files = self.discovery.files
        held, self.data = self.data, {}
        todo = [i for i in range(len(files)) if i not in held and i not in self.errors]
        for i, got in zip(todo, read_all(self.discovery.root, [files[i] for i in todo]),
                          strict=True):
            if got.data is None or got.digest != self.digests[i]:
                self.changed_since_key = True
            if got.data is not None:
                held[i] = got.data
                self.digests[i] = got.digest
            else:
                self.errors[i] = got.error or "cannot read"
        for i in range(len(files)):
            if i in self.errors:
                out.append(ReadFile(None, "", self.errors[i]))
            else:
                out.append(ReadFile(held[i], self.digests[i]))
        return out


@dataclass(frozen=True)
class ChosenProfile:
    """A profile chosen already (the gate's copy of a tree is scanned with the profile its
    original was: a config above the original is not above the copy)."""

    profile: Profile | None


def gather_inputs(path: Path, options: ScanOptions, *,
                  cache_dir: Path | None = None, pruned: bool = False,
                  chosen: ChosenProfile | None = None, slot: str | None = None
                  ) -> ScanInputs:
    """Discover, choose the profile and fingerprint every file (stages 1 and 2's input).

    With ``cache_dir``, files whose stat signature is unchanged since they were last hashed
    are not read (:class:`analyzer.discover.digests.DigestIndex`). A tree without Python
    files is an error, unless it is ``pruned`` (what ``depgraph verify`` reads: a plan may
    delete every Python file). ``chosen``: the profile, instead of selecting one. ``slot``:
    the name the store keeps the tree's per-tree entries under (None: its root's path)."""
    excludes, profile, use_profile = options.excludes, options.profile, options.use_profile
    t0 = time.perf_counter()
    found = (discover_cached(path, excludes, cache_dir) if cache_dir is not None
             else discover(path, extra_excludes=excludes))
    picked = (chosen.profile if chosen is not None
              else select_profile(found.root, profile) if use_profile else None)
    if not pruned and not any(f.language == "python" for f in found.files):
        raise ScanError(f"no Python files under {path}")
    timings = {"discover": time.perf_counter() - t0}
    t0 = time.perf_counter()
    kept_as = slot if slot is not None else str(found.root)
    index = DigestIndex(cache_dir, kept_as) if cache_dir is not None else None
    digests: list[str] = []
    errors: dict[int, str] = {}
    data: dict[int, bytes] = {}
    for i, source in enumerate(found.files):
        known = index.known(source) if index is not None else None
        if known is not None:
            digests.append(known)
            continue
        hashed_at = now_ns()
        got = read_all(found.root, [source])[0]
        digests.append(got.digest)
        if got.data is None:
            errors[i] = got.error or "cannot read"
            continue
        data[i] = got.data
        if index is not None:
            index.record(source, got.digest, hashed_at)
    if index is not None:
        index.save({f.path for f in found.files})
    entry_files: dict[str, bytes | str] = {}
    for rel in _entry_point_candidates(found):
        try:
            entry_files[rel] = (found.root / rel).read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            entry_files[rel] = str(exc)
    timings["fingerprint"] = time.perf_counter() - t0
    return ScanInputs(found, picked, use_profile, digests, errors, entry_files, timings, data,
                      slot=kept_as)


def _entry_point_candidates(found: Discovery) -> list[str]:
    """Packaging files that may declare entry points: at the root, in each Python root and
    in each root's parent."""
    dirs = {""} | {r for r in found.python_roots} | {
        str(PurePosixPath(r).parent) if "/" in r else "" for r in found.python_roots}
    return [f"{d}/{fname}" if d else fname
            for d in sorted(dirs) for fname in ("pyproject.toml", "setup.cfg")]


def content_key(inputs: ScanInputs, options: ScanOptions,
                analysed: Mapping[str, str] | None = None) -> str:
    """Hash of every input of a scan but the folder the tree lies in: the same files, profile
    and options in another folder (the gate's copy, the user's pruned tree) hash alike. A
    profile file inside the tree counts by its path in the tree. ``analysed``: path -> what
    the analysis reads of the file (``PythonFacts.analysis_digest``), counted instead of its
    bytes' hash -- the key of what is a function of those alone (where the rounds settle:
    an edit of a comment keeps it), never of what reports the bytes (the result)."""
    h = hashlib.sha256()

    def put(*parts: object) -> None:
        for part in parts:
            h.update(part if isinstance(part, bytes) else repr(part).encode())
            h.update(b"\0")

    found = inputs.discovery
    put("depgraph-scan-content", found.python_roots, found.problems, inputs.use_profile,
        _in_tree(inputs.profile, found.root), options.cache_key())
    analysed = analysed or {}
    for i, source in enumerate(found.files):
        digest = analysed.get(source.path)
        put(source.path, source.language,
            inputs.digests[i] if digest is None else f"analysed {digest}", inputs.errors.get(i))
    for rel, data in sorted(inputs.entry_point_files.items()):
        put(rel, data)
    if inputs.profile is not None and not inputs.profile.source.startswith("builtin:"):
        try:  # the text too, not only what it means: reports quote its line numbers
            put(Path(inputs.profile.source).read_bytes())
        except OSError as exc:
            put(str(exc))
    return h.hexdigest()


def _in_tree(profile: Profile | None, root: Path) -> Profile | None:
    """``profile`` with the paths of its files relative to ``root`` where they lie in it."""
    if profile is None:
        return None

    def rel(path: str) -> str:
        if not path or path.startswith("builtin:"):
            return path
        try:
            return "<tree>/" + Path(path).resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            return path

    return dataclasses.replace(profile, source=rel(profile.source),
                               extends=rel(profile.extends), config=rel(profile.config))
