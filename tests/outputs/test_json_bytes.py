"""The outputs are encoded and deflated as their pieces come (``analyzer.outputs.render``):
the JSON bytes are those of ``json.dumps(data, indent=2) + "\\n"`` in UTF-8, for nested values,
escapes and text outside ASCII alike, and a report's pieces make the bytes of their join."""

from __future__ import annotations

import io
import json

from analyzer.outputs.render import Packed, _json_packed, _packed

DATA = {"files": [{"path": "pkg/ünï.py", "lines": [1, 2, 3], "why": 'a "quoted"\nline\t€'}],
        "empty": {}, "none": None, "ok": True, "ratio": 0.5, "nested": [[], [{"a": []}]]}


def test_the_bytes_are_those_of_dumps() -> None:
    assert _json_packed(DATA).data() == (json.dumps(DATA, indent=2) + "\n").encode("utf-8")
    assert _json_packed([]).data() == b"[]\n"


def test_pieces_past_one_batch_make_their_join() -> None:
    pieces = [f"<tr><td>ünï {i}</td></tr>\n" for i in range(20000)]  # ~500,000 characters
    packed = _packed(pieces, "€")
    whole = ("".join(pieces) + "€").encode("utf-8")
    assert packed.data() == whole
    assert len(packed.deflated) < len(whole) // 4  # held deflated
    assert Packed.of(b"x" * 10).data() == b"x" * 10
    written = io.BytesIO()
    packed.write_to(written)  # inflated a piece at a time
    assert written.getvalue() == whole
