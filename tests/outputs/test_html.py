"""HTML report: the rendered page agrees with the manifest, facts known from reading the
sample, and autoescapes hostile file names (no browser; see tests/e2e/test_report_browser.py)."""

from __future__ import annotations

import json
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from analyzer.analysis.why import chain_steps
from analyzer.outputs.html import render_html
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import manifest_of
from tests.helpers import MINI_SGLANG, PY, SAMPLES, write_tree


class Page(HTMLParser):
    """Elements by id (their text), deletion rows' data attributes, tags seen, JSON blobs."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.text_by_id: dict[str, str] = {}
        self.rows: list[dict[str, str]] = []
        self.feature_rows: dict[str, dict[str, str]] = {}
        self.before_after: dict[str, list[str]] = {}
        self.scripts: dict[str, str] = {}
        self.blocking: Counter[str] = Counter()
        self._open: list[tuple[str, str | None]] = []
        self._ids: list[str] = []
        self._figure = ""
        self._ba_key = ""
        self._in_td = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags[tag] += 1
        if "id" in a:
            self._ids.append(a["id"])
            self.text_by_id[a["id"]] = ""
        self._open.append((tag, a.get("id")))
        if tag == "figure":
            self._figure = a.get("id", "")
        if tag == "path" and "blocking" in a.get("class", ""):
            self.blocking[self._figure] += 1
        if tag == "tr" and "data-start" in a:
            self.rows.append(a)
        if tag == "tr" and "data-tus" in a:
            self.feature_rows[a["data-feature"]] = a
        if tag == "tr" and "data-key" in a:
            self._ba_key = a["data-key"]
            self.before_after[self._ba_key] = []
        self._in_td = tag == "td"

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            t, ident = self._open.pop()
            if ident:
                self._ids.remove(ident)
            if t == tag:
                break
        if tag == "tr":
            self._ba_key = ""

    def handle_data(self, data: str) -> None:
        for ident in self._ids:
            self.text_by_id[ident] += data
        if self._ba_key and self._in_td and data.strip():
            self.before_after[self._ba_key].append(data.strip())
        if self._open and self._open[-1][0] == "script" and self._open[-1][1]:
            self.scripts[self._open[-1][1]] = self.scripts.get(self._open[-1][1], "") + data

    def num(self, ident: str) -> int:
        return int(self.text_by_id[ident].strip().replace(",", ""))


@pytest.fixture(scope="module")
def sample() -> tuple[ScanResult, dict[str, Any], Page]:
    result = run_scan(MINI_SGLANG, ["deepseek_v2"])
    return result, manifest_of(result), Page(render_html(result))


def test_cards_equal_manifest_totals(sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, manifest, page = sample
    t = manifest["totals"]
    # 214: model_runner's TYPE_CHECKING import of SpecInfo stays (an annotation names it),
    # and so does utils/spec_info.py, the module it names (a typing-only import of remaining
    # code must resolve: the user's type checker reads it);
    # llama.py (16 lines with its `from torch import nn`) goes whole; model_runner's
    # `from ...common import is_npu` goes with the folded `if is_npu():`, its only reader;
    # server_args' `"fa3" if is_fa3_supported() else "triton"` folds with its condition, so
    # its import of is_fa3_supported goes (utils/fa3_check.py keeps mini_kernel.flash_attn)
    assert page.num("total-lines") == t["lines_removable"] == 214
    assert page.num("total-files") == t["files_removable"] == 14
    assert page.num("total-tus") == t["translation_units_removed"] == 6
    assert page.num("total-fetches") == t["fetches_no_longer_needed"] == 1
    assert page.num("total-deletions") == t["deletions"] == len(manifest["deletions"])
    assert page.num("visible-rows") == len(manifest["deletions"])
    assert page.num("visible-lines") == sum(d["lines"] for d in manifest["deletions"])


def test_per_feature_cards(sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, manifest, page = sample
    # fa3: flash_fwd.cu + flash_extension.cc; flashmla: mla_metadata.cu,
    # flashmla_extension.cc and the two fetched sources of flashmla_ops (repo-flashmla)
    # ascend: its npu file (2 lines) and the three folds on its constant is_npu = False
    # (layernorm.py 3-4 and 13-14, model_runner.py 26-27: 2 lines each), and what runs once
    # ascend is kept (its share): the function only a fold calls (model_runner.
    # load_platform_ops, 4 lines) and model_runner.py's import of is_npu (1); fa3 also takes
    # server_args.py's import of is_fa3_supported, which only its fold read (1)
    known = {"fa3": ("51", "3", "2", "0"), "flashmla": ("101", "6", "4", "1"),
             "ascend": ("13", "1", "0", "0")}
    for f in manifest["profile"]["features"]:
        row = page.feature_rows[f["name"]]
        assert (row["data-lines"], row["data-files"]) == (str(f["lines_removable"]),
                                                          str(f["files_removable"]))
        assert (row["data-lines"], row["data-files"], row["data-tus"],
                row["data-fetches"]) == known[f["name"]]
        assert row["data-blocked"] == str(len(f["blocked"]))
        # the manifest carries the row's translation units too
        assert str(f["translation_units_removable"]) == known[f["name"]][2]


def test_before_after(sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, manifest, page = sample
    t, ds = manifest["totals"], manifest["deletions"]
    whole_py = sum(1 for d in ds if d["kind"] == "delete_file" and d["path"].endswith(".py"))
    py_lines = sum(d["lines"] for d in ds if d["path"].endswith(".py"))
    native = sum(1 for d in ds if d["category"] == "native-file")
    ba = {k: (int(v[1].replace(",", "")), int(v[2].replace(",", "")))
          for k, v in page.before_after.items()}
    # 39 with utils/fa3_check.py; 31 left, utils/spec_info.py among them (a typing-only
    # import of model_runner names it)
    assert ba["python_files"] == (t["python_files"], t["python_files"] - whole_py) == (39, 31)
    assert ba["python_lines"] == (t["python_lines"], t["python_lines"] - py_lines)
    assert ba["native_files"] == (t["native_files"], t["native_files"] - native) == (14, 9)
    assert ba["targets"] == (3, 1)


def test_every_deletion_is_a_row(sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, manifest, page = sample

    def key(path: str, start: int, end: int, lines: int, feature: str, kind: str,
            category: str) -> tuple[str, int, int, int, str, str, str]:
        return path, start, end, lines, feature, kind, category

    shown = Counter(key(r["data-path"], int(r["data-start"]), int(r["data-end"]),
                        int(r["data-lines"]), r["data-feature"], r["data-kind"],
                        r["data-category"]) for r in page.rows)
    expected = Counter(key(d["path"], d.get("start_line", 0), d.get("end_line", 0), d["lines"],
                           d["feature"], d["kind"], d["category"])
                       for d in manifest["deletions"])
    assert shown == expected
    assert sum(1 for r in page.rows if r["data-feature"] == "flashmla") == sum(
        1 for d in manifest["deletions"] if d["feature"] == "flashmla")


def test_file_panel_data_marks_dead_ranges(
        sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, _, page = sample
    files = json.loads(page.scripts["file-data"])
    reg = files[f"{PY}/layers/attention/attention_registry.py"]
    assert not reg["whole"] and reg["dead"] == [[19, 23], [26, 30]]
    dead = [r[0] for r in reg["rows"] if r[2]]
    assert dead == [*range(19, 24), *range(26, 31)]
    by_line = {r[0]: r[1] for r in reg["rows"]}
    assert by_line[19] == '@register_attention_backend("fa3")'
    whole = files[f"{PY}/layers/attention/flashmla_backend.py"]
    assert whole["whole"] and all(r[2] for r in whole["rows"] if r[0] is not None)


def test_why_data_rebuilds_chain_steps(sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    from analyzer.outputs.why_index import LiveTree

    result, _, page = sample
    why = json.loads(page.scripts["why-data"])
    tree = LiveTree(why)
    searchable = [i for i, r in enumerate(tree.rows) if r[7] == "1"]
    assert len(searchable) == why["searchable"] > 30
    for i in searchable:
        node = tree.rows[i][0]
        assert tree.steps(i) == chain_steps(result.graph, result.liveness, node,
                                            result.root_reasons)
    keys = {tree.search_key(i) for i in searchable}
    assert {"minisgl.srt.server_args", "mini_kernel.flash_attn:is_fa3_supported"} <= keys
    assert not keys & {"minisgl.srt.layers.attention.flashmla_backend"}  # dead
    # classes, functions and methods are searchable (the report said "may be dead")
    assert "minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM" in keys
    assert any(k.startswith("minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM.")
               for k in keys)


def test_dependency_view_marks_blocking_edges(
        sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    _, _, page = sample
    # fa3 is blocked twice, by utils/fa3_check.py importing mini_kernel.flash_attn and
    # reading its is_fa3_supported
    assert page.blocking == Counter({"dep-fa3": 2})
    assert page.tags["svg"] == 3
    # method_selection: FA3's backend module stays, kept by the `hybrid` entry's method
    # (DraftBackendFactory -> _create_fa3_prefill_backend -> pkg.fa3_backend); flashmla and
    # npu are removable whole: no edge keeps them
    page = Page(render_html(run_scan(SAMPLES / "method_selection", [])))
    assert page.blocking["dep-fa3"] >= 2
    assert page.blocking["dep-flashmla"] == page.blocking["dep-npu"] == 0


def test_hostile_names_are_escaped(tmp_path: Path) -> None:
    evil_py = 'x"><img src=x onerror=alert(1)><marquee>y.py'
    evil_cu = "evil<marquee>bold<script>alert(1)<script>.cu"
    write_tree(tmp_path, {
        "pkg/__init__.py": "from pkg import util\n",
        "pkg/util.py": "def used():\n    return 1\n\n\ndef unused():\n    return 2\n",
        f"pkg/{evil_py}": "def (:\n",
        f"csrc/{evil_cu}": "int f() { return 1; }\n",
        # installed into pkg and imported only by pkg/old.py, which nothing imports: a target
        # whose loader is known, and dead (a target nothing is shown to load is kept)
        "CMakeLists.txt": "project(t)\nadd_library(dead_ops SHARED csrc/" + evil_cu + ")\n"
                          "install(TARGETS dead_ops LIBRARY DESTINATION pkg)\n",
        "pkg/old.py": "import pkg.dead_ops\n",
    })
    result = run_scan(tmp_path, ["pkg"])
    html = render_html(result)
    page = Page(html)
    assert page.tags["img"] == 0 and page.tags["marquee"] == 0
    assert page.tags["script"] == 3  # two JSON blobs and the page's own script
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "evil&lt;marquee&gt;bold&lt;script&gt;" in html
    assert f"pkg/{evil_py}" in page.text_by_id["parse-problems"]
    files = json.loads(page.scripts["file-data"])
    assert any(evil_cu in r[1] for r in files["CMakeLists.txt"]["rows"] if r[0])


def test_a_blocker_line_is_marked_in_a_file_with_deletions() -> None:
    from analyzer.outputs.html import file_excerpts

    # method_selection: pkg/draft.py loses entries and methods, and its line 15 (the
    # "hybrid" entry naming _create_fa3_prefill_backend) keeps FA3's backend
    rows = file_excerpts(run_scan(SAMPLES / "method_selection", []))["pkg/draft.py"]["rows"]
    flags = {r[0]: r[2] for r in rows if r[0] is not None}
    assert flags[15] == 2 and flags[13] == 1 and flags[14] == 0


@pytest.mark.parametrize("sample", ["mini_sglang", "blocker_story", "method_selection",
                                    "value_selection"])
def test_no_duplicate_ids(sample: str) -> None:
    import re
    from collections import Counter

    html = render_html(run_scan(SAMPLES / sample, ["deepseek_v2"] if sample == "mini_sglang"
                                else []))
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    assert [i for i, n in ids.items() if n > 1] == []


def test_the_feature_table_leads_to_the_blockers(
        sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    """Issue 51, item 4 (mini_sglang, root deepseek_v2): fa3 has 2 blocked items, kept by
    utils/fa3_check.py -- its call of is_fa3_supported (line 8) frees one, so it is the top
    blocker; the count and the top blocker link to fa3's heading in the blocked section."""
    result, _, _ = sample
    html = render_html(result)
    row = html.split('data-feature="fa3"', 1)[1].split("</tr>", 1)[0]
    assert '<a href="#blocked-fa3" class="to-blockers" title="its blockers">2</a>' in row
    top = row.split('<td class="top-blocker">', 1)[1]
    assert top.startswith('<a href="#blocked-fa3" class="to-blockers"><code>'
                          'python/minisgl/srt/utils/fa3_check.py:8</code></a>')
    assert "(frees 1)" in top
    assert '<h3 id="blocked-fa3">fa3 (2 blocked)</h3>' in html


def test_zero_cards_are_not_red_and_parse_problems_say_what_they_are(tmp_path: Path) -> None:
    # nothing dead: the removable cards are zero, so plain
    tree = write_tree(tmp_path / "t", {"app/__init__.py": "", "app/main.py": "X = 1\n"})
    html = render_html(run_scan(tree, ["app.main"]))
    assert '<div class="card main zero"><b id="total-lines">0</b>' in html
    assert '<div class="card main zero"><b id="total-files">0</b>' in html
    assert "parse problems: files or constructs that did not parse; depgraph keeps them" in html


def test_the_dependency_view_shows_whole_names_grouped_by_module(
        sample: tuple[ScanResult, dict[str, Any], Page]) -> None:
    result, _, _ = sample
    html = render_html(result)
    fa3 = html.split('<figure class="dep" id="dep-fa3">', 1)[1].split("</figure>", 1)[0]
    assert "…" not in fa3
    # the caption of a module group, then a box with a name inside it
    assert '<text class="group"' in fa3 and ">mini_kernel.flash_attn</text>" in fa3
    assert ">is_fa3_supported</text>" in fa3
