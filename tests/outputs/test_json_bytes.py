"""The JSON outputs are encoded as the encoder goes (``analyzer.outputs.render._json_bytes``):
the bytes are those of ``json.dumps(data, indent=2) + "\\n"`` in UTF-8, for nested values,
escapes and text outside ASCII alike."""

from __future__ import annotations

import json

from analyzer.outputs.render import _json_bytes

DATA = {"files": [{"path": "pkg/ünï.py", "lines": [1, 2, 3], "why": 'a "quoted"\nline\t€'}],
        "empty": {}, "none": None, "ok": True, "ratio": 0.5, "nested": [[], [{"a": []}]]}


def test_the_bytes_are_those_of_dumps() -> None:
    assert _json_bytes(DATA) == (json.dumps(DATA, indent=2) + "\n").encode("utf-8")
    assert _json_bytes([]) == b"[]\n"
