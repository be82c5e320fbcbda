"""The typed vocabularies (``analyzer/model.py``, ``analyzer/nodes.py``) are the values the
stages really hand over: the manifest schema lists the same deletion kinds, categories and
rewrites, SARIF describes every category, and scans of the samples make no node kind, edge kind,
deletion or language outside them (graph attributes are not checked by mypy)."""

from __future__ import annotations

import json
import typing
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from analyzer.discover.walk import language_of
from analyzer.graph.python import NOT_FOLLOWED
from analyzer.model import DeletionCategory, DeletionKind, FoldRewrite, Language
from analyzer.nodes import EdgeKind, NodeKind
from analyzer.outputs.sarif import CATEGORIES
from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import SAMPLES

SCHEMA = Path(__file__).resolve().parents[1] / "analyzer" / "outputs" / "manifest.schema.json"


def values(tp: Any) -> set[str]:
    """The strings of a ``Literal`` alias, through unions of literals."""
    if typing.get_origin(tp) is typing.Literal:
        return set(typing.get_args(tp))
    return set().union(*(values(a) for a in typing.get_args(tp)))


def schema_enum(field: str) -> set[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return set(schema["properties"]["deletions"]["items"]["properties"][field]["enum"])


def test_deletion_vocabularies_match_the_manifest_schema() -> None:
    assert values(DeletionKind) == schema_enum("kind")
    assert values(FoldRewrite) == schema_enum("rewrite")
    assert values(DeletionCategory) | {""} == schema_enum("category")


def test_every_category_is_described_in_sarif() -> None:
    assert set(CATEGORIES) == values(DeletionCategory)


def test_edge_kinds_cover_what_liveness_does_not_follow() -> None:
    assert set(NOT_FOLLOWED) <= values(EdgeKind)


@pytest.mark.parametrize(("name", "language"), [
    ("pkg/mod.py", "python"), ("csrc/kernel.cu", "cuda"), ("csrc/ops.h", "cuda"),
    ("CMakeLists.txt", "cmake"), ("cmake/utils.cmake", "cmake"), ("README.md", None),
])
def test_language_of_names_a_language(name: str, language: str | None) -> None:
    assert language_of(name) == language
    assert language is None or language in values(Language)


@cache
def sample_scan(sample: str, roots: tuple[str, ...]) -> ScanResult:
    return run_scan(SAMPLES / sample, list(roots))


SCANS = [pytest.param("mini_sglang", ("deepseek_v2",), id="mini_sglang"),
         pytest.param("native_macro_ops", (), id="native_macro_ops"),
         pytest.param("regular_pkgs", (), id="regular_pkgs")]


@pytest.mark.parametrize(("sample", "roots"), SCANS)
def test_graph_kinds_are_in_the_vocabularies(sample: str, roots: tuple[str, ...]) -> None:
    graph = sample_scan(sample, roots).graph
    assert {d["kind"] for _, d in graph.nodes(data=True)} <= values(NodeKind)
    assert {d["kind"] for _, _, d in graph.edges(data=True)} <= values(EdgeKind)


@pytest.mark.parametrize(("sample", "roots"), SCANS)
def test_plan_values_are_in_the_vocabularies(sample: str, roots: tuple[str, ...]) -> None:
    result = sample_scan(sample, roots)
    deletions = result.plan.deletions
    assert {d.kind for d in deletions} <= values(DeletionKind)
    assert {d.category for d in deletions} <= values(DeletionCategory)
    assert {d.rewrite for d in deletions if d.kind == "fold_branch"} <= values(FoldRewrite)
    assert {d.rewrite for d in deletions if d.kind != "fold_branch"} <= {""}
    assert {f.language for f in result.files.values()} <= values(Language)


def test_the_sample_scans_use_every_deletion_kind_and_rewrite_but_unwraps() -> None:
    """The mini_sglang, value_selection and mini_vllm scans exercise the vocabularies, so the checks
    above are not vacuous (mini_sglang's FA3 wrapper now goes whole: value_selection's
    moe.py has the `try: import` folded onto its except body)."""
    deletions = [*sample_scan("mini_sglang", ("deepseek_v2",)).plan.deletions,
                 *sample_scan("value_selection", ()).plan.deletions,
                 *sample_scan("mini_vllm", ("deepseek_v2",)).plan.deletions]  # compare
    assert {d.kind for d in deletions} == values(DeletionKind)
    assert {d.rewrite for d in deletions if d.rewrite} == values(FoldRewrite) - {
        "unwrap_if", "unwrap_else"}
