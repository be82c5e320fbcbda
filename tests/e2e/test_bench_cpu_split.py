"""The CPU benchmark (bench/cpu_split.py) stays wired to the pipeline, on
sample_repos/what_frees (see tests/plan/test_what_frees.py): flashmla is dropped and blocked
by the NSA backend. With two jobs the scan's process makes its own rounds, forks the plans
under other drops (the shares, what frees flashmla) and hands the gate's copy to a process of
its own, whose stages are reported apart. (Seconds are machine facts: only which stages and
processes are reported is checked.)"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

SCRIPT = ROOT / "bench" / "cpu_split.py"
SAMPLE = ROOT / "sample_repos" / "what_frees"
_ROW = re.compile(r"^\| (\w[\w ]*) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", re.M)


def _tables(out: str) -> list[dict[str, int]]:
    """Each stage table of the output: stage -> how many times it was timed."""
    return [{m[1]: int(m[2]) for m in _ROW.finditer(part)}
            for part in re.split(r"^the .*, by stage$", out, flags=re.M)[1:]]


def test_reports_the_scans_stages_and_the_gate_process_apart(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(SAMPLE), "--jobs", "2",
                           "--cache-dir", str(tmp_path / "cache"), "--out",
                           str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    scan, gate = _tables(done.stdout)
    # the scan's process: one gate, and the waits for the plans under other drops
    assert scan["gate"] == 1
    assert scan["shares"] == 1 and scan["frees"] == 1
    assert scan["extract"] >= 1 and scan["plan"] >= 1
    # the gate's process scanned the applied copy (its own rounds), and gated nothing
    assert gate["extract"] >= 1 and gate["plan"] >= 1
    assert "gate" not in gate and "shares" not in gate
    assert re.search(r"^\| the gate's \(its own \+ its workers\) \| [\d.]+ \| [\d.]+ \+ [\d.]+ \|$",
                     done.stdout, re.M)
    assert re.search(r"^\| the scan's workers \| \| -?[\d.]+ \|$", done.stdout, re.M)
    assert (tmp_path / "out" / "manifest.json").is_file()
