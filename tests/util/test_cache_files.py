"""Shared, the checked cache file (``analyzer/util/cache_files.py``): ``<sha256 of the
payload>\\n<payload>``; anything that does not check out reads as missing; a write that fails
costs nothing but the cache. A value pickled straight into the file (``write_pickled``) gives
the bytes of its pickle in that format."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from analyzer.util.cache_files import (
    read_checked,
    read_keyed,
    read_pickled,
    write_checked,
    write_keyed,
    write_pickled,
)


def test_round_trip_and_format(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "entry"  # folders are created
    write_checked(path, b"payload\nwith lines")
    assert read_checked(path) == b"payload\nwith lines"
    digest = hashlib.sha256(b"payload\nwith lines").hexdigest().encode()
    assert path.read_bytes() == digest + b"\npayload\nwith lines"


def test_empty_payload(tmp_path: Path) -> None:
    write_checked(tmp_path / "e", b"")
    assert read_checked(tmp_path / "e") == b""


@pytest.mark.parametrize("damage", [
    pytest.param(lambda raw: raw[:-1], id="truncated"),
    pytest.param(lambda raw: raw[:-1] + b"X", id="changed-payload"),
    pytest.param(lambda raw: b"0" * 64 + raw[64:], id="changed-digest"),
    pytest.param(lambda raw: raw.split(b"\n", 1)[1], id="no-digest-line"),
    pytest.param(lambda raw: b"", id="empty-file"),
])
def test_a_damaged_file_reads_as_missing(tmp_path: Path, damage) -> None:
    path = tmp_path / "entry"
    write_checked(path, b"some payload")
    path.write_bytes(damage(path.read_bytes()))
    assert read_checked(path) is None


def test_missing_file_reads_as_missing(tmp_path: Path) -> None:
    assert read_checked(tmp_path / "nope") is None


def test_a_write_that_cannot_happen_is_ignored(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    write_checked(blocker / "entry", b"x")  # its folder cannot be made: no exception
    assert read_checked(blocker / "entry") is None
    assert blocker.read_text() == "a file, not a folder"


def test_a_value_pickled_into_the_file_is_the_checked_format_of_its_pickle(
        tmp_path: Path) -> None:
    value = {"big": b"\x00" * 300_000, "nested": [("a", 1), ("b", None)]}  # frames and more
    path = tmp_path / "deep" / "entry"
    write_pickled(path, value)
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    assert path.read_bytes() == hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    assert read_pickled(path) == value
    assert [p.name for p in path.parent.iterdir()] == ["entry"]  # no temp file left


def test_a_value_that_cannot_be_pickled_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "entry"
    write_pickled(path, ["old"])
    with pytest.raises((pickle.PicklingError, TypeError, AttributeError)):
        write_pickled(path, [lambda: None])
    assert read_pickled(path) == ["old"]
    assert [p.name for p in tmp_path.iterdir()] == ["entry"]
    write_pickled(tmp_path / "file-not-folder" / "x", 1)  # a folder made fine
    (tmp_path / "blocker").write_text("a file")
    write_pickled(tmp_path / "blocker" / "entry", 1)  # cannot be made: no exception


LOADED: list[str] = []  # what _Noted values were unpickled, in order


def _note(name: str) -> _Noted:
    LOADED.append(name)
    return _Noted(name)


class _Noted:
    """A value that notes each time it is unpickled."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _note, (self.name,)


@pytest.mark.parametrize("shared", [False, True])
def test_a_keyed_file_gives_its_value_only_under_the_wanted_head(tmp_path: Path,
                                                                  shared: bool) -> None:
    path = tmp_path / "keyed"
    # repeated values in head and value: each pickle's memo is its own
    head_value = ("v1", "shape-a", "x" * 3, ("v1", "v1"))
    write_keyed(path, head_value, [_Noted("memo"), 7, "x" * 3, "shape-a", "shape-a"],
                shared=shared)
    LOADED.clear()
    # another head: nothing of the value is unpickled
    assert read_keyed(path, lambda head: head[0] == "v2") is None
    assert LOADED == []
    loaded = read_keyed(path, lambda head: head[0] == "v1")
    assert loaded is not None
    head, value = loaded
    assert head == ("v1", "shape-a", "xxx", ("v1", "v1"))
    assert isinstance(value, list) and value[0].name == "memo"
    assert value[1:] == [7, "xxx", "shape-a", "shape-a"]
    assert LOADED == ["memo"]


def test_a_damaged_keyed_file_reads_as_missing(tmp_path: Path) -> None:
    path = tmp_path / "keyed"
    write_keyed(path, "head", {"a": 1})
    path.write_bytes(path.read_bytes()[:-1])
    assert read_keyed(path, lambda head: True) is None
    assert read_keyed(tmp_path / "nope", lambda head: True) is None
    # a file of one pickle only (an older format): its value is read as the head, and no
    # second pickle follows -- missing, not an error
    write_pickled(tmp_path / "old", "head")
    assert read_keyed(tmp_path / "old", lambda head: True) is None
