"""The time benchmark (bench/hot_spots.py) stays wired to the pipeline, on
sample_repos/what_frees (see tests/plan/test_what_frees.py): flashmla is dropped and blocked
by the NSA backend. One process runs the scan's rounds, the plans of the shares (keeping
flashmla; keeping every dropped feature), the two plans of what frees flashmla (nsa dropped
too: keeping flashmla, keeping none) and the gate's copy. (Seconds are machine facts: only
counts are checked.)"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import ROOT

SCRIPT = ROOT / "bench" / "hot_spots.py"
SAMPLE = ROOT / "sample_repos" / "what_frees"


def test_times_each_step_and_logs_the_rules_of_every_run(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(SAMPLE), "--no-cache",
                           "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    steps = {m[1]: int(m[2].replace(",", "")) for m in
             re.finditer(r"^\| ([\w.]+) \| [\d.]+ \| ([\d,]+) \| \d+% \|$", done.stdout, re.M)}
    assert steps["plan_under"] == 4  # two shares, two plans of what frees flashmla
    assert steps["verify_applied"] == 1
    assert steps["run_apply"] == 1  # (the gate applies the manifest to its copy)
    runs = [(float(m[1]), int(m[2]), float(m[3]), m[4].split() if m[4] != "-" else [])
            for m in re.finditer(r"^\| \d+ \| ([\d.]+) \| (\d+) \| ([\d.]+) \| ([\w -]+?) \|$",
                                 done.stdout, re.M)]
    assert len(runs) == 4 + 2  # and the scan's own rounds, and the gate's copy's
    assert sum(r[1] for r in runs) == steps["Rounds._round"] == steps["Rounds._rules"]
    for seconds, rounds, first, fired in runs:
        assert first <= seconds  # (the first round is part of its run)
        # every round but the settling one kept more by exactly one rule
        assert len(fired) == rounds - 1
        assert set(fired) <= {"unused_roots", "present", "selected", "conflicts", "freed"}
    assert (tmp_path / "out" / "manifest.json").is_file()
