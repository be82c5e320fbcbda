"""Extract stage, Python: what the analysis reads of a file, as one digest -- the key of the
early cut-off (:func:`analyzer.pipeline.inputs.content_key` with ``analysed``).

The soundness rounds read a Python file in two ways: through its facts (the resolve, decide,
graph and plan stages: :class:`~analyzer.extract.python_facts.PythonFacts`) and through its
bytes, which the plan's check lints with pyflakes as they are and with the plan's edits
(line ranges and byte spans the facts give). So two versions of a file whose facts are
equal -- but for ``line_count``, which only the deletions' line figures read, and the
digest itself -- and whose code is equal once comments are taken out (every line kept, so
pyflakes' lines and columns are the same) are the same file to the rounds: the state where
rounds over one settled is where rounds over the other settle (``analyzer.pipeline.settled``).
A comment edited, added at the end of the file or turned into another of the same length is
such a change; a comment that moves any fact (a byte offset, a definition's end line that
takes in trailing indented comments) is not, since the facts are compared whole.

Kept in the digest, never taken out: comments on the first two lines (an encoding
declaration changes how every string decodes). A file with syntax errors, invalid UTF-8 or
NUL bytes has no digest (its bytes' hash stands): where tree-sitter recovers from an error, a
comment node is not certain to be one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
from collections.abc import Sequence

import tree_sitter as ts

from analyzer.extract.python_facts import PythonFacts

# pickle protocol of the facts' digest (fixed: the digest is stored with the facts)
_PROTOCOL = 5


def code_without_comments(data: bytes, comments: Sequence[ts.Node]) -> bytes:
    """``data`` with the bytes of each comment node in ``comments`` (in document order) taken
    out -- the line breaks after them stay -- but for comments on the first two lines, and
    with the whitespace at the end of the file taken off."""
    parts: list[bytes] = []
    at = 0
    for node in comments:
        if node.start_point[0] < 2:  # (line 1 or 2: a possible encoding declaration)
            continue
        parts.append(data[at:node.start_byte])
        at = node.end_byte
    parts.append(data[at:])
    return b"".join(parts).rstrip()


def analysis_digest(facts: PythonFacts, code: bytes) -> str:
    """The digest of ``facts`` (with no line count, no names set, no digest) and of ``code``
    (:func:`code_without_comments`). The facts are pickled without pickle's memo, so that
    the bytes depend on their values alone, not on which equal values the extraction made
    one object; ``member_names`` is a set (its order varies between processes) and a
    function of ``member_uses``, which the digest holds."""
    plain = dataclasses.replace(facts, line_count=0, member_names=frozenset(),
                                analysis_digest="")
    out = io.BytesIO()
    pickler = pickle.Pickler(out, _PROTOCOL)
    pickler.fast = True  # no memo: equal values pickle alike whether shared or not
    pickler.dump(plain)
    h = hashlib.sha256(b"depgraph-python-analysis\0")
    h.update(len(code).to_bytes(8, "little"))
    h.update(code)
    h.update(out.getvalue())
    return h.hexdigest()
