"""Config stage, the options of one scan (``analyzer/config/options.py``): the cache key holds
every field that changes the analysis (``--strict`` only changes the exit code), and the
manifest's JSON form replays into the same options."""

from __future__ import annotations

import dataclasses

import pytest

from analyzer.config.options import ScanOptions

FULL = ScanOptions(roots=("deepseek_v2",), use_default_roots=False, excludes=("bench/",),
                   keep_targets=("common_*",), profile="sglang", drop=("fa3",),
                   keep=("ascend",), use_profile=True, strict=True)


def test_cache_key_lists_the_analysis_fields_by_name() -> None:
    assert dict(FULL.cache_key()) == {
        "roots": ("deepseek_v2",), "use_default_roots": False, "excludes": ("bench/",),
        "keep_targets": ("common_*",), "profile": "sglang", "drop": ("fa3",),
        "keep": ("ascend",), "use_profile": True, "parse_all": False, "scope": "all"}


@pytest.mark.parametrize(("change", "same_key"), [
    pytest.param({"strict": False}, True, id="strict-is-not-analysis"),
    pytest.param({"roots": ("llama",)}, False, id="roots"),
    pytest.param({"drop": ()}, False, id="drop"),
    pytest.param({"use_profile": False}, False, id="no-profile"),
    pytest.param({"excludes": ()}, False, id="excludes"),
    pytest.param({"scope": "features"}, False, id="scope"),
])
def test_cache_key_changes_with_the_analysis(change: dict, same_key: bool) -> None:
    assert (FULL.replace(**change).cache_key() == FULL.cache_key()) is same_key


def test_json_round_trip() -> None:
    data = FULL.to_json()
    assert data["roots"] == ["deepseek_v2"] and data["strict"] is True  # lists, for JSON
    assert ScanOptions.from_json(data) == FULL


@pytest.mark.parametrize(("data", "expected"), [
    pytest.param(None, ScanOptions(), id="not-a-dict"),
    pytest.param({}, ScanOptions(), id="empty"),
    pytest.param({"roots": ["a", "b"], "future_option": 1}, ScanOptions(roots=("a", "b")),
                 id="unknown-keys-ignored"),
])
def test_from_json_of_older_or_odd_manifests(data: object, expected: ScanOptions) -> None:
    assert ScanOptions.from_json(data) == expected


def test_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        FULL.roots = ()  # type: ignore[misc]
