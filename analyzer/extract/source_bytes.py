"""Extract stage: the scanned files' bytes after extraction, read from disk when a later stage
asks for them, never all held at once.

Extraction reads every file once (facts, line counts, the on-demand closure's needles). The
stages after it need the bytes of a few files only -- the ones the plan edits (the check's
simulations, call arguments), the excerpts of the report, the verify baseline -- so holding
every file's bytes from discovery to the outputs (66 MB on the largest trees) bought nothing.
:class:`SourceBytes` is the read-only mapping path -> bytes those stages take instead: each
read is checked against the sha256 the scan fingerprinted the file with, so a stage never
works on bytes other than the ones the facts were extracted from; a file that changed (or
went) since is a clear error (:class:`~analyzer.errors.ScanError`), never a wrong answer.
The last few files read are kept (a stage often asks for one file several times).

It pickles as the tree's root and the digests (the result cache keeps no file bytes).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from analyzer.errors import ScanError

# files kept after their read (the edited files of one check, one report's excerpts)
_RECENT = 64


class SourceBytes(Mapping[str, bytes]):
    """Path -> the file's bytes, for each readable scanned file (``digests``: path -> the
    sha256 its bytes had when the scan read them)."""

    def __init__(self, root: Path, digests: Mapping[str, str]) -> None:
        self.root = root
        self._digests = dict(digests)
        self._recent: OrderedDict[str, bytes] = OrderedDict()

    def __getitem__(self, path: str) -> bytes:
        data = self._recent.get(path)
        if data is not None:
            self._recent.move_to_end(path)
            return data
        digest = self._digests[path]  # KeyError: not a readable scanned file
        try:
            data = (self.root / path).read_bytes()
        except OSError as exc:
            raise ScanError(f"{path}: cannot be read again ({exc.strerror or exc}); it "
                            "changed during the scan, run it again") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise ScanError(f"{path}: changed during the scan; run it again")
        self._recent[path] = data
        if len(self._recent) > _RECENT:
            self._recent.popitem(last=False)
        return data

    def __contains__(self, path: object) -> bool:
        return path in self._digests

    def __iter__(self) -> Iterator[str]:
        return iter(self._digests)

    def __len__(self) -> int:
        return len(self._digests)

    def only(self, paths: Iterable[str]) -> SourceBytes:
        """The same files' bytes, for those of ``paths`` only (nothing read now)."""
        return SourceBytes(self.root, {p: self._digests[p] for p in paths if p in self._digests})

    def digest(self, path: str) -> str:
        """The sha256 of the file's bytes as scanned."""
        return self._digests[path]

    def __reduce__(self) -> tuple[type[SourceBytes], tuple[Path, dict[str, str]]]:
        return SourceBytes, (self.root, self._digests)
