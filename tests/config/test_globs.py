"""Config stage, the profile's patterns (``analyzer/config/globs.py``): gitignore-like path globs
over repo-relative POSIX paths, fnmatch patterns over identifiers. Expectations written from the
glob rules: ``*`` and ``?`` stay inside one path segment, ``**`` crosses segments, a pattern
without a slash matches a basename at any depth, and a folder's pattern matches what it holds."""

from __future__ import annotations

import random
from fnmatch import fnmatchcase

import pytest

from analyzer.config.globs import (
    any_identifier_matches,
    any_path_matches,
    any_regex,
    dotted_prefixes,
    identifier_matches,
    identifier_regex,
    path_matches,
    paths_regex,
)


@pytest.mark.parametrize(("path", "patterns", "expected"), [
    pytest.param("a/b/k.cu", ("*.cu",), True, id="no-slash-matches-basename-at-any-depth"),
    pytest.param("k.cuh", ("*.cu",), False, id="star-does-not-add-suffixes"),
    pytest.param("sub/flash_attn.py", ("flash_attn.py",), True, id="basename"),
    pytest.param("csrc/flash/x/y.cu", ("csrc/flash/**",), True, id="double-star-crosses-folders"),
    pytest.param("csrc/flashy/x.cu", ("csrc/flash/**",), False, id="double-star-folder-exact"),
    pytest.param("sgl-kernel/csrc/flashmla_ext.cc", ("sgl-kernel/csrc/flashmla*",), True,
                 id="star-in-last-segment"),
    pytest.param("sgl-kernel/csrc/sub/flashmla.cc", ("sgl-kernel/csrc/flashmla*",), False,
                 id="slash-anchors-at-the-root"),
    pytest.param("x/csrc/flashmla.cc", ("csrc/flashmla*",), False, id="anchored-not-any-depth"),
    pytest.param("csrc/a/b.cu", ("csrc/*.cu",), False, id="star-stays-in-one-segment"),
    pytest.param("python/pkg/npu/ops.py", ("**/npu/**",), True, id="leading-double-star"),
    pytest.param("npu/ops.py", ("**/npu/**",), True, id="leading-double-star-at-top"),
    pytest.param("pkg/hardware/npu/deep/x.py", ("pkg/hardware",), True,
                 id="folder-matches-its-contents"),
    pytest.param("pkg/hardware_x.py", ("pkg/hardware",), False, id="folder-is-no-prefix"),
    pytest.param("a/b1.py", ("a/b?.py",), True, id="question-mark-one-char"),
    pytest.param("a/b/.py", ("a/b?.py",), False, id="question-mark-is-no-slash"),
    pytest.param("a/b+c.py", ("a/b+c.py",), True, id="regex-characters-are-literal"),
    pytest.param("a/bbc.py", ("a/b+c.py",), False, id="plus-is-no-repeat"),
    pytest.param("x/two.py", ("one.py", "two.py"), True, id="any-of-several"),
    pytest.param("x/three.py", ("one.py", "two.py"), False, id="none-of-several"),
    pytest.param("x/one.py", (), False, id="no-patterns"),
])
def test_path_matches(path: str, patterns: tuple[str, ...], expected: bool) -> None:
    assert path_matches(path, patterns) is expected


@pytest.mark.parametrize(("name", "patterns", "expected"), [
    pytest.param("flash_mla_decode", ("flash_mla*",), True, id="prefix"),
    pytest.param("my_flash_mla", ("flash_mla*",), False, id="anchored-at-the-start"),
    pytest.param("fused_moe_npu", ("*_npu",), True, id="suffix"),
    pytest.param("fused_npu_moe", ("*_npu",), False, id="anchored-at-the-end"),
    pytest.param("fa3_fwd", ("fa?_fwd",), True, id="question-mark"),
    pytest.param("rms", ("gelu*", "rms"), True, id="any-of-several"),
    pytest.param("rms", (), False, id="no-patterns"),
])
def test_identifier_matches(name: str, patterns: tuple[str, ...], expected: bool) -> None:
    assert identifier_matches(name, patterns) is expected


def test_any_identifier_matches_is_any_fnmatch_over_names_and_patterns() -> None:
    names = ["flash_attn_varlen", "FlashMLA", "mla_decode", "_private"]
    assert any_identifier_matches(names, ("*varlen",))
    assert any_identifier_matches(names, ("nope", "Flash*"))
    assert not any_identifier_matches(names, ("flashmla",))  # case counts
    assert not any_identifier_matches(names, ())
    assert not any_identifier_matches([], ("*",))
    rng = random.Random(3)
    for _ in range(2000):
        pool = [''.join(rng.choice("ab_.") for _ in range(rng.randint(0, 4))) for _ in range(4)]
        patterns = tuple(''.join(rng.choice("ab_.*?[]!") for _ in range(rng.randint(0, 4)))
                         for _ in range(rng.randint(1, 3)))
        expected = any(fnmatchcase(n, p) for p in patterns for n in pool)
        assert any_identifier_matches(pool, patterns) == expected, (pool, patterns)


def _dotted_prefix(name: str, prefixes: frozenset[str]) -> bool:
    rx = dotted_prefixes(prefixes)
    return rx is not None and rx.match(name)


def test_dotted_prefixes_matches_a_name_a_module_under_it_or_a_pattern() -> None:
    dead = frozenset({"sgl_kernel.flash_mla", "vllm.*_C"})
    assert _dotted_prefix("sgl_kernel.flash_mla", dead)
    assert _dotted_prefix("sgl_kernel.flash_mla.ops", dead)
    assert not _dotted_prefix("sgl_kernel.flash_mla_ext", dead)
    assert not _dotted_prefix("sgl_kernel", dead)
    assert _dotted_prefix("vllm.moe_C", dead)
    assert not _dotted_prefix("anything", frozenset())
    rng = random.Random(5)
    for _ in range(4000):
        name = ''.join(rng.choice("ab.\n") for _ in range(rng.randint(0, 5)))
        prefixes = frozenset(''.join(rng.choice("ab.*?[]") for _ in range(rng.randint(0, 3)))
                             for _ in range(rng.randint(1, 6)))
        expected = any(name == p or name.startswith(p + ".") or fnmatchcase(name, p)
                       for p in prefixes)
        assert _dotted_prefix(name, prefixes) == expected, (name, prefixes)


def test_any_regex_matches_what_one_of_its_regexes_matches() -> None:
    """Path globs (a feature's) and fnmatch patterns with several stars (named groups of
    their own) joined: a name matches the join exactly when it matches one of them."""
    paths = any_regex([paths_regex(("csrc/flash/**",)), None, paths_regex(("*.cu", "x/y.py"))])
    assert paths is not None
    for path, expected in [("csrc/flash/a.h", True), ("a/b/k.cu", True), ("x/y.py", True),
                           ("x/y.pyc", False), ("csrc/flashy/a.h", False)]:
        assert bool(paths.match(path)) is expected, path
    names = any_regex([identifier_regex(("*Ascend*Backend*",)), identifier_regex(("NPU?*",)),
                       identifier_regex(("*Ascend*Backend*", "forward_npu"))])
    assert names is not None
    for name, expected in [("MyAscendAttnBackendV2", True), ("NPUx", True), ("NPU", False),
                           ("forward_npu", True), ("forward_npu2", False), ("Ascend", False)]:
        assert bool(names.match(name)) is expected, name
    assert any_regex([None, paths_regex(())]) is None


def test_any_path_matches_is_path_matches_over_any_path() -> None:
    paths = ["python/pkg/a.py", "csrc/flash/fwd.cu", "docs/x.md"]
    assert any_path_matches(paths, ("csrc/flash/**",))
    assert any_path_matches(paths, ("nothing/**", "*.md"))
    assert not any_path_matches(paths, ("csrc/flashy/**", "*.cuh"))
    assert not any_path_matches(paths, ())
    assert not any_path_matches([], ("*.py",))
