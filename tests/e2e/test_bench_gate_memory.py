"""The gate's memory benchmark (bench/gate_memory.py) stays wired to the pipeline: run on a
small sample whose plan has deletions (so its gate verifies an applied copy), it reports the
scan's memory at the gate's start and what the copy adds; with ``--holders`` it attributes
the scan's memory to the attributes of its rounds, last plan and result, and stops before
writing anything. (Figures are machine facts: only their presence is checked.)"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

SCRIPT = ROOT / "bench" / "gate_memory.py"
SAMPLE = ROOT / "sample_repos" / "mini_sglang"
MB = r"[\d,]+\.\d MB"


def _run(tmp_path, *extra: str) -> str:
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(SCRIPT), str(SAMPLE), "--roots", "deepseek_v2",
                           "--no-cache", "--jobs", "1", "--out", str(out), *extra],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_reports_what_the_gates_copy_adds(tmp_path):
    text = _run(tmp_path)
    assert re.search(rf"the scan holds {MB} at the gate's start", text)
    assert re.search(rf"the gate's copy adds -?{MB} held at the end of its verify, -?{MB} at "
                     "its peak", text)
    assert "added by the gate, by file" in text and "added by the gate, by line" in text
    assert (tmp_path / "out" / "manifest.json").is_file()  # (the scan went on to its end)


def test_holders_attribute_the_scan_and_stop(tmp_path):
    text = _run(tmp_path, "--holders")
    for label, attribute in (("Rounds", "module_breaks"), ("Planned", "graph"),
                             ("ScanResult", "graph")):
        table = text.split(f"held by one attribute of the {label} and nothing left")[1]
        assert re.search(rf"{MB}  {label}\.{attribute}\n", table)
    assert not (tmp_path / "out" / "manifest.json").exists()  # (stopped at the gate)
