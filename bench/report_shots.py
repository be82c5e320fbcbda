"""Screenshots of a report in a real browser (Debian's chromium through Playwright), with the
checks a reader makes: the feature rows filter the deletions, the blockers lead with the edit,
the why-search finds a method, no duplicate ids, no page errors.

    python bench/report_shots.py OUT_FOLDER LABEL WHY_QUERY [--shots DIR]

A development tool: it opens the report a scan wrote (OUT_FOLDER/report.html), never the
scanned code.
"""
import argparse
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("out", type=Path)
parser.add_argument("label")
parser.add_argument("why")
parser.add_argument("--shots", type=Path, default=Path("report-shots"))
opts = parser.parse_args()
out, label, why_class, shots = opts.out, opts.label, opts.why, opts.shots
shots.mkdir(parents=True, exist_ok=True)
args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
    page = b.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t = time.time()
    page.goto((out / "report.html").as_uri())
    page.wait_for_load_state("load")
    print("load", round(time.time() - t, 2), "s")
    page.screenshot(path=shots / f"{label}-top.png")
    page.locator("#feature-totals").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"{label}-features.png")
    page.click("#feature-totals tr[data-filter='flashmla']")
    shown = (page.text_content("#visible-rows"), page.text_content("#visible-lines"))
    print("filter flashmla:", page.input_value("#feature-filter"), *shown)
    page.locator("#deletions").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"{label}-flashmla-rows.png")
    page.click("#feature-totals tr[data-filter='-']")
    print("other dead code:", page.text_content("#visible-rows"),
          page.text_content("#visible-lines"))
    page.select_option("#feature-filter", "")
    t = page.locator("table.blockers[data-feature='fa3']")
    if t.count():
        t.scroll_into_view_if_needed()
        page.screenshot(path=shots / f"{label}-fa3-blockers.png")
        print("fa3 blockers first row:", (t.locator("tbody tr").first.text_content() or "")[:200])
    page.fill("#why-input", why_class)
    page.wait_for_timeout(1500)
    print("why", why_class, ":", (page.text_content("#why-chain") or "")[:300].replace("\n", " | "))
    page.locator("#why-chain").scroll_into_view_if_needed()
    page.screenshot(path=shots / f"{label}-why.png")
    ids = page.evaluate(
        "() => { const s = new Set(), d = [];"
        " for (const e of document.querySelectorAll('[id]')) {"
        " if (s.has(e.id)) d.push(e.id); s.add(e.id); } return d; }")
    print("duplicate ids:", ids[:5], "page errors:", errors[:3])
    b.close()
