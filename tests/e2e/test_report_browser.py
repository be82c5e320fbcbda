"""HTML report in a real browser (Playwright + Debian chromium): counts, filters, file panel,
why-lookup, and screenshots in ``test-artifacts/``. Skipped when either is missing; CI
installs both."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analyzer.outputs.html import write_html
from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, ROOT

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("DEPGRAPH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "test-artifacts"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="no chromium binary")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("report")
    result = run_scan(MINI_SGLANG, ["deepseek_v2"])
    write_manifest(result, out / "manifest.json")
    write_html(result, out / "report.html")
    return out / "report.html", json.loads((out / "manifest.json").read_text())


@pytest.fixture(scope="module")
def page(report: tuple[Path, dict[str, Any]]) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        requests: list[str] = []
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto(report[0].as_uri())
        yield pg
        assert not errors, errors
        assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        browser.close()


def _int(page: Any, sel: str) -> int:
    return int(page.text_content(sel).strip().replace(",", ""))


def _wait_rows(page: Any, n: int) -> None:
    page.wait_for_function(f"document.querySelector('#visible-rows').textContent === '{n:,}'")


def test_counts_match_manifest(page: Any, report: tuple[Path, dict[str, Any]]) -> None:
    manifest = report[1]
    t = manifest["totals"]
    assert _int(page, "#total-lines") == t["lines_removable"]
    assert _int(page, "#total-files") == t["files_removable"]
    assert _int(page, "#total-tus") == t["translation_units_removed"]
    assert _int(page, "#total-fetches") == t["fetches_no_longer_needed"]
    assert _int(page, "#visible-rows") == len(manifest["deletions"])
    assert _int(page, "#visible-lines") == sum(d["lines"] for d in manifest["deletions"])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)


def test_feature_filter_and_sort(page: Any, report: tuple[Path, dict[str, Any]]) -> None:
    ds = [d for d in report[1]["deletions"] if d["feature"] == "flashmla"]
    page.select_option("#feature-filter", "flashmla")
    assert _int(page, "#visible-rows") == len(ds)
    assert _int(page, "#visible-lines") == sum(d["lines"] for d in ds)
    assert page.locator("#deletions tbody tr:visible").count() == len(ds)
    page.fill("#filter", ".cu")
    _wait_rows(page, sum(1 for d in ds if ".cu" in d["path"] or ".cu" in d["reason"]))
    page.fill("#filter", "")
    page.select_option("#feature-filter", "")
    _wait_rows(page, len(report[1]["deletions"]))
    page.click("#deletions th[data-sort=lines]")
    page.click("#deletions th[data-sort=lines]")  # descending
    first = page.locator("#deletions tbody tr").first.get_attribute("data-lines")
    assert int(first or 0) == max(d["lines"] for d in report[1]["deletions"])


def test_file_panel_highlights_manifest_ranges(page: Any,
                                               report: tuple[Path, dict[str, Any]]) -> None:
    by_path: dict[str, list[dict[str, Any]]] = {}
    for d in report[1]["deletions"]:
        by_path.setdefault(d["path"], []).append(d)
    path = next(p for p, ds in sorted(by_path.items())
                if len(ds) > 1 and all("start_line" in d for d in ds))
    expected = sorted({n for d in by_path[path]
                       for n in range(d["start_line"], d["end_line"] + 1)})
    page.click(f'#files a.open-file[data-path="{path}"]')
    assert page.is_visible("#file-panel")
    assert page.text_content("#panel-path") == path
    shown = [int(t) for t in page.locator("#panel-source tr.dead td.ln").all_text_contents()]
    assert shown == expected
    page.screenshot(path=str(ARTIFACTS / "file-panel.png"))
    page.click("#panel-close")
    assert not page.is_visible("#file-panel")


def test_why_lookup_shows_chain(page: Any) -> None:
    page.fill("#why-input", "minisgl.srt.server_args")
    page.wait_for_function("document.querySelector('#why-chain').textContent.includes('->')")
    chain = page.text_content("#why-chain")
    assert chain.splitlines()[1].startswith("root ")
    assert "  -> minisgl.srt.server_args (python/minisgl/srt/server_args.py)  [import at" \
        in chain
    # dead: the plan deletes the file (flashmla's backend, nothing imports it)
    page.fill("#why-input", "flashmla_backend")
    page.wait_for_function("document.querySelector('#why-chain').textContent.includes('dead')")
    dead = page.text_content("#why-chain").splitlines()
    assert dead[0] == ("minisgl.srt.layers.attention.flashmla_backend (python/minisgl/srt/"
                       "layers/attention/flashmla_backend.py) is dead: the plan deletes it.")
    assert dead[1] == "It belongs to dropped feature flashmla."
    assert dead[2].startswith("  python/minisgl/srt/layers/attention/flashmla_backend.py: ")


def test_dependency_view_screenshot(page: Any) -> None:
    view = page.locator("#dep-view")
    view.scroll_into_view_if_needed()
    assert page.locator("#dep-fa3 path.edge.blocking").count() == 2
    view.screenshot(path=str(ARTIFACTS / "dependency-view.png"))


def test_blockers_table_opens_the_blocker_line_and_the_chain(page: Any) -> None:
    # mini_sglang's fa3 is kept by utils/fa3_check.py: its call (line 8), which frees one
    # item, and its import (5), which frees nothing alone: folded below the table
    table = page.locator("table.blockers[data-feature='fa3']")
    table.scroll_into_view_if_needed()
    assert table.locator("tbody tr").count() == 1
    folded = page.locator("details.blockers-folded[data-feature='fa3']")
    assert folded.locator("summary").text_content() == \
        "1 more place in live code that frees nothing alone"
    assert "fa3_check.py:5" in (folded.locator("tbody tr").text_content() or "")
    table.locator("a.open-file").first.click()
    assert page.is_visible("#file-panel")
    assert page.text_content("#panel-path") == "python/minisgl/srt/utils/fa3_check.py"
    marked = page.locator("#panel-source tr.blocker td.ln").all_text_contents()
    assert marked == ["5", "8"]
    page.screenshot(path=str(ARTIFACTS / "blocker-line.png"))
    page.click("#panel-close")
    table.locator("a[data-why]").first.click()
    page.wait_for_function("document.querySelector('#why-chain').textContent.includes('->')")
    assert "mini_kernel.flash_attn:is_fa3_supported" in page.text_content("#why-chain")


def test_dependency_view_boxes_lead_to_the_chain(page: Any) -> None:
    box = page.locator("#dep-fa3 g.box[data-why]").first
    box.scroll_into_view_if_needed()
    box.click()
    page.wait_for_function("document.querySelector('#why-chain').textContent.includes('root ')")
    assert page.input_value("#why-input") == box.get_attribute("data-why")


def test_a_feature_row_filters_the_deletions(page: Any,
                                            report: tuple[Path, dict[str, Any]]) -> None:
    ds = [d for d in report[1]["deletions"] if d["feature"] == "fa3"]
    page.click("#feature-totals tr[data-filter='fa3']")
    _wait_rows(page, len(ds))
    assert page.input_value("#feature-filter") == "fa3"
    assert _int(page, "#visible-lines") == sum(d["lines"] for d in ds)
    # the other dead code row: deletions that go with no dropped feature
    other = [d for d in report[1]["deletions"] if not d["features"] and not d["with_features"]]
    page.click("#feature-totals tr[data-filter='-']")
    _wait_rows(page, len(other))
    assert _int(page, "#visible-lines") == report[1]["totals"]["lines_other"]
    page.select_option("#feature-filter", "")
    _wait_rows(page, len(report[1]["deletions"]))


def test_why_search_finds_classes_and_methods(page: Any) -> None:
    page.fill("#why-input", "DeepseekV2ForCausalLM.forward")
    page.wait_for_function("document.querySelector('#why-chain').textContent"
                           ".startsWith('minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM')")
    chain = page.text_content("#why-chain").splitlines()
    assert chain[0] == ("minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM.forward "
                        "(python/minisgl/srt/models/deepseek_v2.py:16) is live:")
    assert chain[1].startswith("root minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM")
    assert chain[1].endswith("[a public definition of a root module (--roots deepseek_v2)]")


def test_a_blocked_count_leads_to_the_features_blockers(page: Any) -> None:
    """The per-feature table's blocked count (and its top blocker) link to the feature's
    blockers in the blocked section; the click does not filter the deletion table."""
    page.select_option("#feature-filter", "")
    row = page.locator("#feature-totals tr[data-feature='fa3']")
    assert "fa3_check.py:8" in (row.locator("td.top-blocker").text_content() or "")
    row.locator("a.to-blockers").first.click()
    page.wait_for_function("location.hash === '#blocked-fa3'")
    heading = page.locator("#blocked-fa3")
    assert heading.is_visible() and heading.text_content().startswith("fa3 (")
    box = heading.bounding_box()
    assert box is not None and 0 <= box["y"] < 1000  # scrolled to it
    assert page.input_value("#feature-filter") == ""
    page.screenshot(path=str(ARTIFACTS / "blocked-link.png"))
