"""Build cost as TU x architecture pairs (issue 51, item 2), on sample_repos/arch_lists, read
by hand:

- CMakeLists.txt: MLA_CUDA_FLAGS (4) gets ``-gencode ... code=sm_90a`` under one
  ``if(CUDA_VERSION ...)`` (5-7) and ``code=sm_100a``, ``code=sm_103a`` under another (8-12);
  mla_ops (mla_fwd.cu, mla_meta.cu) takes them through
  ``target_compile_options(... $<$<COMPILE_LANGUAGE:CUDA>:${MLA_CUDA_FLAGS}>)``: 3 archs;
- core_ops: ``set_target_properties(... CUDA_ARCHITECTURES "80;90a")``: sm_80, sm_90a;
- fa3_ops (fa3_fwd.cu): ``set_property(TARGET fa3_ops PROPERTY CUDA_ARCHITECTURES 80 90a)``;
- misc_ops (misc.cu): ``CUDA_ARCHITECTURES "${GPU_ARCHES}"``, a variable the tree never sets
  (the environment's): unknown.
- each feature is one constant of archpkg/flags.py; dropping it folds its branch of main.run,
  so its Python face, its target and its TUs go: mla 2 TUs x 3 = 6 pairs, fa3 1 x 2 = 2,
  misc 1 TU whose architectures are unknown ("?").
- mla's lines: CMake 4, 5-7, 8-12, 22-25, 26, 27, 28 (16), flags.py (5, in every share),
  main.py 6 and its branch 11-14 (5), mla.py (9), mla_fwd.cu (7), mla_meta.cu (2): 44 in 4
  files; misc's: CMake 30-32 (3), flags.py (5), main.py 6 and 19-22 (5), misc.py (9),
  misc.cu (7): 29 in 3 files.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.outputs.html import render_html
from analyzer.outputs.markdown import render_markdown
from analyzer.pipeline.scan import run_scan
from analyzer.resolve.cmake_archs import target_archs
from analyzer.util.words import pairs
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "arch_lists"


def test_arch_lists_from_flags_and_properties() -> None:
    genex = ("$<$<COMPILE_LANGUAGE:CUDA>:-O3;-gencode=arch=compute_90a,code=sm_90a;"
             "-gencode=arch=compute_100a,code=[sm_100a,compute_100a]>")
    assert target_archs([["t", "PRIVATE", genex]]) == ("compute_100a", "sm_100a", "sm_90a")
    assert target_archs([["t", "PRIVATE", "-arch=sm_89"]]) == ("sm_89",)
    assert target_archs([["t", "PROPERTIES", "CUDA_ARCHITECTURES", "80;90a-real",
                          "POSITION_INDEPENDENT_CODE", "ON"]]) == ("sm_80", "sm_90a")
    # a list from the environment, or none at all: unknown, never a guess
    assert target_archs([["t", "PROPERTIES", "CUDA_ARCHITECTURES", "${GPU_ARCHES}"]]) is None
    assert target_archs([["t", "PROPERTIES", "CUDA_ARCHITECTURES", "native"]]) is None
    assert target_archs([["t", "PRIVATE", "-O3"]]) is None


def test_each_target_states_its_architectures() -> None:
    result = run_scan(SAMPLE, [])
    archs = {t.name: t.archs for t in result.native.project.targets}
    assert archs == {"core_ops": ("sm_80", "sm_90a"), "fa3_ops": ("sm_80", "sm_90a"),
                     "mla_ops": ("sm_100a", "sm_103a", "sm_90a"), "misc_ops": None}


def test_feature_pairs_in_manifest_terminal_markdown_and_report(tmp_path: Path) -> None:
    got = CliRunner().invoke(main, ["scan", str(SAMPLE), "--no-cache", "--out",
                                    str(tmp_path), "--format", "json"])
    assert got.exit_code == 0, got.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    rows = {f["name"]: (f["translation_units_removable"], f["tu_arch_pairs_removable"],
                        f["tus_arch_unknown"]) for f in manifest["profile"]["features"]}
    assert rows == {"mla": (2, 6, 0), "fa3": (1, 2, 0), "misc": (1, 0, 1)}
    lines = got.stdout.splitlines()
    header = next(line for line in lines if line.strip().startswith("feature"))
    assert "TU x arch" in header
    assert [line.split()[4] for line in lines
            if line.strip().split()[:1] in (["mla"], ["fa3"], ["misc"])] == ["6", "2", "?"]
    assert any(line.strip().startswith("(TU x arch:") for line in lines)  # what ? means
    result = run_scan(SAMPLE, [])
    md = render_markdown(result)
    assert "| mla | 4 | 44 | 2 | 6 | 0 |" in md and "| misc | 3 | 29 | 1 | ? | 0 |" in md
    page = render_html(result)
    assert 'data-feature="mla" data-lines="44" data-files="4" data-tus="2" data-tu-archs="6"' \
        in page
    assert 'data-tu-archs="?"' in page


def test_pairs_text() -> None:
    assert (pairs(1234, 0), pairs(12, 3), pairs(0, 3), pairs(0, 0)) == \
        ("1,234", "12+?", "?", "0")
